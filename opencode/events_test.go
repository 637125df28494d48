package opencode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// samplePath is GET /global/event recorded from a real opencode 1.18.33:
// questions, permissions, their answers, sessions going idle, and the
// streaming noise between them.
const samplePath = "testdata/global-events.sample.txt"

func readSample(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(samplePath)
	if err != nil {
		tb.Fatalf("sample stream: %v", err)
	}
	return b
}

// readAll returns every event of r, failing on any error but io.EOF.
func readAll(tb testing.TB, er *opencode.EventReader) []opencode.Event {
	tb.Helper()
	var evs []opencode.Event
	for {
		ev, err := er.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			tb.Fatalf("Next: %v", err)
		}
		evs = append(evs, ev)
	}
}

func TestEventReaderSample(t *testing.T) {
	logs := newLogBuffer()
	er := opencode.NewEventReader(bytes.NewReader(readSample(t)), 0, logs.logger())
	evs := readAll(t, er)

	counts := map[string]int{}
	for _, ev := range evs {
		counts[ev.Type]++
	}
	want := map[string]int{
		opencode.TypeQuestionAsked:     4,
		opencode.TypeQuestionReplied:   2,
		opencode.TypeQuestionRejected:  1,
		opencode.TypePermissionAsked:   1,
		opencode.TypePermissionReplied: 1,
		opencode.TypeSessionIdle:       6,
		opencode.TypeSessionError:      1,
		opencode.TypeServerConnected:   1,
		opencode.TypeServerHeartbeat:   53,
	}
	for typ, n := range want {
		if counts[typ] != n {
			t.Errorf("%d %s events, want %d", counts[typ], typ, n)
		}
	}
	if len(counts) != len(want) {
		t.Errorf("event types %v, want only %v", counts, want)
	}
	if s := logs.String(); s != "" {
		t.Errorf("the sample made warnings:\n%s", s)
	}
	if evs[0].Type != opencode.TypeServerConnected || evs[0].Directory != "" {
		t.Errorf("first event %+v, want server.connected without directory", evs[0])
	}

	var asked []*opencode.QuestionRequest
	for _, ev := range evs {
		if ev.Type == opencode.TypeQuestionAsked {
			if ev.Directory != "/home/user/projects/demo" || ev.Project != "global" || ev.Listed {
				t.Errorf("question.asked with directory %q project %q listed %v", ev.Directory, ev.Project, ev.Listed)
			}
			asked = append(asked, ev.QuestionAsked)
		}
		if ev.Type == opencode.TypeSessionError {
			if ev.SessionError.SessionID != "ses_dd4235358ffeK4sOj0rQeppn49" ||
				!strings.Contains(string(ev.SessionError.Error), "MessageAbortedError") {
				t.Errorf("session.error = %+v", ev.SessionError)
			}
		}
		if ev.Type == opencode.TypePermissionAsked {
			p := ev.PermissionAsked
			var meta struct{ Command string }
			_ = json.Unmarshal(p.Metadata, &meta)
			if p.ID != "per_22bdd0931001wvdiQDabK1x74Y" || p.Permission != "bash" ||
				meta.Command != "echo hello-from-bash > out.txt" || len(p.Always) != 1 {
				t.Errorf("permission.asked = %+v (metadata %s)", p, p.Metadata)
			}
		}
		if ev.Type == opencode.TypePermissionReplied && ev.PermissionReplied.Reply != "once" {
			t.Errorf("permission.replied = %+v", ev.PermissionReplied)
		}
	}
	first := asked[0]
	if first.ID != "que_22bdcce52001LOmJntvMuJR56F" || first.Tool == nil ||
		first.Tool.CallID != "call_1796032220682" || len(first.Questions) != 1 ||
		len(first.Questions[0].Options) != 2 || first.Questions[0].Options[1].Description != "embedded" {
		t.Errorf("first question.asked = %+v", first)
	}
	multi := asked[2]
	if len(multi.Questions) != 2 || !multi.Questions[0].Multiple || multi.Questions[1].Multiple {
		t.Errorf("multi-question request = %+v", multi)
	}
}

// record returns one SSE record holding data.
func record(data string) string { return "data: " + data + "\n\n" }

func idle(session string) string {
	return fmt.Sprintf(`{"directory":"/d","project":"global","payload":{"id":"evt_1","type":"session.idle","properties":{"sessionID":%q}}}`, session)
}

// A question.asked record padded with x's in the question text.
const (
	paddedHead = `{"directory":"/d","payload":{"type":"question.asked","properties":{"id":"que_big","sessionID":"ses_1","questions":[{"question":"`
	paddedTail = `","options":[]}]}}}`
)

// padded returns a question.asked record of exactly n bytes.
func padded(tb testing.TB, n int) string {
	tb.Helper()
	return paddedHead + strings.Repeat("x", n-len(paddedHead)-len(paddedTail)) + paddedTail
}

func TestEventReaderRecordLimit(t *testing.T) {
	const limit = 4096
	logs := newLogBuffer()
	in := record(padded(t, limit)) + record(padded(t, limit+1)) + record(idle("ses_after"))
	evs := readAll(t, opencode.NewEventReader(strings.NewReader(in), limit, logs.logger()))
	if len(evs) != 2 || evs[0].Type != opencode.TypeQuestionAsked || evs[1].SessionIdle.SessionID != "ses_after" {
		t.Fatalf("events %+v, want the record of max bytes and the one after the long one", evs)
	}
	if n := len(logs.lines("too long")); n != 1 {
		t.Errorf("%d warnings about the long record, want 1:\n%s", n, logs.String())
	}
}

// xs is a reader of n bytes 'x', cheaper than building them.
type xs struct{ n int }

var xBlock = []byte(strings.Repeat("x", 32<<10))

func (r *xs) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], xBlock)
	r.n -= n
	return n, nil
}

// paddedReader streams record(padded(tb, n)) without building it.
func paddedReader(n int) io.Reader {
	return io.MultiReader(
		strings.NewReader("data: "+paddedHead),
		&xs{n: n - len(paddedHead) - len(paddedTail)},
		strings.NewReader(paddedTail+"\n\n"),
	)
}

func TestEventReaderHugeRecords(t *testing.T) {
	t.Parallel() // the slowest test here; let the others overlap it
	if testing.Short() {
		t.Skip("reads 33 MiB")
	}
	logs := newLogBuffer()
	const mib = 1 << 20
	in := io.MultiReader(
		paddedReader(17*mib),
		strings.NewReader(record(idle("ses_after_17"))),
		paddedReader(16*mib),
		strings.NewReader(record(idle("ses_after_16"))),
	)
	er := opencode.NewEventReader(in, 0, logs.logger())

	ev, err := er.Next()
	if err != nil || ev.Type != opencode.TypeSessionIdle || ev.SessionIdle.SessionID != "ses_after_17" {
		t.Fatalf("after a 17 MiB record: %+v, %v; want the next record", ev, err)
	}
	if n := len(logs.lines("too long")); n != 1 {
		t.Errorf("%d warnings about the 17 MiB record, want 1", n)
	}
	ev, err = er.Next()
	if err != nil || ev.Type != opencode.TypeQuestionAsked {
		t.Fatalf("16 MiB record: type %q, %v; want it accepted", ev.Type, err)
	}
	if got := len(ev.QuestionAsked.Questions[0].Question); got != 16*mib-len(paddedHead)-len(paddedTail) {
		t.Errorf("16 MiB record: question of %d bytes", got)
	}
	ev, err = er.Next()
	if err != nil || ev.SessionIdle == nil || ev.SessionIdle.SessionID != "ses_after_16" {
		t.Fatalf("after the 16 MiB record: %+v, %v", ev, err)
	}
}

func TestEventReaderSkipsBadRecords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		warn bool
	}{
		{"not JSON", record("hello there"), true},
		{"truncated JSON", record(`{"payload":{"type":"session.idle","prop`), true},
		{"array", record(`[1,2,3]`), true},
		{"no payload", record(`{"directory":"/d"}`), true},
		{"type not a string", record(`{"payload":{"type":42}}`), true},
		{"relevant with broken JSON", record(`{"payload":{"type":"question.asked","properties":{"id":}}}`), true},
		{"question without id", record(`{"payload":{"type":"question.asked","properties":{"sessionID":"s","questions":[{"question":"q","options":[]}]}}}`), true},
		{"question without questions", record(`{"payload":{"type":"question.asked","properties":{"id":"que_1","sessionID":"s"}}}`), true},
		{"replied without requestID", record(`{"payload":{"type":"question.replied","properties":{"sessionID":"s"}}}`), true},
		{"permission without sessionID", record(`{"payload":{"type":"permission.asked","properties":{"id":"per_1"}}}`), true},
		{"idle without properties", record(`{"payload":{"type":"session.idle"}}`), true},
		{"properties of wrong shape", record(`{"payload":{"type":"session.idle","properties":[1]}}`), true},
		{"sync", record(`{"directory":"/d","payload":{"type":"sync","syncEvent":{"type":"question.asked.1"}}}`), false},
		{"unknown type", record(`{"payload":{"id":"e","type":"message.part.delta","properties":{"delta":"}{\"type\":"}}}`), false},
		{"an /api type not acted on", record(`{"payload":{"type":"session.next.tool.called","properties":{}}}`), false},
		{"nested type is not the type", record(`{"payload":{"properties":{"type":"session.idle","sessionID":"s"},"type":"session.status"}}`), false},
		{"comment", ": keep-alive\n\n", false},
		{"other fields", "event: message\nid: 7\nretry: 100\n\n", false},
		{"blank lines", "\n\n\n", false},
		{"field without colon", "data\n\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := newLogBuffer()
			in := tt.in + record(idle("ses_next"))
			evs := readAll(t, opencode.NewEventReader(strings.NewReader(in), 0, logs.logger()))
			if len(evs) != 1 || evs[0].SessionIdle == nil || evs[0].SessionIdle.SessionID != "ses_next" {
				t.Fatalf("events %+v, want only the good record after the bad one", evs)
			}
			warnings := len(logs.lines(`"level":"warn"`))
			if tt.warn && warnings != 1 {
				t.Errorf("%d warnings, want 1:\n%s", warnings, logs.String())
			}
			if !tt.warn && warnings != 0 {
				t.Errorf("warned about a record to skip silently:\n%s", logs.String())
			}
		})
	}
}

func TestEventReaderFieldsAndEscapes(t *testing.T) {
	in := "" +
		// A record split over several data lines is joined with "\n".
		"data: {\"payload\":\ndata: {\"type\":\"session.idle\",\ndata:\"properties\":{\"sessionID\":\"ses_multi\"}}}\n\n" +
		// CRLF line ends, and fields around the data.
		"event: x\r\nid: 3\r\ndata: " + idle("ses_crlf") + "\r\n\r\n" +
		// Keys and strings holding quotes, escapes and braces before the type.
		`data: {"directory":"/a \"payload\" {dir}\\","x":[{"payload":{"type":"sync"}},"]\\\""],"payload":{"id":"e\"}","type":"session.idle","properties":{"sessionID":"ses_esc"}}}` + "\n\n" +
		// Whitespace everywhere JSON allows it.
		"data:  { \"payload\" : { \"type\" : \"session.idle\" , \"properties\" : { \"sessionID\" : \"ses_ws\" } } }\n\n" +
		// An unfinished last record is dropped.
		"data: " + idle("ses_unfinished") + "\n"
	logs := newLogBuffer()
	evs := readAll(t, opencode.NewEventReader(strings.NewReader(in), 0, logs.logger()))
	var got []string
	for _, ev := range evs {
		got = append(got, ev.SessionIdle.SessionID)
	}
	want := []string{"ses_multi", "ses_crlf", "ses_esc", "ses_ws"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sessions %v, want %v; log:\n%s", got, want, logs.String())
	}
	if len(evs) > 2 && evs[2].Directory != `/a "payload" {dir}\` {
		t.Errorf("directory %q", evs[2].Directory)
	}
}

// errReader fails after its data.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		return n, e.err
	}
	return n, err
}

func TestEventReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	for _, tail := range []string{"", "data: {\"payl", ": comment without end"} {
		in := &errReader{strings.NewReader(record(idle("ses_1")) + tail), boom}
		er := opencode.NewEventReader(in, 0, zerolog.Nop())
		if ev, err := er.Next(); err != nil || ev.Type != opencode.TypeSessionIdle {
			t.Fatalf("first Next: %+v, %v", ev, err)
		}
		if _, err := er.Next(); !errors.Is(err, boom) {
			t.Errorf("tail %q: Next = %v, want the read error", tail, err)
		}
	}
}

func FuzzEventReader(f *testing.F) {
	f.Add([]byte(record(idle("s"))))
	f.Add([]byte("data: {\"payload\":{\"type\":\"question.asked\",\"properties\":{\"id\":\"q\"}}}\n\n"))
	f.Add([]byte("data: {\"payload\":{\"type\":\"\\\"\"}}\n\ndata:\ndata\n\n:\n\n"))
	f.Add([]byte("data: {\"a\":[[[{\"b\":\"\\\\\"}]]],\"payload\":{\"x\":tru,\"type\":\"sync\"}}\r\n\r\n"))
	// OpenCode 2's envelope and change records, read by the same input.
	f.Add([]byte(envelope("permission.asked", `{"id":"p","sessionID":"s","action":"bash","source":null}`)))
	f.Add([]byte("data: {\"data\":{\"type\":\"x\"},\"type\":\"session.execution.failed\",\"location\":7}\n\n: heartbeat\n\n"))
	f.Add([]byte("data: {\"type\":\"log.hint\",\"aggregateID\":\"ses_1\",\"seq\":1e99}\n\n"))
	f.Add([]byte(envelope("form.created", `{"form":{"id":"f","sessionID":"s","mode":"url","fields":[{"key":"k","type":"string","when":{"key":"a","op":"eq","value":1}}]}}`)))
	f.Add([]byte(envelope("form.replied", `{"id":"f","sessionID":"s","answer":{"a":[1]}}`) + envelope("form.cancelled", `{"id":"f"}`)))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, er := range []*opencode.EventReader{
			opencode.NewEventReader(bytes.NewReader(in), 1024, zerolog.Nop()),
			opencode.NewEventReader2(bytes.NewReader(in), 1024, zerolog.Nop()),
		} {
			for range 10000 {
				ev, err := er.Next()
				if err != nil {
					break
				}
				if ev.Type == "" {
					t.Fatalf("event without type from %q", in)
				}
				if strings.HasPrefix(ev.Type, "form.") && (ev.SessionID() == "" || ev.Generation != 2) {
					t.Fatalf("form event %+v without session or generation from %q", ev, in)
				}
			}
		}
		cr := opencode.NewChangeReader(bytes.NewReader(in), 1024, zerolog.Nop())
		for range 10000 {
			c, err := cr.Next()
			if err != nil {
				return
			}
			if !c.Sweep && c.AggregateID == "" {
				t.Fatalf("change without aggregate from %q", in)
			}
		}
	})
}

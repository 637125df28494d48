package opencode_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// openStream opens path of s with its basic auth, the body closed with
// the test.
func openStream(t *testing.T, s *opencodetest.Server, path string) io.Reader {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("opencode", s.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	return resp.Body
}

func nextEvent(t *testing.T, er *opencode.EventReader) opencode.Event {
	t.Helper()
	ev, err := er.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return ev
}

func TestEventReader2Server2(t *testing.T) {
	for _, spelling := range []string{opencode.TypePermissionV2Asked, opencode.TypePermissionAsked} {
		t.Run(spelling, func(t *testing.T) {
			// heartbeats between every record
			s := opencodetest.NewServer(opencodetest.WithOpencode2(), opencodetest.WithHeartbeat(time.Millisecond))
			s.SetPermissionEvent(spelling)
			defer s.Close()
			logs := newLogBuffer()
			er := opencode.NewEventReader2(openStream(t, s, "/api/event"), 0, logs.logger())
			if err := s.WaitConnections(testContext(t), 1); err != nil {
				t.Fatal(err)
			}

			if ev := nextEvent(t, er); ev.Type != opencode.TypeServerConnected || !strings.HasPrefix(ev.ID, "evt_") {
				t.Fatalf("first event %+v, want server.connected with its id", ev)
			}
			q := opencode.QuestionRequest{ID: "que_1", SessionID: "ses_1", Questions: []opencode.Question{{Question: "Which?", Options: []opencode.Option{{Label: "A"}}}}}
			s.Send(opencodetest.Event2{ID: "evt_located", Type: opencode.TypeQuestionV2Asked, Data: q, Location: map[string]string{"directory": "/home/me/app"}})
			s.AddPermission("", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1", Permission: "bash", Patterns: []string{"git status"},
				Tool: &opencode.ToolRef{MessageID: "msg_1", CallID: "call_1"}})
			s.SendRaw("data: {\"id\":\"evt_bad\",\"type\":\"question.v2.asked\",\"data\":{\"id\":}\n\n")
			q.ID = "que_2"
			s.AddQuestion("", q)

			ev := nextEvent(t, er)
			if ev.Type != opencode.TypeQuestionV2Asked || ev.ID != "evt_located" || ev.Directory != "/home/me/app" ||
				ev.Surface != opencode.SurfaceAPI || ev.QuestionAsked == nil || ev.QuestionAsked.ID != "que_1" ||
				ev.QuestionAsked.Surface != opencode.SurfaceAPI || ev.SessionID() != "ses_1" {
				t.Errorf("question event %+v", ev)
			}
			ev = nextEvent(t, er)
			p := ev.PermissionAsked
			if ev.Type != opencode.TypePermissionV2Asked || ev.Kind() != opencode.TypePermissionAsked || ev.Surface != opencode.SurfaceAPI ||
				p == nil || p.ID != "per_1" || p.Permission != "bash" || p.Surface != opencode.SurfaceAPI ||
				len(p.Patterns) != 1 || p.Tool == nil || p.Tool.CallID != "call_1" || ev.Directory != "" {
				t.Errorf("permission event %+v (request %+v)", ev, p)
			}
			ev = nextEvent(t, er)
			if ev.QuestionAsked == nil || ev.QuestionAsked.ID != "que_2" {
				t.Errorf("after the malformed record: %+v, want que_2", ev)
			}
			if n := len(logs.lines(`"level":"warn"`)); n != 1 {
				t.Errorf("%d warnings, want 1 for the malformed record:\n%s", n, logs.String())
			}
		})
	}
}

func TestChangeReaderServer2(t *testing.T) {
	s := opencodetest.NewServer(opencodetest.WithOpencode2())
	defer s.Close()
	logs := newLogBuffer()
	cr := opencode.NewChangeReader(openStream(t, s, "/api/event/changes"), 0, logs.logger())
	if err := s.WaitChangesConnections(testContext(t), 1); err != nil {
		t.Fatal(err)
	}
	next := func() opencode.Change {
		t.Helper()
		c, err := cr.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		return c
	}
	if c := next(); c != (opencode.Change{Sweep: true}) {
		t.Fatalf("first change %+v, want the sweep marker", c)
	}
	s.AddQuestion("", opencode.QuestionRequest{ID: "que_1", SessionID: "ses_7", Questions: []opencode.Question{{Question: "q"}}})
	s.AddQuestion("", opencode.QuestionRequest{ID: "que_2", SessionID: "ses_7", Questions: []opencode.Question{{Question: "q"}}})
	s.SweepRequired()
	for i, want := range []opencode.Change{{AggregateID: "ses_7", Seq: 1}, {AggregateID: "ses_7", Seq: 2}, {Sweep: true}} {
		if c := next(); c != want {
			t.Errorf("change %d: %+v, want %+v", i, c, want)
		}
	}
	if s := logs.String(); s != "" {
		t.Errorf("warnings:\n%s", s)
	}
}

// envelope returns a record of GET /api/event of type typ with data.
func envelope(typ, data string) string {
	return record(fmt.Sprintf(`{"id":"evt_1","created":1767225600000,"type":%q,"data":%s,"location":{"directory":"/d"}}`, typ, data))
}

// Every event of the contract is decoded or deliberately skipped.
func TestEventReader2Contract(t *testing.T) {
	decoded := map[string]string{ // contract type → Event type; "" skipped
		"form.created":                  opencode.TypeFormCreated,
		"form.replied":                  opencode.TypeFormReplied,
		"form.cancelled":                opencode.TypeFormCancelled,
		"question.v2.asked":             opencode.TypeQuestionV2Asked,
		"permission.v2.asked":           opencode.TypePermissionV2Asked,
		"permission.asked":              opencode.TypePermissionV2Asked,
		"session.execution.succeeded":   opencode.TypeSessionIdle,
		"session.execution.failed":      opencode.TypeSessionError,
		"session.execution.interrupted": "",
		"session.status":                "",
		"server.connected":              opencode.TypeServerConnected,
	}
	changes := map[string]opencode.Change{
		"log.sweep_required": {Sweep: true},
		"log.hint":           {AggregateID: "ses_1", Seq: 3},
	}
	for _, e := range opencode.Contract2() {
		if e.Kind != opencode.ContractEvent {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			logs := newLogBuffer()
			if want, ok := changes[e.Name]; ok {
				c, err := opencode.NewChangeReader(strings.NewReader(record(e.Example)), 0, logs.logger()).Next()
				if err != nil || c != want {
					t.Errorf("change %+v, %v; want %+v", c, err, want)
				}
				return
			}
			want, ok := decoded[e.Name]
			if !ok {
				t.Fatalf("event %s of %s: decode it or skip it on purpose", e.Name, e.Stream)
			}
			evs := readAll(t, opencode.NewEventReader2(strings.NewReader(envelope(e.Name, e.Example)), 0, logs.logger()))
			if s := logs.String(); s != "" {
				t.Errorf("warnings:\n%s", s)
			}
			if want == "" {
				if len(evs) != 0 {
					t.Errorf("decoded %+v, want it skipped", evs)
				}
				return
			}
			if len(evs) != 1 {
				t.Fatalf("events %+v, want one %s", evs, want)
			}
			ev := evs[0]
			if ev.Type != want || ev.ID != "evt_1" || ev.Directory != "/d" || ev.Generation != 2 {
				t.Errorf("event %+v, want type %s, id evt_1, directory /d, generation 2", ev, want)
			}
			if want != opencode.TypeServerConnected && ev.SessionID() != "ses_1" {
				t.Errorf("session %q, want ses_1", ev.SessionID())
			}
			if ev.Type == opencode.TypeSessionError && !strings.Contains(string(ev.SessionError.Error), "rate limited") {
				t.Errorf("error %s", ev.SessionError.Error)
			}
			if strings.HasPrefix(want, "form.") && ev.Surface != opencode.SurfaceAPI {
				t.Errorf("form event of surface %v", ev.Surface)
			}
			if f := ev.FormAsked; want == opencode.TypeFormCreated && (f == nil || f.ID != "frm_1" || len(f.Fields) != 6 || f.Fields[1].When[0].Key != "target") {
				t.Errorf("form %+v", f)
			}
			if r := ev.FormReplied; want == opencode.TypeFormReplied && (r == nil || r.ID != "frm_1" || !strings.Contains(string(r.Answer), "hotfix")) {
				t.Errorf("form.replied %+v", r)
			}
			if c := ev.FormCancelled; want == opencode.TypeFormCancelled && (c == nil || c.ID != "frm_1") {
				t.Errorf("form.cancelled %+v", c)
			}
		})
	}
}

func TestEventReader2Records(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // the Event type, "" for a record skipped
		warn     bool
	}{
		{"question replied", envelope("question.v2.replied", `{"sessionID":"ses_1","requestID":"que_1","answers":[["A"]]}`), opencode.TypeQuestionV2Replied, false},
		{"question rejected", envelope("question.v2.rejected", `{"sessionID":"ses_1","requestID":"que_1"}`), opencode.TypeQuestionV2Rejected, false},
		{"permission replied", envelope("permission.v2.replied", `{"sessionID":"ses_1","requestID":"per_1","reply":"once"}`), opencode.TypePermissionV2Replied, false},
		{"no location", record(`{"id":"evt_1","type":"server.connected","data":{}}`), opencode.TypeServerConnected, false},
		{"null location", record(`{"type":"server.connected","location":null,"data":{}}`), opencode.TypeServerConnected, false},
		{"type after data", record(`{"data":{"type":"x","sessionID":"ses_1"},"type":"session.execution.succeeded"}`), opencode.TypeSessionIdle, false},
		{"1.x record", record(idle("ses_1")), "", true},
		{"1.x type", envelope("session.idle", `{"sessionID":"ses_1"}`), "", false},
		{"unknown type", envelope("message.part.delta", `{"delta":"}"}`), "", false},
		{"not JSON", record("hello"), "", true},
		{"type not a string", record(`{"type":7,"data":{}}`), "", true},
		{"broken data", record(`{"type":"question.v2.asked","data":{"id":}}`), "", true},
		{"data of wrong shape", envelope("session.execution.succeeded", `[1]`), "", true},
		{"permission without session", envelope("permission.v2.asked", `{"id":"per_1","action":"bash"}`), "", true},
		{"reply without request", envelope("question.v2.replied", `{"sessionID":"ses_1"}`), "", true},
		{"heartbeat", ": heartbeat\n\n", "", false},
		{"url form without url", envelope("form.created", `{"form":{"id":"frm_1","sessionID":"ses_1","mode":"url"}}`), opencode.TypeFormCreated, false},
		{"form without fields", envelope("form.created", `{"form":{"id":"frm_1","sessionID":"ses_1","mode":"form"}}`), opencode.TypeFormCreated, false},
		{"form without id", envelope("form.created", `{"form":{"sessionID":"ses_1","mode":"form"}}`), "", true},
		{"form without session", envelope("form.created", `{"form":{"id":"frm_1","mode":"form"}}`), "", true},
		{"form.created without form", envelope("form.created", `{"id":"frm_1","sessionID":"ses_1"}`), "", true},
		{"form replied without session", envelope("form.replied", `{"id":"frm_1"}`), "", true},
		{"form cancelled without id", envelope("form.cancelled", `{"sessionID":"ses_1"}`), "", true},
		{"form in a 1.x record", record(`{"payload":{"type":"form.cancelled","properties":{"id":"frm_1","sessionID":"ses_1"}}}`), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := newLogBuffer()
			in := tt.in + envelope("session.execution.succeeded", `{"sessionID":"ses_next"}`)
			evs := readAll(t, opencode.NewEventReader2(strings.NewReader(in), 0, logs.logger()))
			var got []string
			for _, ev := range evs {
				got = append(got, ev.Type)
			}
			want := []string{opencode.TypeSessionIdle}
			if tt.want != "" {
				want = []string{tt.want, opencode.TypeSessionIdle}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("events %v, want %v; log:\n%s", got, want, logs.String())
			}
			if evs[len(evs)-1].SessionID() != "ses_next" {
				t.Errorf("last event %+v", evs[len(evs)-1])
			}
			if n := len(logs.lines(`"level":"warn"`)); (n == 1) != tt.warn || n > 1 {
				t.Errorf("%d warnings, want warn=%v:\n%s", n, tt.warn, logs.String())
			}
		})
	}
}

func TestChangeReaderRecords(t *testing.T) {
	in := record(`{"type":"log.hint","seq":4,"aggregateID":"ses_2"}`) +
		record(`{"type":"log.future","aggregateID":"x"}`) + // unknown: skipped
		record(`{"type":"log.hint","seq":5}`) + // no aggregate: warned
		record(`{"type":"log.hint","aggregateID":"ses_2","seq":"6"}`) + // seq not a number: warned
		record(`not json`) + // warned
		": heartbeat\n\n" +
		record(`{"type":"log.sweep_required"}`)
	logs := newLogBuffer()
	cr := opencode.NewChangeReader(strings.NewReader(in), 0, logs.logger())
	var got []opencode.Change
	for {
		c, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got = append(got, c)
	}
	want := []opencode.Change{{AggregateID: "ses_2", Seq: 4}, {Sweep: true}}
	if b, w := mustJSON(t, got), mustJSON(t, want); b != w {
		t.Errorf("changes %s, want %s", b, w)
	}
	if n := len(logs.lines(`"level":"warn"`)); n != 3 {
		t.Errorf("%d warnings, want 3:\n%s", n, logs.String())
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

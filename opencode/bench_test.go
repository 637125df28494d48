package opencode_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// The ingest benchmark runs on a synthetic stream shaped like what a busy
// opencode 1.18 server sends on GET /global/event, so it runs from a fresh
// clone without the recorded sample: every record below is a record of
// testdata/global-events.sample.txt (a real recording) with its IDs,
// text and numbers varied. Most of the traffic is streaming text deltas,
// then part and message updates each followed by its "sync" mirror,
// session status and updates; one record in relevantEvery is one
// hermes-bot acts on (a question, permission, session.idle or heartbeat).
const (
	// relevantEvery: about one relevant record per thousand.
	relevantEvery = 1000
	// streamRecords is the length of the generated stream, looped as
	// long as a benchmark needs; big enough to leave the CPU caches.
	streamRecords = 20 * relevantEvery
)

// ingestStream is a generated stream and what reading it must yield.
type ingestStream struct {
	data     []byte
	records  int
	relevant int // records EventReader.Next returns
}

const benchDir = "/home/user/projects/demo"

// words are what text deltas are made of: tokens of one to a few words,
// some with quotes, backslashes, newlines or non-ASCII text, which JSON
// escapes and a scanner must step over.
var words = []string{
	"the ", "function ", "returns ", "an ", "error ", "when ", "the file ", "is missing", ".\n",
	"`go test ./...`", " passes", "\"quoted\" ", "path\\to\\file ", "✓ ", "— ", "naïve ", "`err != nil`",
	"I'll ", "check ", "the tests", " first", ":\n\n", "```go\n", "}\n```", "Done. ", "Let me ", "read ",
}

// genIngestStream builds n records deterministically. With relevant false
// it leaves out the relevant ones, leaving only what the reader skips.
func genIngestStream(n int, relevant bool) ingestStream {
	rng := rand.New(rand.NewPCG(1, 2))
	var (
		buf  bytes.Buffer
		s    ingestStream
		seq  int
		data []byte
	)
	id := func(prefix string) string {
		seq++
		return fmt.Sprintf("%s_22bd%07x%014d", prefix, seq, seq*7919)
	}
	session := func() string { return fmt.Sprintf("ses_dd4235358ffeK4sOj0rQ%06d", rng.IntN(8)) }
	emit := func(b []byte) {
		buf.WriteString("data: ")
		buf.Write(b)
		buf.WriteString("\n\n")
		s.records++
	}
	// syncOf wraps a bus record's properties as its "sync" mirror.
	syncOf := func(evID, typ, props string, seqNo int, ses string) []byte {
		return fmt.Appendf(nil, `{"directory":%q,"project":"global","payload":{"type":"sync","syncEvent":{"id":%q,"type":"%s.1","seq":%d,"aggregateID":%q,"data":%s},"id":%q}}`,
			benchDir, evID, typ, seqNo, ses, props, evID)
	}
	bus := func(evID, typ, props string) []byte {
		return fmt.Appendf(nil, `{"directory":%q,"project":"global","payload":{"id":%q,"type":%q,"properties":%s}}`,
			benchDir, evID, typ, props)
	}
	text := func(maxWords int) string {
		var sb strings.Builder
		for range 1 + rng.IntN(maxWords) {
			sb.WriteString(words[rng.IntN(len(words))])
		}
		b, _ := json.Marshal(sb.String())
		return string(b)
	}
	relevantRecord := func(k int) []byte {
		ses := session()
		switch k % 6 {
		case 0:
			return bus(id("evt"), opencode.TypeQuestionAsked, fmt.Sprintf(
				`{"id":%q,"sessionID":%q,"questions":[{"question":"Which database should I use?","header":"Database","options":[{"label":"Postgres","description":"relational"},{"label":"SQLite","description":"embedded"}]}],"tool":{"messageID":%q,"callID":"call_%d"}}`,
				id("que"), ses, id("msg"), seq))
		case 1:
			return fmt.Appendf(nil, `{"payload":{"id":%q,"type":"server.heartbeat","properties":{}}}`, id("evt"))
		case 2:
			return bus(id("evt"), opencode.TypeQuestionReplied, fmt.Sprintf(
				`{"sessionID":%q,"requestID":%q,"answers":[["Postgres"]]}`, ses, id("que")))
		case 3:
			return bus(id("evt"), opencode.TypePermissionAsked, fmt.Sprintf(
				`{"id":%q,"sessionID":%q,"permission":"bash","patterns":["echo hello-from-bash > out.txt"],"metadata":{"command":"echo hello-from-bash > out.txt"},"always":["echo *"],"tool":{"messageID":%q,"callID":"call_%d"}}`,
				id("per"), ses, id("msg"), seq))
		case 4:
			return bus(id("evt"), opencode.TypeSessionIdle, fmt.Sprintf(`{"sessionID":%q}`, ses))
		default:
			return bus(id("evt"), opencode.TypePermissionReplied, fmt.Sprintf(
				`{"sessionID":%q,"requestID":%q,"reply":"once"}`, ses, id("per")))
		}
	}

	nextRelevant := relevantEvery / 2
	for s.records < n {
		if relevant && s.records >= nextRelevant {
			emit(relevantRecord(s.relevant))
			s.relevant++
			nextRelevant += relevantEvery
			continue
		}
		ses := session()
		evID := id("evt")
		r := rng.IntN(100)
		if s.records+2 > n {
			r = 0 // no room left for a record and its sync mirror
		}
		switch {
		case r < 55: // a streaming text delta
			data = bus(evID, "message.part.delta", fmt.Sprintf(
				`{"sessionID":%q,"messageID":%q,"partID":%q,"field":"text","delta":%s}`,
				ses, id("msg"), id("prt"), text(6)))
			emit(data)
		case r < 70: // a text part grown, and its sync mirror
			props := fmt.Sprintf(`{"sessionID":%q,"part":{"type":"text","text":%s,"messageID":%q,"sessionID":%q,"id":%q},"time":%d}`,
				ses, text(40), id("msg"), ses, id("prt"), 1796032214855+seq)
			emit(bus(evID, "message.part.updated", props))
			emit(syncOf(evID, "message.part.updated", props, seq, ses))
		case r < 78: // a tool part's state, and its sync mirror
			props := fmt.Sprintf(`{"sessionID":%q,"part":{"id":%q,"messageID":%q,"sessionID":%q,"type":"tool","tool":"bash","callID":"call_%d","state":{"status":"running","input":{"command":"go test ./...","description":"Run the tests"},"time":{"start":%d}}},"time":%d}`,
				ses, id("prt"), id("msg"), ses, seq, 1796032220707+seq, 1796032220707+seq)
			emit(bus(evID, "message.part.updated", props))
			emit(syncOf(evID, "message.part.updated", props, seq, ses))
		case r < 86: // a message's info, and its sync mirror
			props := fmt.Sprintf(`{"sessionID":%q,"info":{"id":%q,"role":"assistant","sessionID":%q,"time":{"created":%d},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4"},"tokens":{"input":%d,"output":%d,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0.0123}}`,
				ses, id("msg"), ses, 1796032212780+seq, rng.IntN(50000), rng.IntN(4000))
			emit(bus(evID, "message.updated", props))
			emit(syncOf(evID, "message.updated", props, seq, ses))
		case r < 93:
			status := `{"type":"busy"}`
			if rng.IntN(4) == 0 {
				status = `{"type":"retry","attempt":1,"message":"rate limited","next":1796032229806}`
			}
			emit(bus(evID, "session.status", fmt.Sprintf(`{"sessionID":%q,"status":%s}`, ses, status)))
		case r < 97: // a session's info, and its sync mirror
			props := fmt.Sprintf(`{"sessionID":%q,"info":{"id":%q,"slug":"misty-river","projectID":"global","directory":%q,"path":"","title":"Fix the login bug","agent":"build","model":{"id":"claude-sonnet-4","providerID":"anthropic","variant":"default"},"version":"1.18.33","cost":0.42,"tokens":{"input":%d,"output":%d,"reasoning":0,"cache":{"read":0,"write":0}},"time":{"created":1796032212136,"updated":%d}}}`,
				ses, ses, benchDir, rng.IntN(500000), rng.IntN(40000), 1796032212780+seq)
			emit(bus(evID, "session.updated", props))
			emit(syncOf(evID, "session.updated", props, seq, ses))
		case r < 99:
			emit(bus(evID, "session.diff", fmt.Sprintf(`{"sessionID":%q,"diff":[{"file":"internal/auth/login.go","additions":%d,"deletions":%d}]}`,
				ses, rng.IntN(80), rng.IntN(30))))
		default:
			emit(bus(evID, "plugin.added", `{"id":"core/config-reference"}`))
		}
	}
	s.data = buf.Bytes()
	return s
}

// loopReader serves buf again and again until it has served n records'
// worth of copies, then io.EOF. Reading it costs a copy, as a socket read
// would.
type loopReader struct {
	buf    []byte
	off    int
	copies int
}

func (r *loopReader) Read(p []byte) (int, error) {
	if r.off == len(r.buf) {
		if r.copies == 0 {
			return 0, io.EOF
		}
		r.copies--
		r.off = 0
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// ingest reads the whole of r with read, which returns how many relevant
// records it found, and reports records/s and allocations per record. One
// op is one record; copies are added whole, so a run reads at least b.N.
func ingest(b *testing.B, s ingestStream, read func(io.Reader) (int, error)) (nsPerRecord float64) {
	copies := max(1, (b.N+s.records-1)/s.records)
	in := &loopReader{buf: s.data, off: len(s.data), copies: copies}
	records := copies * s.records
	b.SetBytes(int64(len(s.data) / s.records))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	relevant, err := read(in)
	b.StopTimer()
	runtime.ReadMemStats(&after)
	if err != nil {
		b.Fatal(err)
	}
	if want := copies * s.relevant; relevant != want {
		b.Fatalf("found %d relevant records, want %d", relevant, want)
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(records)/secs, "records/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(records), "allocs/record")
	return b.Elapsed().Seconds() * 1e9 / float64(records)
}

// readHermes is hermes-bot's path: EventReader skips what is irrelevant
// after reading its type.
func readHermes(r io.Reader) (int, error) {
	er := opencode.NewEventReader(r, 0, zerolog.Nop())
	n := 0
	for {
		if _, err := er.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// relevantTypes are the types EventReader returns.
var relevantTypes = map[string]bool{
	opencode.TypeQuestionAsked: true, opencode.TypeQuestionReplied: true, opencode.TypeQuestionRejected: true,
	opencode.TypePermissionAsked: true, opencode.TypePermissionReplied: true,
	opencode.TypeSessionIdle: true, opencode.TypeSessionError: true,
	opencode.TypeServerConnected: true, opencode.TypeServerHeartbeat: true,
}

// readNaive is the baseline: what a bridge that decodes every event in
// full does, as the Node.js and Python peers do with JSON.parse and
// json.loads: read lines, parse each record into generic maps, then look
// at its type.
func readNaive(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var data []byte
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			}
			continue
		}
		if len(data) == 0 {
			continue
		}
		var rec map[string]any
		err := json.Unmarshal(data, &rec)
		data = data[:0]
		if err != nil {
			continue
		}
		payload, _ := rec["payload"].(map[string]any)
		if typ, _ := payload["type"].(string); relevantTypes[typ] {
			n++
		}
	}
	return n, sc.Err()
}

// readEnvelope is a less naive baseline: a typed envelope whose properties
// stay raw, so only the envelope is decoded, but still every record.
func readEnvelope(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var data []byte
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			}
			continue
		}
		if len(data) == 0 {
			continue
		}
		var rec struct {
			Directory string `json:"directory"`
			Payload   struct {
				Type       string          `json:"type"`
				Properties json.RawMessage `json:"properties"`
			} `json:"payload"`
		}
		err := json.Unmarshal(data, &rec)
		data = data[:0]
		if err == nil && relevantTypes[rec.Payload.Type] {
			n++
		}
	}
	return n, sc.Err()
}

// BenchmarkIngest reads a realistic event stream (see genIngestStream)
// with hermes-bot's EventReader and with two baselines that decode every
// record, in the same run; each baseline reports as x-hermes how many
// times slower than EventReader it was.
// One op is one record. Run it on one core:
//
//	go test -run='^$' -bench=Ingest -benchmem -cpu=1 ./opencode/
//
// "hermes" is the mixed stream (one relevant record per thousand);
// "hermes-skip" has only irrelevant records, so its allocs/op is the cost
// of skipping one; "naive" decodes each record into maps (the peers'
// way); "envelope" decodes a typed envelope and leaves the properties raw.
func BenchmarkIngest(b *testing.B) {
	mixed := genIngestStream(streamRecords, true)
	skipOnly := genIngestStream(streamRecords, false)
	ns := map[string]float64{}
	for _, bc := range []struct {
		name   string
		stream ingestStream
		read   func(io.Reader) (int, error)
	}{
		{"hermes", mixed, readHermes},
		{"hermes-skip", skipOnly, readHermes},
		{"naive", mixed, readNaive},
		{"envelope", mixed, readEnvelope},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ns[bc.name] = ingest(b, bc.stream, bc.read)
			// The baselines say how many times slower than EventReader
			// they were on the same stream, in this run.
			if !strings.HasPrefix(bc.name, "hermes") && ns["hermes"] > 0 {
				b.ReportMetric(ns[bc.name]/ns["hermes"], "x-hermes")
			}
		})
	}
}

// TestIngestStreamShape keeps the benchmark's stream honest: it parses,
// EventReader finds exactly its relevant records, and the baselines agree.
func TestIngestStreamShape(t *testing.T) {
	s := genIngestStream(3*relevantEvery, true)
	if s.records != 3*relevantEvery || s.relevant != 3 {
		t.Fatalf("generated %d records, %d relevant; want %d and 3", s.records, s.relevant, 3*relevantEvery)
	}
	for name, read := range map[string]func(io.Reader) (int, error){
		"hermes": readHermes, "naive": readNaive, "envelope": readEnvelope,
	} {
		n, err := read(bytes.NewReader(s.data))
		if err != nil || n != s.relevant {
			t.Errorf("%s found %d relevant records (err %v), want %d", name, n, err, s.relevant)
		}
	}
	// Every record is valid JSON: the baselines would skip a broken one
	// silently and look faster.
	for i, rec := range bytes.Split(bytes.TrimSpace(s.data), []byte("\n\n")) {
		if !json.Valid(bytes.TrimPrefix(rec, []byte("data: "))) {
			t.Fatalf("record %d is not valid JSON: %s", i, rec)
		}
	}
	logs := newLogBuffer()
	if _, err := readAllCount(opencode.NewEventReader(bytes.NewReader(s.data), 0, logs.logger())); err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); l != "" {
		t.Errorf("EventReader warned about the generated stream:\n%s", l)
	}
}

func readAllCount(er *opencode.EventReader) (int, error) {
	n := 0
	for {
		_, err := er.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

package opencode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// The listing benchmarks measure what a connect costs hermes-bot: GET
// /question and GET /permission of every known directory, decoded. The
// server answers from bodies encoded once, so what is measured is the
// client. Run them with
//
//	go test -run '^$' -bench 'List' -benchmem ./opencode/

const (
	// listQuestions is how many questions are pending over listDirs
	// directories: a busy server after a long absence.
	listQuestions = 10_000
	listDirs      = 10
	// listPermissions are pending in each directory.
	listPermissions = 5
)

// listDir names directory i of a listing benchmark or test.
func listDir(i int) string { return fmt.Sprintf("/home/user/projects/service-%02d", i) }

// genQuestions makes n question requests shaped like those of the
// question tool of opencode 1.18: one to
// three questions of two to four options, a header, descriptions, now and
// then several labels allowed or no typed answer, and the tool call.
func genQuestions(n int, seed uint64) []opencode.QuestionRequest {
	rng := rand.New(rand.NewPCG(seed, 7))
	topics := []string{"database", "test framework", "logging library", "deployment target", "cache", "CI provider"}
	opts := []opencode.Option{
		{Label: "Postgres", Description: "relational, the team knows it"},
		{Label: "SQLite", Description: "embedded, one file — no server"},
		{Label: "Keep the current one", Description: "no migration needed"},
		{Label: "Ask me later", Description: "go on with the rest first"},
		{Label: "Other", Description: "I'll type it"},
	}
	qs := make([]opencode.QuestionRequest, n)
	for i := range qs {
		seq := int(seed)*1_000_000 + i
		q := opencode.QuestionRequest{
			ID:        fmt.Sprintf("que_%013x%013d", seq*7919, seq),
			SessionID: fmt.Sprintf("ses_dd4235358ffeK4sOj0rQ%06d", rng.IntN(50)),
			Tool: &opencode.ToolRef{
				MessageID: fmt.Sprintf("msg_22bd%07x%014d", seq, seq*31),
				CallID:    fmt.Sprintf("call_%024d", seq*17),
			},
		}
		for range 1 + rng.IntN(3) {
			topic := topics[rng.IntN(len(topics))]
			oq := opencode.Question{
				Question: fmt.Sprintf("Which %s should I use for \"service-%d\"? The current setup is described in README.md.", topic, rng.IntN(100)),
				Header:   strings.ToUpper(topic[:1]) + topic[1:],
				Options:  opts[:2+rng.IntN(3)],
				Multiple: rng.IntN(4) == 0,
			}
			if rng.IntN(8) == 0 {
				oq.Custom = new(bool)
			}
			q.Questions = append(q.Questions, oq)
		}
		qs[i] = q
	}
	return qs
}

// genPermissions makes n permission requests: bash commands and edits,
// with their metadata.
func genPermissions(n int, seed uint64) []opencode.PermissionRequest {
	ps := make([]opencode.PermissionRequest, n)
	for i := range ps {
		seq := int(seed)*1_000_000 + i
		p := opencode.PermissionRequest{
			ID:        fmt.Sprintf("per_%013x%013d", seq*7919, seq),
			SessionID: fmt.Sprintf("ses_dd4235358ffeK4sOj0rQ%06d", i),
			Tool:      &opencode.ToolRef{MessageID: fmt.Sprintf("msg_%d", seq), CallID: fmt.Sprintf("call_%d", seq)},
		}
		if i%2 == 0 {
			cmd := fmt.Sprintf("go test ./... -run 'Test%d' > out-%d.txt", i, i)
			p.Permission, p.Patterns, p.Always = "bash", []string{cmd}, []string{"go test *"}
			p.Metadata = json.RawMessage(`{"command":` + strconv.Quote(cmd) + `}`)
		} else {
			file := fmt.Sprintf("/home/user/projects/service/internal/file%d.go", i)
			p.Permission, p.Patterns, p.Always = "edit", []string{file}, []string{"*"}
			p.Metadata = json.RawMessage(`{"filepath":` + strconv.Quote(file) +
				`,"diff":"--- a\n+++ b\n@@ -1,3 +1,4 @@\n package x\n+// added\n \n func f() {}\n"}`)
		}
		ps[i] = p
	}
	return ps
}

// listServer is a minimal opencode server for the listing benchmarks and
// tests: an event stream that sends server.connected and then nothing,
// health, an empty project list, and lists answered from bodies encoded
// once.
type listServer struct {
	*httptest.Server
	// questions and permissions are the bodies per directory; a directory
	// not in them has nothing pending.
	questions, permissions map[string][]byte
	// chunked leaves out Content-Length, as a streaming encoder would.
	chunked bool
	// hook, when set, sees every list request first and answers it itself
	// if it returns true. It runs on the server's goroutines.
	hook func(w http.ResponseWriter, r *http.Request) bool
	done chan struct{}
}

// newListServer starts a listServer with questions spread evenly over dirs
// directories, and perDir permissions in each. Set the other fields before
// a request, not while one is served.
func newListServer(tb testing.TB, questions, dirs, perDir int) *listServer {
	tb.Helper()
	s := &listServer{questions: map[string][]byte{}, permissions: map[string][]byte{}, done: make(chan struct{})}
	for d := range dirs {
		qb, err := json.Marshal(genQuestions(questions/dirs, uint64(d+1)))
		if err != nil {
			tb.Fatal(err)
		}
		pb, err := json.Marshal(genPermissions(perDir, uint64(d+1)))
		if err != nil {
			tb.Fatal(err)
		}
		s.questions[listDir(d)], s.permissions[listDir(d)] = qb, pb
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(func() {
		close(s.done)
		s.Close()
	})
	return s
}

func (s *listServer) serve(w http.ResponseWriter, r *http.Request) {
	var body []byte
	switch r.URL.Path {
	case "/global/event":
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(`data: {"payload":{"type":"server.connected","properties":{}}}` + "\n\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	case "/global/health":
		body = []byte(`{"healthy":true,"version":"1.18.33"}`)
	case "/project":
		body = []byte(`[]`)
	case "/question", "/permission":
		if s.hook != nil && s.hook(w, r) {
			return
		}
		lists := s.questions
		if r.URL.Path == "/permission" {
			lists = s.permissions
		}
		if body = lists[r.URL.Query().Get("directory")]; body == nil {
			body = []byte(`[]`)
		}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if !s.chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	_, _ = w.Write(body)
}

// client returns a Client of s using s's transport, whose connections
// close with s.
func (s *listServer) client(tb testing.TB, opts ...opencode.ClientOption) *opencode.Client {
	tb.Helper()
	c, err := opencode.NewClient(s.URL, append([]opencode.ClientOption{opencode.WithHTTPClient(s.Client())}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkListQuestions lists 10,000 questions of one directory: the
// decoding cost of a connect, without the concurrency of Watch.
func BenchmarkListQuestions(b *testing.B) {
	for _, chunked := range []bool{false, true} {
		name := "content-length"
		if chunked {
			name = "chunked"
		}
		b.Run(name, func(b *testing.B) {
			s := newListServer(b, listQuestions, 1, 0)
			s.chunked = chunked
			c := s.client(b)
			b.SetBytes(int64(len(s.questions[listDir(0)])))
			b.ReportAllocs()
			for b.Loop() {
				qs, err := c.ListQuestions(b.Context(), listDir(0))
				if err != nil {
					b.Fatal(err)
				}
				if len(qs) != listQuestions {
					b.Fatalf("%d questions, want %d", len(qs), listQuestions)
				}
			}
		})
	}
}

// countSnapshots is a Handler that counts snapshots and their
// questions, and calls last after the n-th snapshot.
type countSnapshots struct {
	n, snapshots, questions int
	last                    func()
}

func (h *countSnapshots) HandleEvent(context.Context, opencode.Event) {}

func (h *countSnapshots) HandleSnapshot(_ context.Context, s opencode.Snapshot) {
	h.snapshots++
	h.questions += len(s.Questions)
	if h.snapshots == h.n {
		h.last()
	}
}

// BenchmarkWatchListing is one connect of Watch that lists 10,000
// questions over 10 directories and hands over their snapshots: the work
// between "event stream opened" and "ready" at start-up.
func BenchmarkWatchListing(b *testing.B) {
	s := newListServer(b, listQuestions, listDirs, listPermissions)
	s.chunked = true // as the fake of hermes-bench answers
	c := s.client(b)
	dirs := make([]string, listDirs)
	for i := range dirs {
		dirs[i] = listDir(i)
	}
	known := func(context.Context) opencode.Known { return opencode.Known{Directories: dirs} }
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithCancel(b.Context())
		h := &countSnapshots{n: listDirs, last: cancel}
		if err := c.Watch(ctx, h, known); err != nil {
			b.Fatal(err)
		}
		cancel()
		if h.snapshots != listDirs || h.questions != listQuestions {
			b.Fatalf("%d snapshots with %d questions, want %d with %d", h.snapshots, h.questions, listDirs, listQuestions)
		}
	}
}

package opencode_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// client2 is a client of url that takes the server for generation gen.
func client2(t *testing.T, url, password string, gen int) *opencode.Client {
	t.Helper()
	c, err := opencode.NewClient(url, opencode.WithBasicAuth("", password))
	if err != nil {
		t.Fatal(err)
	}
	opencode.SetGeneration(c, gen)
	return c
}

func ctx2(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// recorded is one request a scripted server received.
type recorded struct {
	Method, Path, Query string
	Body                map[string]any
}

// scripted2 serves OpenCode 2's session routes as answers maps them
// ("METHOD /path" to status and body), recording every request.
type scripted2 struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recorded
}

func newScripted2(t *testing.T, answers map[string]func() (int, string)) *scripted2 {
	s := &scripted2{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
		if len(b) > 0 {
			if err := json.Unmarshal(b, &rec.Body); err != nil {
				t.Errorf("%s %s: body %q is no JSON object", r.Method, r.URL.Path, b)
			}
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
		a, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"_tag":"SessionNotFoundError"}`)
			return
		}
		status, body := a()
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *scripted2) requests() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.reqs...)
}

func answer(status int, body string) func() (int, string) {
	return func() (int, string) { return status, body }
}

// probed2 starts a Server2 and a client that probed it, so it knows the
// server is generation 2.
func probed2(t *testing.T) (*opencodetest.Server, *opencode.Client) {
	t.Helper()
	s := opencodetest.NewServer(opencodetest.WithOpencode2())
	t.Cleanup(s.Close)
	c, err := opencode.NewClient(s.URL, opencode.WithBasicAuth("", s.Password))
	if err != nil {
		t.Fatal(err)
	}
	if info, err := c.Probe(ctx2(t)); err != nil || info.Generation != 2 || c.Generation() != 2 {
		t.Fatalf("Probe = %+v, %v", info, err)
	}
	return s, c
}

// requestsAfterProbe returns the requests s received after the probe's,
// as "METHOD /path?query body".
func requestsAfterProbe(s *opencodetest.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Path == "/global/health" || r.Path == "/api/health" {
			continue
		}
		line := r.Method + " " + r.Path
		if q := r.Query.Encode(); q != "" {
			line += "?" + q
		}
		if r.Body != "" {
			line += " " + r.Body
		}
		out = append(out, line)
	}
	return out
}

// On OpenCode 2 PromptAsync queues and Steer steers a prompt; the body
// carries the text in both shapes the protocol had.
func TestPrompt2(t *testing.T) {
	s, c := probed2(t)
	ctx := ctx2(t)
	if err := c.PromptAsync(ctx, "/p", "ses_1", "run the tests"); err != nil {
		t.Fatalf("PromptAsync: %v", err)
	}
	if err := c.Steer(ctx, "/p", "ses_1", "use go 1.25"); err != nil {
		t.Fatalf("Steer: %v", err)
	}
	var got []string
	for _, p := range s.Prompts() {
		got = append(got, p.SessionID+" "+p.Delivery+" "+p.Text)
	}
	if want := []string{"ses_1 queue run the tests", "ses_1 steer use go 1.25"}; !reflect.DeepEqual(got, want) {
		t.Errorf("prompts %q, want %q", got, want)
	}
	want := []string{
		`POST /api/session/ses_1/prompt {"delivery":"queue","prompt":{"text":"run the tests"},"text":"run the tests"}`,
		`POST /api/session/ses_1/prompt {"delivery":"steer","prompt":{"text":"use go 1.25"},"text":"use go 1.25"}`,
	}
	if got := requestsAfterProbe(s); !reflect.DeepEqual(got, want) {
		t.Errorf("requests\n%q\nwant\n%q", got, want)
	}
}

// 200 with data, the answer of a prompt at 01fd0c8, is success too.
func TestPrompt2Answer200(t *testing.T) {
	s := newScripted2(t, map[string]func() (int, string){
		"POST /api/session/ses_1/prompt": answer(http.StatusOK, `{"data":{"id":"msg_1"}}`),
	})
	c := client2(t, s.URL, "", 2)
	ctx := ctx2(t)
	if err := c.PromptAsync(ctx, "/p", "ses_1", "run the tests"); err != nil {
		t.Errorf("PromptAsync: %v", err)
	}
	if err := c.Steer(ctx, "/p", "ses_1", "use go 1.25"); err != nil {
		t.Errorf("Steer: %v", err)
	}
}

// Abort interrupts on OpenCode 2, busy or idle, and the fake ends the
// turn; 200 {interrupted:false} (an idle session at 01fd0c8) is no error.
func TestAbort2(t *testing.T) {
	s, c := probed2(t)
	ctx := ctx2(t)
	if err := c.Abort(ctx, "/p", "ses_1"); err != nil {
		t.Fatal(err)
	}
	if err := c.PromptAsync(ctx, "/p", "ses_2", "go"); err != nil || !s.Busy("ses_2") {
		t.Fatalf("PromptAsync: %v, busy %v", err, s.Busy("ses_2"))
	}
	if err := c.Abort(ctx, "/p", "ses_2"); err != nil {
		t.Fatal(err)
	}
	if got := s.Interrupts(); !reflect.DeepEqual(got, []string{"ses_1", "ses_2"}) || s.Busy("ses_2") {
		t.Errorf("interrupts = %q, ses_2 busy %v", got, s.Busy("ses_2"))
	}

	sc := newScripted2(t, map[string]func() (int, string){
		"POST /api/session/ses_2/interrupt": answer(http.StatusOK, `{"interrupted":false}`),
	})
	if err := client2(t, sc.URL, "", 2).Abort(ctx, "/p", "ses_2"); err != nil {
		t.Errorf("Abort of an idle session: %v", err)
	}
}

// The session calls use the /api routes on OpenCode 2, and map its
// Session.Info into Session.
func TestSessions2(t *testing.T) {
	s, c := probed2(t)
	ctx := ctx2(t)
	created, err := c.CreateSession(ctx, "/p", " Fix it ")
	if err != nil || created.ID == "" || created.Title != "Fix it" || created.Directory != "/p" ||
		created.ParentID != "" || created.Time.Created == 0 || created.Time.Updated < created.Time.Created {
		t.Fatalf("CreateSession = %+v, %v", created, err)
	}
	got, err := c.GetSession(ctx, "/p", created.ID)
	if err != nil || !reflect.DeepEqual(got, created) {
		t.Errorf("GetSession = %+v, %v, want %+v", got, err, created)
	}
	s.AddSession(opencode.Session{ID: "ses_elsewhere", Directory: "/q", Title: "Other"})
	s.AddSession(opencode.Session{ID: "ses_newer", Directory: "/p", Title: "Newer"})
	list, err := c.ListSessions(ctx, "/p")
	if err != nil || len(list) != 2 || list[0].ID != "ses_newer" || !reflect.DeepEqual(list[1], created) {
		t.Errorf("ListSessions = %+v, %v", list, err)
	}
	if err := c.PromptAsync(ctx, "/p", created.ID, "go"); err != nil {
		t.Fatal(err)
	}
	busy, err := c.BusySessions(ctx, "/p")
	if err != nil || !reflect.DeepEqual(busy, map[string]bool{created.ID: true}) {
		t.Errorf("BusySessions = %v, %v", busy, err)
	}
	if _, err := c.GetSession(ctx, "/p", "ses_gone"); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("GetSession of an unknown session: %v, want ErrNotFound", err)
	}
	reqs := requestsAfterProbe(s)
	want := []string{
		`POST /api/session {"location":{"directory":"/p"},"title":"Fix it"}`,
		"GET /api/session/" + created.ID,
		"GET /api/session?directory=%2Fp",
	}
	if len(reqs) < 3 || !reflect.DeepEqual(reqs[:3], want) {
		t.Errorf("requests %q, want first %q", reqs, want)
	}

	// What has no OpenCode 2 route does nothing, asking nothing.
	n := len(s.Requests())
	if err := c.ShowToast(ctx, "/p", "hi", opencode.ToastInfo); err != nil {
		t.Errorf("ShowToast: %v", err)
	}
	if text, err := c.LastAssistantText(ctx, "/p", created.ID); text != "" || err != nil {
		t.Errorf("LastAssistantText = %q, %v", text, err)
	}
	if ps, err := c.ListProjects(ctx); ps != nil || err != nil {
		t.Errorf("ListProjects = %v, %v", ps, err)
	}
	if len(s.Requests()) != n {
		t.Errorf("requests sent: %+v", s.Requests()[n:])
	}
}

// Session.Info with every key, a child's parentID and a null cursor, which
// Server2 does not send, decode too.
func TestSessions2Shapes(t *testing.T) {
	const info = `{"id":"ses_1","projectID":"prj_1","title":"Fix it","cost":0,` +
		`"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},` +
		`"time":{"created":1767225600000,"updated":1767225660000},"location":{"directory":"/p","workspaceID":"wrk_1"}}`
	const child = `{"id":"ses_2","parentID":"ses_1","projectID":"prj_1","title":"sub","time":{"created":1,"updated":2},"location":{"directory":"/p"}}`
	s := newScripted2(t, map[string]func() (int, string){
		"GET /api/session/ses_1": answer(http.StatusOK, `{"data":`+info+`}`),
		"GET /api/session":       answer(http.StatusOK, `{"data":[`+info+`,`+child+`],"cursor":null}`),
	})
	c := client2(t, s.URL, "", 2)
	ctx := ctx2(t)
	want := opencode.Session{ID: "ses_1", Title: "Fix it", Directory: "/p"}
	want.Time.Created, want.Time.Updated = 1767225600000, 1767225660000
	got, err := c.GetSession(ctx, "/p", "ses_1")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("GetSession = %+v, %v", got, err)
	}
	list, err := c.ListSessions(ctx, "/p")
	if err != nil || len(list) != 2 || !reflect.DeepEqual(list[0], want) || list[1].ParentID != "ses_1" {
		t.Errorf("ListSessions = %+v, %v", list, err)
	}
}

// Saved approvals are listed, per project or all, and deleted on
// OpenCode 2.
func TestSaved2(t *testing.T) {
	s := opencodetest.NewServer(opencodetest.WithOpencode2())
	t.Cleanup(s.Close)
	a := s.AddSaved(opencodetest.SavedApproval{ProjectID: "prj_a", Action: "bash", Resource: "git status *"})
	b := s.AddSaved(opencodetest.SavedApproval{ProjectID: "prj_b", Action: "edit", Resource: "src/**"})
	c := client2(t, s.URL, s.Password, 2)
	ctx := ctx2(t)

	all, err := c.ListSaved(ctx, "")
	want := []opencode.SavedApproval{{ID: a.ID, ProjectID: "prj_a", Action: "bash", Resource: "git status *"},
		{ID: b.ID, ProjectID: "prj_b", Action: "edit", Resource: "src/**"}}
	if err != nil || !reflect.DeepEqual(all, want) {
		t.Errorf("ListSaved = %+v, %v", all, err)
	}
	one, err := c.ListSaved(ctx, "prj_b")
	if err != nil || !reflect.DeepEqual(one, want[1:]) {
		t.Errorf("ListSaved(prj_b) = %+v, %v", one, err)
	}
	if err := c.DeleteSaved(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if left := s.Saved(); len(left) != 1 || left[0].ID != b.ID {
		t.Errorf("saved after the delete: %+v", left)
	}
	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Method+" "+r.Path+" "+r.Query.Get("projectID"))
	}
	wantPaths := []string{"GET /api/permission/saved ", "GET /api/permission/saved prj_b", "DELETE /api/permission/saved/" + a.ID + " "}
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Errorf("requests %q, want %q", paths, wantPaths)
	}
}

// opencode 1.x cannot steer, nor list or delete its always answers: the
// calls say so without asking the server; before any Probe they say the
// server's kind is not known yet.
func TestSteerAndSaved1x(t *testing.T) {
	s := opencodetest.NewServer(opencodetest.WithOpencode2())
	t.Cleanup(s.Close)
	ctx := ctx2(t)
	c := client2(t, s.URL, s.Password, 1)
	if err := c.Steer(ctx, "/p", "ses_1", "now"); !errors.Is(err, opencode.ErrNotAccepted) || !strings.Contains(err.Error(), "1.x cannot steer") {
		t.Errorf("Steer on 1.x: %v", err)
	}
	for name, err := range map[string]error{
		"ListSaved":   func() error { _, err := c.ListSaved(ctx, ""); return err }(),
		"DeleteSaved": c.DeleteSaved(ctx, "psv_1"),
	} {
		if !errors.Is(err, opencode.ErrNotAccepted) || !strings.Contains(err.Error(), "keeps always answers in memory") {
			t.Errorf("%s on 1.x: %v", name, err)
		}
	}
	c0 := client2(t, s.URL, s.Password, 0)
	if _, err := c0.ListSaved(ctx, ""); !errors.Is(err, opencode.ErrTransient) {
		t.Errorf("ListSaved before a Probe: %v, want ErrTransient", err)
	}
	if err := c0.Steer(ctx, "/p", "ses_1", ""); !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("Steer without text: %v", err)
	}
	if reqs := s.Requests(); len(reqs) != 0 {
		t.Errorf("requests sent: %+v", reqs)
	}
}

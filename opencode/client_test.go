package opencode_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

const password = "s3cret-pa55word"

// newServer starts a fake opencode server demanding password.
func newServer(tb testing.TB, opts ...opencodetest.ServerOption) *opencodetest.Server {
	tb.Helper()
	srv := opencodetest.NewServer(append([]opencodetest.ServerOption{opencodetest.WithAuth("", password)}, opts...)...)
	tb.Cleanup(srv.Close)
	return srv
}

// noSecret fails when err's text holds the password.
func noSecret(tb testing.TB, err error) {
	tb.Helper()
	if err != nil && strings.Contains(err.Error(), password) {
		tb.Errorf("error shows the password: %v", err)
	}
}

func question(id, session, callID string) opencode.QuestionRequest {
	q := opencode.QuestionRequest{
		ID: id, SessionID: session,
		Questions: []opencode.Question{{Question: "Which database?", Options: []opencode.Option{{Label: "Postgres"}}}},
	}
	if callID != "" {
		q.Tool = &opencode.ToolRef{MessageID: "msg_1", CallID: callID}
	}
	return q
}

func TestNewClientRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "localhost:4096", "ftp://host", "http://", "http://opencode:" + password + "@host", "http://host/?x=1", "http://[::1"} {
		_, err := opencode.NewClient(u)
		if err == nil {
			t.Errorf("NewClient(%q) accepted it", u)
		}
		noSecret(t, err)
	}
}

func TestClientCalls(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t, opencodetest.WithVersion("9.9.9"))
	c := srv.Client()
	const dir = "/home/user/my project & more"

	h, err := c.Health(ctx)
	if err != nil || !h.Healthy || h.Version != "9.9.9" {
		t.Fatalf("Health = %+v, %v", h, err)
	}

	q1, q2 := question("que_1", "ses_1", "call_1"), question("que_2", "ses_1", "")
	srv.StoreQuestion(dir, q1)
	srv.StoreQuestion(dir, q2)
	srv.StoreQuestion("/other", question("que_3", "ses_3", ""))
	qs, err := c.ListQuestions(ctx, dir)
	if err != nil || !reflect.DeepEqual(qs, []opencode.QuestionRequest{q1, q2}) {
		t.Fatalf("ListQuestions = %+v, %v", qs, err)
	}
	if err := c.ReplyQuestion(ctx, dir, "que_1", [][]string{{"Postgres", "typed text"}}); err != nil {
		t.Fatalf("ReplyQuestion: %v", err)
	}
	if err := c.RejectQuestion(ctx, dir, "que_2"); err != nil {
		t.Fatalf("RejectQuestion: %v", err)
	}

	p := opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1", Permission: "bash", Patterns: []string{"ls"}}
	srv.StorePermission(dir, p)
	ps, err := c.ListPermissions(ctx, dir)
	if err != nil || len(ps) != 1 || ps[0].ID != "per_1" || ps[0].Permission != "bash" {
		t.Fatalf("ListPermissions = %+v, %v", ps, err)
	}
	if err := c.ReplyPermission(ctx, dir, "ses_1", "per_1", "reject", "use a dry run"); err != nil {
		t.Fatalf("ReplyPermission: %v", err)
	}

	srv.AddSession(opencode.Session{ID: "ses_1", Title: "Fix it", Directory: dir, ParentID: "ses_0"})
	s, err := c.GetSession(ctx, dir, "ses_1")
	if err != nil || s.Title != "Fix it" || s.ParentID != "ses_0" {
		t.Fatalf("GetSession = %+v, %v", s, err)
	}
	srv.SetProjects([]opencode.Project{{ID: "global", Worktree: "/w", Sandboxes: []string{"/w2"}}})
	projects, err := c.ListProjects(ctx)
	if err != nil || len(projects) != 1 || projects[0].Sandboxes[0] != "/w2" {
		t.Fatalf("ListProjects = %+v, %v", projects, err)
	}

	want := []opencodetest.Reply{
		{Kind: opencodetest.ReplyQuestion, Directory: dir, SessionID: "ses_1", RequestID: "que_1", Answers: [][]string{{"Postgres", "typed text"}}},
		{Kind: opencodetest.RejectQuestion, Directory: dir, SessionID: "ses_1", RequestID: "que_2"},
		{Kind: opencodetest.ReplyPermission, Directory: dir, SessionID: "ses_1", RequestID: "per_1", Reply: "reject", Message: "use a dry run"},
	}
	if got := srv.Replies(); !reflect.DeepEqual(got, want) {
		t.Errorf("replies\n got %+v\nwant %+v", got, want)
	}
	if n := len(srv.Questions("/other")); n != 1 {
		t.Errorf("another directory's question was touched: %d left", n)
	}

	reqs := srv.Requests()
	for _, r := range reqs {
		if !r.Authorized || r.User != "opencode" {
			t.Errorf("%s %s: user %q authorized %v", r.Method, r.Path, r.User, r.Authorized)
		}
		perDir := r.Path != "/global/health" && r.Path != "/project"
		if got := r.Query.Get("directory"); perDir && got != dir {
			t.Errorf("%s %s: directory %q, want %q", r.Method, r.Path, got, dir)
		}
	}
	for _, r := range reqs {
		if r.Path == "/permission/per_1/reply" && !strings.Contains(r.Body, `"message":"use a dry run"`) {
			t.Errorf("permission reply body %s", r.Body)
		}
	}
}

func TestReplyPermissionMessageOmitted(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	srv.StorePermission("/d", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1"})
	if err := srv.Client().ReplyPermission(ctx, "/d", "ses_1", "per_1", "once", ""); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if body := reqs[len(reqs)-1].Body; strings.TrimSpace(body) != `{"reply":"once"}` {
		t.Errorf("body %s, want the message left out", body)
	}
}

func TestReplyPermissionLegacyRoute(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t, opencodetest.WithLegacyPermissions())
	srv.StorePermission("/d", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1"})
	c := srv.Client()
	if err := c.ReplyPermission(ctx, "/d", "ses_1", "per_1", "always", "ignored"); err != nil {
		t.Fatalf("ReplyPermission on an older server: %v", err)
	}
	got := srv.Replies()
	if len(got) != 1 || !got[0].Legacy || got[0].Reply != "always" || got[0].Directory != "/d" {
		t.Errorf("replies %+v, want one through the legacy route", got)
	}
	err := c.ReplyPermission(ctx, "/d", "ses_1", "per_gone", "once", "")
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("unknown permission on an older server: %v, want ErrNotFound", err)
	}
}

func TestReplyPermissionNotFoundDoesNotFallBack(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	err := srv.Client().ReplyPermission(ctx, "/d", "ses_1", "per_gone", "once", "")
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/session/") {
			t.Errorf("fell back to %s after PermissionNotFoundError", r.Path)
		}
	}
}

func TestClientErrorClasses(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	c := srv.Client()
	srv.StoreQuestion("/d", question("que_1", "ses_1", ""))

	tests := []struct {
		name   string
		fault  int // injected status, 0 for none
		id     string
		want   error
		status int
	}{
		{"unknown question", 0, "que_gone", opencode.ErrNotFound, 404},
		{"id of wrong shape", 0, "abc", opencode.ErrNotAccepted, 400},
		{"injected 404", 404, "que_1", opencode.ErrNotFound, 404},
		{"injected 400", 400, "que_1", opencode.ErrNotAccepted, 400},
		{"injected 409", 409, "que_1", opencode.ErrNotAccepted, 409},
		{"injected 401", 401, "que_1", opencode.ErrUnauthorized, 401},
		{"injected 403", 403, "que_1", opencode.ErrUnauthorized, 403},
		{"injected 500", 500, "que_1", opencode.ErrTransient, 500},
		{"injected 503", 503, "que_1", opencode.ErrTransient, 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fault != 0 {
				srv.FailNext("/question/", tt.fault)
			}
			err := c.ReplyQuestion(ctx, "/d", tt.id, [][]string{{"Postgres"}})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var apiErr *opencode.APIError
			if !errors.As(err, &apiErr) || apiErr.Status != tt.status || !strings.Contains(apiErr.Op, tt.id) {
				t.Errorf("err = %#v, want an APIError with status %d naming %s", err, tt.status, tt.id)
			}
			noSecret(t, err)
		})
	}
	if n := len(srv.Questions("/d")); n != 1 {
		t.Errorf("a failed reply removed the question")
	}
	if err := c.ReplyQuestion(ctx, "/d", "", nil); !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("empty request ID: %v, want ErrNotAccepted", err)
	}
}

func TestClientWrongPassword(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	c, err := opencode.NewClient(srv.URL, opencode.WithBasicAuth("opencode", password+"-wrong"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListQuestions(ctx, "/d")
	if !errors.Is(err, opencode.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	if strings.Contains(err.Error(), password) {
		t.Errorf("error shows the password: %v", err)
	}
	if r := srv.Requests()[0]; r.Authorized || r.User != "opencode" {
		t.Errorf("request %+v", r)
	}
}

func TestClientNetworkErrors(t *testing.T) {
	srv := newServer(t)
	c := srv.Client()
	srv.Close()

	_, err := c.ListQuestions(testContext(t), "/d")
	if !errors.Is(err, opencode.ErrTransient) {
		t.Errorf("closed server: %v, want ErrTransient", err)
	}
	noSecret(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = c.RejectQuestion(ctx, "/d", "que_1")
	if !errors.Is(err, context.Canceled) || !errors.Is(err, opencode.ErrTransient) {
		t.Errorf("cancelled context: %v, want context.Canceled and ErrTransient", err)
	}
}

func TestClientDeadline(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	c, err := opencode.NewClient(hang.URL, opencode.WithBasicAuth("", password))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.Health(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, opencode.ErrTransient) {
		t.Errorf("hung server: %v, want DeadlineExceeded and ErrTransient", err)
	}
	noSecret(t, err)
}

func TestAPIErrorBodyTruncated(t *testing.T) {
	long := strings.Repeat("é", 2000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, long, http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	c, err := opencode.NewClient(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListProjects(testContext(t))
	var apiErr *opencode.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 500 {
		t.Fatalf("err = %v", err)
	}
	if len(apiErr.Body) > 310 || !strings.HasPrefix(apiErr.Body, "éé") || !strings.HasSuffix(apiErr.Body, "é…") {
		t.Errorf("body of %d bytes: %q", len(apiErr.Body), apiErr.Body)
	}
}

func TestClientBadAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/question" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("<html>proxy login</html>"))
	}))
	t.Cleanup(srv.Close)
	c, err := opencode.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListQuestions(testContext(t), "/d"); !errors.Is(err, opencode.ErrTransient) {
		t.Errorf("HTML answer: %v, want ErrTransient", err)
	}
}

func TestReplyQuestionSendsArrays(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	srv.StoreQuestion("/d", question("que_1", "ses_1", ""))
	answers := [][]string{nil, {"B"}}
	if err := srv.Client().ReplyQuestion(ctx, "/d", "que_1", answers); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if body := strings.TrimSpace(reqs[len(reqs)-1].Body); body != `{"answers":[[],["B"]]}` {
		t.Errorf("body %s", body)
	}
	if answers[0] != nil {
		t.Error("ReplyQuestion changed the caller's slice")
	}
}

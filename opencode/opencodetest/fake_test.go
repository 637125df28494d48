package opencodetest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

func ExampleServer() {
	srv := opencodetest.NewServer(opencodetest.WithAuth("opencode", "secret"))
	defer srv.Close()

	srv.StoreQuestion("/work/demo", opencode.QuestionRequest{
		ID: "que_1", SessionID: "ses_1",
		Questions: []opencode.Question{{Question: "Which database?", Options: []opencode.Option{{Label: "Postgres"}}}},
	})

	c := srv.Client()
	ctx := context.Background()
	qs, err := c.ListQuestions(ctx, "/work/demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(qs[0].ID, qs[0].Questions[0].Question)
	if err := c.ReplyQuestion(ctx, "/work/demo", "que_1", [][]string{{"Postgres"}}); err != nil {
		fmt.Println(err)
	}
	err = c.ReplyQuestion(ctx, "/work/demo", "que_1", [][]string{{"Postgres"}})
	fmt.Println("again:", errors.Is(err, opencode.ErrNotFound))
	for _, r := range srv.Replies() {
		fmt.Println(r.Kind, r.RequestID, r.Answers)
	}
	// Output:
	// que_1 Which database?
	// again: true
	// question.reply que_1 [[Postgres]]
}

func fakeTestContext(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

func fakeDo(tb testing.TB, method, url, user, password, body string) (int, string) {
	tb.Helper()
	req, err := http.NewRequestWithContext(fakeTestContext(tb), method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if password != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServerAuth(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithAuth("", "pw"))
	defer srv.Close()
	for _, tt := range []struct {
		user, password string
		want           int
	}{{"", "", 401}, {"opencode", "nope", 401}, {"other", "pw", 401}, {"opencode", "pw", 200}} {
		if code, _ := fakeDo(t, "GET", srv.URL+"/global/health", tt.user, tt.password, ""); code != tt.want {
			t.Errorf("user %q password %q: %d, want %d", tt.user, tt.password, code, tt.want)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[0].Authorized || !reqs[3].Authorized || reqs[3].User != "opencode" {
		t.Errorf("requests %+v", reqs)
	}
}

func TestServerQuestionErrors(t *testing.T) {
	srv := opencodetest.NewServer()
	defer srv.Close()
	srv.StoreQuestion("/d", opencode.QuestionRequest{ID: "que_1", SessionID: "ses_1"})

	code, body := fakeDo(t, "POST", srv.URL+"/question/que_1/reply", "", "", `{"answers":[["a"]]}`)
	if code != 404 || !strings.Contains(body, `"_tag":"QuestionNotFoundError"`) {
		t.Errorf("reply in the wrong directory: %d %s", code, body)
	}
	code, body = fakeDo(t, "POST", srv.URL+"/question/abc/reject?directory=/d", "", "", "")
	if code != 400 || !strings.Contains(body, `"kind":"Params"`) {
		t.Errorf("bad id: %d %s", code, body)
	}
	code, body = fakeDo(t, "POST", srv.URL+"/question/que_1/reply?directory=/d", "", "", `{"answer":"a"}`)
	if code != 400 || !strings.Contains(body, `"kind":"Payload"`) {
		t.Errorf("bad body: %d %s", code, body)
	}
	if len(srv.Questions("/d")) != 1 || len(srv.Replies()) != 0 {
		t.Errorf("a refused reply changed state")
	}
	code, body = fakeDo(t, "POST", srv.URL+"/permission/per_1/reply?directory=/d", "", "", `{"reply":"sometimes"}`)
	if code != 400 {
		t.Errorf("bad permission reply: %d %s", code, body)
	}
}

func TestServerFailNext(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithAuth("", "pw"))
	defer srv.Close()
	srv.FailNext("/question", 503)
	srv.FailNext("/project", 500)
	code, _ := fakeDo(t, "GET", srv.URL+"/global/health", "opencode", "pw", "")
	if code != 200 {
		t.Errorf("unmatched path failed: %d", code)
	}
	// Faults come before auth.
	if code, _ := fakeDo(t, "GET", srv.URL+"/question", "", "", ""); code != 503 {
		t.Errorf("first /question: %d, want 503", code)
	}
	if code, _ := fakeDo(t, "GET", srv.URL+"/question", "opencode", "pw", ""); code != 200 {
		t.Errorf("second /question: %d, want 200: a fault fails one request", code)
	}
	if code, _ := fakeDo(t, "GET", srv.URL+"/project", "opencode", "pw", ""); code != 500 {
		t.Errorf("/project: %d, want 500", code)
	}
}

func TestServerEventStream(t *testing.T) {
	ctx := fakeTestContext(t)
	srv := opencodetest.NewServer()
	defer srv.Close()

	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/global/event", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("content type %q", resp.Header.Get("Content-Type"))
	}
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	er := opencode.NewEventReader(resp.Body, 0, zerolog.Nop())
	next := func() opencode.Event {
		t.Helper()
		ev, err := er.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		return ev
	}
	if ev := next(); ev.Type != opencode.TypeServerConnected {
		t.Fatalf("first event %q", ev.Type)
	}

	srv.AddQuestion("/d", opencode.QuestionRequest{ID: "que_1", SessionID: "ses_1", Questions: []opencode.Question{{Question: "q"}}})
	srv.StoreQuestion("/d", opencode.QuestionRequest{ID: "que_quiet", SessionID: "ses_1"})
	srv.SendRaw(": comment\n\ndata: {\"payload\":{\"type\":\"sync\"}}\n\n")
	srv.Send(map[string]any{"directory": "/d", "project": "p1", "payload": map[string]any{"id": "evt_1", "type": opencode.TypePermissionReplied,
		"properties": opencode.PermissionReplied{SessionID: "ses_1", RequestID: "per_1", Reply: "once"}}})
	if !srv.AnswerQuestion("/d", "que_1", [][]string{{"A"}}) || srv.AnswerQuestion("/d", "que_1", nil) {
		t.Error("AnswerQuestion: want true once, then false")
	}

	if ev := next(); ev.Type != opencode.TypeQuestionAsked || ev.Directory != "/d" || ev.Project != "global" || ev.QuestionAsked.ID != "que_1" {
		t.Errorf("event %+v, want question.asked que_1", ev)
	}
	if ev := next(); ev.Type != opencode.TypePermissionReplied || ev.Project != "p1" || ev.PermissionReplied.Reply != "once" {
		t.Errorf("event %+v, want permission.replied", ev)
	}
	if ev := next(); ev.Type != opencode.TypeQuestionReplied || ev.QuestionReplied.RequestID != "que_1" {
		t.Errorf("event %+v, want question.replied", ev)
	}
	if qs := srv.Questions("/d"); len(qs) != 1 || qs[0].ID != "que_quiet" {
		t.Errorf("pending %+v", qs)
	}

	srv.DropStreams()
	if _, err := er.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after DropStreams: %v, want io.EOF", err)
	}
	if srv.Connections() != 1 {
		t.Errorf("Connections = %d", srv.Connections())
	}
}

func TestServerCloseWithOpenStream(t *testing.T) {
	srv := opencodetest.NewServer()
	ctx := fakeTestContext(t)
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/global/event", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	closed := make(chan struct{})
	go func() {
		srv.Close()
		srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close hung on an open event stream")
	}
	if _, err := io.ReadAll(resp.Body); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("stream after Close: %v", err)
	}
}

func TestServerWaitReplies(t *testing.T) {
	srv := opencodetest.NewServer()
	defer srv.Close()
	srv.StorePermission("/d", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1"})
	go func() {
		_ = srv.Client().ReplyPermission(context.Background(), "/d", "ses_1", "per_1", "once", "")
	}()
	reps, err := srv.WaitReplies(fakeTestContext(t), 1)
	if err != nil || len(reps) != 1 || reps[0].Kind != opencodetest.ReplyPermission || reps[0].Reply != "once" {
		t.Fatalf("WaitReplies = %+v, %v", reps, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := srv.WaitReplies(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitReplies on a cancelled context: %v", err)
	}
}

func TestServerRemoveQuietly(t *testing.T) {
	ctx := fakeTestContext(t)
	srv := opencodetest.NewServer()
	defer srv.Close()
	srv.StoreQuestion("/d", opencode.QuestionRequest{ID: "que_1", SessionID: "ses_1"})
	srv.StoreQuestion("/d", opencode.QuestionRequest{ID: "que_2", SessionID: "ses_1"})
	srv.StorePermission("/d", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1"})

	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/global/event", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if !srv.RemoveQuestion("/d", "que_1") || srv.RemoveQuestion("/d", "que_1") || srv.RemoveQuestion("/other", "que_2") {
		t.Error("RemoveQuestion: want true once, then false, and false in another directory")
	}
	if qs, ps := srv.Questions("/d"), srv.Permissions("/d"); len(qs) != 1 || qs[0].ID != "que_2" || len(ps) != 1 {
		t.Errorf("pending after removal: %+v, %+v", qs, ps)
	}
	// Nothing was sent for the removals: the marker follows server.connected.
	srv.SendEvent("/d", opencode.TypeSessionIdle, opencode.SessionIdle{SessionID: "marker"})
	er := opencode.NewEventReader(resp.Body, 0, zerolog.Nop())
	for _, want := range []string{opencode.TypeServerConnected, opencode.TypeSessionIdle} {
		ev, err := er.Next()
		if err != nil || ev.Type != want {
			t.Fatalf("event %+v, %v; want %s", ev, err, want)
		}
	}
}

// The 1.x fake answers the steering calls as 1.18.33 does: a session
// created, listed, prompted (busy until its turn ends), aborted, and a
// toast; an unknown session cannot be prompted.
func TestServerSteering(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithHeartbeat(0))
	t.Cleanup(srv.Close)
	c, ctx := srv.Client(), fakeTestContext(t)
	if err := c.PromptAsync(ctx, "/p", "ses_nowhere", "hello"); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("prompt to an unknown session: %v, want ErrNotFound", err)
	}
	sess, err := c.CreateSession(ctx, "/p", "Shop")
	if err != nil || sess.ID == "" || sess.Title != "Shop" || sess.Directory != "/p" {
		t.Fatalf("CreateSession = %+v, %v", sess, err)
	}
	if ss, err := c.ListSessions(ctx, "/p"); err != nil || len(ss) != 1 || ss[0].ID != sess.ID {
		t.Errorf("ListSessions(/p) = %+v, %v", ss, err)
	}
	if ss, err := c.ListSessions(ctx, "/q"); err != nil || len(ss) != 0 {
		t.Errorf("ListSessions(/q) = %+v, %v", ss, err)
	}
	if err := c.PromptAsync(ctx, "/p", sess.ID, "add tests"); err != nil {
		t.Fatal(err)
	}
	if ps := srv.Prompts(); len(ps) != 1 || ps[0].SessionID != sess.ID || ps[0].Text != "add tests" {
		t.Errorf("prompts %+v", ps)
	}
	if busy, err := c.BusySessions(ctx, "/p"); err != nil || !busy[sess.ID] || !srv.Busy(sess.ID) {
		t.Errorf("BusySessions = %v, %v; want %s busy", busy, err, sess.ID)
	}
	if err := c.Abort(ctx, "/p", sess.ID); err != nil || srv.Busy(sess.ID) {
		t.Errorf("Abort: %v, busy %v", err, srv.Busy(sess.ID))
	}
	if is := srv.Interrupts(); len(is) != 1 || is[0] != sess.ID {
		t.Errorf("interrupts %q", is)
	}
	if err := c.ShowToast(ctx, "/p", "hi", opencode.ToastInfo); err != nil {
		t.Errorf("ShowToast: %v", err)
	}
}

// The 1.x event stream sends server.heartbeat, as 1.18.33 does every 10 s.
func TestServerHeartbeat(t *testing.T) {
	srv := opencodetest.NewServer(opencodetest.WithHeartbeat(time.Millisecond))
	t.Cleanup(srv.Close)
	ctx := fakeTestContext(t)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/global/event", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	er := opencode.NewEventReader(resp.Body, 0, zerolog.Nop())
	for _, want := range []string{opencode.TypeServerConnected, "server.heartbeat"} {
		if ev, err := er.Next(); err != nil || ev.Type != want {
			t.Fatalf("event %+v, %v; want %s", ev, err, want)
		}
	}
	if err := srv.WaitHeartbeats(ctx, 1); err != nil {
		t.Error(err)
	}
}

package opencode_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// The /api surface's events are decoded into the same properties as their
// legacy counterparts, marked with their surface; Kind names the
// counterpart, so a caller can treat both alike.
func TestEventReaderAPISurface(t *testing.T) {
	in := record(`{"directory":"/d","payload":{"id":"e1","type":"question.v2.asked","properties":{"id":"que_1","sessionID":"ses_1",`+
		`"questions":[{"question":"Color?","header":"Color","options":[{"label":"Red","description":"r"}],"multiple":true,"custom":false}],`+
		`"tool":{"messageID":"msg_1","callID":"call_1"}}}}`) +
		record(`{"directory":"/d","payload":{"type":"permission.v2.asked","properties":{"id":"per_1","sessionID":"ses_1","action":"bash",`+
			`"resources":["echo hi > out.txt"],"save":["echo *"],"metadata":{"k":1},"source":{"type":"tool","messageID":"msg_2","callID":"call_2"}}}}`) +
		record(`{"directory":"/d","payload":{"type":"question.v2.replied","properties":{"sessionID":"ses_1","requestID":"que_1","answers":[["Red"]]}}}`) +
		record(`{"directory":"/d","payload":{"type":"question.v2.rejected","properties":{"sessionID":"ses_1","requestID":"que_2"}}}`) +
		record(`{"directory":"/d","payload":{"type":"permission.v2.replied","properties":{"sessionID":"ses_1","requestID":"per_1","reply":"always"}}}`) +
		record(`{"directory":"/d","payload":{"type":"question.asked","properties":{"id":"que_3","sessionID":"ses_1","questions":[{"question":"q","options":[]}]}}}`)
	evs := readAll(t, opencode.NewEventReader(strings.NewReader(in), 0, zerolog.Nop()))
	if len(evs) != 6 {
		t.Fatalf("%d events, want 6: %+v", len(evs), evs)
	}
	wantKinds := []string{opencode.TypeQuestionAsked, opencode.TypePermissionAsked, opencode.TypeQuestionReplied,
		opencode.TypeQuestionRejected, opencode.TypePermissionReplied, opencode.TypeQuestionAsked}
	for i, ev := range evs {
		if ev.Kind() != wantKinds[i] {
			t.Errorf("event %d (%s): Kind %q, want %q", i, ev.Type, ev.Kind(), wantKinds[i])
		}
		wantSurface := opencode.SurfaceAPI
		if i == 5 {
			wantSurface = opencode.SurfaceLegacy
		}
		if ev.Surface != wantSurface || ev.SessionID() != "ses_1" || ev.Directory != "/d" {
			t.Errorf("event %d (%s): surface %v, session %q, directory %q", i, ev.Type, ev.Surface, ev.SessionID(), ev.Directory)
		}
	}
	q := evs[0].QuestionAsked
	wantQ := &opencode.QuestionRequest{
		ID: "que_1", SessionID: "ses_1", Surface: opencode.SurfaceAPI,
		Questions: []opencode.Question{{Question: "Color?", Header: "Color", Options: []opencode.Option{{Label: "Red", Description: "r"}},
			Multiple: true, Custom: new(bool)}},
		Tool: &opencode.ToolRef{MessageID: "msg_1", CallID: "call_1"},
	}
	if evs[0].Type != opencode.TypeQuestionV2Asked || !reflect.DeepEqual(q, wantQ) {
		t.Errorf("question.v2.asked = %+v", q)
	}
	wantP := &opencode.PermissionRequest{
		ID: "per_1", SessionID: "ses_1", Permission: "bash", Patterns: []string{"echo hi > out.txt"}, Always: []string{"echo *"},
		Metadata: json.RawMessage(`{"k":1}`), Tool: &opencode.ToolRef{MessageID: "msg_2", CallID: "call_2"}, Surface: opencode.SurfaceAPI,
	}
	if !reflect.DeepEqual(evs[1].PermissionAsked, wantP) {
		t.Errorf("permission.v2.asked = %+v", evs[1].PermissionAsked)
	}
	if r := evs[2].QuestionReplied; r == nil || r.RequestID != "que_1" || !reflect.DeepEqual(r.Answers, [][]string{{"Red"}}) {
		t.Errorf("question.v2.replied = %+v", r)
	}
	if r := evs[3].QuestionRejected; r == nil || r.RequestID != "que_2" {
		t.Errorf("question.v2.rejected = %+v", r)
	}
	if r := evs[4].PermissionReplied; r == nil || r.RequestID != "per_1" || r.Reply != "always" {
		t.Errorf("permission.v2.replied = %+v", r)
	}
	if evs[5].QuestionAsked.Surface != opencode.SurfaceLegacy {
		t.Errorf("a legacy question is marked %v", evs[5].QuestionAsked.Surface)
	}
}

// A v2 request without what hermes-bot needs is skipped with a warning,
// as a legacy one is.
func TestEventReaderAPISurfaceMissingFields(t *testing.T) {
	for _, rec := range []string{
		`{"payload":{"type":"question.v2.asked","properties":{"id":"que_1","sessionID":"s"}}}`,
		`{"payload":{"type":"permission.v2.asked","properties":{"id":"per_1","action":"bash"}}}`,
		`{"payload":{"type":"permission.v2.replied","properties":{"sessionID":"s"}}}`,
		`{"payload":{"type":"permission.v2.asked","properties":{"id":"per_1","sessionID":"s","resources":"not a list"}}}`,
	} {
		logs := newLogBuffer()
		evs := readAll(t, opencode.NewEventReader(strings.NewReader(record(rec)+record(idle("ses_next"))), 0, logs.logger()))
		if len(evs) != 1 || evs[0].SessionIdle == nil {
			t.Errorf("%s: events %+v, want only the idle after it", rec, evs)
		}
		if n := len(logs.lines(`"level":"warn"`)); n != 1 {
			t.Errorf("%s: %d warnings, want 1:\n%s", rec, n, logs.String())
		}
	}
}

func TestRequestsAdapters(t *testing.T) {
	c := newServer(t).Client()
	if s := c.Requests(opencode.SurfaceAPI).Surface(); s != opencode.SurfaceAPI {
		t.Errorf("Requests(api).Surface() = %v", s)
	}
	if s := c.Requests(opencode.SurfaceLegacy).Surface(); s != opencode.SurfaceLegacy {
		t.Errorf("Requests(legacy).Surface() = %v", s)
	}
	if got := opencode.SurfaceAPI.String() + "," + opencode.SurfaceLegacy.String(); got != "api,legacy" {
		t.Errorf("names %q", got)
	}
}

// Both surfaces list and answer through the same calls; each finds only
// its own requests, as the real server's do.
func TestRequestsBothSurfaces(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	c := srv.Client()
	srv.StoreQuestion("/d", question("que_old", "ses_1", "call_1"))
	srv.StoreQuestion("/d", apiQuestion(question("que_new", "ses_1", "call_2")))
	srv.StorePermission("/d", opencode.PermissionRequest{ID: "per_old", SessionID: "ses_1", Permission: "bash", Patterns: []string{"ls"}})
	srv.StorePermission("/d", apiPermission(opencode.PermissionRequest{ID: "per_new", SessionID: "ses_1", Permission: "bash",
		Patterns: []string{"rm x"}, Always: []string{"rm *"}, Tool: &opencode.ToolRef{MessageID: "msg_3", CallID: "call_3"}}))

	for _, s := range opencode.Surfaces {
		r := c.Requests(s)
		qs, err := r.ListQuestions(ctx, "/d")
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		want := map[opencode.Surface]string{opencode.SurfaceLegacy: "que_old", opencode.SurfaceAPI: "que_new"}[s]
		if len(qs) != 1 || qs[0].ID != want || qs[0].Surface != s || qs[0].Tool == nil {
			t.Errorf("%v: questions %+v, want only %s", s, qs, want)
		}
		ps, err := r.ListPermissions(ctx, "/d")
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		if len(ps) != 1 || ps[0].Surface != s {
			t.Errorf("%v: permissions %+v", s, ps)
		}
	}
	ps, _ := c.API().ListPermissions(ctx, "/d")
	wantP := opencode.PermissionRequest{ID: "per_new", SessionID: "ses_1", Permission: "bash", Patterns: []string{"rm x"},
		Always: []string{"rm *"}, Tool: &opencode.ToolRef{MessageID: "msg_3", CallID: "call_3"}, Surface: opencode.SurfaceAPI}
	if len(ps) != 1 || !reflect.DeepEqual(ps[0], wantP) {
		t.Errorf("api permissions %+v, want %+v", ps, wantP)
	}
	if qs, err := c.API().ListQuestions(ctx, "/other"); err != nil || len(qs) != 0 {
		t.Errorf("another directory: %+v, %v", qs, err)
	}

	// Each surface answers 404 for the other's requests.
	if err := c.Requests(opencode.SurfaceLegacy).ReplyQuestion(ctx, "/d", "ses_1", "que_new", [][]string{{"Postgres"}}); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("legacy reply to an api question: %v, want ErrNotFound", err)
	}
	if err := c.API().ReplyQuestion(ctx, "/d", "ses_1", "que_old", [][]string{{"Postgres"}}); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("api reply to a legacy question: %v, want ErrNotFound", err)
	}

	for _, s := range opencode.Surfaces {
		id := map[opencode.Surface]string{opencode.SurfaceLegacy: "que_old", opencode.SurfaceAPI: "que_new"}[s]
		if err := c.Requests(s).ReplyQuestion(ctx, "/d", "ses_1", id, [][]string{nil, {"Postgres"}}); err != nil {
			t.Fatalf("%v reply: %v", s, err)
		}
		pid := map[opencode.Surface]string{opencode.SurfaceLegacy: "per_old", opencode.SurfaceAPI: "per_new"}[s]
		if err := c.Requests(s).ReplyPermission(ctx, "/d", "ses_1", pid, "reject", "not now"); err != nil {
			t.Fatalf("%v permission reply: %v", s, err)
		}
	}
	reps := srv.Replies()
	if len(reps) != 4 || reps[2].Surface != opencode.SurfaceAPI || reps[2].RequestID != "que_new" ||
		!reflect.DeepEqual(reps[2].Answers, [][]string{{}, {"Postgres"}}) ||
		reps[3].Surface != opencode.SurfaceAPI || reps[3].Reply != "reject" || reps[3].Message != "not now" {
		t.Errorf("replies %+v", reps)
	}
	last := srv.Requests()[len(srv.Requests())-2]
	if last.Path != "/api/session/ses_1/question/que_new/reply" || len(last.Query) != 0 ||
		strings.TrimSpace(last.Body) != `{"answers":[[],["Postgres"]]}` {
		t.Errorf("api reply sent %s %s?%s %s", last.Method, last.Path, last.Query.Encode(), last.Body)
	}
}

func TestAPIRequestsErrors(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	api := srv.Client().API()
	srv.StoreQuestion("/d", apiQuestion(question("que_1", "ses_1", "")))

	err := api.ReplyQuestion(ctx, "/d", "ses_1", "que_gone", [][]string{{"Postgres"}})
	var apiErr *opencode.APIError
	if !errors.Is(err, opencode.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Tag() != "QuestionNotFoundError" {
		t.Errorf("unknown question: %v", err)
	}
	// A session that does not exist is as good as an answered request:
	// nothing waits there.
	err = api.ReplyQuestion(ctx, "/d", "ses_nope", "que_1", [][]string{{"Postgres"}})
	if !errors.Is(err, opencode.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Tag() != "SessionNotFoundError" {
		t.Errorf("wrong session: %v", err)
	}
	if _, err := api.ListSessionQuestions(ctx, "/d", "ses_nope"); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("list of an unknown session: %v", err)
	}
	err = api.ReplyPermission(ctx, "/d", "ses_1", "per_1", "sometimes", "")
	if !errors.Is(err, opencode.ErrNotAccepted) || !errors.As(err, &apiErr) || apiErr.Tag() != "InvalidRequestError" {
		t.Errorf("bad reply: %v", err)
	}
	for name, err := range map[string]error{
		"no session":       api.RejectQuestion(ctx, "/d", "", "que_1"),
		"no request":       api.ReplyPermission(ctx, "/d", "ses_1", "", "once", ""),
		"no reply":         api.ReplyPermission(ctx, "/d", "ses_1", "per_1", "", ""),
		"no session, list": func() error { _, err := api.ListSessionPermissions(ctx, "/d", ""); return err }(),
	} {
		if !errors.Is(err, opencode.ErrNotAccepted) {
			t.Errorf("%s: %v, want ErrNotAccepted", name, err)
		}
	}

	qs, err := api.ListSessionQuestions(ctx, "/d", "ses_1")
	if err != nil || len(qs) != 1 || qs[0].ID != "que_1" || qs[0].Surface != opencode.SurfaceAPI {
		t.Fatalf("session questions %+v, %v", qs, err)
	}
	if err := api.RejectQuestion(ctx, "/d", "ses_1", "que_1"); err != nil {
		t.Fatal(err)
	}
	if err := api.RejectQuestion(ctx, "/d", "ses_1", "que_1"); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("second reject: %v, want ErrNotFound", err)
	}
	if reps := srv.Replies(); len(reps) != 1 || reps[0].Kind != opencodetest.RejectQuestion || reps[0].Surface != opencode.SurfaceAPI {
		t.Errorf("replies %+v", reps)
	}
}

// The fake is as strict as the real server about body shapes, so a
// client test against it proves the shape.
func TestFakeAPIRejectsWrongShapes(t *testing.T) {
	srv := newServer(t)
	srv.StoreQuestion("/d", apiQuestion(question("que_1", "ses_1", "")))
	srv.StorePermission("/d", apiPermission(opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1", Permission: "bash"}))
	for _, tt := range []struct{ path, body string }{
		{"/api/session/ses_1/question/que_1/reply", `{"answers":["Postgres"]}`},
		{"/api/session/ses_1/question/que_1/reply", `{}`},
		{"/api/session/ses_1/question/que_1/reply", `{"answers":[["Postgres"]],"extra":1}`},
		{"/api/session/ses_1/permission/per_1/reply", `{"response":"once"}`},
		{"/api/session/ses_1/permission/per_1/reply", `{"reply":"yes"}`},
		{"/api/session/x/permission/per_1/reply", `{"reply":"once"}`},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+tt.path, strings.NewReader(tt.body))
		req.SetBasicAuth("opencode", password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s %s: HTTP %d, want 400", tt.path, tt.body, resp.StatusCode)
		}
	}
	if len(srv.Questions("/d")) != 1 || len(srv.Permissions("/d")) != 1 {
		t.Error("a refused answer took a request")
	}
}

// A server that answers an /api route with its web page does not serve
// it: that is an error, never an empty list or a done reply.
func TestAPIRequestsWebPage(t *testing.T) {
	ctx := testContext(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><html></html>"))
	}))
	t.Cleanup(srv.Close)
	c, err := opencode.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, listErr := c.API().ListQuestions(ctx, "/d")
	replyErr := c.API().ReplyPermission(ctx, "/d", "ses_1", "per_1", "once", "")
	for name, err := range map[string]error{"list": listErr, "reply": replyErr} {
		if !errors.Is(err, opencode.ErrNoRoute) || !errors.Is(err, opencode.ErrNotAccepted) {
			t.Errorf("%s: %v, want ErrNoRoute and ErrNotAccepted", name, err)
		}
	}
}

func TestProbe(t *testing.T) {
	ctx := testContext(t)
	info, err := newServer(t).Client().Probe(ctx)
	if err != nil || info != (opencode.ServerInfo{Version: "1.18.33", Healthy: true, API: true, Generation: 1}) {
		t.Errorf("opencode 1.18.33: %+v, %v", info, err)
	}

	// OpenCode 2: a 404 on /global/health, JSON on /api/health.
	c2 := newServer(t, opencodetest.WithOpencode2()).Client()
	info, err = c2.Probe(ctx)
	if err != nil || info != (opencode.ServerInfo{Version: "2.0.0", Healthy: true, API: true, Generation: 2}) || c2.Generation() != 2 {
		t.Errorf("OpenCode 2: %+v, %v, generation %d", info, err, c2.Generation())
	}
	// A /global/health saying 2.x is OpenCode 2 too; 3.x is refused.
	info, err = newServer(t, opencodetest.WithVersion("2.0.1")).Client().Probe(ctx)
	if err != nil || info.Generation != 2 || info.Version != "2.0.1" {
		t.Errorf("version 2.0.1: %+v, %v", info, err)
	}
	const want = "hermes-bot supports opencode 1.x (tested with 1.18.33) and OpenCode 2 (built to its published definitions); " +
		"this server is opencode 3.0.0, which is not supported yet"
	_, err = newServer(t, opencodetest.WithVersion("3.0.0")).Client().Probe(ctx)
	var unsupported *opencode.UnsupportedServerError
	if !errors.As(err, &unsupported) || err.Error() != want || unsupported.Version != "3.0.0" ||
		!errors.Is(err, opencode.ErrUnsupportedServer) || !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("version 3.0.0: %v", err)
	}

	// Without a version on /api/health, still OpenCode 2.
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/health" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"healthy":true}`))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	}))
	t.Cleanup(bare.Close)
	c0, _ := opencode.NewClient(bare.URL)
	if info, err := c0.Probe(ctx); err != nil || info != (opencode.ServerInfo{Healthy: true, API: true, Generation: 2}) {
		t.Errorf("OpenCode 2 without a version: %+v, %v", info, err)
	}

	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	}))
	t.Cleanup(web.Close)
	c, _ := opencode.NewClient(web.URL)
	if _, err := c.Probe(ctx); !errors.Is(err, opencode.ErrNoRoute) || errors.Is(err, opencode.ErrUnsupportedServer) {
		t.Errorf("a web server: %v, want ErrNoRoute only", err)
	}

	srv := newServer(t, opencodetest.WithOpencode2())
	bad, _ := opencode.NewClient(srv.URL, opencode.WithBasicAuth("", "wrong"))
	if _, err := bad.Probe(ctx); !errors.Is(err, opencode.ErrUnauthorized) {
		t.Errorf("wrong password: %v", err)
	}
}

// Watch says plainly, at error level, when the server is a release it
// cannot serve (3.x), and its state names the class.
func TestWatchRefusesOpencode3(t *testing.T) {
	srv := newServer(t, opencodetest.WithVersion("3.1.0"))
	logs := newLogBuffer()
	c := srv.Client(fastOptions(logs)...)
	startWatch(t, c, make(events, 100), nil)
	logs.waitFor(t, "this server is opencode 3.1.0, which is not supported yet")
	line := logs.lines("which is not supported yet")[0]
	if !strings.Contains(line, `"level":"error"`) || !strings.Contains(line, `"class":"unsupported"`) {
		t.Errorf("log line %s", line)
	}
	if st := c.State(); st.LastError != "unsupported" || st.Connected {
		t.Errorf("state %+v", st)
	}
	if n := len(logs.lines("connected to opencode event stream")); n != 0 {
		t.Errorf("logged a connect to a 3.x server:\n%s", logs.String())
	}
}

// A server that turns out to be OpenCode 2 (no /global/event) is
// followed on GET /api/event.
func TestWatchTurnsToAPIEventOnOpencode2(t *testing.T) {
	srv := newServer(t, opencodetest.WithOpencode2())
	logs := newLogBuffer()
	c := srv.Client(fastOptions(logs)...)
	startWatch(t, c, make(events, 100), nil)
	if err := srv.WaitConnections(testContext(t), 1); err != nil {
		t.Fatal(err)
	}
	if c.Generation() != 2 {
		t.Errorf("generation %d, want 2", c.Generation())
	}
	if n := len(logs.lines("not supported")); n != 0 {
		t.Errorf("said not supported:\n%s", logs.String())
	}
}

// The fake's /api requests reach a watcher as the real server's do: as
// v2 events in the /api wire shape, decoded into the shared types.
func TestWatchDeliversAPIEvents(t *testing.T) {
	srv := newServer(t)
	c := srv.Client()
	evs := make(events, 100)
	startWatch(t, c, evs, nil)
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))

	want := opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1", Permission: "edit", Patterns: []string{"main.go"},
		Always: []string{"*"}, Tool: &opencode.ToolRef{MessageID: "msg_1", CallID: "call_1"}, Surface: opencode.SurfaceAPI}
	srv.AddPermission("/d", apiPermission(want))
	ev := evs.next(t, "permission.v2.asked", isType(opencode.TypePermissionV2Asked))
	if ev.Surface != opencode.SurfaceAPI || ev.Directory != "/d" || !reflect.DeepEqual(*ev.PermissionAsked, want) {
		t.Errorf("permission.v2.asked = %+v: %+v", ev, ev.PermissionAsked)
	}
	if err := c.Requests(ev.Surface).ReplyPermission(testContext(t), ev.Directory, ev.SessionID(), want.ID, "once", ""); err != nil {
		t.Fatal(err)
	}
	replied := evs.next(t, "permission.v2.replied", isType(opencode.TypePermissionV2Replied))
	if replied.Kind() != opencode.TypePermissionReplied || replied.PermissionReplied.Reply != "once" {
		t.Errorf("permission.v2.replied = %+v", replied.PermissionReplied)
	}

	srv.AddQuestion("/d", apiQuestion(question("que_1", "ses_1", "call_2")))
	q := evs.next(t, "question.v2.asked", isType(opencode.TypeQuestionV2Asked))
	if q.QuestionAsked.Surface != opencode.SurfaceAPI || q.QuestionAsked.Tool.CallID != "call_2" {
		t.Errorf("question.v2.asked = %+v", q.QuestionAsked)
	}
	if err := c.Requests(q.Surface).RejectQuestion(testContext(t), q.Directory, q.SessionID(), "que_1"); err != nil {
		t.Fatal(err)
	}
	evs.next(t, "question.v2.rejected", isType(opencode.TypeQuestionV2Rejected))
}

// ResolveQuestionID searches the lists of the request's own surface: an
// /api question is found there, and a legacy one of the same tool call
// is not taken for it.
func TestResolveQuestionIDOnAPISurface(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	srv.StoreQuestion("/d", question("que_legacy", "ses_1", "call_1"))
	srv.StoreQuestion("/d", apiQuestion(question("que_api", "ses_1", "call_1")))
	c := srv.Client(opencode.WithResolveRetry(1, 0))
	ref := opencode.QuestionRef{Directory: "/d", RequestID: "que_gone", SessionID: "ses_1", CallID: "call_1"}
	for s, want := range map[opencode.Surface]string{opencode.SurfaceLegacy: "que_legacy", opencode.SurfaceAPI: "que_api"} {
		ref.Surface = s
		if id, err := c.ResolveQuestionID(ctx, ref); err != nil || id != want {
			t.Errorf("%v: %q, %v; want %s", s, id, err, want)
		}
	}
}

// apiQuestion is q as raised by a session prompted through /api.
func apiQuestion(q opencode.QuestionRequest) opencode.QuestionRequest {
	q.Surface = opencode.SurfaceAPI
	return q
}

// apiPermission is p as raised by a session prompted through /api.
func apiPermission(p opencode.PermissionRequest) opencode.PermissionRequest {
	p.Surface = opencode.SurfaceAPI
	return p
}

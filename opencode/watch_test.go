package opencode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// events is a Handler that passes every event on to a channel, and each
// request a snapshot lists as a listed event.
type events chan opencode.Event

func (e events) HandleEvent(ctx context.Context, ev opencode.Event) {
	select {
	case e <- ev:
	case <-ctx.Done():
	}
}

func (e events) HandleSnapshot(ctx context.Context, s opencode.Snapshot) {
	for _, ev := range s.Events() {
		e.HandleEvent(ctx, ev)
	}
}

// next returns the next event for which match is true, dropping the
// others.
func (e events) next(tb testing.TB, what string, match func(opencode.Event) bool) opencode.Event {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-e:
			if match(ev) {
				return ev
			}
		case <-deadline:
			tb.Fatalf("no %s event", what)
		}
	}
}

func isType(typ string) func(opencode.Event) bool {
	return func(ev opencode.Event) bool { return ev.Type == typ }
}

// fastOptions make reconnects quick for tests.
func fastOptions(logs *logBuffer) []opencode.ClientOption {
	return []opencode.ClientOption{
		opencode.WithLogger(logs.logger()),
		opencode.WithBackoff(time.Millisecond, 5*time.Millisecond, time.Hour),
	}
}

// knownDirs is the Known of opencode 1.x: directories only; nil for nil.
func knownDirs(dirs func(context.Context) []string) func(context.Context) opencode.Known {
	if dirs == nil {
		return nil
	}
	return func(ctx context.Context) opencode.Known { return opencode.Known{Directories: dirs(ctx)} }
}

// startWatch runs c.Watch until the test ends, then checks it returned nil.
func startWatch(tb testing.TB, c *opencode.Client, h opencode.Handler, dirs func(context.Context) []string) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Watch(ctx, h, knownDirs(dirs)) }()
	tb.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("Watch = %v, want nil after cancel", err)
			}
		case <-time.After(10 * time.Second):
			tb.Errorf("Watch did not return after cancel")
		}
	})
}

func TestWatchDeliversEventsInOrder(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	logs := newLogBuffer()
	evs := make(events, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), evs, nil)
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}

	if ev := <-evs; ev.Type != opencode.TypeServerConnected {
		t.Fatalf("first event %q, want server.connected", ev.Type)
	}
	srv.AddQuestion("/d", question("que_1", "ses_1", "call_1"))
	srv.SendRaw(`data: {"payload":{"type":"message.part.delta","properties":{}}}` + "\n\n")
	srv.SendEvent("/d", opencode.TypeQuestionReplied, opencode.QuestionReplied{SessionID: "ses_1", RequestID: "que_1", Answers: [][]string{{"Postgres"}}})
	srv.SendEvent("/d", opencode.TypeSessionIdle, opencode.SessionIdle{SessionID: "ses_1"})

	ev := <-evs
	if ev.Type != opencode.TypeQuestionAsked || ev.Listed || ev.Directory != "/d" || ev.QuestionAsked.ID != "que_1" {
		t.Errorf("event %+v, want question.asked que_1 from the stream", ev)
	}
	if ev := <-evs; ev.Type != opencode.TypeQuestionReplied || ev.QuestionReplied.Answers[0][0] != "Postgres" {
		t.Errorf("event %+v, want question.replied", ev)
	}
	if ev := <-evs; ev.Type != opencode.TypeSessionIdle || ev.SessionIdle.SessionID != "ses_1" {
		t.Errorf("event %+v, want session.idle", ev)
	}
	logs.waitFor(t, `"version":"1.18.33"`)
	if n := len(logs.lines("connected to opencode event stream")); n != 1 {
		t.Errorf("%d connect lines, want 1", n)
	}
}

func TestWatchListsPendingAfterEveryConnect(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	logs := newLogBuffer()
	srv.StoreQuestion("/from-dirs", question("que_a", "ses_a", ""))
	srv.StoreQuestion("/unknown", question("que_hidden", "ses_h", ""))
	evs := make(events, 100)
	dirs := func(context.Context) []string { return []string{"/from-dirs", ""} }
	startWatch(t, srv.Client(fastOptions(logs)...), evs, dirs)

	listed := func(ev opencode.Event) bool { return ev.Listed }
	ev := evs.next(t, "listed", listed)
	if ev.Type != opencode.TypeQuestionAsked || ev.Directory != "/from-dirs" || ev.QuestionAsked.ID != "que_a" {
		t.Fatalf("listed event %+v", ev)
	}
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))

	// A directory named only by an event is listed after the next connect.
	srv.StoreQuestion("/seen", question("que_b", "ses_b", ""))
	srv.SendEvent("/seen", opencode.TypeSessionIdle, opencode.SessionIdle{SessionID: "ses_b"})
	evs.next(t, "session.idle", isType(opencode.TypeSessionIdle))
	srv.DropStreams()

	got := map[string]string{}
	for len(got) < 2 {
		ev := evs.next(t, "listed after reconnect", listed)
		got[ev.QuestionAsked.ID] = ev.Directory
	}
	if got["que_a"] != "/from-dirs" || got["que_b"] != "/seen" {
		t.Errorf("listed after reconnect: %v", got)
	}
	if err := srv.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if r.Path == "/question" && (r.Directory() == "/unknown" || r.Directory() == "") {
			t.Errorf("listed directory %q, which nobody named", r.Directory())
		}
	}
}

func TestWatchListingFailureOnlyWarns(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	srv.FailNext("/question", 500)
	evs := make(events, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), evs, func(context.Context) []string { return []string{"/d"} })
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
	if len(logs.lines("listing pending opencode questions failed")) != 1 {
		t.Errorf("no warning about the failed list:\n%s", logs.String())
	}
	srv.AddQuestion("/d", question("que_1", "ses_1", ""))
	evs.next(t, "question.asked", isType(opencode.TypeQuestionAsked))
	if srv.Connections() != 1 {
		t.Errorf("%d connections, want the first one kept", srv.Connections())
	}
}

func TestWatchReconnectsAfterDrop(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	logs := newLogBuffer()
	evs := make(events, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), evs, nil)
	for n := 1; n <= 3; n++ {
		if err := srv.WaitConnections(ctx, n); err != nil {
			t.Fatal(err)
		}
		evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
		srv.DropStreams()
	}
	if err := srv.WaitConnections(ctx, 4); err != nil {
		t.Fatal(err)
	}
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
	srv.SendEvent("/d", opencode.TypeSessionIdle, opencode.SessionIdle{SessionID: "ses_after"})
	if ev := evs.next(t, "session.idle", isType(opencode.TypeSessionIdle)); ev.SessionIdle.SessionID != "ses_after" {
		t.Errorf("event %+v", ev)
	}
	if n := len(logs.lines("closed by the server")); n != 3 {
		t.Errorf("%d failure lines, want 3:\n%s", n, logs.String())
	}
}

func TestWatchReconnectsAfterSilence(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	logs := newLogBuffer()
	evs := make(events, 100)
	opts := append(fastOptions(logs), opencode.WithSilenceTimeout(100*time.Millisecond))
	startWatch(t, srv.Client(opts...), evs, nil)
	// The fake sends server.connected and then nothing.
	if err := srv.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	logs.waitFor(t, `"class":"silent"`)
}

func TestWatchSlowHandlerIsNotSilence(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	logs := newLogBuffer()
	const silence = 200 * time.Millisecond
	busy := make(chan struct{})
	evs := make(events, 100)
	slow := handlerFunc(func(ctx context.Context, ev opencode.Event) {
		if ev.Type == opencode.TypeServerConnected {
			close(busy)
			time.Sleep(2 * silence) // the handler's own work, longer than the silence timeout
		}
		evs.HandleEvent(ctx, ev)
	})
	opts := append(fastOptions(logs), opencode.WithSilenceTimeout(silence))
	startWatch(t, srv.Client(opts...), slow, nil)
	select {
	case <-busy:
	case <-ctx.Done():
		t.Fatal("never connected")
	}
	srv.SendEvent("/d", opencode.TypeSessionIdle, opencode.SessionIdle{SessionID: "ses_1"})
	evs.next(t, "session.idle", isType(opencode.TypeSessionIdle))
	if n := srv.Connections(); n != 1 {
		t.Errorf("%d connections: time in the handler was taken for silence", n)
	}
}

type handlerFunc func(context.Context, opencode.Event)

func (f handlerFunc) HandleEvent(ctx context.Context, ev opencode.Event) { f(ctx, ev) }

func (f handlerFunc) HandleSnapshot(ctx context.Context, s opencode.Snapshot) {
	for _, ev := range s.Events() {
		f(ctx, ev)
	}
}

func TestWatchWrongPassword(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	c, err := opencode.NewClient(srv.URL, append(fastOptions(logs), opencode.WithBasicAuth("opencode", "not-"+password))...)
	if err != nil {
		t.Fatal(err)
	}
	startWatch(t, c, make(events, 100), nil)
	logs.waitFor(t, "wrong username or password")
	line := logs.lines("wrong username or password")[0]
	if !strings.Contains(line, `"level":"error"`) || !strings.Contains(line, `"class":"unauthorized"`) {
		t.Errorf("log line %s", line)
	}
	if strings.Contains(logs.String(), password) {
		t.Errorf("the log shows the password")
	}
}

func TestWatchRetriesServerErrors(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	srv.FailNext("/global/event", 503)
	srv.FailNext("/global/event", 500)
	evs := make(events, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), evs, nil)
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
	if n := len(logs.lines(`"class":"transient"`)); n != 2 {
		t.Errorf("%d transient failures logged, want 2:\n%s", n, logs.String())
	}
}

func TestWatchNilHandler(t *testing.T) {
	srv := newServer(t)
	if err := srv.Client().Watch(testContext(t), nil, nil); err == nil {
		t.Error("Watch accepted a nil handler")
	}
}

// retryDelays returns the retry_in of every logged failure, in ms.
func retryDelays(tb testing.TB, logs *logBuffer) []float64 {
	tb.Helper()
	var out []float64
	for _, line := range logs.lines(`"retry_in"`) {
		var rec struct {
			RetryIn float64 `json:"retry_in"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			tb.Fatalf("log line %s: %v", line, err)
		}
		out = append(out, rec.RetryIn)
	}
	return out
}

func TestWatchBackoff(t *testing.T) {
	// checkDelays compares delays with wants allowing the jitter of a tenth.
	checkDelays := func(t *testing.T, got []float64, want ...float64) {
		t.Helper()
		ok := len(got) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = got[i] >= want[i] && got[i] <= want[i]*1.1
		}
		if !ok {
			t.Errorf("retry delays %v ms, want %v ms (+10%% jitter)", got, want)
		}
	}
	t.Run("doubles up to max, also across a short connection", func(t *testing.T) {
		ctx := testContext(t)
		srv := newServer(t)
		logs := newLogBuffer()
		for range 3 {
			srv.FailNext("/global/event", 500)
		}
		evs := make(events, 100)
		c := srv.Client(opencode.WithLogger(logs.logger()), opencode.WithBackoff(time.Millisecond, 6*time.Millisecond, time.Hour))
		startWatch(t, c, evs, nil)
		evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
		srv.DropStreams()
		if err := srv.WaitConnections(ctx, 2); err != nil {
			t.Fatal(err)
		}
		checkDelays(t, retryDelays(t, logs), 1, 2, 4, 6)
	})
	t.Run("resets after a connection stayed up", func(t *testing.T) {
		ctx := testContext(t)
		srv := newServer(t)
		logs := newLogBuffer()
		srv.FailNext("/global/event", 500)
		srv.FailNext("/global/event", 500)
		evs := make(events, 100)
		const resetAfter = 20 * time.Millisecond
		c := srv.Client(opencode.WithLogger(logs.logger()), opencode.WithBackoff(time.Millisecond, time.Second, resetAfter))
		startWatch(t, c, evs, nil)
		evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
		time.Sleep(2 * resetAfter) // keep the connection up past resetAfter
		srv.DropStreams()
		if err := srv.WaitConnections(ctx, 2); err != nil {
			t.Fatal(err)
		}
		checkDelays(t, retryDelays(t, logs), 1, 2, 1)
	})
}

var _ opencode.Handler = events(nil)

// snapshots is a Handler passing snapshots and events on, in the
// order Watch delivers them, as opencode.Snapshot or opencode.Event.
type snapshots chan any

func (s snapshots) HandleEvent(ctx context.Context, ev opencode.Event) { s.put(ctx, ev) }

func (s snapshots) HandleSnapshot(ctx context.Context, sn opencode.Snapshot) { s.put(ctx, sn) }

func (s snapshots) put(ctx context.Context, v any) {
	select {
	case s <- v:
	case <-ctx.Done():
	}
}

// untilConnected returns the snapshots delivered before the next
// server.connected, failing on a listed event: Watch hands over none of
// its own.
func (s snapshots) untilConnected(tb testing.TB) map[string]opencode.Snapshot {
	tb.Helper()
	got := make(map[string]opencode.Snapshot)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v := <-s:
			switch v := v.(type) {
			case opencode.Snapshot:
				if _, dup := got[v.Directory]; dup {
					tb.Errorf("two snapshots of %q in one connect", v.Directory)
				}
				got[v.Directory] = v
			case opencode.Event:
				if v.Listed {
					tb.Errorf("listed event %+v delivered beside snapshots", v)
				}
				if v.Type == opencode.TypeServerConnected {
					return got
				}
			}
		case <-deadline:
			tb.Fatalf("no server.connected; snapshots so far: %v", slices.Sorted(maps.Keys(got)))
		}
	}
}

func TestWatchSnapshotsEveryKnownDirectory(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	logs := newLogBuffer()
	srv.SetProjects([]opencode.Project{
		{ID: "global", Worktree: "/"},
		{ID: "abc123", Worktree: "/repo", Sandboxes: []string{"/repo-feature"}},
	})
	srv.StoreQuestion("/repo", question("que_r", "ses_r", "call_r"))
	srv.StorePermission("/repo-feature", opencode.PermissionRequest{ID: "per_f", SessionID: "ses_f", Permission: "bash"})
	srv.StoreQuestion("/from-dirs", question("que_d", "ses_d", ""))
	srv.StorePermission("/from-dirs", opencode.PermissionRequest{ID: "per_d", SessionID: "ses_d", Permission: "edit"})
	srv.StoreQuestion("/unknown", question("que_hidden", "ses_h", ""))
	srv.StoreQuestion("/", question("que_root", "ses_root", ""))

	h := make(snapshots, 100)
	dirs := func(context.Context) []string { return []string{"/from-dirs", "/empty", ""} }
	before := time.Now()
	startWatch(t, srv.Client(fastOptions(logs)...), h, dirs)

	got := h.untilConnected(t)
	after := time.Now()
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"/empty", "/from-dirs", "/repo", "/repo-feature"}) {
		t.Fatalf("snapshots of %q, want the directories of dirs and of GET /project, without \"/\"", keys)
	}
	for dir, s := range got {
		if !s.QuestionsListed || !s.PermissionsListed {
			t.Errorf("%s: listed flags %v %v, want both true", dir, s.QuestionsListed, s.PermissionsListed)
		}
		if s.Taken.Before(before) || s.Taken.After(after) {
			t.Errorf("%s: Taken %v not within the connect", dir, s.Taken)
		}
	}
	ids := func(s opencode.Snapshot) (qs, ps []string) {
		for _, q := range s.Questions {
			qs = append(qs, q.ID)
		}
		for _, p := range s.Permissions {
			ps = append(ps, p.ID)
		}
		return qs, ps
	}
	for dir, want := range map[string][2][]string{
		"/empty":        {nil, nil},
		"/from-dirs":    {{"que_d"}, {"per_d"}},
		"/repo":         {{"que_r"}, nil},
		"/repo-feature": {nil, {"per_f"}},
	} {
		qs, ps := ids(got[dir])
		if !slices.Equal(qs, want[0]) || !slices.Equal(ps, want[1]) {
			t.Errorf("%s: questions %q permissions %q, want %q %q", dir, qs, ps, want[0], want[1])
		}
	}
	if q := got["/repo"].Questions; len(q) == 1 && (q[0].Tool == nil || q[0].Tool.CallID != "call_r") {
		t.Errorf("listed question lost its tool call: %+v", q[0])
	}

	// A directory named only by an event joins at the next connect; the
	// project list is asked again too.
	srv.SetProjects(nil)
	srv.StoreQuestion("/seen", question("que_s", "ses_s", ""))
	srv.SendEvent("/seen", opencode.TypeSessionIdle, opencode.SessionIdle{SessionID: "ses_s"})
	for idle := false; !idle; {
		select {
		case v := <-h:
			ev, ok := v.(opencode.Event)
			idle = ok && ev.Type == opencode.TypeSessionIdle
		case <-ctx.Done():
			t.Fatal("no session.idle")
		}
	}
	srv.DropStreams()
	got = h.untilConnected(t)
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"/empty", "/from-dirs", "/repo", "/repo-feature", "/seen"}) {
		t.Fatalf("after reconnect: snapshots of %q", keys)
	}
	if qs, _ := ids(got["/seen"]); !slices.Equal(qs, []string{"que_s"}) {
		t.Errorf("/seen after reconnect: questions %q", qs)
	}
	if err := srv.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	projects := 0
	for _, r := range srv.Requests() {
		if (r.Path == "/question" || r.Path == "/permission") && (r.Directory() == "/unknown" || r.Directory() == "/" || r.Directory() == "") {
			t.Errorf("listed %s in directory %q, which nobody named", r.Path, r.Directory())
		}
		if r.Path == "/project" {
			projects++
		}
	}
	if projects != 2 {
		t.Errorf("GET /project asked %d times, want once per connect", projects)
	}
}

func TestWatchSnapshotSaysWhichListFailed(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	srv.StoreQuestion("/d", question("que_1", "ses_1", ""))
	srv.StorePermission("/d", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1"})
	srv.FailNext("/project", 500)
	srv.FailNext("/permission", 500)
	h := make(snapshots, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), h, func(context.Context) []string { return []string{"/d"} })

	got := h.untilConnected(t)
	s, ok := got["/d"]
	if len(got) != 1 || !ok {
		t.Fatalf("snapshots %v, want only /d", got)
	}
	if !s.QuestionsListed || len(s.Questions) != 1 || s.Questions[0].ID != "que_1" {
		t.Errorf("questions: listed %v %+v, want que_1", s.QuestionsListed, s.Questions)
	}
	if s.PermissionsListed || len(s.Permissions) != 0 {
		t.Errorf("permissions: listed %v %+v, want a failed list", s.PermissionsListed, s.Permissions)
	}
	for _, want := range []string{"listing opencode projects failed", "listing pending opencode permissions failed"} {
		if n := len(logs.lines(want)); n != 1 {
			t.Errorf("%d lines %q, want 1:\n%s", n, want, logs.String())
		}
	}
	if srv.Connections() != 1 {
		t.Errorf("%d connections: a failed list must not cost the connection", srv.Connections())
	}
}

func TestWatchSnapshotWhenEveryListFails(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	srv.FailNext("/question", 503)
	srv.FailNext("/permission", 503)
	h := make(snapshots, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), h, func(context.Context) []string { return []string{"/d"} })
	s, ok := h.untilConnected(t)["/d"]
	if !ok {
		t.Fatal("no snapshot of /d: a snapshot is due even when its lists failed")
	}
	if s.QuestionsListed || s.PermissionsListed || s.Taken.IsZero() {
		t.Errorf("snapshot %+v, want both lists failed and Taken set", s)
	}
}

func TestWatchListedEvents(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	srv.StorePermission("/d", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_1", Permission: "bash"})
	srv.StorePermission("/d", opencode.PermissionRequest{SessionID: "ses_1", Permission: "bash"}) // no ID
	srv.StoreQuestion("/d", question("que_1", "ses_1", ""))
	evs := make(events, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), evs, func(context.Context) []string { return []string{"/d"} })

	var listed []string
	for {
		ev := evs.next(t, "any", func(opencode.Event) bool { return true })
		if ev.Type == opencode.TypeServerConnected {
			break
		}
		if !ev.Listed || ev.Directory != "/d" {
			t.Errorf("event %+v before server.connected, want a listed one of /d", ev)
			continue
		}
		switch ev.Type {
		case opencode.TypeQuestionAsked:
			listed = append(listed, ev.QuestionAsked.ID)
		case opencode.TypePermissionAsked:
			listed = append(listed, ev.PermissionAsked.ID)
		}
	}
	if !slices.Equal(listed, []string{"que_1", "per_1"}) {
		t.Errorf("listed %q, want que_1 then per_1", listed)
	}
	if len(logs.lines("listed opencode permission without id")) != 1 {
		t.Errorf("no warning about the permission without an ID:\n%s", logs.String())
	}
}

var _ opencode.Handler = snapshots(nil)

// hintUnauthorized is in every log line about a refused password.
const hintUnauthorized = "wrong username or password"

// atLevel returns the log lines of level that contain s.
func atLevel(logs *logBuffer, level, s string) []string {
	var out []string
	for _, line := range logs.lines(s) {
		if strings.Contains(line, `"level":"`+level+`"`) {
			out = append(out, line)
		}
	}
	return out
}

// waitLines blocks until the log holds at least n lines containing s.
func waitLines(tb testing.TB, logs *logBuffer, s string, n int) {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for {
		logs.mu.Lock()
		ch := logs.changed
		logs.mu.Unlock()
		if len(logs.lines(s)) >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("log never had %d lines %q; log:\n%s", n, s, logs.String())
		}
	}
}

func TestWatchWrongPasswordLogsOncePerMinute(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	c, err := opencode.NewClient(srv.URL, append(fastOptions(logs), opencode.WithBasicAuth("opencode", "not-"+password))...)
	if err != nil {
		t.Fatal(err)
	}
	startWatch(t, c, make(events, 100), nil)
	// With millisecond backoff these attempts take far less than the minute.
	const attempts = 30
	const hint = hintUnauthorized
	waitLines(t, logs, hint, attempts)
	if n := len(atLevel(logs, "error", hint)); n != 1 {
		t.Errorf("%d error lines about the password over %d attempts, want 1:\n%s", n, attempts, logs.String())
	}
	if !strings.Contains(atLevel(logs, "error", hint)[0], "OPENCODE_SERVER_PASSWORD") {
		t.Errorf("the error line does not name OPENCODE_SERVER_PASSWORD")
	}
	for _, line := range logs.lines(hint) {
		if !strings.Contains(line, `"level":"error"`) && !strings.Contains(line, `"level":"debug"`) {
			t.Errorf("a repeated failure logged above debug: %s", line)
		}
	}
	if strings.Contains(logs.String(), password) {
		t.Errorf("the log shows the password")
	}
}

// manualClock is a clock that moves only when the test says.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestWatchRepeatedFailureSaysHowManyWereNotLogged(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	clock := &manualClock{t: time.Date(2025, 1, 2, 10, 0, 0, 0, time.UTC)}
	opts := append(fastOptions(logs), opencode.WithBasicAuth("opencode", "not-"+password), opencode.WithClock(clock.now))
	c, err := opencode.NewClient(srv.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	startWatch(t, c, make(events, 100), nil)
	const hint = hintUnauthorized
	// Failures keep coming every millisecond; while the clock stands
	// still they are all within the minute of the first.
	waitLines(t, logs, hint, 5)
	if got := atLevel(logs, "error", hint); len(got) != 1 || strings.Contains(got[0], "more failures") {
		t.Fatalf("error lines %q, want only the first failure's, claiming no earlier ones", got)
	}

	clock.advance(time.Minute)
	logs.waitFor(t, "more failures since 10:00:00")
	// The repeats counted are exactly those logged at debug before it.
	var repeats int
	for _, line := range logs.lines(hint) {
		if strings.Contains(line, `"level":"error"`) && strings.Contains(line, "more failures") {
			break
		}
		if strings.Contains(line, `"level":"debug"`) {
			repeats++
		}
	}
	got := atLevel(logs, "error", hint)
	if len(got) < 2 || !strings.Contains(got[1], fmt.Sprintf("(%d more failures since 10:00:00, not logged)", repeats)) ||
		!strings.Contains(got[1], fmt.Sprintf(`"unlogged_failures":%d`, repeats)) {
		t.Errorf("second error line %q, want it to count the %d repeats logged at debug", got, repeats)
	}
}

func TestWatchFailureOfAnotherClassIsLoggedAtOnce(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	// The faults come before the auth check: two 500s, then 401s.
	srv.FailNext("/global/event", 500)
	srv.FailNext("/global/event", 503)
	c, err := opencode.NewClient(srv.URL, append(fastOptions(logs), opencode.WithBasicAuth("opencode", "not-"+password))...)
	if err != nil {
		t.Fatal(err)
	}
	startWatch(t, c, make(events, 100), nil)
	logs.waitFor(t, hintUnauthorized)
	if n := len(atLevel(logs, "warn", `"class":"transient"`)); n != 1 {
		t.Errorf("%d warn lines for two transient failures in a row, want 1:\n%s", n, logs.String())
	}
	line := atLevel(logs, "error", hintUnauthorized)
	if len(line) != 1 || !strings.Contains(line[0], "1 more failures since") {
		t.Errorf("the password line %q, want one saying the unlogged transient failure", line)
	}
}

func TestWatchConnectSaysHowManyFailuresWereNotLogged(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	for range 4 {
		srv.FailNext("/global/event", 502)
	}
	evs := make(events, 100)
	startWatch(t, srv.Client(fastOptions(logs)...), evs, nil)
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
	logs.waitFor(t, "connected to opencode event stream")
	if n := len(atLevel(logs, "warn", "event stream failed")); n != 1 {
		t.Errorf("%d warn lines for 4 failures in a row, want 1:\n%s", n, logs.String())
	}
	connect := logs.lines("connected to opencode event stream")[0]
	if !strings.Contains(connect, "after 3 more failures since") || !strings.Contains(connect, `"unlogged_failures":3`) {
		t.Errorf("connect line %s, want it to count the 3 unlogged failures", connect)
	}

	// A connect starts afresh: the next failure is logged at once.
	srv.DropStreams()
	waitLines(t, logs, "closed by the server", 1)
	if n := len(atLevel(logs, "warn", "closed by the server")); n != 1 {
		t.Errorf("the drop after a connect was not logged at warn:\n%s", logs.String())
	}
}

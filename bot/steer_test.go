package bot

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// fakeSteer answers a fakeOpencode's steering calls.
type fakeSteer struct {
	mu       sync.Mutex
	prompts  []string // "dir|session|text"
	aborts   []string
	created  int
	projects []opencode.Project
	sessions map[string][]opencode.Session // by directory
	busy     map[string]bool
	err      error
	// gen is the server's kind, 1 when 0; steered are Steer's calls,
	// "dir|session|text"; saved the rules ListSaved lists, deleted
	// DeleteSaved's calls.
	gen     int
	steered []string
	saved   []opencode.SavedApproval
	deleted []string
}

func (f *fakeSteer) Generation() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return max(f.gen, 1)
}

func (f *fakeSteer) Steer(_ context.Context, dir, id, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.steered = append(f.steered, dir+"|"+id+"|"+text)
	return nil
}

func (f *fakeSteer) ListSaved(context.Context, string) ([]opencode.SavedApproval, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.saved), f.err
}

func (f *fakeSteer) DeleteSaved(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.deleted = append(f.deleted, id)
	f.saved = slices.DeleteFunc(f.saved, func(a opencode.SavedApproval) bool { return a.ID == id })
	return nil
}

func (f *fakeSteer) CreateSession(_ context.Context, dir, _ string) (opencode.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return opencode.Session{}, f.err
	}
	f.created++
	return opencode.Session{ID: fmt.Sprintf("ses_new%d", f.created), Directory: dir}, nil
}

func (f *fakeSteer) PromptAsync(_ context.Context, dir, id, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.prompts = append(f.prompts, dir+"|"+id+"|"+text)
	return nil
}

func (f *fakeSteer) Abort(_ context.Context, _, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.aborts = append(f.aborts, id)
	return f.err
}

func (f *fakeSteer) ListSessions(_ context.Context, dir string) ([]opencode.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[dir], f.err
}

func (f *fakeSteer) BusySessions(context.Context, string) (map[string]bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.busy, f.err
}

func (f *fakeSteer) ListProjects(context.Context) ([]opencode.Project, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.projects, f.err
}

func newSteerCore(t *testing.T) (*core, *fakeSteer) {
	st := &fakeSteer{}
	c := newCore(t, Config{Notify: NotifyOptions{Idle: true}})
	c.oc.steer = st
	c.oc.sessions = map[string]opencode.Session{"ses_1": {ID: "ses_1", Title: "Fix the login"},
		testSession: {ID: testSession, Title: "Set up the database"}}
	return c, st
}

// A reply to a "finished" notice goes to its session as a prompt.
func TestReplyToNoticeContinuesTheSession(t *testing.T) {
	c, st := newSteerCore(t)
	ctx := context.Background()
	c.b.HandleEvent(ctx, opencode.Event{Directory: "/p", Type: opencode.TypeSessionIdle, SessionIdle: &opencode.SessionIdle{SessionID: "ses_1"}})
	ms := c.fe.Messages()
	if len(ms) != 1 || ms[0].Notice == nil {
		t.Fatalf("messages %+v, want one notice", ms)
	}
	ref, ok, err := c.b.SessionAt(ctx, "test", ms[0].Place)
	if err != nil || !ok || ref != (pending.SessionRef{Directory: "/p", ID: "ses_1"}) {
		t.Fatalf("SessionAt(notice) = %+v, %v, %v", ref, ok, err)
	}
	var logs testlog.Buffer
	res, err := c.b.ContinueSession(ctx, zerolog.New(&logs), ref, "now add tests", ann, frontend.DeliverAsk)
	if err != nil || res.Title != "Fix the login" {
		t.Fatalf("ContinueSession = %+v, %v", res, err)
	}
	// Logged with the user and the session, without the prompt itself.
	if l := logs.String(); !strings.Contains(l, `"user":"Ann"`) || !strings.Contains(l, `"userID":"1"`) ||
		!strings.Contains(l, `"sessionID":"ses_1"`) || strings.Contains(l, "now add tests") {
		t.Errorf("steering log: %s", l)
	}
	if len(st.prompts) != 1 || st.prompts[0] != "/p|ses_1|now add tests" {
		t.Fatalf("prompts %q", st.prompts)
	}
}

// A session opencode no longer knows is reported gone, and nothing is sent;
// an unreachable opencode is told apart.
func TestContinueSaysWhyNot(t *testing.T) {
	c, st := newSteerCore(t)
	ctx := context.Background()
	_, err := c.b.ContinueSession(ctx, zerolog.Nop(), pending.SessionRef{Directory: "/p", ID: "ses_gone"}, "hi", ann, frontend.DeliverAsk)
	if !errors.Is(err, frontend.ErrSessionGone) {
		t.Fatalf("err = %v, want ErrSessionGone", err)
	}
	c.oc.sessionErr = opencode.ErrTransient
	_, err = c.b.ContinueSession(ctx, zerolog.Nop(), pending.SessionRef{Directory: "/p", ID: "ses_1"}, "hi", ann, frontend.DeliverAsk)
	if !errors.Is(err, frontend.ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if len(st.prompts) != 0 {
		t.Fatalf("prompts sent: %q", st.prompts)
	}
}

// A question still waiting keeps its meaning: a reply to its message is
// not steering; once answered, a reply continues its session.
func TestReplyToRequestMessage(t *testing.T) {
	c, _ := newSteerCore(t)
	ctx := context.Background()
	m := c.ask("que_1", dbQuestion())
	if _, ok, _ := c.b.SessionAt(ctx, "test", m.Place); ok {
		t.Fatal("a waiting question's message counts as a session message")
	}
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	ref, ok, err := c.b.SessionAt(ctx, "test", m.Place)
	if err != nil || !ok || ref.ID != testSession {
		t.Fatalf("SessionAt(answered question) = %+v, %v, %v; want its session", ref, ok, err)
	}
}

// Start: a session is created in the directory and gets the first prompt.
func TestStartSession(t *testing.T) {
	c, st := newSteerCore(t)
	st.projects = []opencode.Project{{Worktree: "/"}, {Worktree: "/home/me/shop"}, {Worktree: "/home/me/app"}}
	ps, err := c.b.Projects(context.Background())
	if err != nil || len(ps) != 2 || ps[0].Directory != "/home/me/app" {
		t.Fatalf("Projects = %+v, %v; want app and shop, no global project", ps, err)
	}
	res, err := c.b.StartSession(context.Background(), zerolog.Nop(), pending.SessionRef{Directory: "/home/me/shop"}, "write a README", ann)
	if err != nil || res.Ref.ID != "ses_new1" || res.Ref.Directory != "/home/me/shop" {
		t.Fatalf("StartSession = %+v, %v", res, err)
	}
	if len(st.prompts) != 1 || st.prompts[0] != "/home/me/shop|ses_new1|write a README" {
		t.Fatalf("prompts %q", st.prompts)
	}
}

// Stop aborts the session, rejects its question in opencode and closes
// its message, naming who stopped it.
func TestStopSessionClosesItsQuestions(t *testing.T) {
	c, st := newSteerCore(t)
	ctx := context.Background()
	m := c.ask("que_1", colours())
	res, err := c.b.StopSession(ctx, zerolog.Nop(), pending.SessionRef{Directory: m.Request.Members[0].Directory, ID: testSession}, ann)
	if err != nil || res.Closed != 1 || res.Title != "Set up the database" {
		t.Fatalf("StopSession = %+v, %v", res, err)
	}
	if len(st.aborts) != 1 || st.aborts[0] != testSession {
		t.Fatalf("aborts %q", st.aborts)
	}
	if r := c.oc.rejects; len(r) != 1 || !strings.Contains(r[0], "que_1") {
		t.Fatalf("rejects %q, want que_1", r)
	}
	got, _ := c.fe.Message(m.ID)
	if got.Open || !strings.Contains(got.Outcome, fmt.Sprintf("how=%d", frontend.Stopped)) || !strings.Contains(got.Outcome, "by=Ann") {
		t.Fatalf("message after stop: %+v", got)
	}
	if _, err := c.store.ByRequestID("", "que_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Fatalf("request still held after the stop: %v", err)
	}
}

// Sessions shows each session's state: waiting beats working.
func TestSessionsStates(t *testing.T) {
	c, st := newSteerCore(t)
	c.ask("que_1", colours())
	dir := c.shownDir("que_1")
	st.projects = []opencode.Project{{Worktree: dir}}
	st.sessions = map[string][]opencode.Session{dir: {{ID: testSession, Title: "a"}, {ID: "ses_2", Title: "b"}, {ID: "ses_3", Title: "c"}, {ID: "ses_4", ParentID: "ses_2"}}}
	st.busy = map[string]bool{testSession: true, "ses_2": true}
	// A session whose last turn failed shows failed.
	c.b.HandleEvent(context.Background(), opencode.Event{Directory: dir, Type: opencode.TypeSessionError,
		SessionError: &opencode.SessionError{SessionID: "ses_3", Error: []byte(`{"name":"ProviderAuthError","data":{"message":"bad key"}}`)}})
	ss, err := c.b.Sessions(context.Background(), 10)
	if err != nil || len(ss) != 3 {
		t.Fatalf("Sessions = %+v, %v; want 3 top-level sessions", ss, err)
	}
	want := map[string]frontend.SessionState{testSession: frontend.Waiting, "ses_2": frontend.Working, "ses_3": frontend.Failed}
	for _, s := range ss {
		if s.State != want[s.Ref.ID] {
			t.Errorf("%s: state %d, want %d", s.Ref.ID, s.State, want[s.Ref.ID])
		}
	}
}

func (c *core) shownDir(id string) string {
	c.t.Helper()
	e, err := c.store.ByRequestID("", id)
	if err != nil {
		c.t.Fatal(err)
	}
	return e.Directory
}

// steeringOpencode is a fake opencode server that can be steered.
// With several servers, a reply to a notice prompts the session on the
// server whose notice it is, and Stop aborts and rejects there alone.
func TestSteeringGoesToTheSessionsServer(t *testing.T) {
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	laptop := &fakeOpencode{steer: &fakeSteer{}}
	ci := &fakeOpencode{steer: &fakeSteer{}}
	for _, s := range []*fakeOpencode{laptop, ci} {
		s.sessions = map[string]opencode.Session{testSession: {ID: testSession, Title: "Build"}}
	}
	c := &core{t: t, fe: &frontendtest.Frontend{}, store: store, now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	c.b = NewBridge(Config{Notify: NotifyOptions{Idle: true}, Servers: map[string]Opencode{"laptop": laptop, "ci": ci}}, store, []frontend.Frontend{c.fe}, zerolog.Nop())
	c.b.now = func() time.Time { return c.now }
	ctx := context.Background()

	ev := idleEvent(testSession)
	ev.Server = "ci"
	c.b.HandleEvent(ctx, ev)
	ms := c.fe.Messages()
	if len(ms) != 1 {
		t.Fatalf("%d messages, want the notice", len(ms))
	}
	ref, ok, err := c.b.SessionAt(ctx, "test", ms[0].Place)
	if err != nil || !ok || ref.Server != "ci" {
		t.Fatalf("SessionAt = %+v, %v, %v; want ci's session", ref, ok, err)
	}
	if _, err := c.b.ContinueSession(ctx, zerolog.Nop(), ref, "again", ann, frontend.DeliverAsk); err != nil {
		t.Fatal(err)
	}
	if len(ci.steer.prompts) != 1 || len(laptop.steer.prompts) != 0 {
		t.Fatalf("prompts: ci %q, laptop %q; want ci's only", ci.steer.prompts, laptop.steer.prompts)
	}

	q := askedEvent("que_1", dbQuestion())
	q.Server = "ci"
	c.b.HandleEvent(ctx, q)
	info, err := c.b.FindSession(ctx, testSession)
	if err != nil || info.Ref.Server != "ci" {
		t.Fatalf("FindSession = %+v, %v", info, err)
	}
	res, err := c.b.StopSession(ctx, zerolog.Nop(), info.Ref, ann)
	if err != nil || res.Closed != 1 {
		t.Fatalf("StopSession = %+v, %v", res, err)
	}
	if len(ci.steer.aborts) != 1 || len(laptop.steer.aborts) != 0 || len(ci.rejects) != 1 || len(laptop.rejects) != 0 {
		t.Fatalf("aborts ci %q laptop %q, rejects ci %q laptop %q", ci.steer.aborts, laptop.steer.aborts, ci.rejects, laptop.rejects)
	}
}

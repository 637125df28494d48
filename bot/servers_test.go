package bot

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// twoServers is a bridge serving two named opencode servers, laptop and
// ci, each a fake, over a real store and the in-memory front-end.
type twoServers struct {
	*core
	laptop, ci *fakeOpencode
}

func newTwoServers(t *testing.T) *twoServers {
	t.Helper()
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	s := &twoServers{laptop: &fakeOpencode{}, ci: &fakeOpencode{}}
	s.core = &core{t: t, fe: &frontendtest.Frontend{}, store: store, now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	s.b = NewBridge(Config{Servers: map[string]Opencode{"laptop": s.laptop, "ci": s.ci}}, store, []frontend.Frontend{s.fe}, zerolog.Nop())
	s.b.now = func() time.Time { return s.now }
	s.b.lockWait = 50 * time.Millisecond
	return s
}

func on(server string, ev opencode.Event) opencode.Event {
	ev.Server = server
	return ev
}

// held returns server's entry for request id.
func (s *twoServers) held(server, id string) *pending.Entry {
	s.t.Helper()
	e, err := s.store.ByRequestID(server, id)
	if err != nil {
		s.t.Fatalf("request %s of %s not held: %v", id, server, err)
	}
	return e
}

// The same request ID asked by two servers is two requests, each shown
// with its server and answered on it alone.
func TestServersSameRequestIDAnsweredOnItsServer(t *testing.T) {
	s := newTwoServers(t)
	ctx := context.Background()
	s.b.HandleEvent(ctx, on("laptop", askedEvent("que_1", dbQuestion())))
	s.b.HandleEvent(ctx, on("ci", askedEvent("que_1", dbQuestion())))
	l, c := s.held("laptop", "que_1"), s.held("ci", "que_1")
	if l.UID == c.UID || msgID(l) == msgID(c) {
		t.Fatalf("both servers' que_1 share UID %s / message %d, %d", l.UID, msgID(l), msgID(c))
	}
	if m, _ := s.fe.Message(msgID(c)); len(m.Request.Members) != 1 || m.Request.Members[0].Server != "ci" {
		t.Fatalf("ci's message shows %+v, want ci's entry", m.Request)
	}

	s.press(c.UID, frontend.Pick, 0, 1, ann, msgID(c))
	if r := s.ci.Replies(); len(r) != 1 || r[0].RequestID != "que_1" {
		t.Errorf("ci heard %+v, want the answer to que_1", r)
	}
	if r := s.laptop.Replies(); len(r) != 0 {
		t.Errorf("laptop heard %+v, want nothing: its que_1 was not answered", r)
	}
	if _, err := s.store.ByRequestID("ci", "que_1"); err == nil {
		t.Error("ci's que_1 still held after its answer")
	}
	if m, _ := s.fe.Message(msgID(l)); !m.Open {
		t.Errorf("laptop's que_1 closed by ci's answer: %+v", m)
	}

	// An answer given at laptop's terminal closes laptop's request; the
	// event of ci's own answer, echoed, finds nothing of ci's to close.
	s.b.HandleEvent(ctx, on("ci", opencode.Event{Type: opencode.TypeQuestionReplied,
		QuestionReplied: &opencode.QuestionReplied{SessionID: testSession, RequestID: "que_1"}}))
	if m, _ := s.fe.Message(msgID(l)); !m.Open {
		t.Fatalf("ci's replied event closed laptop's que_1: %+v", m)
	}
	s.b.HandleEvent(ctx, on("laptop", opencode.Event{Type: opencode.TypeQuestionReplied,
		QuestionReplied: &opencode.QuestionReplied{SessionID: testSession, RequestID: "que_1", Answers: [][]string{{"SQLite"}}}}))
	if m, _ := s.fe.Message(msgID(l)); m.Open {
		t.Errorf("laptop's que_1 still open after laptop said it was answered: %+v", m)
	}
	// ci's asked event read late is not posted again: ci closed it.
	before := len(s.fe.Messages())
	s.b.HandleEvent(ctx, on("ci", askedEvent("que_1", dbQuestion())))
	if n := len(s.fe.Messages()); n != before {
		t.Errorf("a late asked event of ci's answered que_1 posted it again (%d messages, want %d)", n, before)
	}
}

func TestServersPermissionDecidedOnItsServer(t *testing.T) {
	s := newTwoServers(t)
	ctx := context.Background()
	s.b.HandleEvent(ctx, on("ci", permEvent("per_1", "make test")))
	e := s.held("ci", "per_1")
	s.press(e.UID, frontend.AllowOnce, 0, 0, ann, msgID(e))
	if p := s.ci.PermReplies(); len(p) != 1 || p[0].RequestID != "per_1" || p[0].Reply != frontend.ReplyOnce {
		t.Errorf("ci heard %+v, want once for per_1", p)
	}
	if p := s.laptop.PermReplies(); len(p) != 0 {
		t.Errorf("laptop heard %+v, want nothing", p)
	}
}

// A reconnect's listing of one server closes that server's requests it no
// longer lists, never another's in the same directory.
func TestServersSnapshotClosesOnlyItsServer(t *testing.T) {
	s := newTwoServers(t)
	ctx := context.Background()
	s.b.HandleEvent(ctx, on("laptop", askedEvent("que_1", dbQuestion())))
	s.b.HandleEvent(ctx, on("ci", askedEvent("que_2", dbQuestion())))
	l, c := s.held("laptop", "que_1"), s.held("ci", "que_2")
	s.now = s.now.Add(time.Minute)
	s.b.HandleSnapshot(ctx, opencode.Snapshot{Server: "ci", Directory: l.Directory,
		QuestionsListed: true, PermissionsListed: true, APIQuestionsListed: true, APIPermissionsListed: true, Taken: s.now})
	if m, _ := s.fe.Message(msgID(c)); m.Open {
		t.Errorf("ci's que_2 still open after ci listed nothing: %+v", m)
	}
	if m, _ := s.fe.Message(msgID(l)); !m.Open {
		t.Errorf("ci's listing closed laptop's que_1: %+v", m)
	}
	if _, err := s.store.ByRequestID("laptop", "que_1"); err != nil {
		t.Errorf("laptop's que_1 no longer held: %v", err)
	}
}

// A request of a server no longer served (OPENCODE_URL changed while it
// was held) is refused rather than answered on another server.
func TestServersUnservedServerRefuses(t *testing.T) {
	s := newTwoServers(t)
	ctx := context.Background()
	s.b.HandleEvent(ctx, on("old", askedEvent("que_1", dbQuestion())))
	e := s.held("old", "que_1")
	s.press(e.UID, frontend.Pick, 0, 1, ann, msgID(e))
	if n := len(s.laptop.Replies()) + len(s.ci.Replies()); n != 0 {
		t.Errorf("%d answers reached a server that did not ask", n)
	}
	if _, err := s.store.ByRequestID("old", "que_1"); err != nil {
		t.Errorf("refused request no longer held: %v", err)
	}
}

// A session of a server no longer served cannot be steered, and says
// why, rather than being steered on another server.
func TestServersUnservedServerSteersNothing(t *testing.T) {
	s := newTwoServers(t)
	s.laptop.steer, s.ci.steer = &fakeSteer{}, &fakeSteer{}
	ref := pending.SessionRef{Server: "old", Directory: "/p", ID: testSession}
	_, err := s.b.ContinueSession(context.Background(), zerolog.Nop(), ref, "go on", ann, frontend.DeliverAsk)
	if !errors.Is(err, frontend.ErrUnreachable) || !strings.Contains(err.Error(), "not among those served") {
		t.Errorf("ContinueSession on an unserved server = %v, want unreachable, not served", err)
	}
	if _, err := s.b.StopSession(context.Background(), zerolog.Nop(), ref, ann); !errors.Is(err, frontend.ErrUnreachable) {
		t.Errorf("StopSession on an unserved server = %v, want unreachable", err)
	}
	if n := len(s.laptop.steer.prompts) + len(s.ci.steer.prompts) + len(s.laptop.steer.aborts) + len(s.ci.steer.aborts); n != 0 {
		t.Errorf("%d steering calls reached a served server", n)
	}
}

func TestLaneKeyNamesServer(t *testing.T) {
	ev := askedEvent("que_1")
	if got := laneKey(ev); got != testSession {
		t.Errorf("unnamed server's lane = %q, want the session alone", got)
	}
	if a, b := laneKey(on("laptop", ev)), laneKey(on("ci", ev)); a == b {
		t.Errorf("two servers' sessions share lane %q", a)
	}
}

// Identical permission requests share a message only on one server: a
// decision on laptop's must not answer ci's.
func TestServersIdenticalPermissionsNotShared(t *testing.T) {
	s := newTwoServers(t)
	ctx := context.Background()
	s.b.HandleEvent(ctx, on("laptop", permEvent("per_1", "make test")))
	s.b.HandleEvent(ctx, on("ci", permEvent("per_2", "make test")))
	l, c := s.held("laptop", "per_1"), s.held("ci", "per_2")
	if c.SharedWith != "" || msgID(l) == msgID(c) {
		t.Fatalf("ci's request joined laptop's message (SharedWith %q, messages %d, %d)", c.SharedWith, msgID(l), msgID(c))
	}
	s.press(l.UID, frontend.Reject, 0, 0, ann, msgID(l))
	if p := s.ci.PermReplies(); len(p) != 0 {
		t.Errorf("ci heard %+v after laptop's request was rejected", p)
	}
	if _, err := s.store.ByRequestID("ci", "per_2"); err != nil {
		t.Errorf("ci's request no longer held: %v", err)
	}
}

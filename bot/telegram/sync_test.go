package telegram_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// These tests wire the bridge as cmd/hermes-bot does: a real opencode
// client watching the fake opencode server, a real go-telegram/bot client
// talking to the fake Bot API, a real store.

const (
	syncToken = "456:sync-secret-token"
	syncChat  = int64(-1009876543210)
	syncDir   = "/home/user/projects/sync"
)

var _ opencode.SnapshotHandler = (*bot.Bridge)(nil)

type syncRig struct {
	t      *testing.T
	ctx    context.Context
	oc     *opencodetest.Server
	tg     *telegramtest.Server
	tb     *tgbot.Bot
	dbPath string
	logs   testlog.Buffer

	// Set by open.
	store  *pending.Store
	bridge *bot.Bridge
	// connected receives a value each time the bridge has handled
	// server.connected: the snapshots of that connect are done, and so is
	// SendUnsent.
	connected chan struct{}
}

func newSyncRig(t *testing.T) *syncRig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	r := &syncRig{t: t, ctx: ctx, oc: opencodetest.NewServer(), tg: telegramtest.NewServer(syncToken),
		dbPath: filepath.Join(t.TempDir(), "pending.db")}
	t.Cleanup(r.oc.Close)
	t.Cleanup(r.tg.Close)
	if err := r.tg.AddChat(syncChat, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	r.tb = newFakeBot(t, r.tg, syncToken)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bridge log:\n%s", r.logs.String())
		}
	})
	r.open()
	return r
}

func (r *syncRig) logLines(s string) int {
	return strings.Count(r.logs.String(), s)
}

// open opens the store and makes a new bridge over it, as a start of
// hermes-bot does.
func (r *syncRig) open() {
	r.t.Helper()
	store, err := pending.Open(r.dbPath)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = store.Close() })
	redactor := telegram.NewRedactor(syncToken)
	r.store = store
	fe := telegram.New(telegram.Config{ChatID: syncChat}, telegram.RedactTelegram(r.tb, redactor), store, zerolog.New(&r.logs))
	r.bridge = bot.NewBridge(bot.Config{Servers: map[string]bot.Opencode{"": r.client()}}, store, []frontend.Frontend{fe}, zerolog.New(&r.logs))
	r.connected = make(chan struct{}, 10)
}

// restart closes the store and opens it again under a new bridge: what
// survives is what the store kept.
func (r *syncRig) restart() {
	r.t.Helper()
	if err := r.store.Close(); err != nil {
		r.t.Fatal(err)
	}
	r.open()
}

func (r *syncRig) client() *opencode.Client {
	return r.oc.Client(
		opencode.WithBackoff(time.Millisecond, 5*time.Millisecond, time.Hour),
		opencode.WithResolveRetry(2, time.Millisecond),
	)
}

// watch runs the watcher over the current bridge until the test ends,
// with the store's directories as the known ones.
func (r *syncRig) watch() {
	r.t.Helper()
	ctx, cancel := context.WithCancel(r.ctx)
	done := make(chan error, 1)
	h := &syncObserver{Bridge: r.bridge, connected: r.connected}
	store := r.store
	dirs := func(context.Context) opencode.Known {
		d, err := store.Directories()
		if err != nil {
			r.t.Errorf("directories: %v", err)
		}
		return opencode.Known{Directories: d}
	}
	go func() { done <- r.client().Watch(ctx, h, dirs) }()
	r.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			r.t.Errorf("Watch = %v", err)
		}
	})
}

// waitConnected waits until the bridge has handled one more connect.
func (r *syncRig) waitConnected() {
	r.t.Helper()
	select {
	case <-r.connected:
	case <-r.ctx.Done():
		r.t.Fatal("the bridge never handled server.connected")
	}
}

// syncObserver is the bridge, telling the test when it has handled a
// connect. HandleSnapshot is the bridge's own.
type syncObserver struct {
	*bot.Bridge
	connected chan struct{}
}

func (o *syncObserver) HandleEvent(ctx context.Context, ev opencode.Event) {
	o.Bridge.HandleEvent(ctx, ev)
	if ev.Type == opencode.TypeServerConnected {
		select {
		case o.connected <- struct{}{}:
		case <-ctx.Done():
		}
	}
}

func syncQuestion(id, callID, text string) opencode.QuestionRequest {
	return opencode.QuestionRequest{
		ID:        id,
		SessionID: "ses_sync1",
		Questions: []opencode.Question{{
			Question: text,
			Options:  []opencode.Option{{Label: "Yes"}, {Label: "No"}},
		}},
		Tool: &opencode.ToolRef{MessageID: "msg_sync", CallID: callID},
	}
}

func syncPermission(id, cmd string) opencode.PermissionRequest {
	return opencode.PermissionRequest{
		ID:         id,
		SessionID:  "ses_sync1",
		Permission: "bash",
		Patterns:   []string{cmd},
		Metadata:   []byte(`{"command":` + strconv.Quote(cmd) + `}`),
	}
}

// ask hands the bridge a question.asked from the stream, as before a
// restart.
func (r *syncRig) ask(q opencode.QuestionRequest) *pending.Entry {
	r.t.Helper()
	r.bridge.HandleEvent(r.ctx, opencode.Event{Type: opencode.TypeQuestionAsked, Directory: syncDir, QuestionAsked: &q})
	return r.held(q.ID)
}

func (r *syncRig) askPermission(p opencode.PermissionRequest) *pending.Entry {
	r.t.Helper()
	r.bridge.HandleEvent(r.ctx, opencode.Event{Type: opencode.TypePermissionAsked, Directory: syncDir, PermissionAsked: &p})
	return r.held(p.ID)
}

// held returns the entry of requestID, which must be posted.
func (r *syncRig) held(requestID string) *pending.Entry {
	r.t.Helper()
	e, err := r.store.ByRequestID("", requestID)
	if err != nil {
		r.t.Fatalf("request %s not held: %v", requestID, err)
	}
	if telegram.MessageAt(e.Places[telegram.Name]) == 0 {
		r.t.Fatalf("request %s not posted", requestID)
	}
	return e
}

func (r *syncRig) notHeld(requestID string) {
	r.t.Helper()
	if e, err := r.store.ByRequestID("", requestID); err == nil {
		r.t.Errorf("request %s still held: %+v", requestID, e)
	}
}

// messages returns the messages of the chat that contain s.
func (r *syncRig) messages(s string) []telegramtest.Message {
	var out []telegramtest.Message
	for _, m := range r.tg.Messages(syncChat) {
		if strings.Contains(m.PlainText, s) {
			out = append(out, m)
		}
	}
	return out
}

// one returns the only message containing s.
func (r *syncRig) one(s string) telegramtest.Message {
	r.t.Helper()
	ms := r.messages(s)
	if len(ms) != 1 {
		r.t.Fatalf("%d messages contain %q, want 1: %+v", len(ms), s, r.tg.Messages(syncChat))
	}
	return ms[0]
}

// closedGone checks message id says its request went elsewhere.
func (r *syncRig) closedGone(id int) {
	r.t.Helper()
	m, ok := r.tg.Message(syncChat, id)
	if !ok || m.Keyboard != nil || !strings.Contains(m.PlainText, "No longer pending in opencode: answered or dismissed elsewhere.") {
		r.t.Errorf("message %d = %+v, want it closed as gone, without buttons", id, m)
	}
}

// untouched checks message id was never edited and keeps its buttons.
func (r *syncRig) untouched(id int) {
	r.t.Helper()
	m, ok := r.tg.Message(syncChat, id)
	if !ok || m.Edits != 0 || m.Keyboard == nil {
		r.t.Errorf("message %d = %+v, want it as posted", id, m)
	}
}

func TestSyncPostsWhatOnlyProjectsKnow(t *testing.T) {
	r := newSyncRig(t)
	const repo, sandbox = "/srv/repo", "/srv/repo-feature"
	r.oc.SetProjects([]opencode.Project{{ID: "global", Worktree: "/"}, {ID: "c0ffee", Worktree: repo, Sandboxes: []string{sandbox}}})
	r.oc.StoreQuestion(repo, syncQuestion("que_repo", "call_repo", "Asked while the bot was down?"))
	r.oc.StorePermission(sandbox, syncPermission("per_sandbox", "make deploy"))
	r.watch()
	r.waitConnected()

	m := r.one("Asked while the bot was down?")
	if e := r.held("que_repo"); e.Directory != repo || telegram.MessageAt(e.Places[telegram.Name]) != m.ID || e.CallID != "call_repo" {
		t.Errorf("entry %+v, want directory %s and message %d", e, repo, m.ID)
	}
	if e := r.held("per_sandbox"); e.Directory != sandbox || e.Kind != pending.KindPermission {
		t.Errorf("entry %+v, want a permission of %s", e, sandbox)
	}
	if n := len(r.messages("make deploy")); n != 1 {
		t.Errorf("%d messages show the permission, want 1", n)
	}
}

func TestSyncClosesWhatIsGoneAfterRestart(t *testing.T) {
	r := newSyncRig(t)
	q := r.ask(syncQuestion("que_gone", "call_gone", "Answered in the TUI meanwhile?"))
	p := r.askPermission(syncPermission("per_gone", "rm -rf build"))
	kept := syncQuestion("que_kept", "call_kept", "Still waiting?")
	r.oc.StoreQuestion(syncDir, kept)
	k := r.ask(kept)

	r.restart()
	r.watch()
	r.waitConnected()

	r.closedGone(telegram.MessageAt(q.Places[telegram.Name]))
	r.closedGone(telegram.MessageAt(p.Places[telegram.Name]))
	r.notHeld("que_gone")
	r.notHeld("per_gone")
	r.untouched(telegram.MessageAt(k.Places[telegram.Name]))
	if e := r.held("que_kept"); e.UID != k.UID {
		t.Errorf("kept question is now %+v", e)
	}
	if n := r.logLines("request no longer pending in opencode"); n != 2 {
		t.Errorf("%d log lines about closed requests, want 2", n)
	}
	if n := len(r.tg.Messages(syncChat)); n != 3 {
		t.Errorf("%d messages, want the 3 posted before the restart and nothing more", n)
	}
}

func TestSyncKeepsWhatAFailedListCannotProve(t *testing.T) {
	r := newSyncRig(t)
	q := r.ask(syncQuestion("que_1", "call_1", "Listed by a list that failed?"))
	p := r.askPermission(syncPermission("per_1", "ls /tmp"))
	r.oc.FailNext("/question", http.StatusInternalServerError)
	r.watch()
	r.waitConnected()

	r.untouched(telegram.MessageAt(q.Places[telegram.Name]))
	r.held("que_1")
	// The permission list worked: that one is gone.
	r.closedGone(telegram.MessageAt(p.Places[telegram.Name]))
	r.notHeld("per_1")

	// The next connect lists questions again and closes the question.
	r.oc.DropStreams()
	r.waitConnected()
	r.closedGone(telegram.MessageAt(q.Places[telegram.Name]))
	r.notHeld("que_1")
}

func TestSyncStreamAndListingPostOnce(t *testing.T) {
	r := newSyncRig(t)
	q := syncQuestion("que_1", "call_1", "Seen twice, posted once?")
	p := syncPermission("per_1", "go test ./...")
	r.oc.StoreQuestion(syncDir, q)
	r.oc.StorePermission(syncDir, p)
	// Known from the store, so listed at the first connect.
	r.ask(syncQuestion("que_0", "call_0", "Already held"))
	r.oc.StoreQuestion(syncDir, syncQuestion("que_0", "call_0", "Already held"))
	r.watch()
	if err := r.oc.WaitConnections(r.ctx, 1); err != nil {
		t.Fatal(err)
	}
	// On the stream after the listing of the same connect.
	r.oc.SendEvent(syncDir, opencode.TypeQuestionAsked, q)
	r.oc.SendEvent(syncDir, opencode.TypePermissionAsked, p)
	r.waitConnected()
	marker := syncQuestion("que_marker", "call_marker", "Marker")
	r.oc.AddQuestion(syncDir, marker)
	if _, err := r.tg.WaitMessage(r.ctx, syncChat, func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Marker") }); err != nil {
		t.Fatal(err)
	}

	for range 2 {
		r.oc.DropStreams()
		r.waitConnected()
	}
	m := r.one("Seen twice, posted once?")
	r.untouched(m.ID)
	if n := len(r.messages("go test ./...")); n != 1 {
		t.Errorf("%d messages show the permission, want 1", n)
	}
	r.one("Already held")
	r.one("Marker")
	if n := len(r.tg.Messages(syncChat)); n != 4 {
		t.Errorf("%d messages, want 4", n)
	}
	lists := 0
	for _, req := range r.oc.Requests() {
		if req.Path == "/question" && req.Directory() == syncDir {
			lists++
		}
	}
	if lists < 3 {
		t.Errorf("%d question lists of %s, want one per connect (3)", lists, syncDir)
	}
}

func TestSyncReconnectClosesAndPostsWhatChangedMeanwhile(t *testing.T) {
	r := newSyncRig(t)
	r.watch()
	r.waitConnected()
	a, b := syncQuestion("que_a", "call_a", "Question A"), syncQuestion("que_b", "call_b", "Question B")
	r.oc.AddQuestion(syncDir, a)
	r.oc.AddQuestion(syncDir, b)
	if err := r.tg.Wait(r.ctx, func() bool { return len(r.tg.Messages(syncChat)) == 2 }); err != nil {
		t.Fatal(err)
	}
	ma, mb := r.one("Question A"), r.one("Question B")

	// While nobody listens: B is answered elsewhere, C is asked.
	r.oc.RemoveQuestion(syncDir, "que_b")
	r.oc.StoreQuestion(syncDir, syncQuestion("que_c", "call_c", "Question C"))
	r.oc.DropStreams()
	r.waitConnected()

	r.untouched(ma.ID)
	r.closedGone(mb.ID)
	r.notHeld("que_b")
	r.one("Question C")
	r.held("que_c")
	if n := len(r.tg.Messages(syncChat)); n != 3 {
		t.Errorf("%d messages, want 3", n)
	}
}

func TestSyncSparesRequestsNewerThanTheListing(t *testing.T) {
	r := newSyncRig(t)
	taken := time.Now()
	// Asked after the listing began: an empty list does not prove it gone.
	e := r.ask(syncQuestion("que_new", "call_new", "Asked during the listing"))
	r.bridge.HandleSnapshot(r.ctx, opencode.Snapshot{Directory: syncDir, QuestionsListed: true, PermissionsListed: true, Taken: taken})
	r.untouched(telegram.MessageAt(e.Places[telegram.Name]))
	r.held("que_new")

	r.bridge.HandleSnapshot(r.ctx, opencode.Snapshot{Directory: syncDir, QuestionsListed: true, PermissionsListed: true, Taken: time.Now()})
	r.closedGone(telegram.MessageAt(e.Places[telegram.Name]))
	r.notHeld("que_new")
}

func TestSyncSparesOtherDirectories(t *testing.T) {
	r := newSyncRig(t)
	e := r.ask(syncQuestion("que_1", "call_1", "Somewhere else"))
	r.bridge.HandleSnapshot(r.ctx, opencode.Snapshot{Directory: syncDir + "-other", QuestionsListed: true, PermissionsListed: true, Taken: time.Now()})
	r.untouched(telegram.MessageAt(e.Places[telegram.Name]))
	r.held("que_1")
}

func TestSyncNewRequestIDOfSameToolCallKeepsMessage(t *testing.T) {
	r := newSyncRig(t)
	old := r.ask(syncQuestion("que_old", "call_1", "Asked before opencode restarted"))
	// opencode restarted and lists the same tool call's question under a
	// new ID.
	r.oc.StoreQuestion(syncDir, syncQuestion("que_new", "call_1", "Asked before opencode restarted"))
	r.restart()
	r.watch()
	r.waitConnected()

	e := r.held("que_new")
	if e.UID != old.UID || telegram.MessageAt(e.Places[telegram.Name]) != telegram.MessageAt(old.Places[telegram.Name]) {
		t.Errorf("entry %+v, want the old entry %s under the new ID", e, old.UID)
	}
	r.notHeld("que_old")
	r.untouched(telegram.MessageAt(old.Places[telegram.Name]))
	r.one("Asked before opencode restarted")
	if n := r.logLines("opencode lists the question under a new request ID"); n != 1 {
		t.Errorf("%d log lines about the new ID, want 1", n)
	}

	// Events name the new ID now.
	r.oc.AnswerQuestion(syncDir, "que_new", [][]string{{"Yes"}})
	if _, err := r.tg.WaitMessage(r.ctx, syncChat, func(m telegramtest.Message) bool {
		return m.ID == telegram.MessageAt(old.Places[telegram.Name]) && m.Keyboard == nil && strings.Contains(m.PlainText, "Answered in opencode")
	}); err != nil {
		t.Fatal(err)
	}
	r.notHeld("que_new")
}

func TestSyncSendsStoredButUnsent(t *testing.T) {
	r := newSyncRig(t)
	// Telegram refuses both posts: the entries stay, unsent.
	r.tg.FailNextN("sendMessage", 2, telegramtest.Fault{Code: http.StatusBadRequest, Description: "Bad Request: injected"})
	q := syncQuestion("que_pending", "call_pending", "Never reached Telegram")
	r.bridge.HandleEvent(r.ctx, opencode.Event{Type: opencode.TypeQuestionAsked, Directory: syncDir, QuestionAsked: &q})
	gone := syncQuestion("que_gone", "call_gone", "Gone before it was sent")
	r.bridge.HandleEvent(r.ctx, opencode.Event{Type: opencode.TypeQuestionAsked, Directory: syncDir, QuestionAsked: &gone})
	if unsent, err := r.store.Unsent(); err != nil || len(unsent) != 2 {
		t.Fatalf("unsent = %d entries, %v; want 2", len(unsent), err)
	}
	if n := len(r.tg.Messages(syncChat)); n != 0 {
		t.Fatalf("%d messages after refused posts", n)
	}
	r.oc.StoreQuestion(syncDir, q)

	r.restart()
	r.watch()
	r.waitConnected()
	r.one("Never reached Telegram")
	r.held("que_pending")
	r.notHeld("que_gone")
	if n := len(r.tg.Messages(syncChat)); n != 1 {
		t.Errorf("%d messages, want only the pending question's", n)
	}
}

func TestSyncAnsweredDuringListingIsNotPostedAgain(t *testing.T) {
	r := newSyncRig(t)
	q1, q2 := syncQuestion("que_1", "call_1", "Answered during the listing"), syncQuestion("que_2", "call_2", "Asked while the bot was down")
	p1 := syncPermission("per_1", "make answered")
	e1, ep := r.ask(q1), r.askPermission(p1)
	r.oc.StoreQuestion(syncDir, q2)
	taken := time.Now()
	// The listing saw que_1 and per_1; then they were answered from
	// Telegram: opencode took the answers, and their entries went.
	for _, e := range []*pending.Entry{e1, ep} {
		if err := r.store.Delete(e.UID); err != nil {
			t.Fatal(err)
		}
	}
	r.bridge.HandleSnapshot(r.ctx, opencode.Snapshot{
		Directory: syncDir, Taken: taken, QuestionsListed: true, PermissionsListed: true,
		Questions: []opencode.QuestionRequest{q1, q2}, Permissions: []opencode.PermissionRequest{p1},
	})
	r.notHeld("que_1")
	r.notHeld("per_1")
	r.one("Answered during the listing")
	if n := len(r.messages("make answered")); n != 1 {
		t.Errorf("%d messages show the answered permission, want 1", n)
	}
	r.one("Asked while the bot was down")
	r.held("que_2")
}

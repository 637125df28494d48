package bot

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// These tests run the life cycle against the in-memory front-end of
// package frontendtest, with no Telegram at all: what they check holds
// for any front-end.

// core is a bridge over a real store, the fake opencode and an in-memory
// front-end.
type core struct {
	t     *testing.T
	b     *Bridge
	fe    *frontendtest.Frontend
	oc    *fakeOpencode
	store *pending.Store
	now   time.Time
	logs  *testlog.Buffer
}

func newCore(t *testing.T, cfg Config) *core {
	t.Helper()
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	c := &core{t: t, fe: &frontendtest.Frontend{}, oc: &fakeOpencode{}, store: store,
		now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), logs: &testlog.Buffer{}}
	if cfg.Servers == nil {
		cfg.Servers = map[string]Opencode{"": c.oc}
	}
	c.b = NewBridge(cfg, store, []frontend.Frontend{c.fe}, zerolog.New(c.logs))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bridge log:\n%s", c.logs.String())
		}
	})
	c.b.now = func() time.Time { return c.now }
	c.b.lockWait = 50 * time.Millisecond
	return c
}

var (
	ann = frontend.User{ID: "1", Name: "Ann", Username: "ann"}
	ben = frontend.User{ID: "2", Name: "Ben"}
)

// ask makes opencode ask question id and returns its message.
func (c *core) ask(id string, qs ...opencode.Question) frontendtest.Message {
	c.t.Helper()
	c.b.HandleEvent(context.Background(), askedEvent(id, qs...))
	return c.shown(id)
}

// shown returns the message of request id as the store places it.
func (c *core) shown(id string) frontendtest.Message {
	c.t.Helper()
	e, err := c.store.ByRequestID("", id)
	if err != nil {
		c.t.Fatalf("request %s not held: %v", id, err)
	}
	m, ok := c.fe.Message(msgID(e))
	if !ok {
		c.t.Fatalf("request %s has no message (places %+v)", id, e.Places)
	}
	return m
}

// press presses a's button of key on message from as user, and returns
// what the press was told.
func (c *core) press(key string, a frontend.Action, qi, oi int, user frontend.User, from int) []string {
	c.t.Helper()
	var acks []string
	c.b.HandlePress(context.Background(), zerolog.Nop(), c.fe.Press(key, a, qi, oi, user, from, &acks))
	if len(acks) != 1 {
		c.t.Fatalf("press acknowledged %d times (%q), want once", len(acks), acks)
	}
	return acks
}

func colours() opencode.Question {
	return opencode.Question{Question: "Which colours?", Header: "Colours", Multiple: true,
		Options: []opencode.Option{{Label: "Red"}, {Label: "Green"}, {Label: "Blue"}}}
}

func TestCoreQuestionAnsweredOnce(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	if !m.Open || m.Request.Key == "" || len(m.Request.Members) != 1 || m.Request.Members[0].RequestID != "que_1" {
		t.Fatalf("posted %+v, want que_1 open", m)
	}
	c.press(m.Request.Key, frontend.Pick, 0, 1, ann, m.ID)
	if r := c.oc.Replies(); len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[SQLite]]" {
		t.Fatalf("opencode got %+v, want SQLite once", r)
	}
	got, _ := c.fe.Message(m.ID)
	if got.Open || !strings.Contains(got.Outcome, `answers=[["SQLite"]]`) || !strings.Contains(got.Outcome, "by=Ann") ||
		!strings.Contains(got.Outcome, fmt.Sprintf("how=%d", frontend.Answered)) {
		t.Fatalf("message ends as %+v", got)
	}
	// A second press is told, and opencode hears nothing more.
	if acks := c.press(m.Request.Key, frontend.Pick, 0, 0, ben, m.ID); acks[0] != i18n.English.Toast(i18n.ToastAnswered) {
		t.Errorf("late press told %q", acks)
	}
	if n := len(c.oc.Replies()); n != 1 {
		t.Errorf("opencode answered %d times", n)
	}
	if err := c.b.Wait(context.Background()); err != nil { // forgetting it is done beside
		t.Fatal(err)
	}
	if owed, _ := c.store.OwedEdits(); len(owed) != 0 {
		t.Errorf("edits still owed after the front-end showed the outcome: %+v", owed)
	}
}

func TestCoreMultipleChoiceAndTypedAnswer(t *testing.T) {
	c := newCore(t, Config{})
	typed := opencode.Question{Question: "Anything else?", Header: "Notes"} // no options: typed only
	m := c.ask("que_1", colours(), typed)
	key := m.Request.Key
	if acks := c.press(key, frontend.Submit, 0, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastSelectFirst) {
		t.Errorf("submit with nothing selected told %q", acks)
	}
	c.press(key, frontend.Toggle, 0, 2, ann, m.ID)
	c.press(key, frontend.Toggle, 0, 0, ben, m.ID)
	shown, _ := c.fe.Message(m.ID)
	if sel := shown.Request.Members[0].Selected; !slices.Equal(sel, []string{"Blue", "Red"}) {
		t.Fatalf("message shows %q selected, want Blue and Red", sel)
	}
	c.press(key, frontend.Submit, 0, 0, ann, m.ID)
	// On to the typed question: the person asks to type, and replies.
	c.press(key, frontend.Type, 1, 0, ann, m.ID)
	ps := c.fe.Prompts()
	if len(ps) != 1 || ps[0].Qi != 1 || ps[0].Reason || ps[0].User != ann {
		t.Fatalf("prompts %+v, want one for question 1 asking Ann", ps)
	}
	c.b.HandleInput(context.Background(), zerolog.Nop(), c.fe.Input(ps[0], "ship it"))
	r := c.oc.Replies()
	if len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[Red Blue] [ship it]]" {
		t.Fatalf("opencode got %+v, want [[Red Blue] [ship it]]", r)
	}
	// Text for a field the request does not wait for never answers.
	c.ask("que_2", typed)
	m2 := c.shown("que_2")
	c.b.HandleInput(context.Background(), zerolog.Nop(), frontend.Input{Key: m2.Request.Key, Text: "rm -rf /", User: ben, Frontend: "test"})
	c.press(m2.Request.Key, frontend.Type, 0, 0, ann, m2.ID)
	p := c.fe.Prompts()[1]
	p.Qi = 1
	c.b.HandleInput(context.Background(), zerolog.Nop(), c.fe.Input(p, "rm -rf /"))
	if n := len(c.oc.Replies()); n != 1 {
		t.Errorf("text for a field not awaited answered: %+v", c.oc.Replies())
	}
}

func TestCorePermissionGroupDecidedTogether(t *testing.T) {
	c := newCore(t, Config{})
	c.b.HandleEvent(context.Background(), permEvent("per_1", "make test"))
	c.b.HandleEvent(context.Background(), permEvent("per_2", "make test"))
	msgs := c.fe.Messages()
	if len(msgs) != 1 || len(msgs[0].Request.Members) != 2 {
		t.Fatalf("messages %+v, want one showing both requests", msgs)
	}
	m := msgs[0]
	c.press(m.Request.Key, frontend.RejectWithReason, 0, 0, ann, m.ID)
	ps := c.fe.Prompts()
	if len(ps) != 1 || !ps[0].Reason {
		t.Fatalf("prompts %+v, want one for a reason", ps)
	}
	c.b.HandleInput(context.Background(), zerolog.Nop(), c.fe.Input(ps[0], "use make check"))
	r := c.oc.PermReplies()
	if len(r) != 2 || r[0].Reply != frontend.ReplyReject || r[1].Reply != frontend.ReplyReject || r[0].Message != "use make check" {
		t.Fatalf("opencode got %+v, want both rejected with the reason", r)
	}
	got, _ := c.fe.Message(m.ID)
	if got.Open || !strings.Contains(got.Outcome, "requests=per_1,per_2") || !strings.Contains(got.Outcome, "reason=use make check") {
		t.Fatalf("message ends as %+v", got)
	}
}

func TestCoreRepostsDeletedMessage(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", colours())
	c.fe.Delete(m.ID)
	c.press(m.Request.Key, frontend.Toggle, 0, 1, ann, m.ID)
	// A toggle's edit is handed over; the message is found gone after the
	// press returned, and posted again beside it.
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := c.shown("que_1")
	if now.ID == m.ID || !now.Open || !slices.Equal(now.Request.Members[0].Selected, []string{"Green"}) {
		t.Fatalf("after the delete the request shows in %+v, want a new open message with Green", now)
	}
}

func TestCoreExpiresAndTellsOpencode(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	m := c.ask("que_1", dbQuestion())
	c.now = c.now.Add(2 * time.Minute)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := c.oc.rejects; len(r) != 1 || r[0] != "que_1" {
		t.Fatalf("opencode rejects %q, want que_1", r)
	}
	got, _ := c.fe.Message(m.ID)
	if got.Open || !strings.Contains(got.Outcome, fmt.Sprintf("how=%d", frontend.Expired)) ||
		!strings.Contains(got.Outcome, fmt.Sprintf("told=%d", frontend.ToldDismissed)) {
		t.Fatalf("message ends as %+v", got)
	}
}

func TestCoreOwedEditWaitsForTheFrontend(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	c.fe.Fail("Close", errors.New("chat unreachable"))
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	if got, _ := c.fe.Message(m.ID); !got.Open {
		t.Fatal("the message closed although the front-end failed")
	}
	if owed, _ := c.store.OwedEdits(); len(owed) != 1 || frontendtest.ID(owed[0].Place) != m.ID {
		t.Fatalf("owed %+v, want the message's closing edit", owed)
	}
	c.fe.Fail("Close", nil)
	c.b.SendOwed(context.Background())
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.fe.Message(m.ID); got.Open || !strings.Contains(got.Outcome, "by=Ann") {
		t.Fatalf("after SendOwed the message shows %+v", got)
	}
	if owed, _ := c.store.OwedEdits(); len(owed) != 0 {
		t.Errorf("still owed: %+v", owed)
	}
}

// selected is what message m shows selected.
func selected(m frontendtest.Message) []string {
	if len(m.Request.Members) == 0 {
		return nil
	}
	return m.Request.Members[0].Selected
}

func TestCoreTogglesDoNotWaitForTheirEdits(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", colours())
	key := m.Request.Key
	// The chat takes no edit for now, as its pacing would hold them: every
	// tap is still applied and acknowledged at once, in the order tapped.
	c.fe.HoldLater()
	for _, tap := range []struct {
		oi   int
		want string
	}{{2, "☑ Blue"}, {0, "☑ Red"}, {1, "☑ Green"}} {
		if acks := c.press(key, frontend.Toggle, 0, tap.oi, ann, m.ID); acks[0] != tap.want {
			t.Fatalf("tap told %q, want %q", acks, tap.want)
		}
	}
	if e, err := c.store.ByRequestID("", "que_1"); err != nil || !slices.Equal(e.Selected, []string{"Blue", "Red", "Green"}) {
		t.Fatalf("stored selection %v (%v), want every tap in order", e.Selected, err)
	}
	if got, _ := c.fe.Message(m.ID); len(selected(got)) != 0 || c.fe.HeldLater() != 3 {
		t.Fatalf("message shows %v with %d edits held, want the three edits handed over and nothing shown yet", selected(got), c.fe.HeldLater())
	}
	c.fe.ReleaseLater()
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.fe.Message(m.ID); !got.Open || !slices.Equal(selected(got), []string{"Blue", "Red", "Green"}) {
		t.Fatalf("message shows %+v, want the three selected", got)
	}
	c.press(key, frontend.Submit, 0, 0, ann, m.ID)
	if r := c.oc.Replies(); len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[Red Green Blue]]" {
		t.Fatalf("opencode got %+v, want the three options", r)
	}
}

func TestCoreToggleEditNeverLandsAfterTheClose(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", colours())
	key := m.Request.Key
	c.fe.HoldLater()
	c.press(key, frontend.Toggle, 0, 0, ann, m.ID)
	c.press(key, frontend.Submit, 0, 0, ann, m.ID)
	c.fe.ReleaseLater()
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := c.fe.Message(m.ID)
	if got.Open || !strings.Contains(got.Outcome, `answers=[["Red"]]`) {
		t.Fatalf("message ends as %+v, want the outcome, not the toggle's refresh", got)
	}
}

func TestCoreToggleFindsMessageGoneLater(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", colours())
	key := m.Request.Key
	c.fe.HoldLater()
	c.press(key, frontend.Toggle, 0, 1, ann, m.ID)
	// Deleted after the tap was acknowledged, before its edit was tried.
	c.fe.Delete(m.ID)
	c.fe.ReleaseLater()
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := c.shown("que_1")
	if now.ID == m.ID || !now.Open || !slices.Equal(selected(now), []string{"Green"}) {
		t.Fatalf("request shows in %+v, want a new open message with Green", now)
	}

	// Gone, and answered before the edit was tried: nothing to post again.
	m = c.ask("que_2", colours())
	key = m.Request.Key
	c.fe.HoldLater()
	c.press(key, frontend.Toggle, 0, 0, ann, m.ID)
	c.fe.Delete(m.ID)
	c.press(key, frontend.Submit, 0, 0, ann, m.ID)
	c.fe.ReleaseLater()
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(c.fe.Messages()); n != 3 {
		t.Errorf("%d messages, want 3: the answered request is not posted again", n)
	}
}

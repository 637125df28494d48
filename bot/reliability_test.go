package bot

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// These tests are about surviving what a chat and a crash do: messages
// deleted, copies posted twice, presses at once. How Telegram shows it is
// the Telegram front-end's (TestMemDeleted*, TestMemStaleCopy*).

// pressFrom presses a's button of key as user on message from of c's
// front-end, saying whether that message carries key's buttons, and
// returns what the press was told.
func (c *core) pressFrom(key string, a frontend.Action, qi, oi int, user frontend.User, from int, carries bool) string {
	c.t.Helper()
	var acks []string
	p := c.fe.Press(key, a, qi, oi, user, from, &acks)
	p.FromCarries = carries
	c.b.HandlePress(context.Background(), zerolog.Nop(), p)
	if len(acks) != 1 {
		c.t.Fatalf("press acknowledged %d times (%q), want once", len(acks), acks)
	}
	return acks[0]
}

// crashCopy makes request id seem posted by a process that died before
// saving its place: the entry forgets it, and SendUnsent posts it again.
// It returns the first message, now a stale copy, and the second.
func (c *core) crashCopy(id string) (stale, now frontendtest.Message) {
	c.t.Helper()
	stale = c.shown(id)
	e, _ := c.store.ByRequestID("", id)
	if _, err := c.store.Update(e.UID, func(x *pending.Entry) error {
		x.Places[c.fe.Name()] = ""
		return nil
	}); err != nil {
		c.t.Fatal(err)
	}
	if err := c.b.SendUnsent(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	now = c.shown(id)
	if now.ID == stale.ID {
		c.t.Fatalf("request not posted again: message %d", now.ID)
	}
	return stale, now
}

func TestClosedForgottenAfterADay(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	e := m.Request.Members[0]
	c.restart()
	c.now = c.now.Add(23 * time.Hour)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.store.Closed(e.UID); !ok {
		t.Fatal("closed request forgotten before a day passed")
	}
	if acks := c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastAnswered) {
		t.Errorf("press within the day told %q, want answered", acks[0])
	}
	c.restart()
	c.now = c.now.Add(2 * time.Hour)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if acks := c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastGone) {
		t.Errorf("press after a day told %q, want %q once the close is forgotten", acks[0], i18n.ToastGone)
	}
}

// pressAll presses every action at once on m, one user each, and returns
// what each was told; each must be told exactly once.
func (c *core) pressAll(m frontendtest.Message, qi, oi func(int) int, actions ...frontend.Action) []string {
	c.t.Helper()
	users := []frontend.User{ann, ben, {ID: "3", Name: "Carol"}, {ID: "4", Name: "Dan"}}
	acks := make([][]string, len(actions))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, a := range actions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c.b.HandlePress(context.Background(), zerolog.Nop(), c.fe.Press(m.Request.Key, a, qi(i), oi(i), users[i%len(users)], m.ID, &acks[i]))
		}()
	}
	close(start)
	wg.Wait()
	var out []string
	for i := range actions {
		if len(acks[i]) != 1 {
			c.t.Fatalf("press %d told %d times: %q", i, len(acks[i]), acks[i])
		}
		out = append(out, acks[i][0])
	}
	return out
}

func checkOneSent(t *testing.T, toasts []string) {
	t.Helper()
	sending := 0
	for _, s := range toasts {
		switch s {
		case en(i18n.ToastSending):
			sending++
		case en(i18n.ToastBusy), en(i18n.ToastAnswered):
		default:
			t.Errorf("unexpected toast %q", s)
		}
	}
	if sending != 1 {
		t.Errorf("toasts = %q, want exactly one %q", toasts, i18n.ToastSending)
	}
}

func TestConcurrentPressesReplyOnce(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	zero := func(int) int { return 0 }
	picks := slices.Repeat([]frontend.Action{frontend.Pick}, 8)
	toasts := c.pressAll(m, zero, func(i int) int { return i % 2 }, picks...)
	if n := len(c.oc.Replies()); n != 1 {
		t.Fatalf("%d replies to opencode for 8 presses at once", n)
	}
	checkOneSent(t, toasts)

	c.b.HandleEvent(context.Background(), permEvent("per_1", "make"))
	p := c.shown("per_1")
	var actions []frontend.Action
	for i := range 8 {
		actions = append(actions, []frontend.Action{frontend.AllowOnce, frontend.Reject, frontend.AllowAlways}[i%3])
	}
	toasts = c.pressAll(p, zero, zero, actions...)
	if n := len(c.oc.PermReplies()); n != 1 {
		t.Fatalf("%d permission replies for 8 presses at once", n)
	}
	checkOneSent(t, toasts)
}

func multiSelect() opencode.Question {
	return opencode.Question{Question: "Which?", Multiple: true,
		Options: []opencode.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}
}

// A message deleted is posted again by the next change, with the
// selection, and the new one answers and shows the outcome.
func TestDeletedMessageRepostedAnswers(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", multiSelect())
	c.fe.Delete(m.ID)
	c.press(m.Request.Key, frontend.Toggle, 0, 1, ann, m.ID)
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := c.shown("que_1")
	if now.ID == m.ID || !now.Open || !slices.Equal(now.Request.Members[0].Selected, []string{"B"}) {
		t.Fatalf("after the delete the request shows in %+v, want a new open message with B", now)
	}
	c.press(m.Request.Key, frontend.Submit, 0, 0, ann, now.ID)
	if r := c.oc.Replies(); len(r) != 1 || r[0].Answers[0][0] != "B" {
		t.Fatalf("replies = %+v", r)
	}
	c.checkClosed(now.ID, "by=Ann")
}

func TestDeletedMessageRepostedWithNextQuestion(t *testing.T) {
	c := newCore(t, Config{})
	q2 := opencode.Question{Question: "Strict?", Header: "Strict", Options: []opencode.Option{{Label: "Yes"}, {Label: "No"}}}
	m := c.ask("que_1", dbQuestion(), q2)
	c.fe.Delete(m.ID)
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := c.shown("que_1")
	if now.ID == m.ID || !now.Open || now.Request.Members[0].Current != 1 {
		t.Fatalf("after the first answer on a deleted message the request shows in %+v, want a new message at question 2", now)
	}
	c.press(m.Request.Key, frontend.Pick, 1, 0, ann, now.ID)
	if r := c.oc.Replies(); len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[Postgres] [Yes]]" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestDeletedMessageOutcomeDropped(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	c.fe.Delete(m.ID)
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	if len(c.oc.Replies()) != 1 {
		t.Fatal("no reply")
	}
	if e, err := c.store.ByRequestID("", "que_1"); err == nil {
		t.Fatalf("entry still held: %+v", e)
	}
	if n := len(c.fe.Messages()); n != 1 {
		t.Errorf("%d messages for an outcome whose message is gone, want the first only", n)
	}
	if owed := c.owed(); len(owed) != 0 {
		t.Errorf("edits owed to a gone message: %+v", owed)
	}
}

func TestDeletedSharedPermissionMessageReposted(t *testing.T) {
	c := newCore(t, Config{})
	c.b.HandleEvent(context.Background(), permEvent("per_1", "go test ./..."))
	p := c.shown("per_1")
	c.fe.Delete(p.ID)
	c.b.HandleEvent(context.Background(), permEvent("per_2", "go test ./..."))
	first, second := c.shown("per_1"), c.shown("per_2")
	if first.ID == p.ID || second.ID != first.ID || len(first.Request.Members) != 2 {
		t.Fatalf("messages: first %+v, second %d, deleted %d; want both on one new message", first, second.ID, p.ID)
	}
	c.press(first.Request.Key, frontend.AllowOnce, 0, 0, ann, first.ID)
	if n := len(c.oc.PermReplies()); n != 2 {
		t.Fatalf("%d permission replies, want 2", n)
	}
	c.checkClosed(first.ID, "by=Ann")
}

func TestDeletedMessageRepostFailsThenSentUnsent(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", multiSelect())
	c.fe.Delete(m.ID)
	c.fe.Fail("Post", errChatDown)
	c.press(m.Request.Key, frontend.Toggle, 0, 0, ann, m.ID)
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	e, _ := c.store.ByRequestID("", "que_1")
	if e.Places[c.fe.Name()] != "" || !slices.Equal(e.Selected, []string{"A"}) {
		t.Fatalf("entry after a failed repost = %+v, want no place and the selection kept", e)
	}
	c.fe.Fail("Post", nil)
	if err := c.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	if now := c.shown("que_1"); now.ID == m.ID || !slices.Equal(now.Request.Members[0].Selected, []string{"A"}) {
		t.Fatalf("posted again as %+v, want a new message with A", now)
	}
}

func TestStaleCopyPressClosesBoth(t *testing.T) {
	c := newCore(t, Config{})
	c.ask("que_1", dbQuestion())
	stale, now := c.crashCopy("que_1")
	if ack := c.pressFrom(now.Request.Key, frontend.Pick, 0, 1, ann, stale.ID, true); ack != en(i18n.ToastSending) || len(c.oc.Replies()) != 1 {
		t.Fatalf("told %q, replies %+v", ack, c.oc.Replies())
	}
	c.checkClosed(now.ID, `answers=[["SQLite"]]`)
	c.checkClosed(stale.ID, `answers=[["SQLite"]]`)
	if ack := c.pressFrom(now.Request.Key, frontend.Pick, 0, 0, ben, now.ID, true); ack != en(i18n.ToastAnswered) || len(c.oc.Replies()) != 1 {
		t.Errorf("late press told %q, replies %d", ack, len(c.oc.Replies()))
	}
}

func TestStaleCopyRerenderBecomesPointer(t *testing.T) {
	c := newCore(t, Config{})
	c.ask("que_1", multiSelect())
	stale, now := c.crashCopy("que_1")
	c.pressFrom(now.Request.Key, frontend.Toggle, 0, 2, ann, stale.ID, true)
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cur, _ := c.fe.Message(now.ID); !cur.Open || !slices.Equal(cur.Request.Members[0].Selected, []string{"C"}) {
		t.Fatalf("current message %+v, want the selection", cur)
	}
	if old, _ := c.fe.Message(stale.ID); old.Open || old.MovedTo != now.ID {
		t.Fatalf("stale copy %+v, want it pointing at %d", old, now.ID)
	}
	c.press(now.Request.Key, frontend.Submit, 0, 0, ben, now.ID)
	if r := c.oc.Replies(); len(r) != 1 || r[0].Answers[0][0] != "C" {
		t.Fatalf("replies = %+v", r)
	}
	c.checkClosed(now.ID, "by=Ben")
}

func TestStaleCopyCustomAnswer(t *testing.T) {
	c := newCore(t, Config{})
	c.ask("que_1", dbQuestion())
	stale, now := c.crashCopy("que_1")
	c.pressFrom(now.Request.Key, frontend.Type, 0, 0, ann, stale.ID, true)
	ps := c.fe.Prompts()
	if len(ps) != 1 || ps[0].At != now.ID {
		t.Fatalf("prompts %+v, want one by the current message %d", ps, now.ID)
	}
	if old, _ := c.fe.Message(stale.ID); old.Open || old.MovedTo != now.ID {
		t.Errorf("stale copy %+v, want it pointing at %d", old, now.ID)
	}
	c.b.HandleInput(context.Background(), zerolog.Nop(), c.fe.Input(ps[0], "MariaDB"))
	if len(c.oc.Replies()) != 1 {
		t.Fatal("typed answer not delivered")
	}
	c.checkClosed(now.ID, "MariaDB")
}

func TestStaleCopyOfClosedRequest(t *testing.T) {
	c := newCore(t, Config{})
	c.ask("que_1", dbQuestion())
	stale, now := c.crashCopy("que_1")
	c.press(now.Request.Key, frontend.Pick, 0, 0, ann, now.ID)
	if old, _ := c.fe.Message(stale.ID); !old.Open {
		t.Fatalf("stale copy %+v changed by a press on the current message", old)
	}
	// A new process, with a fresh opencode.
	c.oc = &fakeOpencode{}
	c.b.cfg.Servers = map[string]Opencode{"": c.oc}
	c.restart()
	if ack := c.pressFrom(now.Request.Key, frontend.Pick, 0, 1, ben, stale.ID, true); ack != en(i18n.ToastAnswered) || len(c.oc.Replies()) != 0 {
		t.Fatalf("told %q, replies %+v", ack, c.oc.Replies())
	}
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if old, _ := c.fe.Message(stale.ID); old.Open || old.MovedTo != now.ID {
		t.Fatalf("stale copy %+v, want it pointing at the outcome in %d", old, now.ID)
	}
}

func TestStaleCopyPermission(t *testing.T) {
	c := newCore(t, Config{})
	c.b.HandleEvent(context.Background(), permEvent("per_1", "make"))
	stale, now := c.crashCopy("per_1")
	c.pressFrom(now.Request.Key, frontend.Reject, 0, 0, ann, stale.ID, true)
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].Reply != "reject" {
		t.Fatalf("replies = %+v", r)
	}
	want := fmt.Sprintf("how=%d requests=per_1 by=Ann reply=reject", frontend.Decided)
	c.checkClosed(now.ID, want)
	c.checkClosed(stale.ID, want)
}

// A press naming x on a message not carrying x's buttons makes no copy
// of it.
func TestTamperedPressMakesNoCopy(t *testing.T) {
	c := newCore(t, Config{})
	x := c.ask("que_1", dbQuestion())
	y := c.ask("que_2", dbQuestion())
	c.pressFrom(x.Request.Key, frontend.Pick, 0, 0, ann, y.ID, false)
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.fe.Message(y.ID); !got.Open || got.MovedTo != 0 || got.Request.Key != y.Request.Key {
		t.Errorf("y's message %+v changed by a press naming x", got)
	}
	if got := c.shown("que_2"); got.ID != y.ID {
		t.Errorf("y's message = %d, want %d", got.ID, y.ID)
	}
}

func TestPressAdoptsUnsavedMessage(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", multiSelect())
	// The process died before saving the place, and the restart could
	// not post it again yet.
	if _, err := c.store.Update(m.Request.Members[0].UID, func(x *pending.Entry) error {
		x.Places[c.fe.Name()] = ""
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c.pressFrom(m.Request.Key, frontend.Toggle, 0, 0, ann, m.ID, true)
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.shown("que_1"); got.ID != m.ID || !slices.Equal(got.Request.Members[0].Selected, []string{"A"}) {
		t.Fatalf("request shows in %+v, want the pressed message %d with A", got, m.ID)
	}
	if err := c.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(c.fe.Messages()); n != 1 {
		t.Errorf("%d messages: the request was posted again although its message was found", n)
	}
}

func TestLateAskedEventNotPostedAgain(t *testing.T) {
	c := newCore(t, Config{})
	q := c.ask("que_1", dbQuestion())
	c.b.HandleEvent(context.Background(), permEvent("per_1", "make"))
	p := c.shown("per_1")
	c.press(q.Request.Key, frontend.Pick, 0, 0, ann, q.ID)
	c.press(p.Request.Key, frontend.AllowOnce, 0, 0, ann, p.ID)
	sent := len(c.fe.Messages())

	c.restart()
	c.b.HandleEvent(context.Background(), askedEvent("que_1", dbQuestion()))
	c.b.HandleEvent(context.Background(), permEvent("per_1", "make"))
	if n := len(c.fe.Messages()); n != sent {
		t.Fatalf("late asked events posted %d messages for requests already answered", n-sent)
	}
	for _, id := range []string{"que_1", "per_1"} {
		if e, err := c.store.ByRequestID("", id); err == nil {
			t.Errorf("late asked event stored %s again: %+v", id, e)
		}
	}
	// A listed request is what opencode says is pending now: it is posted.
	ev := askedEvent("que_1", dbQuestion())
	ev.Listed = true
	c.b.HandleEvent(context.Background(), ev)
	if n := len(c.fe.Messages()); n != sent+1 {
		t.Errorf("a listed request closed before was not posted again (%d messages)", n-sent)
	}
}

// A question posted by a process that died before storing it is posted
// again by the next; its key comes from the request, so the first
// message's buttons name the stored entry: a press on either copy
// answers, and both show the outcome.
func TestCopyPostedBeforeACrashAnswers(t *testing.T) {
	c := newCore(t, Config{URL: "http://127.0.0.1:4096"})
	stale := c.ask("que_1", dbQuestion())
	if err := c.store.Delete(stale.Request.Members[0].UID); err != nil {
		t.Fatal(err) // as if never stored
	}
	c.restart()
	ev := askedEvent("que_1", dbQuestion())
	ev.Listed = true
	c.b.HandleEvent(context.Background(), ev)
	now := c.shown("que_1")
	if now.ID == stale.ID || now.Request.Key != stale.Request.Key {
		t.Fatalf("posted again as %+v; want key %s on a new message", now, stale.Request.Key)
	}
	if ack := c.pressFrom(stale.Request.Key, frontend.Pick, 0, 1, ann, stale.ID, true); ack != en(i18n.ToastSending) || len(c.oc.Replies()) != 1 {
		t.Fatalf("told %q, replies %+v", ack, c.oc.Replies())
	}
	c.checkClosed(now.ID, `answers=[["SQLite"]]`)
	c.checkClosed(stale.ID, `answers=[["SQLite"]]`)
}

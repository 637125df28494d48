package telegram_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// The life cycle of deleted messages, stale copies and presses at once is
// the core's (bot's reliability tests); these check how Telegram shows it
// and what Telegram's redelivery does.

func toast(t i18n.Toast) string { return i18n.English.Toast(t) }

// chain wraps hf in the front-end's middlewares, as go-telegram/bot does.
func (r *memRig) chain(hf tgbot.HandlerFunc) tgbot.HandlerFunc {
	mws := r.fe.Middlewares()
	for i := len(mws) - 1; i >= 0; i-- {
		hf = mws[i](hf)
	}
	return hf
}

// deliver runs a press through the middlewares and handler, as
// go-telegram/bot delivers update updateID.
func (r *memRig) deliver(updateID int64, callbackID string, user models.User, data string, msg int) {
	r.chain(r.fe.Handler(r.br))(context.Background(), nil, &models.Update{ID: updateID, CallbackQuery: &models.CallbackQuery{
		ID: callbackID, From: user, Data: data,
		Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage,
			Message: &models.Message{ID: msg, Date: 1700000000, Chat: models.Chat{ID: r.cfg.ChatID, Type: "supergroup"}}}}})
}

func msgOf(e *pending.Entry) int { return telegram.MessageAt(e.Places[telegram.Name]) }

func (r *memRig) entry(uid string) *pending.Entry {
	r.t.Helper()
	e, err := r.store.Get(uid)
	if err != nil {
		r.t.Fatalf("entry %s: %v", uid, err)
	}
	return e
}

func TestMemSameUpdateTwiceRepliesOnce(t *testing.T) {
	r := newMemRig(t, telegram.Config{BotID: 123})
	e := r.ask(question("que_1"), "que_1")
	for range 2 {
		r.deliver(7, "cb7", alice, buttonData(t, frontend.Pick, e.UID, 0, 0), msgOf(e))
	}
	if n := len(r.oc.Answers()); n != 1 {
		t.Fatalf("%d replies to opencode for one update delivered twice", n)
	}
	if got := r.tg.AnswersFor("cb7"); !slices.Equal(got, []string{toast(i18n.ToastSending), toast(i18n.ToastAnswered)}) {
		t.Errorf("toasts = %q, want sending then answered", got)
	}
}

func TestMemPressRedeliveredAfterRestart(t *testing.T) {
	r := newMemRig(t, telegram.Config{BotID: 123})
	q := r.ask(question("que_1"), "que_1")
	p := r.ask(permissionAsked("per_1", "make"), "per_1")
	dq, dp := buttonData(t, frontend.Pick, q.UID, 0, 1), buttonData(t, frontend.AllowOnce, p.UID, 0, 0)
	r.deliver(7, "cb7", alice, dq, msgOf(q))
	r.deliver(8, "cb8", bobby, dp, msgOf(p))
	if len(r.oc.Answers()) != 1 || len(r.oc.Perms()) != 1 {
		t.Fatalf("before the restart: replies %+v, permission replies %+v", r.oc.Answers(), r.oc.Perms())
	}
	if err := r.br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.tg.mu.Lock()
	edits := len(r.tg.edits)
	r.tg.mu.Unlock()
	r.oc = newCallsOpencode()
	r.wire(r.tg)
	if id, _, err := telegram.StateOf(r.store).InputCursor(123); id != 8 || err != nil {
		t.Errorf("last update recorded = %d, %v; want 8", id, err)
	}
	r.deliver(7, "cb7", alice, dq, msgOf(q))
	r.deliver(8, "cb8", bobby, dp, msgOf(p))
	if a, pr := r.oc.Answers(), r.oc.Perms(); len(a) != 0 || len(pr) != 0 {
		t.Fatalf("redelivered presses reached opencode again: %+v %+v", a, pr)
	}
	for _, cb := range []string{"cb7", "cb8"} {
		if got := r.tg.AnswersFor(cb); len(got) != 2 || got[1] != toast(i18n.ToastAnswered) {
			t.Errorf("toasts of %s = %q, want the second answered", cb, got)
		}
	}
	r.tg.mu.Lock()
	defer r.tg.mu.Unlock()
	if n := len(r.tg.edits); n != edits {
		t.Errorf("redelivered presses edited %d messages", n-edits)
	}
}

func TestMemUpdateOffsetRecorded(t *testing.T) {
	r := newMemRig(t, telegram.Config{BotID: 123})
	r.now = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	entered, release := make(chan struct{}), make(chan struct{})
	handler := r.chain(func(_ context.Context, _ *tgbot.Bot, upd *models.Update) {
		if upd.ID == 7 {
			close(entered)
			<-release
		}
	})
	last := func() int64 {
		t.Helper()
		id, _, err := telegram.StateOf(r.store).InputCursor(123)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	handler(context.Background(), nil, &models.Update{ID: 5})
	if got := last(); got != 5 {
		t.Fatalf("after update 5: %d", got)
	}
	handler(context.Background(), nil, &models.Update{}) // no ID: not tracked
	if got := last(); got != 5 {
		t.Fatalf("after an update without ID: %d", got)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		handler(context.Background(), nil, &models.Update{ID: 7})
	}()
	<-entered
	handler(context.Background(), nil, &models.Update{ID: 8})
	if got := last(); got != 6 {
		t.Errorf("update 8 done while 7 runs: recorded %d, want 6", got)
	}
	close(release)
	<-done
	if got := last(); got != 8 {
		t.Errorf("after 7 and 8: recorded %d, want 8", got)
	}
	for _, tc := range []struct {
		bot  int64
		at   time.Time
		want int64
	}{
		{123, r.now.Add(time.Hour), 8},
		{123, r.now.Add(25 * time.Hour), 0}, // Telegram forgot everything older
		{456, r.now, 0},                     // another bot numbers its own
	} {
		if got, err := telegram.InitialOffset(r.store, tc.bot, tc.at); got != tc.want || err != nil {
			t.Errorf("InitialOffset(%d, %v) = %d, %v; want %d", tc.bot, tc.at, got, err, tc.want)
		}
	}
}

func multiQuestion(id string) opencode.Event {
	ev := question(id)
	ev.QuestionAsked.Questions = []opencode.Question{{Question: "Which?", Multiple: true,
		Options: []opencode.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}}
	return ev
}

// lastSent is the last message sent and its ID.
func (r *memRig) lastSent() (*tgbot.SendMessageParams, int) {
	r.t.Helper()
	sent := r.tg.Sent()
	if len(sent) == 0 {
		r.t.Fatal("no message was sent")
	}
	return sent[len(sent)-1], 100 + len(sent)
}

// A deleted message is posted again with the selection; the log says so
// once; the new message takes the outcome.
func TestMemDeletedMessageReposted(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(multiQuestion("que_1"), "que_1")
	r.tg.Delete(msgOf(e))
	cb := r.pressData(memChat, alice, buttonData(t, frontend.Toggle, e.UID, 0, 1), msgOf(e))
	if got := r.tg.AnswersFor(cb); got[0] != "☑ B" {
		t.Errorf("toast = %q", got)
	}
	if err := r.br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	sent, id := r.lastSent()
	now := r.entry(e.UID)
	if msgOf(now) != id || id == msgOf(e) {
		t.Fatalf("entry message %d, last sent %d, deleted %d: want the new one saved", msgOf(now), id, msgOf(e))
	}
	if got := buttonsOf(t, sent.ReplyMarkup); got[1][0] != "☑ B" {
		t.Errorf("new message's buttons = %q, want the selection shown", got)
	}
	if !strings.Contains(sent.Text, "Which?") {
		t.Errorf("new message = %s", sent.Text)
	}
	if n := strings.Count(r.logs.String(), "posted it again"); n != 1 {
		t.Errorf("%d log lines about the repost, want 1", n)
	}
	r.press(alice, frontend.Submit, now, 0, 0)
	if eds := r.tg.EditsOf(id); len(eds) == 0 || eds[len(eds)-1].ReplyMarkup != nil {
		t.Errorf("outcome edits of the new message = %+v", eds)
	}
}

func TestMemDeletedMessageRepostedWithNextQuestion(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	ev := question("que_1")
	ev.QuestionAsked.Questions = append(ev.QuestionAsked.Questions,
		opencode.Question{Question: "Strict?", Header: "Strict", Options: []opencode.Option{{Label: "Yes"}, {Label: "No"}}})
	e := r.ask(ev, "que_1")
	r.tg.Delete(msgOf(e))
	r.press(alice, frontend.Pick, e, 0, 0)
	sent, id := r.lastSent()
	if !strings.Contains(sent.Text, "Question 2/2") || msgOf(r.entry(e.UID)) != id {
		t.Fatalf("after the first answer on a deleted message: sent %d %s; entry has %d", id, sent.Text, msgOf(r.entry(e.UID)))
	}
	if got := buttonsOf(t, sent.ReplyMarkup); got[0][1] != buttonData(t, frontend.Pick, e.UID, 1, 0) {
		t.Errorf("new message's buttons = %q", got)
	}
}

// An outcome whose message is gone is dropped with a debug line, no warning.
func TestMemDeletedMessageOutcomeDropped(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	r.tg.Delete(msgOf(e))
	r.press(alice, frontend.Pick, e, 0, 0)
	if err := r.br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if logs := r.logs.String(); !strings.Contains(logs, "its outcome is not shown") || strings.Contains(logs, `"level":"warn"`) {
		t.Errorf("want one debug line and no warning:\n%s", logs)
	}
}

func TestMemDeletedSharedPermissionMessageReposted(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	p := r.ask(permissionAsked("per_1", "go test ./..."), "per_1")
	r.tg.Delete(msgOf(p))
	r.ask(permissionAsked("per_2", "go test ./..."), "per_2")
	sent, id := r.lastSent()
	if msgOf(r.entry(p.UID)) != id || !strings.Contains(sent.Text, "×2") {
		t.Fatalf("new message %d %q; entry has %d", id, sent.Text, msgOf(r.entry(p.UID)))
	}
	if got := buttonsOf(t, sent.ReplyMarkup); got[0][1] != "ponce:"+p.UID {
		t.Errorf("buttons = %q", got)
	}
}

// crashCopy makes e seem posted by a process that died before saving its
// message: the entry forgets it and SendUnsent posts it again. It
// returns the stale message and the current one.
func (r *memRig) crashCopy(e *pending.Entry) (stale, now int) {
	r.t.Helper()
	stale = msgOf(e)
	if _, err := r.store.Update(e.UID, func(x *pending.Entry) error {
		x.Places[telegram.Name] = ""
		return nil
	}); err != nil {
		r.t.Fatal(err)
	}
	if err := r.br.SendUnsent(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	if now = msgOf(r.entry(e.UID)); now == 0 || now == stale {
		r.t.Fatalf("request not posted again: message %d, stale %d", now, stale)
	}
	return stale, now
}

// checkEdited fails unless each message of msgs was edited once, without
// buttons, to a text with want.
func (r *memRig) checkEdited(want string, msgs ...int) {
	r.t.Helper()
	if err := r.br.Wait(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	for _, msg := range msgs {
		eds := r.tg.EditsOf(msg)
		if len(eds) != 1 || eds[0].ReplyMarkup != nil || !strings.Contains(eds[0].Text, want) {
			r.t.Errorf("edits of message %d = %+v, want %q without buttons", msg, eds, want)
		}
	}
}

// A press on a stale copy answers, and both copies show the outcome.
func TestMemStaleCopyPressClosesBoth(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	stale, now := r.crashCopy(e)
	r.pressSent(alice, buttonData(t, frontend.Pick, e.UID, 0, 1), stale)
	r.checkEdited("Answered by Alice", now, stale)
	r.checkEdited("SQLite", now, stale)
}

// A change pressed on a stale copy shows in the current message; the copy
// points at it.
func TestMemStaleCopyRerenderBecomesPointer(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(multiQuestion("que_1"), "que_1")
	stale, now := r.crashCopy(e)
	cb := r.pressSent(alice, buttonData(t, frontend.Toggle, e.UID, 0, 2), stale)
	if got := r.tg.AnswersFor(cb); got[0] != "☑ C" {
		t.Errorf("toast = %q", got)
	}
	if err := r.br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cur := r.tg.EditsOf(now); len(cur) != 1 || buttonsOf(t, cur[0].ReplyMarkup)[2][0] != "☑ C" {
		t.Fatalf("edits of the current message = %+v, want the selection", cur)
	}
	r.checkEdited("moved to the message below", stale)
}

// The prompt for a typed answer pressed on a stale copy replies to the
// current message.
func TestMemStaleCopyCustomAnswer(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	stale, now := r.crashCopy(e)
	r.pressSent(alice, buttonData(t, frontend.Type, e.UID, 0, 0), stale)
	prompt, _ := r.lastSent()
	if rp := prompt.ReplyParameters; rp == nil || rp.MessageID != now {
		t.Errorf("prompt replies to %+v, want the current message %d", rp, now)
	}
	r.checkEdited("moved", stale)
}

// A stale copy of a closed request, pressed after a restart, points at
// the outcome.
func TestMemStaleCopyOfClosedRequest(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	stale, _ := r.crashCopy(e)
	r.press(alice, frontend.Pick, r.entry(e.UID), 0, 0)
	if err := r.br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(r.tg.EditsOf(stale)); n != 0 {
		t.Fatalf("stale copy edited %d times by a press on the current message", n)
	}
	r.wire(r.tg)
	cb := r.pressSent(bobby, buttonData(t, frontend.Pick, e.UID, 0, 1), stale)
	if got := r.tg.AnswersFor(cb); got[0] != toast(i18n.ToastAnswered) {
		t.Errorf("toast = %q", got)
	}
	r.checkEdited("closed: see the message below", stale)
}

func TestMemStaleCopyPermission(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	p := r.ask(permissionAsked("per_1", "make"), "per_1")
	stale, now := r.crashCopy(p)
	r.pressSent(alice, buttonData(t, frontend.Reject, p.UID, 0, 0), stale)
	r.checkEdited("Rejected", now, stale)
}

// A press whose data names x, on y's message whose buttons name y, is no
// press on a copy of x: y's message is not touched.
func TestMemTamperedPressMakesNoCopy(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	x := r.ask(question("que_1"), "que_1")
	y := r.ask(question("que_2"), "que_2")
	r.pressSent(alice, buttonData(t, frontend.Pick, x.UID, 0, 0), msgOf(y))
	if err := r.br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(r.tg.EditsOf(msgOf(y))); n != 0 {
		t.Errorf("y's message edited %d times by a press naming x", n)
	}
	if got := msgOf(r.entry(y.UID)); got != msgOf(y) {
		t.Errorf("y's message = %d", got)
	}
}

// A press on a message whose ID was never saved adopts it.
func TestMemPressAdoptsUnsavedMessage(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(multiQuestion("que_1"), "que_1")
	sent := msgOf(e)
	if _, err := r.store.Update(e.UID, func(x *pending.Entry) error {
		x.Places[telegram.Name] = ""
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r.pressSent(alice, buttonData(t, frontend.Toggle, e.UID, 0, 0), sent)
	if err := r.br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := msgOf(r.entry(e.UID)); got != sent {
		t.Fatalf("entry message = %d, want the pressed %d", got, sent)
	}
	if eds := r.tg.EditsOf(sent); len(eds) != 1 || buttonsOf(t, eds[0].ReplyMarkup)[0][0] != "☑ A" {
		t.Errorf("edits of the pressed message = %+v", eds)
	}
}

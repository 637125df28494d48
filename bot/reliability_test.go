package bot

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegram"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// callbackUpdate is a press as Telegram delivers it, with the IDs a
// redelivery would repeat.
func callbackUpdate(updateID int64, callbackID string, user models.User, data string, msgID int) *models.Update {
	return &models.Update{
		ID: updateID,
		CallbackQuery: &models.CallbackQuery{
			ID:   callbackID,
			From: user,
			Data: data,
			Message: models.MaybeInaccessibleMessage{
				Type:    models.MaybeInaccessibleMessageTypeMessage,
				Message: &models.Message{ID: msgID, Date: 1700000000, Chat: models.Chat{ID: testChat, Type: "supergroup"}},
			},
		},
	}
}

// deliver runs upd through the bridge's middlewares and handler, as
// go-telegram/bot does in cmd/hermes-bot.
func (h *harness) deliver(upd *models.Update) {
	h.t.Helper()
	h.chain(h.fe.Handler(h.b))(context.Background(), nil, upd)
}

func (h *harness) chain(hf tgbot.HandlerFunc) tgbot.HandlerFunc {
	mws := h.fe.Middlewares()
	for i := len(mws) - 1; i >= 0; i-- {
		hf = mws[i](hf)
	}
	return hf
}

// restart stops the bridge, closes the store and opens it again under a
// new bridge with the same configuration, a fresh opencode and the same
// Telegram: nothing survives but the file.
func (h *harness) restart() {
	h.t.Helper()
	if err := h.fe.Wait(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	if err := h.b.Wait(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	if err := h.store.Close(); err != nil {
		h.t.Fatal(err)
	}
	store, err := pending.Open(h.path)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = store.Close() })
	h.store, h.oc = store, &fakeOpencode{}
	h.wire(h.tg)
}

// crashCopy makes the request seem posted by a process that died before
// saving the message's ID: the entry forgets it, and SendUnsent posts it
// again. It returns the first message's ID, now a stale copy, and the
// entry as stored, which knows the second.
func (h *harness) crashCopy(e *pending.Entry) (int, *pending.Entry) {
	h.t.Helper()
	stale := msgID(e)
	if _, err := h.store.Update(e.UID, func(x *pending.Entry) error {
		x.Places[telegram.Name] = ""
		return nil
	}); err != nil {
		h.t.Fatal(err)
	}
	if err := h.b.SendUnsent(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	now := h.entry(e.UID)
	if msgID(now) == 0 || msgID(now) == stale {
		h.t.Fatalf("request not posted again: message %d, stale %d", msgID(now), stale)
	}
	return stale, now
}

// pressSent presses data on bot message msgID as Telegram delivers it,
// with the keyboard the message was sent with, and returns the callback
// ID after checking it was answered exactly once.
func (h *harness) pressSent(user models.User, data string, msgID int) string {
	h.t.Helper()
	var kb *models.InlineKeyboardMarkup
	for _, m := range h.tg.Sent() {
		if m.ID == msgID {
			kb, _ = m.P.ReplyMarkup.(*models.InlineKeyboardMarkup)
		}
	}
	if kb == nil {
		h.t.Fatalf("message %d was not sent with a keyboard", msgID)
	}
	h.seq++
	id := fmt.Sprintf("cb%d", h.seq)
	upd := callbackUpdate(int64(h.seq), id, user, data, msgID)
	upd.CallbackQuery.Message.Message.ReplyMarkup = kb
	h.update(context.Background(), upd)
	if got := h.tg.AnswersFor(id); len(got) != 1 {
		h.t.Fatalf("callback %s (%q) answered %d times: %q", id, data, len(got), got)
	}
	return id
}

func TestSameUpdateTwiceRepliesOnce(t *testing.T) {
	h := newHarness(t, harnessConfig{BotID: 123})
	e := h.ask("que_1", dbQuestion())
	upd := callbackUpdate(7, "cb7", alice, data(t, frontend.Pick, e.UID, 0, 0), msgID(e))
	h.deliver(upd)
	h.deliver(upd)
	if n := len(h.oc.Replies()); n != 1 {
		t.Fatalf("%d replies to opencode for one update delivered twice", n)
	}
	if got := h.tg.AnswersFor("cb7"); !slices.Equal(got, []string{en(i18n.ToastSending), en(i18n.ToastAnswered)}) {
		t.Errorf("toasts = %q, want %q then %q", got, i18n.ToastSending, i18n.ToastAnswered)
	}
}

func TestPressRedeliveredAfterRestart(t *testing.T) {
	h := newHarness(t, harnessConfig{BotID: 123})
	q := h.ask("que_1", dbQuestion())
	p := h.askPerm(permEvent("per_1", "make"))
	uq := callbackUpdate(7, "cb7", alice, data(t, frontend.Pick, q.UID, 0, 1), msgID(q))
	up := callbackUpdate(8, "cb8", bob, permData(t, frontend.AllowOnce, p.UID), msgID(p))
	h.deliver(uq)
	h.deliver(up)
	if len(h.oc.Replies()) != 1 || len(h.oc.PermReplies()) != 1 {
		t.Fatalf("before the restart: replies %+v, permission replies %+v", h.oc.Replies(), h.oc.PermReplies())
	}
	edits := len(h.tg.Edits())

	h.restart()
	if id, _, err := telegram.StateOf(h.store).InputCursor(123); id != 8 || err != nil {
		t.Errorf("last update recorded = %d, %v; want 8", id, err)
	}
	h.deliver(uq)
	h.deliver(up)
	if r, pr := h.oc.Replies(), h.oc.PermReplies(); len(r) != 0 || len(pr) != 0 {
		t.Fatalf("redelivered presses reached opencode again: %+v %+v", r, pr)
	}
	for _, cb := range []string{"cb7", "cb8"} {
		if got := h.tg.AnswersFor(cb); len(got) != 2 || got[1] != en(i18n.ToastAnswered) {
			t.Errorf("toasts of %s = %q, want the second %q", cb, got, i18n.ToastAnswered)
		}
	}
	if n := len(h.tg.Edits()); n != edits {
		t.Errorf("redelivered presses edited %d messages", n-edits)
	}
}

func TestClosedForgottenAfterADay(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	clock := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	h.b.now = func() time.Time { return clock }
	e := h.ask("que_1", dbQuestion())
	upd := callbackUpdate(7, "cb7", alice, data(t, frontend.Pick, e.UID, 0, 0), msgID(e))
	h.deliver(upd)

	h.restart()
	clock = clock.Add(23 * time.Hour)
	h.b.now = func() time.Time { return clock }
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := h.store.Closed(e.UID); !ok {
		t.Fatal("closed request forgotten before a day passed")
	}
	h.restart()
	clock = clock.Add(2 * time.Hour)
	h.b.now = func() time.Time { return clock }
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.deliver(upd)
	if got := h.tg.AnswersFor("cb7"); len(got) != 2 || got[1] != en(i18n.ToastGone) {
		t.Errorf("toasts = %q, want the second %q once the close is forgotten", got, i18n.ToastGone)
	}
}

// pressAll presses every data at once, one user each, and returns the
// toasts; each callback must be answered exactly once.
func (h *harness) pressAll(msgID int, datas ...string) []string {
	h.t.Helper()
	users := []models.User{alice, bob, {ID: 33, FirstName: "Carol"}, {ID: 44, FirstName: "Dan"}}
	h.seq++
	prefix := fmt.Sprintf("all%d-", h.seq)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, d := range datas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			h.update(context.Background(),
				callbackUpdate(0, prefix+strconv.Itoa(i), users[i%len(users)], d, msgID))
		}()
	}
	close(start)
	wg.Wait()
	var toasts []string
	for i := range datas {
		got := h.tg.AnswersFor(prefix + strconv.Itoa(i))
		if len(got) != 1 {
			h.t.Fatalf("press %d answered %d times: %q", i, len(got), got)
		}
		toasts = append(toasts, got[0])
	}
	return toasts
}

func TestConcurrentPressesReplyOnce(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	var datas []string
	for i := range 8 {
		datas = append(datas, data(t, frontend.Pick, e.UID, 0, i%2))
	}
	toasts := h.pressAll(msgID(e), datas...)
	if n := len(h.oc.Replies()); n != 1 {
		t.Fatalf("%d replies to opencode for 8 presses at once", n)
	}
	checkOneSent(t, toasts)

	p := h.askPerm(permEvent("per_1", "make"))
	datas = nil
	for i := range 8 {
		datas = append(datas, permData(t, []frontend.Action{frontend.AllowOnce, frontend.Reject, frontend.AllowAlways}[i%3], p.UID))
	}
	toasts = h.pressAll(msgID(p), datas...)
	if n := len(h.oc.PermReplies()); n != 1 {
		t.Fatalf("%d permission replies for 8 presses at once", n)
	}
	checkOneSent(t, toasts)
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

func TestUpdateOffsetRecorded(t *testing.T) {
	h := newHarness(t, harnessConfig{BotID: 123})
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	h.b.now = func() time.Time { return now }
	entered, release := make(chan struct{}), make(chan struct{})
	handler := h.chain(func(_ context.Context, _ *tgbot.Bot, upd *models.Update) {
		if upd.ID == 7 {
			close(entered)
			<-release
		}
	})
	last := func() int64 {
		t.Helper()
		id, _, err := telegram.StateOf(h.store).InputCursor(123)
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
		{123, now.Add(time.Hour), 8},
		{123, now.Add(25 * time.Hour), 0}, // Telegram forgot everything older
		{456, now, 0},                     // another bot numbers its own
	} {
		if got, err := telegram.InitialOffset(h.store, tc.bot, tc.at); got != tc.want || err != nil {
			t.Errorf("InitialOffset(%d, %v) = %d, %v; want %d", tc.bot, tc.at, got, err, tc.want)
		}
	}
}

func TestDeletedMessageRepostedOnRerender(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", multiSelect())
	h.tg.Delete(msgID(e))
	id := h.press(alice, data(t, frontend.Toggle, e.UID, 0, 1), e)
	if got := h.toast(id); got != "☑ B" {
		t.Errorf("toast = %q", got)
	}
	// The toggle's edit finds the message gone beside the press.
	if err := h.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := h.entry(e.UID)
	sent := h.lastSent()
	if msgID(now) != sent.ID || msgID(now) == msgID(e) {
		t.Fatalf("entry message %d, last sent %d, deleted %d: want the new one saved", msgID(now), sent.ID, msgID(e))
	}
	if got := buttons(t, sent.P.ReplyMarkup); got[1][0] != "☑ B" {
		t.Errorf("new message's buttons = %q, want the selection shown", got)
	}
	if !strings.Contains(sent.P.Text, "Which?") {
		t.Errorf("new message = %s", sent.P.Text)
	}
	if n := strings.Count(h.logs.String(), "posted it again"); n != 1 {
		t.Errorf("%d log lines about the repost, want 1", n)
	}
	// The new message works, and is where the outcome goes.
	h.press(alice, data(t, frontend.Submit, e.UID, 0, 0), now)
	if r := h.oc.Replies(); len(r) != 1 || r[0].Answers[0][0] != "B" {
		t.Fatalf("replies = %+v", r)
	}
	if ed := h.lastEdit(); ed.MessageID != msgID(now) || ed.ReplyMarkup != nil {
		t.Errorf("outcome edit = %+v", ed)
	}
}

func multiSelect() opencode.Question {
	return opencode.Question{Question: "Which?", Multiple: true,
		Options: []opencode.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}
}

func TestDeletedMessageRepostedWithNextQuestion(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q2 := opencode.Question{Question: "Strict?", Header: "Strict", Options: []opencode.Option{{Label: "Yes"}, {Label: "No"}}}
	e := h.ask("que_1", dbQuestion(), q2)
	h.tg.Delete(msgID(e))
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	sent := h.lastSent()
	if !strings.Contains(sent.P.Text, "Question 2/2") || msgID(h.entry(e.UID)) != sent.ID {
		t.Fatalf("after the first answer on a deleted message: sent %d %s; entry has %d", sent.ID, sent.P.Text, msgID(h.entry(e.UID)))
	}
	if got := buttons(t, sent.P.ReplyMarkup); got[0][1] != data(t, frontend.Pick, e.UID, 1, 0) {
		t.Errorf("new message's buttons = %q", got)
	}
}

func TestDeletedMessageOutcomeDropped(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.tg.Delete(msgID(e))
	sent := len(h.tg.Sent())
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	if len(h.oc.Replies()) != 1 {
		t.Fatal("no reply")
	}
	h.gone(e.UID)
	if n := len(h.tg.Sent()); n != sent {
		t.Errorf("%d messages sent for an outcome whose message is gone", n-sent)
	}
	logs := h.logs.String()
	if !strings.Contains(logs, "its outcome is not shown") || strings.Contains(logs, `"level":"warn"`) {
		t.Errorf("want one debug line and no warning:\n%s", logs)
	}
}

func TestDeletedSharedPermissionMessageReposted(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	p := h.askPerm(permEvent("per_1", "go test ./..."))
	h.tg.Delete(msgID(p))
	s := h.askPerm(permEvent("per_2", "go test ./..."))
	if s.SharedWith != p.UID {
		t.Fatalf("second request not shared: %+v", s)
	}
	sent := h.lastSent()
	first, second := h.entry(p.UID), h.entry(s.UID)
	if sent.ID == msgID(p) || msgID(first) != sent.ID || msgID(second) != sent.ID {
		t.Fatalf("messages: first %d, second %d, last sent %d, deleted %d", msgID(first), msgID(second), sent.ID, msgID(p))
	}
	wantIn(t, sent.P.Text, "×2")
	if got := buttons(t, sent.P.ReplyMarkup); got[0][1] != "ponce:"+p.UID {
		t.Errorf("buttons = %q", got)
	}
	h.press(alice, permData(t, frontend.AllowOnce, p.UID), first)
	if n := len(h.oc.PermReplies()); n != 2 {
		t.Fatalf("%d permission replies, want 2", n)
	}
	if ed := h.lastEdit(); ed.MessageID != sent.ID || ed.ReplyMarkup != nil {
		t.Errorf("outcome edit = %+v", ed)
	}
}

func TestDeletedMessageRepostFailsThenSentUnsent(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", multiSelect())
	h.tg.Delete(msgID(e))
	h.tg.mu.Lock()
	h.tg.sendErrs = []error{fmt.Errorf("%w: telegram down", tgbot.ErrorForbidden)}
	h.tg.mu.Unlock()
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 0), e)
	if err := h.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := h.entry(e.UID); msgID(got) != 0 || !slices.Equal(got.Selected, []string{"A"}) {
		t.Fatalf("entry after a failed repost = %+v, want no message and the selection kept", got)
	}
	if err := h.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, sent := h.entry(e.UID), h.lastSent()
	if msgID(got) != sent.ID || msgID(got) == 0 {
		t.Fatalf("entry message %d, last sent %d", msgID(got), sent.ID)
	}
	if b := buttons(t, sent.P.ReplyMarkup); b[0][0] != "☑ A" {
		t.Errorf("buttons = %q", b)
	}
}

func TestStaleCopyPressClosesBoth(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	stale, now := h.crashCopy(e)
	id := h.pressSent(alice, data(t, frontend.Pick, e.UID, 0, 1), stale)
	if h.toast(id) != i18n.ToastSending || len(h.oc.Replies()) != 1 {
		t.Fatalf("toast %q, replies %+v", h.toast(id), h.oc.Replies())
	}
	h.checkAnsweredSQLite(msgID(now), stale)
	// A later press hears it was answered and edits nothing.
	edits := len(h.tg.Edits())
	if id := h.pressIn(testChat, bob, data(t, frontend.Pick, e.UID, 0, 0), msgID(now)); h.toast(id) != i18n.ToastAnswered {
		t.Errorf("late press toast = %q", h.toast(id))
	}
	if n := len(h.tg.Edits()); n != edits {
		t.Errorf("a late press made %d edits", n-edits)
	}
}

func TestStaleCopyRerenderBecomesPointer(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", multiSelect())
	stale, now := h.crashCopy(e)
	id := h.pressSent(alice, data(t, frontend.Toggle, e.UID, 0, 2), stale)
	if h.toast(id) != "☑ C" {
		t.Errorf("toast = %q", h.toast(id))
	}
	cur := h.tg.EditsOf(msgID(now))
	if len(cur) != 1 || buttons(t, cur[0].ReplyMarkup)[2][0] != "☑ C" {
		t.Fatalf("edits of the current message = %+v, want the selection", cur)
	}
	old := h.tg.EditsOf(stale)
	if len(old) != 1 || old[0].ReplyMarkup != nil || !strings.Contains(old[0].Text, "moved to the message below") {
		t.Fatalf("edits of the stale copy = %+v, want a pointer without buttons", old)
	}
	// The current message goes on as usual.
	h.press(bob, data(t, frontend.Submit, e.UID, 0, 0), now)
	if r := h.oc.Replies(); len(r) != 1 || r[0].Answers[0][0] != "C" {
		t.Fatalf("replies = %+v", r)
	}
	if n := len(h.tg.EditsOf(stale)); n != 1 {
		t.Errorf("stale copy edited %d times, want once", n)
	}
}

func TestStaleCopyCustomAnswer(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	stale, now := h.crashCopy(e)
	h.pressSent(alice, data(t, frontend.Type, e.UID, 0, 0), stale)
	prompt := h.lastSent()
	if rp := prompt.P.ReplyParameters; rp == nil || rp.MessageID != msgID(now) {
		t.Errorf("prompt replies to %+v, want the current message %d", rp, msgID(now))
	}
	if old := h.tg.EditsOf(stale); len(old) != 1 || !strings.Contains(old[0].Text, "moved") {
		t.Errorf("stale copy edits = %+v, want the pointer", old)
	}
	h.text(alice, "MariaDB", prompt.ID)
	if len(h.oc.Replies()) != 1 {
		t.Fatal("typed answer not delivered")
	}
	if ed := h.lastEdit(); ed.MessageID != msgID(now) || !strings.Contains(ed.Text, "MariaDB") {
		t.Errorf("outcome edit = %+v", ed)
	}
}

func TestStaleCopyOfClosedRequest(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	stale, now := h.crashCopy(e)
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), now)
	if n := len(h.tg.EditsOf(stale)); n != 0 {
		t.Fatalf("stale copy edited %d times by a press on the current message", n)
	}
	h.restart()
	id := h.pressSent(bob, data(t, frontend.Pick, e.UID, 0, 1), stale)
	if h.toast(id) != i18n.ToastAnswered || len(h.oc.Replies()) != 0 {
		t.Fatalf("toast %q, replies %+v", h.toast(id), h.oc.Replies())
	}
	old := h.tg.EditsOf(stale)
	if len(old) != 1 || old[0].ReplyMarkup != nil || !strings.Contains(old[0].Text, "closed: see the message below") {
		t.Fatalf("stale copy edits = %+v, want a pointer at the outcome", old)
	}
}

func TestStaleCopyPermission(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	p := h.askPerm(permEvent("per_1", "make"))
	stale, now := h.crashCopy(p)
	h.pressSent(alice, permData(t, frontend.Reject, p.UID), stale)
	if r := h.oc.PermReplies(); len(r) != 1 || r[0].Reply != "reject" {
		t.Fatalf("replies = %+v", r)
	}
	for _, msg := range []int{msgID(now), stale} {
		eds := h.tg.EditsOf(msg)
		if len(eds) != 1 || eds[0].ReplyMarkup != nil || !strings.Contains(eds[0].Text, "Rejected") {
			t.Errorf("edits of message %d = %+v, want the outcome", msg, eds)
		}
	}
}

func TestTamperedPressMakesNoCopy(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	x := h.ask("que_1", dbQuestion())
	y := h.ask("que_2", dbQuestion())
	// Data naming x, pressed on y's message (whose buttons name y).
	h.pressSent(alice, data(t, frontend.Pick, x.UID, 0, 0), msgID(y))
	if n := len(h.tg.EditsOf(msgID(y))); n != 0 {
		t.Errorf("y's message edited %d times by a press naming x", n)
	}
	if got := h.entry(y.UID); msgID(got) != msgID(y) {
		t.Errorf("y's message = %d", msgID(got))
	}
}

func TestPressAdoptsUnsavedMessage(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", multiSelect())
	sent := msgID(e)
	// The process died before saving the message ID, and the restart
	// could not post it again yet.
	if _, err := h.store.Update(e.UID, func(x *pending.Entry) error {
		x.Places[telegram.Name] = ""
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.pressSent(alice, data(t, frontend.Toggle, e.UID, 0, 0), sent)
	if got := h.entry(e.UID); msgID(got) != sent {
		t.Fatalf("entry message = %d, want the pressed %d", msgID(got), sent)
	}
	if eds := h.tg.EditsOf(sent); len(eds) != 1 || buttons(t, eds[0].ReplyMarkup)[0][0] != "☑ A" {
		t.Errorf("edits of the pressed message = %+v", eds)
	}
	n := len(h.tg.Sent())
	if err := h.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(h.tg.Sent()) != n {
		t.Error("the request was posted again although its message was found")
	}
}

func TestLateAskedEventNotPostedAgain(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q := h.ask("que_1", dbQuestion())
	p := h.askPerm(permEvent("per_1", "make"))
	h.press(alice, data(t, frontend.Pick, q.UID, 0, 0), q)
	h.press(alice, permData(t, frontend.AllowOnce, p.UID), p)
	sent := len(h.tg.Sent())

	h.restart()
	h.b.HandleEvent(context.Background(), askedEvent("que_1", dbQuestion()))
	h.b.HandleEvent(context.Background(), permEvent("per_1", "make"))
	if n := len(h.tg.Sent()); n != sent {
		t.Fatalf("late asked events posted %d messages for requests already answered", n-sent)
	}
	for _, id := range []string{"que_1", "per_1"} {
		if e, err := h.store.ByRequestID("", id); err == nil {
			t.Errorf("late asked event stored %s again: %+v", id, e)
		}
	}

	// A listed request is what opencode says is pending now: it is posted.
	ev := askedEvent("que_1", dbQuestion())
	ev.Listed = true
	h.b.HandleEvent(context.Background(), ev)
	if n := len(h.tg.Sent()); n != sent+1 {
		t.Errorf("a listed request closed before was not posted again (%d messages)", n-sent)
	}
}

// checkAnsweredSQLite fails unless each message of msgs was edited once,
// to Alice's answer SQLite, without buttons.
func (h *harness) checkAnsweredSQLite(msgs ...int) {
	h.t.Helper()
	for _, msg := range msgs {
		eds := h.tg.EditsOf(msg)
		if len(eds) != 1 || eds[0].ReplyMarkup != nil || !strings.Contains(eds[0].Text, "Answered by Alice") || !strings.Contains(eds[0].Text, "SQLite") {
			h.t.Errorf("edits of message %d = %+v, want the outcome without buttons", msg, eds)
		}
	}
}

// A question posted by a process that died before storing it is posted
// again by the next; the entry's UID comes from the request, so the
// first message's buttons name the stored entry: a press on either copy
// answers, and both show the outcome.
func TestCopyPostedBeforeACrashAnswers(t *testing.T) {
	h := newHarness(t, harnessConfig{Server: "http://127.0.0.1:4096"})
	e := h.ask("que_1", dbQuestion())
	stale := msgID(e)
	if err := h.store.Delete(e.UID); err != nil {
		t.Fatal(err) // as if never stored
	}
	h.restart()
	ev := askedEvent("que_1", dbQuestion())
	ev.Listed = true
	h.b.HandleEvent(context.Background(), ev)
	now, err := h.store.ByRequestID("", "que_1")
	if err != nil || now.UID != e.UID || msgID(now) == stale {
		t.Fatalf("posted again as %+v, %v; want UID %s on a new message", now, err, e.UID)
	}
	id := h.pressSent(alice, data(t, frontend.Pick, e.UID, 0, 1), stale)
	if h.toast(id) != i18n.ToastSending || len(h.oc.Replies()) != 1 {
		t.Fatalf("toast %q, replies %+v", h.toast(id), h.oc.Replies())
	}
	h.checkAnsweredSQLite(msgID(now), stale)
}

package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegram"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// errTelegramDown is what a closing edit meets when Telegram cannot be
// reached; the Outbox has given up retrying it.
var errTelegramDown = errors.New("telegram editMessageText: gave up after 4 attempts: connection refused")

// checkClosed fails unless the newest edit of message id shows want,
// without buttons, and no closing edit is owed any more.
func (h *harness) checkClosed(id int, want string) {
	h.t.Helper()
	edits := h.tg.EditsOf(id)
	if len(edits) == 0 {
		h.t.Fatalf("message %d was never edited", id)
	}
	if ed := edits[len(edits)-1]; ed.ReplyMarkup != nil || !strings.Contains(ed.Text, want) {
		h.t.Errorf("message %d ends as %q with markup %v; want %q without buttons", id, ed.Text, ed.ReplyMarkup, want)
	}
	if owed := h.owed(); len(owed) != 0 {
		h.t.Errorf("closing edits still owed: %+v", owed)
	}
}

// owed returns the closing edits the store holds, failing on an error.
func (h *harness) owed() []pending.Edit {
	h.t.Helper()
	// An edit Telegram took is forgotten beside the work that made it.
	if err := h.b.Wait(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	owed, err := h.store.OwedEdits()
	if err != nil {
		h.t.Fatal(err)
	}
	return owed
}

// A closing edit that did not reach Telegram is not lost: it stays owed
// across a restart, and SendOwed, which the bridge runs after each
// connect, sends it.
func TestClosingEditSentAfterRestart(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.tg.editErrs = []error{errTelegramDown}
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	h.gone(e.UID)
	owed := h.owed()
	if c, err := closingOf(owed[0]); len(owed) != 1 || tgMessage(owed[0].Place) != msgID(e) || err != nil || c.Outcome.By.Name != "Alice" {
		t.Fatalf("owed after a failed closing edit = %+v; want message %d's outcome", owed, msgID(e))
	}

	h.restart()
	h.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypeServerConnected})
	if err := h.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.checkClosed(msgID(e), "Alice")
}

// An edit Telegram took is forgotten at once: nothing is sent again.
func TestClosingEditForgottenOnceTaken(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	h.checkClosed(msgID(e), "Alice")
	before := len(h.tg.Edits())
	h.b.SendOwed(context.Background())
	if n := len(h.tg.Edits()); n != before {
		t.Errorf("SendOwed sent %d edits with nothing owed", n-before)
	}
}

// A press on a closed request whose message still shows its buttons (its
// closing edit was lost) shows the outcome there again.
func TestPressOnClosedMessageWithButtonsRepairsIt(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.tg.editErrs = []error{errTelegramDown}
	h.pressSent(alice, data(t, frontend.Pick, e.UID, 0, 0), msgID(e))
	h.restart() // forgets what the process remembered of the close
	if err := h.store.Edited(h.owed()[0]); err != nil {
		t.Fatal(err) // as if the edit had been lost elsewhere
	}

	id := h.pressSent(alice, data(t, frontend.Pick, e.UID, 0, 1), msgID(e))
	if got := h.toast(id); got != i18n.ToastAnswered {
		t.Errorf("toast = %q, want %q", got, i18n.ToastAnswered)
	}
	h.checkClosed(msgID(e), "Alice")
	if n := len(h.oc.Replies()); n != 0 {
		t.Errorf("the later press was answered again: %d replies", n)
	}
}

// An expiry whose reject keeps failing marks the request and says it
// expired; that edit, lost, is owed too, though the entry stays.
func TestExpiredEditOwedWhileRejectRetried(t *testing.T) {
	h := newHarness(t, harnessConfig{TTL: time.Minute})
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := start
	h.b.now = func() time.Time { return clock }
	e := h.ask("que_1", dbQuestion())
	clock = start.Add(2 * time.Minute)
	h.oc.rejectErrs = []error{opencode.ErrTransient}
	h.tg.editErrs = []error{errTelegramDown}
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !h.entry(e.UID).ExpiredNotified {
		t.Fatal("expired request not marked")
	}
	if owed := h.owed(); len(owed) != 1 || !strings.Contains(owed[0].Data, fmt.Sprintf(`"How":%d`, frontend.Expired)) {
		t.Fatalf("owed = %+v; want the expiry", owed)
	}
	h.b.SendOwed(context.Background())
	h.checkClosed(msgID(e), "Expired")
}

// Identical permission requests share a message: one closing while the
// other waits leaves the message open and owes nothing.
func TestSharedPermissionOwesNothingWhileOneIsOpen(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	first := h.askPerm(permEvent("per_1", "make test"))
	h.askPerm(permEvent("per_2", "make test"))
	h.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
		PermissionReplied: &opencode.PermissionReplied{RequestID: "per_1", Reply: "once"}})
	if owed := h.owed(); len(owed) != 0 {
		t.Errorf("owed while a request sharing the message is open: %+v", owed)
	}
	if ed := h.lastEdit(); ed.MessageID != msgID(first) || ed.ReplyMarkup == nil {
		t.Errorf("shared message edited to %+v; want it open", ed)
	}
}

// The same for identical permission requests sharing a message, whose
// buttons carry the first one's UID: its record holds the outcome.
func TestPressOnClosedSharedPermissionRepairsIt(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	first := h.askPerm(permEvent("per_1", "make test"))
	h.askPerm(permEvent("per_2", "make test"))
	h.tg.editErrs = []error{errTelegramDown}
	h.pressSent(alice, permData(t, frontend.AllowOnce, first.UID), msgID(first))
	if n := len(h.oc.PermReplies()); n != 2 {
		t.Fatalf("%d permission replies, want 2", n)
	}
	h.restart()
	if err := h.store.Edited(h.owed()[0]); err != nil {
		t.Fatal(err)
	}

	id := h.pressSent(alice, permData(t, frontend.AllowOnce, first.UID), msgID(first))
	if got := h.toast(id); got != i18n.ToastAnswered {
		t.Errorf("toast = %q, want %q", got, i18n.ToastAnswered)
	}
	h.checkClosed(msgID(first), "Alice")
}

// An edit owed by the last release is its rendered text: it is shown as
// it is.
func TestClosingEditOwedByLastReleaseReplayed(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	old := pending.Edit{Frontend: telegram.Name, Place: e.Places[telegram.Name], Text: "✅ <b>answered before the upgrade</b>"}
	if err := h.store.DeleteClosed(e.UID, pending.ClosedRequest{Toast: string(i18n.ToastAnswered)}, old); err != nil {
		t.Fatal(err)
	}
	h.b.SendOwed(context.Background())
	if err := h.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ed := h.lastEdit(); ed.MessageID != msgID(e) || ed.ReplyMarkup != nil || ed.Text != old.Text {
		t.Fatalf("edit = %+v; want the text owed", ed)
	}
	if owed := h.owed(); len(owed) != 0 {
		t.Fatalf("owed after SendOwed: %+v", owed)
	}
}

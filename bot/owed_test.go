package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// errChatDown is what a closing edit meets when the chat cannot be
// reached.
var errChatDown = errors.New("chat unreachable")

// restart replaces c's bridge by a new one over the same store and
// front-end, as a new process would build; it remembers nothing.
func (c *core) restart() {
	c.t.Helper()
	if err := c.b.Wait(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	b := NewBridge(c.b.cfg, c.store, c.b.fes, zerolog.Nop())
	b.now, b.lockWait = c.b.now, c.b.lockWait
	c.b = b
}

// owed returns the closing edits the store holds, failing on an error.
func (c *core) owed() []pending.Edit {
	c.t.Helper()
	// An edit the chat took is forgotten beside the work that made it.
	if err := c.b.Wait(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	owed, err := c.store.OwedEdits()
	if err != nil {
		c.t.Fatal(err)
	}
	return owed
}

// checkClosed fails unless message id shows want, without buttons, and
// no closing edit is owed any more.
func (c *core) checkClosed(id int, want string) {
	c.t.Helper()
	if m, ok := c.fe.Message(id); !ok || m.Open || !strings.Contains(m.Outcome, want) {
		c.t.Errorf("message %d ends as %+v; want it closed with %q", id, m, want)
	}
	if owed := c.owed(); len(owed) != 0 {
		c.t.Errorf("closing edits still owed: %+v", owed)
	}
}

// A closing edit that did not reach the chat is not lost: it stays owed
// across a restart, and SendOwed, which the bridge runs after each
// connect, sends it.
func TestClosingEditSentAfterRestart(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	c.fe.Fail("Close", errChatDown)
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	owed := c.owed()
	if len(owed) != 1 || owed[0].Frontend != "test" || owed[0].Place != m.Place {
		t.Fatalf("owed after a failed closing edit = %+v; want message %d's", owed, m.ID)
	}
	if cl, err := closingOf(owed[0]); err != nil || cl.Outcome.By != ann || cl.Outcome.How != frontend.Answered {
		t.Fatalf("owed closing %+v, %v; want answered by Ann", cl, err)
	}
	c.fe.Fail("Close", nil)
	c.restart()
	c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypeServerConnected})
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.checkClosed(m.ID, "by=Ann")
}

// An edit the chat took is forgotten at once: nothing is sent again.
func TestClosingEditForgottenOnceTaken(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	c.checkClosed(m.ID, "by=Ann")
	c.fe.Fail("Close", errors.New("nothing may be closed again"))
	c.b.SendOwed(context.Background())
	if got, _ := c.fe.Message(m.ID); got.Open || !strings.Contains(got.Outcome, "by=Ann") {
		t.Errorf("after SendOwed with nothing owed the message shows %+v", got)
	}
}

// A press on a closed request whose message still shows its buttons (its
// closing edit was lost) shows the outcome there again.
func TestPressOnClosedMessageWithButtonsRepairsIt(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	c.fe.Fail("Close", errChatDown)
	c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
	c.fe.Fail("Close", nil)
	c.restart() // forgets what the process remembered of the close
	if err := c.store.Edited(c.owed()[0]); err != nil {
		t.Fatal(err) // as if the edit had been lost elsewhere
	}
	if ack := c.press(m.Request.Key, frontend.Pick, 0, 1, ben, m.ID)[0]; ack != i18n.English.Toast(i18n.ToastAnswered) {
		t.Errorf("toast = %q, want %q", ack, i18n.English.Toast(i18n.ToastAnswered))
	}
	c.checkClosed(m.ID, "by=Ann")
	if n := len(c.oc.Replies()); n != 1 {
		t.Errorf("the later press was answered again: %d replies", n)
	}
}

// An expiry whose reject keeps failing marks the request and says it
// expired; that edit, lost, is owed too, though the entry stays.
func TestExpiredEditOwedWhileRejectRetried(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	m := c.ask("que_1", dbQuestion())
	c.now = c.now.Add(2 * time.Minute)
	c.oc.rejectErrs = []error{opencode.ErrTransient}
	c.fe.Fail("Close", errChatDown)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e, err := c.store.Get(m.Request.Key); err != nil || !e.ExpiredNotified {
		t.Fatalf("expired request not marked: %+v, %v", e, err)
	}
	if owed := c.owed(); len(owed) != 1 || !strings.Contains(owed[0].Data, fmt.Sprintf(`"How":%d`, frontend.Expired)) {
		t.Fatalf("owed = %+v; want the expiry", owed)
	}
	c.fe.Fail("Close", nil)
	c.b.SendOwed(context.Background())
	c.checkClosed(m.ID, fmt.Sprintf("how=%d", frontend.Expired))
}

// Identical permission requests share a message: one closing while the
// other waits leaves the message open and owes nothing.
func TestSharedPermissionOwesNothingWhileOneIsOpen(t *testing.T) {
	c := newCore(t, Config{})
	c.b.HandleEvent(context.Background(), permEvent("per_1", "make test"))
	c.b.HandleEvent(context.Background(), permEvent("per_2", "make test"))
	c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied,
		PermissionReplied: &opencode.PermissionReplied{RequestID: "per_1", Reply: "once"}})
	if owed := c.owed(); len(owed) != 0 {
		t.Errorf("owed while a request sharing the message is open: %+v", owed)
	}
	if ms := c.fe.Messages(); len(ms) != 1 || !ms[0].Open || len(ms[0].Request.Members) != 1 || ms[0].Request.Members[0].RequestID != "per_2" {
		t.Errorf("messages %+v; want the shared one open for per_2", ms)
	}
}

// The same for identical permission requests sharing a message, whose
// buttons carry the first one's UID: its record holds the outcome.
func TestPressOnClosedSharedPermissionRepairsIt(t *testing.T) {
	c := newCore(t, Config{})
	c.b.HandleEvent(context.Background(), permEvent("per_1", "make test"))
	c.b.HandleEvent(context.Background(), permEvent("per_2", "make test"))
	m := c.fe.Messages()[0]
	c.fe.Fail("Close", errChatDown)
	c.press(m.Request.Key, frontend.AllowOnce, 0, 0, ann, m.ID)
	if n := len(c.oc.PermReplies()); n != 2 {
		t.Fatalf("%d permission replies, want 2", n)
	}
	c.fe.Fail("Close", nil)
	c.restart()
	if err := c.store.Edited(c.owed()[0]); err != nil {
		t.Fatal(err)
	}
	if ack := c.press(m.Request.Key, frontend.AllowOnce, 0, 0, ann, m.ID)[0]; ack != i18n.English.Toast(i18n.ToastAnswered) {
		t.Errorf("toast = %q, want %q", ack, i18n.English.Toast(i18n.ToastAnswered))
	}
	c.checkClosed(m.ID, "by=Ann")
}

// An edit owed by the last release is the text it rendered: it is handed
// to the front-end to show as it is.
func TestClosingEditOwedByLastReleaseReplayed(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	old := pending.Edit{Frontend: "test", Place: m.Place, Text: "✅ <b>answered before the upgrade</b>"}
	if err := c.store.DeleteClosed(m.Request.Key, pending.ClosedRequest{Toast: string(i18n.ToastAnswered)}, old); err != nil {
		t.Fatal(err)
	}
	c.b.SendOwed(context.Background())
	c.checkClosed(m.ID, old.Text)
}

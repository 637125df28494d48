package bot

import (
	"context"
	"errors"
	"fmt"
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

// These tests run the life cycle with two in-memory front-ends at once,
// "a" and "b", as two chats showing every request.

// chats is a bridge over a real store and the fake opencode, showing
// requests in two front-ends.
type chats struct {
	t     *testing.T
	b     *Bridge
	a, z  *frontendtest.Frontend
	oc    *fakeOpencode
	store *pending.Store
	path  string
}

func newChats(t *testing.T) *chats {
	t.Helper()
	c := &chats{t: t, a: frontendtest.New("a"), z: frontendtest.New("b"), oc: &fakeOpencode{},
		path: filepath.Join(t.TempDir(), "pending.db")}
	store, err := pending.Open(c.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	c.store = store
	c.b = c.bridge()
	return c
}

// bridge is a bridge over c's store and front-ends, as a restart builds.
func (c *chats) bridge() *Bridge {
	b := NewBridge(Config{Servers: map[string]Opencode{"": c.oc}}, c.store, []frontend.Frontend{c.a, c.z}, zerolog.Nop())
	b.lockWait = 50 * time.Millisecond
	return b
}

// message returns request id's message in fe; it fails the test when
// fe does not show it.
func (c *chats) message(fe *frontendtest.Frontend, id string) frontendtest.Message {
	c.t.Helper()
	e, err := c.store.ByRequestID("", id)
	if err != nil {
		c.t.Fatalf("request %s not held: %v", id, err)
	}
	m, ok := fe.Message(frontendtest.ID(e.Places[fe.Name()]))
	if !ok {
		c.t.Fatalf("request %s has no message in %s (places %q)", id, fe.Name(), e.Places)
	}
	return m
}

// press presses a's button on m of fe as ann.
func (c *chats) press(fe *frontendtest.Frontend, m frontendtest.Message, a frontend.Action, qi, oi int) string {
	c.t.Helper()
	var acks []string
	c.b.HandlePress(context.Background(), zerolog.Nop(), fe.Press(m.Request.Key, a, qi, oi, ann, m.ID, &acks))
	if len(acks) != 1 {
		c.t.Fatalf("press acknowledged %d times (%q), want once", len(acks), acks)
	}
	return acks[0]
}

// closed fails the test unless message id of fe closed showing want.
func (c *chats) closed(fe *frontendtest.Frontend, id int, want string) {
	c.t.Helper()
	if err := c.b.Wait(context.Background()); err != nil {
		c.t.Fatal(err)
	}
	if m, ok := fe.Message(id); !ok || m.Open || !strings.Contains(m.Outcome, want) {
		c.t.Fatalf("message %d of %s shows %+v, want it closed with %q", id, fe.Name(), m, want)
	}
}

// A request shows in both; answered in one, the other closes with the
// outcome; and the other way round.
func TestFrontendsAnsweredInOneClosedInTheOther(t *testing.T) {
	c := newChats(t)
	ctx := context.Background()
	for i, way := range [][2]*frontendtest.Frontend{{c.a, c.z}, {c.z, c.a}} {
		id := fmt.Sprintf("que_%d", i)
		c.b.HandleEvent(ctx, askedEvent(id, dbQuestion()))
		in, other := c.message(way[0], id), c.message(way[1], id)
		if !in.Open || !other.Open {
			t.Fatalf("%s: messages %+v and %+v, want both open", id, in, other)
		}
		c.press(way[0], in, frontend.Pick, 0, 1)
		if r := c.oc.Replies(); len(r) != i+1 || fmt.Sprint(r[i].Answers) != "[[SQLite]]" {
			t.Fatalf("%s: opencode got %+v, want SQLite", id, r)
		}
		c.closed(way[0], in.ID, "by=Ann")
		c.closed(way[1], other.ID, "by=Ann")
		// A late press in the other is told how it ended, once.
		if ack := c.press(way[1], other, frontend.Pick, 0, 0); ack == "" || len(c.oc.Replies()) != i+1 {
			t.Fatalf("%s: late press in %s: %q, replies %d", id, way[1].Name(), ack, len(c.oc.Replies()))
		}
	}
}

// A permission decided, and a question answered, in opencode close in
// both; a typed answer collected in one closes both.
func TestFrontendsClosedElsewhereAndTyped(t *testing.T) {
	c := newChats(t)
	ctx := context.Background()
	c.b.HandleEvent(ctx, permEvent("per_1", "make test"))
	pa, pb := c.message(c.a, "per_1"), c.message(c.z, "per_1")
	c.b.HandleEvent(ctx, opencode.Event{Type: opencode.TypePermissionReplied,
		PermissionReplied: &opencode.PermissionReplied{RequestID: "per_1", Reply: "once"}})
	c.closed(c.a, pa.ID, "reply=once")
	c.closed(c.z, pb.ID, "reply=once")

	custom := true
	typed := opencode.Question{Question: "Which branch?", Header: "Branch", Custom: &custom}
	c.b.HandleEvent(ctx, askedEvent("que_t", typed))
	qa, qb := c.message(c.a, "que_t"), c.message(c.z, "que_t")
	c.press(c.z, qb, frontend.Type, 0, 0)
	if len(c.a.Prompts()) != 0 || len(c.z.Prompts()) != 1 {
		t.Fatalf("prompts %+v and %+v, want one in b, where Type was pressed", c.a.Prompts(), c.z.Prompts())
	}
	c.b.HandleInput(ctx, zerolog.Nop(), c.z.Input(c.z.Prompts()[0], "main"))
	if r := c.oc.Replies(); len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[main]]" {
		t.Fatalf("opencode got %+v, want main", r)
	}
	c.closed(c.a, qa.ID, `answers=[["main"]]`)
	c.closed(c.z, qb.ID, `answers=[["main"]]`)
}

// A front-end that cannot take a post holds up none of the others: the
// request shows in the other at once, and is posted where it failed,
// once, when that front-end is back; a restart re-attaches without
// posting again.
func TestFrontendsOneFailingToPost(t *testing.T) {
	c := newChats(t)
	ctx := context.Background()
	c.z.Fail("Post", errors.New("chat unreachable"))
	c.b.HandleEvent(ctx, askedEvent("que_1", dbQuestion()))
	ma := c.message(c.a, "que_1")
	if e, _ := c.store.ByRequestID("", "que_1"); e.Places["b"] != "" || len(c.z.Messages()) != 0 {
		t.Fatalf("places %q, b's messages %+v; want none in b", e.Places, c.z.Messages())
	}
	if err := c.b.SendUnsent(ctx); err == nil {
		t.Fatal("SendUnsent while b fails says nothing failed")
	}
	c.z.Fail("Post", nil)
	if err := c.b.SendUnsent(ctx); err != nil {
		t.Fatal(err)
	}
	mb := c.message(c.z, "que_1")
	if n := len(c.a.Messages()); n != 1 || !mb.Open {
		t.Fatalf("a has %d messages, b's is %+v; want a's one and b's open", n, mb)
	}
	// So is a permission request.
	c.z.Fail("Post", errors.New("chat unreachable"))
	c.b.HandleEvent(ctx, permEvent("per_1", "make test"))
	c.message(c.a, "per_1")
	c.z.Fail("Post", nil)
	if err := c.b.SendUnsent(ctx); err != nil {
		t.Fatal(err)
	}
	pb := c.message(c.z, "per_1")
	if len(c.a.Messages()) != 2 || !pb.Open {
		t.Fatalf("a has %d messages, b's permission %+v; want one more in a and b's open", len(c.a.Messages()), pb)
	}
	// A restart: a new bridge over the same store re-attaches.
	c.b = c.bridge()
	if err := c.b.SendUnsent(ctx); err != nil {
		t.Fatal(err)
	}
	if len(c.a.Messages()) != 2 || len(c.z.Messages()) != 2 {
		t.Fatalf("after a restart a has %d messages and b %d, want two each", len(c.a.Messages()), len(c.z.Messages()))
	}
	c.press(c.z, mb, frontend.Pick, 0, 0)
	c.closed(c.a, ma.ID, "by=Ann")
	c.closed(c.z, mb.ID, "by=Ann")
}

// Each front-end owes its own closing edit: one whose edit fails keeps
// it owed, and takes it at SendOwed, while the other showed it at once.
// A message deleted in one is posted again there only.
func TestFrontendsOwedEditsAndRepostPerFrontend(t *testing.T) {
	c := newChats(t)
	ctx := context.Background()
	c.b.HandleEvent(ctx, askedEvent("que_1", colours()))
	ma, mb := c.message(c.a, "que_1"), c.message(c.z, "que_1")
	c.z.Delete(mb.ID)
	c.press(c.a, ma, frontend.Toggle, 0, 1)
	if err := c.b.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	nb := c.message(c.z, "que_1")
	if nb.ID == mb.ID || !nb.Open || len(c.a.Messages()) != 1 {
		t.Fatalf("b shows %+v, a has %d messages; want a new message in b only", nb, len(c.a.Messages()))
	}
	c.z.Fail("Close", errors.New("chat unreachable"))
	c.press(c.a, ma, frontend.Submit, 0, 0)
	c.closed(c.a, ma.ID, "by=Ann")
	owed, err := c.store.OwedEdits()
	if err != nil || len(owed) != 1 || owed[0].Frontend != "b" || frontendtest.ID(owed[0].Place) != nb.ID {
		t.Fatalf("owed %+v, %v; want b's closing edit only", owed, err)
	}
	c.z.Fail("Close", nil)
	c.b.SendOwed(ctx)
	c.closed(c.z, nb.ID, "by=Ann")
	if owed, err := c.store.OwedEdits(); err != nil || len(owed) != 0 {
		t.Fatalf("owed after SendOwed %+v, %v", owed, err)
	}
}

// Expiry closes the request in both.
func TestFrontendsExpire(t *testing.T) {
	c := newChats(t)
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c.b.now = func() time.Time { return now }
	c.b.cfg.TTL = time.Minute
	c.b.HandleEvent(context.Background(), askedEvent("que_1", dbQuestion()))
	ma, mb := c.message(c.a, "que_1"), c.message(c.z, "que_1")
	now = now.Add(2 * time.Minute)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("how=%d", frontend.Expired)
	c.closed(c.a, ma.ID, want)
	c.closed(c.z, mb.ID, want)
}

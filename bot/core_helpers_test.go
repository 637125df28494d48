package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Helpers of the core rig that read and drive requests by their stored
// entries, for tests that check the store as well as the front-end.

// asked makes opencode ask question id and returns its entry.
func (c *core) asked(id string, qs ...opencode.Question) *pending.Entry {
	c.t.Helper()
	c.b.HandleEvent(context.Background(), askedEvent(id, qs...))
	return c.held(id)
}

// askPerm makes opencode ask permission ev and returns its entry.
func (c *core) askPerm(ev opencode.Event) *pending.Entry {
	c.t.Helper()
	c.b.HandleEvent(context.Background(), ev)
	return c.held(ev.PermissionAsked.ID)
}

// held returns the entry of opencode's request id.
func (c *core) held(id string) *pending.Entry {
	c.t.Helper()
	e, err := c.store.ByRequestID("", id)
	if err != nil {
		c.t.Fatalf("request %s not held: %v", id, err)
	}
	return e
}

// entry returns the entry uid, which must be stored.
func (c *core) entry(uid string) *pending.Entry {
	c.t.Helper()
	e, err := c.store.Get(uid)
	if err != nil {
		c.t.Fatalf("entry %s: %v", uid, err)
	}
	return e
}

// gone fails the test when entry uid is still stored.
func (c *core) gone(uid string) {
	c.t.Helper()
	if e, err := c.store.Get(uid); err == nil {
		c.t.Fatalf("entry %s still stored: %+v", uid, e)
	}
}

// tap presses a's button of key on e's message as user, and returns what
// the press was told.
func (c *core) tap(user frontend.User, a frontend.Action, key string, e *pending.Entry, qi, oi int) string {
	c.t.Helper()
	return c.press(key, a, qi, oi, user, msgID(e))[0]
}

// message returns e's message as it shows now.
func (c *core) message(e *pending.Entry) frontendtest.Message {
	c.t.Helper()
	m, ok := c.fe.Message(msgID(e))
	if !ok {
		c.t.Fatalf("entry %s has no message (places %q)", e.UID, e.Places)
	}
	return m
}

// closedAs returns the outcome e's message ends with, after checking it
// is closed with how.
func (c *core) closedAs(e *pending.Entry, how frontend.How) string {
	c.t.Helper()
	m := c.message(e)
	if m.Open || !strings.HasPrefix(m.Outcome, fmt.Sprintf("how=%d ", how)) {
		c.t.Fatalf("message %d shows %+v, want it closed with how=%d", m.ID, m, how)
	}
	return m.Outcome
}

// prompt returns the last prompt asked; it fails the test when none was.
func (c *core) prompt() frontendtest.Prompt {
	c.t.Helper()
	ps := c.fe.Prompts()
	if len(ps) == 0 {
		c.t.Fatal("nobody was asked to type")
	}
	return ps[len(ps)-1]
}

// typeIn hands the bridge text typed by user for prompt p.
func (c *core) typeIn(p frontendtest.Prompt, user frontend.User, text string) {
	in := c.fe.Input(p, text)
	in.User = user
	c.b.HandleInput(context.Background(), zerolog.New(c.logs), in)
}

// wantIn fails the test for each of wants that text lacks.
func (c *core) wantIn(text string, wants ...string) {
	c.t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			c.t.Errorf("%q lacks %q", text, w)
		}
	}
}

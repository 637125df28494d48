package bot

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

var agentSaid = []opencode.ContextLine{
	{Text: "I read the config to see which database it uses."},
	{Tool: "read", Text: "/home/user/projects/demo/config.json"},
	{Text: "Both would work here."},
}

func wantContext() []frontend.ContextLine {
	var out []frontend.ContextLine
	for _, l := range agentSaid {
		out = append(out, frontend.ContextLine{Tool: l.Tool, Text: l.Text})
	}
	return out
}

// What the agent did before asking is read once, for the tool call that
// asked, kept with the request and shown with it: a question's and a
// permission's, and again when the message is posted anew.
func TestCoreContextAboveRequests(t *testing.T) {
	c := newCore(t, Config{ContextLines: 3})
	c.oc.context = agentSaid
	m := c.ask("que_1", dbQuestion())
	if got := m.Request.Members[0].Context; !reflect.DeepEqual(got, wantContext()) {
		t.Fatalf("question shows context %+v, want %+v", got, wantContext())
	}
	c.oc.mu.Lock()
	calls := c.oc.contextCalls
	c.oc.mu.Unlock()
	want := opencode.ContextOptions{MessageID: "msg_1", CallID: "call_que_1", Lines: 3}
	if len(calls) != 1 || calls[0] != want {
		t.Fatalf("context read with %+v, want once with %+v", calls, want)
	}

	c.b.HandleEvent(context.Background(), permEvent("per_1", "go test ./..."))
	p := c.shown("per_1")
	if got := p.Request.Members[0].Context; !reflect.DeepEqual(got, wantContext()) {
		t.Fatalf("permission shows context %+v, want %+v", got, wantContext())
	}

	// Posted anew (as after a restart, the message never sent), it shows
	// the same lines without asking opencode again.
	c.oc.context = nil
	if _, err := c.store.Update(m.Request.Key, func(x *pending.Entry) error {
		x.Places = map[string]pending.Place{c.fe.Name(): ""}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	again := c.shown("que_1")
	if again.ID == m.ID {
		t.Fatalf("question not posted anew")
	}
	if got := again.Request.Members[0].Context; !reflect.DeepEqual(got, wantContext()) {
		t.Errorf("posted anew with context %+v, want %+v", got, wantContext())
	}
	c.oc.mu.Lock()
	n := len(c.oc.contextCalls)
	c.oc.mu.Unlock()
	if n != 2 {
		t.Errorf("context read %d times, want once per request", n)
	}
}

// A failing read loses nothing: the request is posted without context,
// and answered as usual. HERMES_CONTEXT_LINES=0 reads nothing.
func TestCoreContextFailureStillPosts(t *testing.T) {
	c := newCore(t, Config{ContextLines: 3})
	c.oc.contextErr = errors.New("opencode is slow today")
	m := c.ask("que_1", dbQuestion())
	if !m.Open || len(m.Request.Members[0].Context) != 0 {
		t.Fatalf("posted %+v, want open, without context", m)
	}
	c.b.HandleEvent(context.Background(), permEvent("per_1", "go test ./..."))
	if p := c.shown("per_1"); !p.Open {
		t.Fatalf("permission posted %+v, want open", p)
	}
	c.press(m.Request.Key, frontend.Pick, 0, 1, ann, m.ID)
	if r := c.oc.Replies(); len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[SQLite]]" {
		t.Fatalf("opencode got %+v, want SQLite once", r)
	}

	off := newCore(t, Config{})
	off.oc.context = agentSaid
	if m := off.ask("que_2", dbQuestion()); len(m.Request.Members[0].Context) != 0 {
		t.Errorf("context shown while off: %+v", m.Request.Members[0].Context)
	}
	if len(off.oc.contextCalls) != 0 {
		t.Errorf("context read while off: %+v", off.oc.contextCalls)
	}
}

// A quick reply answers as the same text typed would: the answer of a
// question that takes typed text, checked first when it is a form's field.
func TestCoreQuickReply(t *testing.T) {
	c := newCore(t, Config{})
	m := c.ask("que_1", dbQuestion())
	quick := func(m int, key string, qi int, text string) []string {
		var acks []string
		p := c.fe.Press(key, frontend.Quick, qi, 0, ann, m, &acks)
		p.Text = text
		c.b.HandlePress(context.Background(), zerolog.Nop(), p)
		return acks
	}
	quick(m.ID, m.Request.Key, 0, "Yes, go ahead")
	if r := c.oc.Replies(); len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[Yes, go ahead]]" {
		t.Fatalf("opencode got %+v, want the quick reply", r)
	}

	// A question that forbids typed answers takes none.
	no := false
	q := dbQuestion()
	q.Custom = &no
	m2 := c.ask("que_2", q)
	quick(m2.ID, m2.Request.Key, 0, "Yes, go ahead")
	if r := c.oc.Replies(); len(r) != 1 {
		t.Fatalf("opencode got %+v, want no answer to que_2", r)
	}

	// A field's checks apply: too short is refused, nothing is sent.
	f := c.askForm(formEvent("frm_1", opencode.FormField{Key: "name", Type: "string", Required: true, MinLength: ptr(5)}))
	if acks := quick(f.ID, f.Request.Key, 0, "No"); len(acks) != 1 || acks[0] == "" {
		t.Fatalf("short quick reply acknowledged %q, want the problem", acks)
	}
	if r := c.oc.FormReplies(); len(r) != 0 {
		t.Fatalf("form answered %+v, want nothing", r)
	}
	quick(f.ID, f.Request.Key, 0, "Explain first")
	if r := c.oc.FormReplies(); len(r) != 1 || r[0].Answer != `{"answer":{"name":"Explain first"}}` {
		t.Fatalf("form answered %+v, want the quick reply", r)
	}
}

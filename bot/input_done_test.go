package bot

import (
	"context"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// doneInput is in with a Done that records its outcomes in got.
func doneInput(in frontend.Input, got *[]bool) frontend.Input {
	in.Done = func(accepted bool) { *got = append(*got, accepted) }
	return in
}

// Input.Done says, once, whether typed text was taken: a form's field
// that fails its check is not (the person is told, and asked again), nor
// an answer opencode could not be given; the next field's text is, and so
// is the answer opencode takes.
func TestInputDoneReportsOutcome(t *testing.T) {
	c := newCore(t, Config{})
	m := c.askForm(formEvent("frm_1",
		opencode.FormField{Key: "n", Type: "integer", Required: true, Minimum: ptr(1.0)},
		opencode.FormField{Key: "note", Type: "string", Required: true},
	))
	var got []bool
	input := func(text string) {
		ps := c.fe.Prompts()
		p := ps[len(ps)-1]
		p.User = ann
		c.b.HandleInput(context.Background(), zerolog.Nop(), doneInput(c.fe.Input(p, text), &got))
	}
	c.press(m.Request.Key, frontend.Type, 0, 0, ann, m.ID)
	input("zero")
	input("3")
	c.press(m.Request.Key, frontend.Type, 1, 0, ann, m.ID)
	c.oc.mu.Lock()
	c.oc.formErrs = []error{opencode.ErrTransient}
	c.oc.mu.Unlock()
	input("ship it") // opencode cannot be reached: not taken
	c.press(m.Request.Key, frontend.Type, 1, 0, ann, m.ID)
	input("ship it")
	if want := []bool{false, true, false, true}; !slices.Equal(got, want) {
		t.Errorf("Done got %v, want %v", got, want)
	}
	if r := c.oc.FormReplies(); len(r) != 2 {
		t.Errorf("opencode was given %d answers, want 2 (the first failed)", len(r))
	}
	// Text for a request no longer waiting is not taken.
	got = nil
	c.b.HandleInput(context.Background(), zerolog.Nop(), doneInput(frontend.Input{Key: m.Request.Key, Text: "late", User: ann, Frontend: "test"}, &got))
	if !slices.Equal(got, []bool{false}) {
		t.Errorf("Done for a closed request got %v, want [false]", got)
	}
}

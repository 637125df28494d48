package matrix

import (
	"fmt"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// testFrontendQuickReplies: a single-choice question that takes a typed
// answer offers the stock replies as extra poll answers; an allowed
// person's vote for one is a Quick press with its text, a stranger's is
// ignored; a question that forbids typing offers none.
func testFrontendQuickReplies(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	core := newFakeCore()
	fe, _ := r.servedWith(t, ctx, core, FrontendConfig{Version: "v-test", QuickReplies: []string{"Yes, go ahead", "No, stop"}})
	r.joined(t, ctx, r.alice)

	req := question("que_q", frontend.Question{Text: "Ship it now?", Custom: true,
		Options: []frontend.Option{{Label: "Ship"}, {Label: "Wait"}}})
	if _, err := fe.Post(ctx, req); err != nil {
		t.Fatal(err)
	}
	poll, answers := pollOf(t, ctx, r.alice, "Ship it now?")
	if want := "[o0=Ship o1=Wait r0=💬 Yes, go ahead r1=💬 No, stop]"; fmt.Sprint(answers) != want {
		t.Fatalf("answers %v, want %s", answers, want)
	}
	if _, err := r.mallory.Vote(ctx, r.room, poll, "r0"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll, "r1"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "alice's quick reply", func() bool { return len(core.presses) == 1 })
	if p := core.presses[0]; p.Action != frontend.Quick || p.Text != "No, stop" || p.Question != 0 || p.User.ID != r.alice.ID || p.Key != "que_q" {
		t.Fatalf("press %+v, want alice's quick reply \"No, stop\"", p)
	}

	strict := question("que_s", frontend.Question{Text: "Pick one only?", Options: []frontend.Option{{Label: "A"}, {Label: "B"}}})
	if _, err := fe.Post(ctx, strict); err != nil {
		t.Fatal(err)
	}
	if _, answers := pollOf(t, ctx, r.alice, "Pick one only?"); fmt.Sprint(answers) != "[o0=A o1=B]" {
		t.Errorf("answers %v, want the options only", answers)
	}
}

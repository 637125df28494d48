package bot

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// On OpenCode 2 a reply to a session running a turn is held for a
// choice; the choice queues or steers it, once; an idle session and a 1.x
// server just get the prompt.
func TestContinueOnOpenCode2(t *testing.T) {
	c, st := newSteerCore(t)
	ctx := context.Background()
	ref := pending.SessionRef{Directory: "/p", ID: "ses_1"}
	st.gen, st.busy = 2, map[string]bool{"ses_1": true}

	res, err := c.b.ContinueSession(ctx, zerolog.Nop(), ref, "use go 1.25", ann, frontend.DeliverAsk)
	if err != nil || !res.Busy || res.Title != "Fix the login" || res.Ref != ref {
		t.Fatalf("ContinueSession(ask) of a busy session = %+v, %v; want Busy", res, err)
	}
	if len(st.prompts)+len(st.steered) != 0 {
		t.Fatalf("sent before the choice: prompts %q, steered %q", st.prompts, st.steered)
	}
	if res, err := c.b.ContinueSession(ctx, zerolog.Nop(), ref, "use go 1.25", ann, frontend.DeliverSteer); err != nil || res.Busy {
		t.Fatalf("ContinueSession(steer) = %+v, %v", res, err)
	}
	if res, err := c.b.ContinueSession(ctx, zerolog.Nop(), ref, "then tag it", ann, frontend.DeliverQueue); err != nil || res.Busy {
		t.Fatalf("ContinueSession(queue) = %+v, %v", res, err)
	}
	if !reflect.DeepEqual(st.steered, []string{"/p|ses_1|use go 1.25"}) || !reflect.DeepEqual(st.prompts, []string{"/p|ses_1|then tag it"}) {
		t.Errorf("steered %q, prompts %q", st.steered, st.prompts)
	}

	st.busy = nil // idle: nothing to choose
	if res, err := c.b.ContinueSession(ctx, zerolog.Nop(), ref, "go on", ann, frontend.DeliverAsk); err != nil || res.Busy {
		t.Fatalf("ContinueSession(ask) of an idle session = %+v, %v", res, err)
	}
	st.gen, st.busy = 1, map[string]bool{"ses_1": true} // 1.x cannot steer: no choice
	if res, err := c.b.ContinueSession(ctx, zerolog.Nop(), ref, "and more", ann, frontend.DeliverAsk); err != nil || res.Busy {
		t.Fatalf("ContinueSession(ask) on 1.x = %+v, %v", res, err)
	}
	if want := []string{"/p|ses_1|then tag it", "/p|ses_1|go on", "/p|ses_1|and more"}; !reflect.DeepEqual(st.prompts, want) {
		t.Errorf("prompts %q, want %q", st.prompts, want)
	}
}

// Stop on OpenCode 2 aborts through the client, which interrupts there.
func TestStopOnOpenCode2(t *testing.T) {
	c, st := newSteerCore(t)
	st.gen = 2
	res, err := c.b.StopSession(context.Background(), zerolog.Nop(), pending.SessionRef{Directory: "/p", ID: "ses_1"}, ann)
	if err != nil || res.Title != "Fix the login" || !reflect.DeepEqual(st.aborts, []string{"ses_1"}) {
		t.Errorf("StopSession = %+v, %v; aborts %q", res, err, st.aborts)
	}
}

// The saved rules of an OpenCode 2 server are listed and revoked; a 1.x
// server lists none and is not asked.
func TestSavedRules(t *testing.T) {
	c, st := newSteerCore(t)
	ctx := context.Background()
	st.gen = 2
	st.saved = []opencode.SavedApproval{{ID: "psv_1", ProjectID: "prj_1", Action: "bash", Resource: "git status *"},
		{ID: "psv_2", ProjectID: "prj_1", Action: "edit", Resource: "src/**"}}
	rs, err := c.b.SavedRules(ctx)
	want := []frontend.SavedRules{{Generation: 2, Rules: []frontend.Rule{
		{ID: "psv_1", Project: "prj_1", Action: "bash", Resource: "git status *"},
		{ID: "psv_2", Project: "prj_1", Action: "edit", Resource: "src/**"}}}}
	if err != nil || !reflect.DeepEqual(rs, want) {
		t.Fatalf("SavedRules = %+v, %v", rs, err)
	}
	if err := c.b.RevokeRule(ctx, zerolog.Nop(), "", "psv_1", ann); err != nil {
		t.Fatal(err)
	}
	if rs, _ := c.b.SavedRules(ctx); !reflect.DeepEqual(st.deleted, []string{"psv_1"}) || len(rs[0].Rules) != 1 || rs[0].Rules[0].ID != "psv_2" {
		t.Errorf("after the revoke: deleted %q, rules %+v", st.deleted, rs)
	}

	st.gen = 1
	if rs, err := c.b.SavedRules(ctx); err != nil || !reflect.DeepEqual(rs, []frontend.SavedRules{{Generation: 1}}) {
		t.Errorf("SavedRules on 1.x = %+v, %v", rs, err)
	}
	if err := c.b.RevokeRule(ctx, zerolog.Nop(), "elsewhere", "psv_2", ann); err == nil {
		t.Error("a rule of a server not served was revoked")
	}
}

// The kind of a permission's server reaches its front-end, which on
// OpenCode 2 says "always" saves a rule: as the request was asked, or,
// for an entry stored before entries kept it, as the server is now.
func TestPermissionCarriesItsGeneration(t *testing.T) {
	for _, gen := range []int{1, 2} {
		c := newCore(t, Config{})
		c.oc.steer = &fakeSteer{gen: gen}
		c.b.HandleEvent(context.Background(), permEvent("per_1", "git push origin main"))
		m := c.fe.Messages()[0]
		if m.Request.Generation != gen {
			t.Errorf("gen %d: the message shows generation %d", gen, m.Request.Generation)
		}
		c.press(m.Request.Key, frontend.AllowAlways, 0, 0, ann, m.ID)
		if got, _ := c.fe.Message(m.ID); got.Open || !strings.Contains(got.Outcome, fmt.Sprintf("gen=%d", gen)) {
			t.Errorf("gen %d: the message ends as %+v", gen, got)
		}
	}
}

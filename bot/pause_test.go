package bot

import (
	"context"
	"errors"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// editAsked is an edit request in dir, whose "always" covers every edit.
func editAsked(dir, id string) opencode.Event {
	return opencode.Event{
		Directory: dir, Type: opencode.TypePermissionAsked,
		PermissionAsked: &opencode.PermissionRequest{
			ID: id, SessionID: testSession, Permission: "edit",
			Patterns: []string{".git/config"}, Always: []string{"*"},
		},
	}
}

// alwaysEdit has ann press Always on an edit request id in dir.
func (c *core) alwaysEdit(dir, id string) {
	c.t.Helper()
	c.b.HandleEvent(context.Background(), editAsked(dir, id))
	m := c.shown(id)
	c.press(m.Request.Key, frontend.AllowAlways, 0, 0, ann, m.ID)
	if r := c.oc.PermReplies(); len(r) == 0 || r[len(r)-1].RequestID != id || r[len(r)-1].Reply != "always" {
		c.t.Fatalf("replies = %+v, want always for %s", r, id)
	}
}

// The first Always on an edit in a directory is told, once: a second
// there does not tell it again; another directory's, answered in opencode
// too, is told. How Telegram tells it: TestMemPauseNotice of the
// Telegram front-end.
func TestPauseNoticeOnce(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	dir := project(t)
	c.alwaysEdit(dir, "per_e1")
	if p := c.fe.Paused(); len(p) != 1 || p[0].Directory != dir || p[0].Kind != "edit" {
		t.Fatalf("pause notices %+v, want one for edits in %s", p, dir)
	}
	c.alwaysEdit(dir, "per_e2")
	if n := len(c.fe.Paused()); n != 1 {
		t.Errorf("%d pause notices after a second always in the same directory, want 1", n)
	}
	other := project(t)
	c.b.HandleEvent(context.Background(), editAsked(other, "per_o"))
	c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied, Directory: other,
		PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_o", Reply: "always"}})
	if p := c.fe.Paused(); len(p) != 2 || p[1].Directory != other {
		t.Errorf("pause notices %+v after an always in another directory, want a second for %s", p, other)
	}
}

// With auto-approval off nothing is paused, so nobody is told; the answer
// is recorded all the same, and listed.
func TestPauseNoticeOnlyWhenLow(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveOff})
	dir := project(t)
	c.alwaysEdit(dir, "per_e")
	if n := len(c.fe.Paused()); n != 0 {
		t.Errorf("%d pause notices with auto-approval off, want none", n)
	}
	if _, ok, err := c.store.AlwaysGiven("", dir); !ok || err != nil {
		t.Errorf("always not recorded: %v, %v", ok, err)
	}
	if st, err := c.b.AutoApproval(context.Background()); err != nil || st.Policy != "off" || len(st.Paused) != 1 || st.Paused[0].Directory != dir {
		t.Errorf("AutoApproval = %+v, %v; want off and the record", st, err)
	}
}

// While paused a low-risk command of the directory is asked; after a
// resume it is approved again. Resuming one directory leaves the others
// paused. Resuming by a button: TestMemResume* of the Telegram
// front-end.
func TestResumeAutoApproval(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	dir, second := repoProject(t), project(t)
	c.alwaysEdit(dir, "per_e")
	c.alwaysEdit(second, "per_s")
	ev := permEvent("per_1", "git status")
	ev.Directory = dir
	c.oc.trust(t, ev, nil)
	before := len(c.oc.PermReplies())
	c.b.HandleEvent(context.Background(), ev)
	if n := len(c.oc.PermReplies()) - before; n != 0 {
		t.Fatalf("git status approved while paused: %+v", c.oc.PermReplies())
	}
	m := c.shown("per_1")
	c.press(m.Request.Key, frontend.Reject, 0, 0, ann, m.ID)

	if had, err := c.b.ResumeAutoApproval(context.Background(), zerolog.Nop(), "", dir, ann); !had || err != nil {
		t.Fatalf("ResumeAutoApproval = %v, %v", had, err)
	}
	if list, err := c.store.AlwaysList(); err != nil || len(list) != 1 || list[0].Directory != second {
		t.Fatalf("records = %+v, %v; want only %s's", list, err, second)
	}
	ev = permEvent("per_2", "git status")
	ev.Directory = dir
	c.oc.trust(t, ev, nil)
	before = len(c.oc.PermReplies())
	c.b.HandleEvent(context.Background(), ev)
	if r := c.oc.PermReplies()[before:]; len(r) != 1 || r[0].RequestID != "per_2" || r[0].Reply != "once" {
		t.Fatalf("replies after the resume = %+v, want git status approved once", r)
	}
}

// Through the front-end seam: the pause notice names the directory and
// the kind; AutoApproval lists it until ResumeAutoApproval forgets it. A
// notice that fails to post loses no answer.
func TestPauseThroughSeam(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	c.fe.Fail("AutoApprovalPaused", errors.New("chat down"))
	dir := project(t)
	c.b.HandleEvent(context.Background(), editAsked(dir, "per_e"))
	m := c.shown("per_e")
	c.press(m.Request.Key, frontend.AllowAlways, 0, 0, ann, m.ID)
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].Reply != "always" {
		t.Fatalf("replies = %+v, want the always delivered", r)
	}
	if len(c.fe.Paused()) != 0 {
		t.Fatalf("a failing notice was recorded: %+v", c.fe.Paused())
	}
	c.fe.Fail("AutoApprovalPaused", nil)
	c.b.HandleEvent(context.Background(), editAsked(dir, "per_e2"))
	m = c.shown("per_e2")
	c.press(m.Request.Key, frontend.AllowAlways, 0, 0, ann, m.ID)
	if n := len(c.fe.Paused()); n != 0 {
		t.Errorf("%d notices for a directory already paused, want none", n)
	}

	st, err := c.b.AutoApproval(context.Background())
	if err != nil || st.Policy != "low" || len(st.Paused) != 1 || st.Paused[0].Directory != dir || st.Paused[0].Kind != "edit" {
		t.Fatalf("AutoApproval = %+v, %v; want low, paused in %s after an edit", st, err, dir)
	}
	if had, err := c.b.ResumeAutoApproval(context.Background(), zerolog.Nop(), "", dir, ann); !had || err != nil {
		t.Fatalf("ResumeAutoApproval = %v, %v; want a pause forgotten", had, err)
	}
	if had, err := c.b.ResumeAutoApproval(context.Background(), zerolog.Nop(), "", dir, ann); had || err != nil {
		t.Errorf("ResumeAutoApproval again = %v, %v; want nothing", had, err)
	}
	c.b.HandleEvent(context.Background(), editAsked(dir, "per_e3"))
	m = c.shown("per_e3")
	c.press(m.Request.Key, frontend.AllowAlways, 0, 0, ann, m.ID)
	if p := c.fe.Paused(); len(p) != 1 || p[0].Directory != dir || p[0].Kind != "edit" || p[0].Server != "" {
		t.Errorf("notices after a resume and a new always = %+v, want one for %s", p, dir)
	}
	if st, _ := newCore(t, Config{}).b.AutoApproval(context.Background()); st.Policy != "off" {
		t.Errorf("policy unset shows as %q, want off", st.Policy)
	}
}

// An always answer on OpenCode 2 saves a rule, which /rules revokes:
// nothing is paused and nobody hears of auto-approval.
func TestNoPauseOnOpencode2(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	dir := project(t)
	ev := editAsked(dir, "per_v2")
	ev.Type, ev.Surface, ev.Generation = opencode.TypePermissionV2Asked, opencode.SurfaceAPI, 2
	ev.PermissionAsked.Surface = opencode.SurfaceAPI
	c.b.HandleEvent(context.Background(), ev)
	m := c.shown("per_v2")
	c.press(m.Request.Key, frontend.AllowAlways, 0, 0, ann, m.ID)
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].Reply != "always" {
		t.Fatalf("replies = %+v, want always", r)
	}
	if n := len(c.fe.Paused()); n != 0 {
		t.Errorf("%d pause notices for an OpenCode 2 always, want none", n)
	}
	if _, ok, _ := c.store.AlwaysGiven("", dir); ok {
		t.Errorf("an OpenCode 2 always paused auto-approval in %s", dir)
	}
}

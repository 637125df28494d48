package bot

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
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

// pauseNotices are the messages sent that say auto-approval is paused.
func (h *harness) pauseNotices() []sentMessage {
	var out []sentMessage
	for _, m := range h.tg.Sent() {
		if strings.Contains(m.P.Text, "Auto-approval paused") {
			out = append(out, m)
		}
	}
	return out
}

// alwaysEdit has user press Always on an edit request id in dir.
func (h *harness) alwaysEdit(user models.User, dir, id string) {
	h.t.Helper()
	e := h.askPerm(editAsked(dir, id))
	h.press(user, permData(h.t, frontend.AllowAlways, e.UID), e)
	if r := h.oc.PermReplies(); len(r) == 0 || r[len(r)-1].RequestID != id || r[len(r)-1].Reply != "always" {
		h.t.Fatalf("replies = %+v, want always for %s", r, id)
	}
}

// autoApproveReply sends /autoapprove as user and returns the reply.
func (h *harness) autoApproveReply(user models.User) sentMessage {
	h.t.Helper()
	before := len(h.tg.Sent())
	h.text(user, "/autoapprove", 0)
	sent := h.tg.Sent()
	if len(sent) != before+1 {
		h.t.Fatalf("/autoapprove: %d messages sent, want one reply", len(sent)-before)
	}
	return sent[len(sent)-1]
}

// The first Always on an edit in a directory tells the group, once: a
// second there does not tell it again.
func TestPauseNoticeOnce(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	dir := project(t)
	h.alwaysEdit(alice, dir, "per_e1")
	notices := h.pauseNotices()
	if len(notices) != 1 {
		t.Fatalf("%d pause notices, want 1", len(notices))
	}
	n := notices[0].P
	for _, want := range []string{"<b>demo</b>", "<code>edit</code>", "Restart opencode", "/autoapprove"} {
		if !strings.Contains(n.Text, want) {
			t.Errorf("notice %q lacks %q", n.Text, want)
		}
	}
	if n.ReplyMarkup != nil || n.ChatID != testChat {
		t.Errorf("notice went to %v with markup %+v; want the chat, no buttons", n.ChatID, n.ReplyMarkup)
	}
	h.alwaysEdit(alice, dir, "per_e2")
	if n := len(h.pauseNotices()); n != 1 {
		t.Errorf("%d pause notices after a second always in the same directory, want 1", n)
	}
	// Another directory is another pause, told when answered in opencode too.
	other := project(t)
	h.askPerm(editAsked(other, "per_o"))
	h.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied, Directory: other,
		PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_o", Reply: "always"}})
	if n := len(h.pauseNotices()); n != 2 {
		t.Errorf("%d pause notices after an always in another directory, want 2", n)
	}
}

// With auto-approval off nothing is paused, so the group is not told; the
// answer is recorded all the same.
func TestPauseNoticeOnlyWhenLow(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveOff})
	dir := project(t)
	h.alwaysEdit(alice, dir, "per_e")
	if n := len(h.pauseNotices()); n != 0 {
		t.Errorf("%d pause notices with auto-approval off, want none", n)
	}
	if _, ok, err := h.store.AlwaysGiven("", dir); !ok || err != nil {
		t.Errorf("always not recorded: %v, %v", ok, err)
	}
	r := h.autoApproveReply(alice)
	if !strings.Contains(r.P.Text, "<b>off</b>") || !strings.Contains(r.P.Text, "<b>demo</b>") {
		t.Errorf("/autoapprove with the policy off = %q, want off and the record", r.P.Text)
	}
}

// After /autoapprove's Resume, a low-risk command of the directory is
// approved again; a second press says it is no longer paused.
func TestResumeAutoApproval(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	dir := repoProject(t)
	h.alwaysEdit(alice, dir, "per_e")
	before := len(h.oc.PermReplies())
	e1 := h.askPerm(h.permIn(dir, "per_1", "git status"))
	if n := len(h.oc.PermReplies()) - before; n != 0 {
		t.Fatalf("git status approved while paused: %+v", h.oc.PermReplies())
	}
	// Answered, so the next git status is a request of its own.
	h.press(alice, permData(t, frontend.Reject, e1.UID), e1)

	r := h.autoApproveReply(alice)
	for _, want := range []string{"<b>low</b>", "Paused", "1. <b>demo</b>: Always allow on <code>edit</code>", "Restart opencode"} {
		if !strings.Contains(r.P.Text, want) {
			t.Errorf("/autoapprove reply %q lacks %q", r.P.Text, want)
		}
	}
	btns := buttons(t, r.P.ReplyMarkup)
	if len(btns) != 1 || btns[0][0] != "▶️ Resume 1. demo" || strings.Contains(btns[0][1], dir) {
		t.Fatalf("buttons = %q, want one Resume without the path", btns)
	}

	cb := h.pressIn(testChat, alice, btns[0][1], r.ID)
	if got := h.tg.AnswersFor(cb); got[0] != "" {
		t.Errorf("toast = %q, want none", got[0])
	}
	edits := h.tg.EditsOf(r.ID)
	if len(edits) != 1 {
		t.Fatalf("%d edits of the reply, want 1", len(edits))
	}
	if e := edits[0]; !strings.Contains(e.Text, "resumed in <b>demo</b> by Alice (@alice)") ||
		!strings.Contains(e.Text, "Nothing is paused") || e.ReplyMarkup != nil {
		t.Errorf("edited reply = %q with markup %+v; want who resumed it, and no buttons", e.Text, e.ReplyMarkup)
	}
	if got := strings.Count(h.logs.String(), "auto-approval resumed"); got != 1 {
		t.Errorf("%d log lines of the resume, want 1:\n%s", got, h.logs.String())
	}
	if list, err := h.store.AlwaysList(); len(list) != 0 || err != nil {
		t.Errorf("records left: %+v, %v", list, err)
	}

	before = len(h.oc.PermReplies())
	h.b.HandleEvent(context.Background(), h.permIn(dir, "per_2", "git status"))
	if r := h.oc.PermReplies()[before:]; len(r) != 1 || r[0].RequestID != "per_2" || r[0].Reply != "once" {
		t.Fatalf("replies after the resume = %+v, want git status approved once", r)
	}

	// The same button again: the pause is gone.
	cb = h.pressIn(testChat, alice, btns[0][1], r.ID)
	if got := h.tg.AnswersFor(cb); got[0] != i18n.English.Pause.NotPaused {
		t.Errorf("toast of a second press = %q, want %q", got[0], i18n.English.Pause.NotPaused)
	}
	if e := h.lastEdit(); e.MessageID != r.ID || e.ReplyMarkup != nil || !strings.Contains(e.Text, "Nothing is paused") {
		t.Errorf("after a second press the reply shows %q with markup %+v", e.Text, e.ReplyMarkup)
	}
	if got := strings.Count(h.logs.String(), "auto-approval resumed"); got != 1 {
		t.Errorf("%d log lines of a resume after the second press, want 1", got)
	}
}

// Resuming one directory leaves the others paused, and their buttons.
func TestResumeOneOfTwo(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	first, second := project(t), t.TempDir()
	h.alwaysEdit(alice, first, "per_a")
	h.alwaysEdit(alice, second, "per_b")
	r := h.autoApproveReply(alice)
	btns := buttons(t, r.P.ReplyMarkup)
	if len(btns) != 2 || btns[0][1] == btns[1][1] {
		t.Fatalf("buttons = %q, want two different", btns)
	}
	h.pressIn(testChat, bob, btns[0][1], r.ID)
	list, err := h.store.AlwaysList()
	if err != nil || len(list) != 1 || list[0].Directory != second {
		t.Fatalf("records = %+v, %v; want only %s", list, err, second)
	}
	e := h.lastEdit()
	if left := buttons(t, e.ReplyMarkup); len(left) != 1 || left[0][1] != btns[1][1] {
		t.Errorf("buttons after one resume = %q, want the other's", left)
	}
	if !strings.Contains(e.Text, "resumed in <b>demo</b> by Bob") {
		t.Errorf("edited reply = %q", e.Text)
	}
}

// Someone not on the allow-list cannot resume: the usual refusal, and
// nothing changes.
func TestResumeRefusedToOutsider(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow, AllowedUserIDs: []int64{alice.ID}})
	dir := repoProject(t)
	h.alwaysEdit(alice, dir, "per_e")
	r := h.autoApproveReply(alice)
	btns := buttons(t, r.P.ReplyMarkup)
	if len(btns) != 1 {
		t.Fatalf("buttons = %q, want one", btns)
	}
	cb := h.pressIn(testChat, mallory, btns[0][1], r.ID)
	if got := h.tg.AnswersFor(cb); got[0] != en(i18n.ToastNotAllowed) {
		t.Errorf("outsider's toast = %q, want the refusal", got[0])
	}
	if n := len(h.tg.EditsOf(r.ID)); n != 0 {
		t.Errorf("the reply was edited %d times after an outsider's press", n)
	}
	if list, err := h.store.AlwaysList(); len(list) != 1 || err != nil {
		t.Fatalf("records = %+v, %v; want the pause kept", list, err)
	}
	before := len(h.oc.PermReplies())
	h.b.HandleEvent(context.Background(), h.permIn(dir, "per_1", "git status"))
	if n := len(h.oc.PermReplies()) - before; n != 0 {
		t.Errorf("git status approved after an outsider's press: %+v", h.oc.PermReplies())
	}
	// Nor from another chat, by someone allowed.
	cb = h.pressIn(-999, alice, btns[0][1], r.ID)
	if got := h.tg.AnswersFor(cb); got[0] != en(i18n.ToastNotAllowed) {
		t.Errorf("toast of a press from another chat = %q, want the refusal", got[0])
	}
	if list, _ := h.store.AlwaysList(); len(list) != 1 {
		t.Errorf("a press from another chat resumed: %+v", list)
	}
	// An outsider's /autoapprove gets no reply.
	sent := len(h.tg.Sent())
	h.text(mallory, "/autoapprove", 0)
	if n := len(h.tg.Sent()) - sent; n != 0 {
		t.Errorf("an outsider's /autoapprove got %d messages", n)
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
// nothing is paused and the group hears nothing of auto-approval.
func TestNoPauseOnOpencode2(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	dir := project(t)
	ev := editAsked(dir, "per_v2")
	ev.Type, ev.Surface, ev.Generation = opencode.TypePermissionV2Asked, opencode.SurfaceAPI, 2
	ev.PermissionAsked.Surface = opencode.SurfaceAPI
	e := h.askPerm(ev)
	h.press(alice, permData(h.t, frontend.AllowAlways, e.UID), e)
	if r := h.oc.PermReplies(); len(r) != 1 || r[0].Reply != "always" {
		t.Fatalf("replies = %+v, want always", r)
	}
	if n := len(h.pauseNotices()); n != 0 {
		t.Errorf("%d pause notices for an OpenCode 2 always, want none", n)
	}
	if _, ok, _ := h.store.AlwaysGiven("", dir); ok {
		t.Errorf("an OpenCode 2 always paused auto-approval in %s", dir)
	}
}

package telegram_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// command sends text from ann and returns the reply.
func (r *rig) command(ctx context.Context, t *testing.T, text string) telegramtest.Message {
	t.Helper()
	id, err := r.srv.SendText(chatID, ann, text)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no reply to %s: %v", text, err)
	}
	return reply
}

// /rules lists the rules an OpenCode 2 server saved, each with a Revoke
// button; an outsider's press and a stale or forged one revoke nothing,
// Ann's revokes the rule and shows the list as it is now.
func TestTelegramRulesRevoke(t *testing.T) {
	r, st, ctx := startSteerRig(t, ann.ID)
	st.mu.Lock()
	st.gen = 2
	st.saved = []opencode.SavedApproval{{ID: "psv_1", ProjectID: "prj_1", Action: "bash", Resource: "git status *"},
		{ID: "psv_2", ProjectID: "prj_1", Action: "edit", Resource: "src/<x>/**"}}
	st.mu.Unlock()
	list := r.command(ctx, t, "/rules")
	for _, want := range []string{"📜 Rules saved by Always allow", "opencode:", "1. bash git status * · project prj_1",
		"2. edit src/<x>/** · project prj_1"} {
		if !strings.Contains(list.PlainText, want) {
			t.Errorf("/rules lacks %q:\n%s", want, list.PlainText)
		}
	}
	b := buttonTexts(list)
	if !reflect.DeepEqual(b, []string{"🗑 Revoke 1. bash git status *", "🗑 Revoke 2. edit src/<x>/**"}) {
		t.Fatalf("buttons %q", b)
	}
	first := list.Keyboard[0][0].CallbackData

	cb, err := r.srv.PressButtonText(chatID, list.ID, eve, b[0])
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Errorf("Eve's press told %q, %v", a.Text, err)
	}
	forged := strings.Replace(list.Keyboard[1][0].CallbackData, "psv_2", "psv_9", 1)
	cb, _ = r.srv.PressData(chatID, list.ID, ann, forged)
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || a.Text != "That rule is no longer saved" {
		t.Errorf("a forged press told %q, %v", a.Text, err)
	}
	if st.deletedIDs() != nil {
		t.Fatalf("revoked %q before Ann's press", st.deletedIDs())
	}

	if _, err := r.srv.PressButtonText(chatID, list.ID, ann, b[0]); err != nil {
		t.Fatal(err)
	}
	edited, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
		return m.ID == list.ID && strings.Contains(m.PlainText, "revoked by Ann")
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(edited.PlainText, "🗑 The rule bash git status * was revoked by Ann") ||
		strings.Contains(edited.PlainText, "1. bash") || !strings.Contains(edited.PlainText, "1. edit src/<x>/**") {
		t.Errorf("after the revoke:\n%s", edited.PlainText)
	}
	if b := buttonTexts(edited); !reflect.DeepEqual(b, []string{"🗑 Revoke 1. edit src/<x>/**"}) {
		t.Errorf("buttons after the revoke %q", b)
	}
	if got := st.deletedIDs(); !reflect.DeepEqual(got, []string{"psv_1"}) {
		t.Errorf("deleted %q", got)
	}
	// The old button, pressed again, finds nothing to revoke.
	cb, _ = r.srv.PressData(chatID, list.ID, ann, first)
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || a.Text != "That rule is no longer saved" {
		t.Errorf("a stale press told %q, %v", a.Text, err)
	}
	if got := st.deletedIDs(); len(got) != 1 {
		t.Errorf("deleted %q", got)
	}
}

// On opencode 1.x /rules says where always answers are kept, with no
// button.
func TestTelegramRules1x(t *testing.T) {
	r, _, ctx := startSteerRig(t, ann.ID)
	reply := r.command(ctx, t, "/rules")
	if !strings.Contains(reply.PlainText, "opencode: opencode 1.x keeps always answers in memory; restart opencode to forget them.") || len(reply.Keyboard) != 0 {
		t.Errorf("/rules on 1.x:\n%s\nbuttons %q", reply.PlainText, buttonTexts(reply))
	}
}

// On OpenCode 2 a reply to a session running a turn asks, with two
// buttons, whether to queue or steer; only an allowed person's press
// delivers it, once.
func TestTelegramReplyToBusySessionAsks(t *testing.T) {
	r, st, ctx := startSteerRig(t, ann.ID)
	st.mu.Lock()
	st.gen = 2 // and ses_parent is busy
	st.mu.Unlock()
	notice := r.idle(ctx, t)
	id, err := r.srv.Reply(chatID, notice.ID, ann, "use go 1.25")
	if err != nil {
		t.Fatal(err)
	}
	ask, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatal(err)
	}
	if ask.PlainText != "⏳ Plan & ship is working. Send your message after its turn, or steer the turn with it now?" ||
		!reflect.DeepEqual(buttonTexts(ask), []string{"📥 After this turn", "⚡ Steer now"}) {
		t.Fatalf("asked %q with %q", ask.PlainText, buttonTexts(ask))
	}
	if p, _ := st.calls(); len(p) != 0 || st.steeredCalls() != nil {
		t.Fatalf("sent before the choice: %q, %q", p, st.steeredCalls())
	}
	queue := ask.Keyboard[0][0].CallbackData

	cb, err := r.srv.PressButtonText(chatID, ask.ID, eve, "⚡ Steer now")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Errorf("Eve's press told %q, %v", a.Text, err)
	}
	if _, err := r.srv.PressButtonText(chatID, ask.ID, ann, "⚡ Steer now"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
		return m.ID == ask.ID && m.PlainText == "⚡ steered into the turn of Plan & ship" && len(m.Keyboard) == 0
	}); err != nil {
		t.Fatal(err)
	}
	cb, _ = r.srv.PressData(chatID, ask.ID, ann, queue)
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.HasPrefix(a.Text, "This message was sent already") {
		t.Errorf("a second press told %q, %v", a.Text, err)
	}
	if got := st.steeredCalls(); !reflect.DeepEqual(got, []string{"ses_parent: use go 1.25"}) {
		t.Errorf("steered %q", got)
	}
	if p, _ := st.calls(); len(p) != 0 {
		t.Errorf("also queued: %q", p)
	}
}

// TestTelegramAlwaysOnOpenCode2: on OpenCode 2 the message says Always
// allows its patterns in the project, as a rule, and the button stays green.
func TestTelegramAlwaysOnOpenCode2(t *testing.T) {
	r, st, ctx := startSteerRig(t, ann.ID)
	st.mu.Lock()
	st.gen = 2
	st.mu.Unlock()
	r.bridge.HandleEvent(ctx, permissionAsked("per_1", "echo hello"))
	m := r.srv.Messages(chatID)[0]
	for _, want := range []string{"Always allow allows echo * in this project from now on", "/rules revokes it"} {
		if !strings.Contains(m.PlainText, want) {
			t.Errorf("message lacks %q:\n%s", want, m.PlainText)
		}
	}
	if strings.Contains(m.PlainText, "until opencode restarts") {
		t.Errorf("says it lasts until a restart on OpenCode 2:\n%s", m.PlainText)
	}
	if b := m.Keyboard[0][1]; b.Text != i18n.English.Rules.BtnAlways || b.Style != "success" {
		t.Errorf("Always button = %+v", b)
	}
}

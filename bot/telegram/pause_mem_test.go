package telegram_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// demoDir makes a project folder named demo.
func demoDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pauseRig is a memRig whose bridge auto-approves low-risk commands.
func pauseRig(t *testing.T, cfg telegram.Config, policy bot.AutoApprovePolicy) *memRig {
	t.Helper()
	return newMemRigWith(t, cfg, bot.Config{AutoApprove: policy})
}

// paused records an always answer on edits in each of dirs, pausing
// auto-approval there.
func (r *memRig) paused(dirs ...string) {
	r.t.Helper()
	for _, dir := range dirs {
		if _, err := r.store.RememberAlways("", dir, "edit"); err != nil {
			r.t.Fatal(err)
		}
	}
}

// autoApprove sends /autoapprove as alice and returns the reply and its
// message ID.
func (r *memRig) autoApprove() (*tgbot.SendMessageParams, int) {
	r.t.Helper()
	before := len(r.tg.Sent())
	r.message(alice, &models.Message{Text: "/autoapprove"})
	sent := r.tg.Sent()
	if len(sent) != before+1 {
		r.t.Fatalf("/autoapprove: %d messages sent, want one reply", len(sent)-before)
	}
	return sent[len(sent)-1], 100 + len(sent)
}

// buttonsOf lists a keyboard's (text, data) pairs.
func buttonsOf(t *testing.T, markup any) [][2]string {
	t.Helper()
	kb, ok := markup.(*models.InlineKeyboardMarkup)
	if !ok {
		t.Fatalf("reply markup is %T, want an inline keyboard", markup)
	}
	var out [][2]string
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			out = append(out, [2]string{b.Text, b.CallbackData})
		}
	}
	return out
}

// The notice of a pause, after Always on an edit, names the project and
// the kind and says how to resume, in the chat, without buttons.
func TestMemPauseNotice(t *testing.T) {
	r := pauseRig(t, telegram.Config{}, bot.AutoApproveLow)
	ev := opencode.Event{Directory: demoDir(t), Type: opencode.TypePermissionAsked,
		PermissionAsked: &opencode.PermissionRequest{ID: "per_e", SessionID: "ses_1", Permission: "edit",
			Patterns: []string{".git/config"}, Always: []string{"*"}}}
	e := r.ask(ev, "per_e")
	r.press(alice, frontend.AllowAlways, e, 0, 0)
	var notices []*tgbot.SendMessageParams
	for _, m := range r.tg.Sent() {
		if strings.Contains(m.Text, "Auto-approval paused") {
			notices = append(notices, m)
		}
	}
	if len(notices) != 1 {
		t.Fatalf("%d pause notices, want 1", len(notices))
	}
	n := notices[0]
	for _, want := range []string{"<b>demo</b>", "<code>edit</code>", "Restart opencode", "/autoapprove"} {
		if !strings.Contains(n.Text, want) {
			t.Errorf("notice %q lacks %q", n.Text, want)
		}
	}
	if n.ReplyMarkup != nil || n.ChatID != memChat {
		t.Errorf("notice went to %v with markup %+v; want the chat, no buttons", n.ChatID, n.ReplyMarkup)
	}
}

// /autoapprove with the policy off says so, and lists the record.
func TestMemAutoApproveOff(t *testing.T) {
	r := pauseRig(t, telegram.Config{}, bot.AutoApproveOff)
	r.paused(demoDir(t))
	if p, _ := r.autoApprove(); !strings.Contains(p.Text, "<b>off</b>") || !strings.Contains(p.Text, "<b>demo</b>") {
		t.Errorf("/autoapprove with the policy off = %q, want off and the record", p.Text)
	}
}

// /autoapprove lists a pause with a Resume button; pressing it resumes,
// says who did, and a second press says nothing is paused there.
func TestMemResume(t *testing.T) {
	r := pauseRig(t, telegram.Config{}, bot.AutoApproveLow)
	dir := demoDir(t)
	r.paused(dir)
	p, id := r.autoApprove()
	for _, want := range []string{"<b>low</b>", "Paused", "1. <b>demo</b>: Always allow on <code>edit</code>", "Restart opencode"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("/autoapprove reply %q lacks %q", p.Text, want)
		}
	}
	btns := buttonsOf(t, p.ReplyMarkup)
	if len(btns) != 1 || btns[0][0] != "▶️ Resume 1. demo" || strings.Contains(btns[0][1], dir) {
		t.Fatalf("buttons = %q, want one Resume without the path", btns)
	}
	cb := r.pressData(memChat, alice, btns[0][1], id)
	if got := r.tg.AnswersFor(cb); got[0] != "" {
		t.Errorf("toast = %q, want none", got[0])
	}
	edits := r.tg.EditsOf(id)
	if len(edits) != 1 {
		t.Fatalf("%d edits of the reply, want 1", len(edits))
	}
	if e := edits[0]; !strings.Contains(e.Text, "resumed in <b>demo</b> by Alice (@alice)") ||
		!strings.Contains(e.Text, "Nothing is paused") || e.ReplyMarkup != nil {
		t.Errorf("edited reply = %q with markup %+v; want who resumed it, and no buttons", e.Text, e.ReplyMarkup)
	}
	if got := strings.Count(r.logs.String(), "auto-approval resumed"); got != 1 {
		t.Errorf("%d log lines of the resume, want 1:\n%s", got, r.logs.String())
	}
	if list, err := r.store.AlwaysList(); len(list) != 0 || err != nil {
		t.Errorf("records left: %+v, %v", list, err)
	}
	cb = r.pressData(memChat, alice, btns[0][1], id)
	if got := r.tg.AnswersFor(cb); got[0] != i18n.English.Pause.NotPaused {
		t.Errorf("toast of a second press = %q, want %q", got[0], i18n.English.Pause.NotPaused)
	}
	edits = r.tg.EditsOf(id)
	if e := edits[len(edits)-1]; e.ReplyMarkup != nil || !strings.Contains(e.Text, "Nothing is paused") {
		t.Errorf("after a second press the reply shows %q with markup %+v", e.Text, e.ReplyMarkup)
	}
	if got := strings.Count(r.logs.String(), "auto-approval resumed"); got != 1 {
		t.Errorf("%d log lines of a resume after the second press, want 1", got)
	}
}

// Resuming one of two leaves the other's button.
func TestMemResumeOneOfTwo(t *testing.T) {
	r := pauseRig(t, telegram.Config{}, bot.AutoApproveLow)
	first, second := demoDir(t), t.TempDir()
	r.paused(first, second)
	p, id := r.autoApprove()
	btns := buttonsOf(t, p.ReplyMarkup)
	if len(btns) != 2 || btns[0][1] == btns[1][1] {
		t.Fatalf("buttons = %q, want two different", btns)
	}
	r.pressData(memChat, bobby, btns[0][1], id)
	if list, err := r.store.AlwaysList(); err != nil || len(list) != 1 {
		t.Fatalf("records = %+v, %v; want one left", list, err)
	}
	edits := r.tg.EditsOf(id)
	if len(edits) != 1 {
		t.Fatalf("%d edits of the reply, want 1", len(edits))
	}
	if left := buttonsOf(t, edits[0].ReplyMarkup); len(left) != 1 || left[0][1] != btns[1][1] {
		t.Errorf("buttons after one resume = %q, want the other's", left)
	}
	if !strings.Contains(edits[0].Text, "resumed in <b>demo</b> by Bob") {
		t.Errorf("edited reply = %q", edits[0].Text)
	}
}

// Someone not on the allow-list cannot resume, nor anyone from another
// chat: the usual refusal, and nothing changes; an outsider's
// /autoapprove gets no reply.
func TestMemResumeRefusedToOutsider(t *testing.T) {
	r := pauseRig(t, telegram.Config{AllowedUserIDs: []int64{alice.ID}}, bot.AutoApproveLow)
	r.paused(demoDir(t))
	p, id := r.autoApprove()
	btns := buttonsOf(t, p.ReplyMarkup)
	if len(btns) != 1 {
		t.Fatalf("buttons = %q, want one", btns)
	}
	for _, press := range []struct {
		chat int64
		user models.User
	}{{memChat, mallory}, {-999, alice}} {
		cb := r.pressData(press.chat, press.user, btns[0][1], id)
		if got := r.tg.AnswersFor(cb); got[0] != i18n.English.Toast(i18n.ToastNotAllowed) {
			t.Errorf("toast of %s's press in %d = %q, want the refusal", press.user.FirstName, press.chat, got[0])
		}
	}
	if n := len(r.tg.EditsOf(id)); n != 0 {
		t.Errorf("the reply was edited %d times after refused presses", n)
	}
	if list, err := r.store.AlwaysList(); len(list) != 1 || err != nil {
		t.Fatalf("records = %+v, %v; want the pause kept", list, err)
	}
	sent := len(r.tg.Sent())
	r.message(mallory, &models.Message{Text: "/autoapprove"})
	if n := len(r.tg.Sent()) - sent; n != 0 {
		t.Errorf("an outsider's /autoapprove got %d messages", n)
	}
}

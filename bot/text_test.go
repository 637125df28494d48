package bot

import (
	"strings"
	"testing"
	"unicode"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
)

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// The agent reads the expiry reject; it is the same in every language.
func TestExpiredReasonStaysEnglish(t *testing.T) {
	if hasHan(expiredReason) || expiredReason == "" {
		t.Errorf("the reject message for the agent must stay English: %q", expiredReason)
	}
}

// With Lang zh, what a press is told is Chinese, and so is how a request
// that closed is told to a late press.
func TestChineseQuestion(t *testing.T) {
	c := newCore(t, Config{Lang: "zh"})
	multi := opencode.Question{
		Question: "哪些功能？", Header: "Features", Multiple: true,
		Options: []opencode.Option{{Label: "Auth"}, {Label: "Search"}},
	}
	e := c.asked("que_zh", multi, dbQuestion())
	zh := func(t i18n.Toast) string { return i18n.Chinese.Toast(t) }
	if ack := c.tap(ann, frontend.Submit, e.UID, e, 0, 0); ack != zh(i18n.ToastSelectFirst) {
		t.Errorf("empty submit told %q, want %q", ack, zh(i18n.ToastSelectFirst))
	}
	c.tap(ann, frontend.Toggle, e.UID, e, 0, 0)
	if ack := c.tap(ann, frontend.Submit, e.UID, e, 0, 0); !strings.HasPrefix(ack, "已保存。下一个：") {
		t.Errorf("submit told %q, want the Chinese saved-next toast", ack)
	}
	if ack := c.tap(ann, frontend.Pick, e.UID, e, 1, 0); ack != zh(i18n.ToastSending) {
		t.Errorf("pick told %q, want %q", ack, zh(i18n.ToastSending))
	}
	c.closedAs(e, frontend.Answered)
	// A late press hears how the request ended, in Chinese, though the
	// outcome is remembered by its toast ID.
	if ack := c.tap(ann, frontend.Pick, e.UID, e, 1, 0); ack != zh(i18n.ToastAnswered) {
		t.Errorf("late press told %q, want %q", ack, zh(i18n.ToastAnswered))
	}
}

func TestChinesePermission(t *testing.T) {
	c := newCore(t, Config{Lang: "zh"})
	e := c.askPerm(permEvent("per_zh", "rm -rf build && "+strings.Repeat("echo 很长的命令 ", 400)))
	if ack := c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0); ack != i18n.Chinese.Toast(i18n.ToastSending) {
		t.Errorf("press told %q, want %q", ack, i18n.Chinese.Toast(i18n.ToastSending))
	}
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].Reply != "once" {
		t.Fatalf("replies = %+v, want once", r)
	}
	c.closedAs(e, frontend.Decided)
}

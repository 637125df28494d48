package bot

import (
	"reflect"
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

// The HTML texts of the catalogs are what Telegram accepts.
func TestCatalogHTML(t *testing.T) {
	for _, h := range []string{i18n.English.Help, i18n.Chinese.Help, i18n.English.Expired("5m"), i18n.Chinese.Expired("5m")} {
		if err := checkMessageText(h); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
	// The agent reads the expiry reject; it is the same in every language.
	if hasHan(expiredReason) {
		t.Error("the reject message for the agent must stay English")
	}
}

func TestChineseQuestion(t *testing.T) {
	h := newHarness(t, harnessConfig{Lang: "zh", AllowedUserIDs: []int64{alice.ID}})
	multi := opencode.Question{
		Question: "哪些功能？", Header: "Features", Multiple: true,
		Options: []opencode.Option{{Label: "Auth"}, {Label: "Search"}},
	}
	e := h.ask("que_zh", multi, dbQuestion())
	sent := h.lastSent()
	if err := checkMessageText(sent.P.Text); err != nil {
		t.Fatalf("invalid message: %v", err)
	}
	if !strings.Contains(sent.P.Text, "问题 1/2") || !strings.Contains(sent.P.Text, i18n.Chinese.ChooseThenSubmit) {
		t.Errorf("question text is not Chinese:\n%s", sent.P.Text)
	}
	var texts []string
	for _, b := range buttons(t, sent.P.ReplyMarkup) {
		texts = append(texts, b[0])
	}
	joined := strings.Join(texts, "|")
	if !strings.Contains(joined, "✅ 提交") || !strings.Contains(joined, "✏️ 输入答案") || strings.Contains(joined, "Submit") {
		t.Errorf("buttons = %q", texts)
	}

	if got := h.toast(h.press(mallory, data(t, frontend.Toggle, e.UID, 0, 0), e)); got != i18n.ToastNotAllowed {
		t.Errorf("toast = %q, want %q", got, i18n.Chinese.ToastNotAllowed)
	}
	if got := h.toast(h.press(alice, data(t, frontend.Submit, e.UID, 0, 0), e)); got != i18n.ToastSelectFirst {
		t.Errorf("toast = %q, want %q", got, i18n.Chinese.ToastSelectFirst)
	}
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 0), e)
	if got := h.toast(h.press(alice, data(t, frontend.Submit, e.UID, 0, 0), e)); !strings.HasPrefix(string(got), "已保存。下一个：") {
		t.Errorf("toast = %q, want the Chinese saved-next toast", got)
	}
	if got := h.toast(h.press(alice, data(t, frontend.Pick, e.UID, 1, 0), e)); got != i18n.ToastSending {
		t.Errorf("toast = %q, want %q", got, i18n.Chinese.ToastSending)
	}
	out := h.lastEdit().Text
	if err := checkMessageText(out); err != nil || !strings.Contains(out, "回答者：") {
		t.Errorf("outcome (%v):\n%s", err, out)
	}
	// A late press hears how the request ended, in Chinese, though the
	// outcome is remembered by its toast ID.
	if got := h.toast(h.press(alice, data(t, frontend.Pick, e.UID, 1, 0), e)); got != i18n.ToastAnswered {
		t.Errorf("late toast = %q, want %q", got, i18n.Chinese.ToastAnswered)
	}
}

func TestChinesePermission(t *testing.T) {
	h := newHarness(t, harnessConfig{Lang: "zh"})
	e := h.askPerm(permEvent("per_zh", "rm -rf build && "+strings.Repeat("echo 很长的命令 ", 400)))
	sent := h.lastSent()
	if err := checkMessageText(sent.P.Text); err != nil {
		t.Fatalf("invalid message: %v", err)
	}
	for _, want := range []string{"权限：", "风险", "始终允许"} {
		if !strings.Contains(sent.P.Text, want) {
			t.Errorf("permission text lacks %q:\n%s", want, sent.P.Text)
		}
	}
	var texts []string
	for _, b := range buttons(t, sent.P.ReplyMarkup) {
		texts = append(texts, b[0])
	}
	want := []string{"✅ 允许一次", "♾️ 始终允许", "❌ 拒绝", "💬 拒绝并说明原因"}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("buttons = %q, want %q", texts, want)
	}
	if got := h.toast(h.press(alice, permData(t, frontend.AllowOnce, e.UID), e)); got != i18n.ToastSending {
		t.Errorf("toast = %q, want %q", got, i18n.Chinese.ToastSending)
	}
	out := h.lastEdit().Text
	if err := checkMessageText(out); err != nil || !strings.Contains(out, "已允许一次") {
		t.Errorf("outcome (%v):\n%s", err, out)
	}
}

package bot

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/hermes-bot/hermes-bot/bot/risk"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// sampleArg is a value of type t to call a catalog function with.
func sampleArg(t reflect.Type) reflect.Value {
	switch t {
	case reflect.TypeOf(risk.Level(0)):
		return reflect.ValueOf(risk.High)
	case reflect.TypeOf(risk.Reason{}):
		return reflect.ValueOf(risk.Assess("", "bash", nil, []byte(`{"command":"rm -rf x"}`)).Details[0])
	}
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf("x").Convert(t)
	case reflect.Int, reflect.Int64:
		return reflect.ValueOf(2).Convert(t)
	}
	panic("no sample for " + t.String())
}

// catalogTexts is every text of catalog c, by field name: strings as they
// are, functions called with sample arguments.
func catalogTexts(t *testing.T, c *Text) map[string]string {
	t.Helper()
	out := map[string]string{}
	v := reflect.ValueOf(c).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			out[name] = f.String()
		case reflect.Func:
			if f.IsNil() {
				t.Errorf("%s is nil", name)
				continue
			}
			var args []reflect.Value
			for j := range f.Type().NumIn() {
				args = append(args, sampleArg(f.Type().In(j)))
			}
			out[name] = f.Call(args)[0].String()
		default:
			t.Fatalf("field %s has kind %s: extend catalogTexts", name, f.Kind())
		}
	}
	return out
}

func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

func TestCatalogsComplete(t *testing.T) {
	en, zh := catalogTexts(t, &English), catalogTexts(t, &Chinese)
	// Texts with nothing to translate at the sample arguments.
	noHan := map[string]bool{"ConnectedFor": true}
	for name, e := range en {
		c := zh[name]
		if strings.TrimSpace(e) == "" || strings.TrimSpace(c) == "" {
			t.Errorf("%s: empty text (en %q, zh %q)", name, e, c)
			continue
		}
		if e == c {
			t.Errorf("%s: Chinese is the English text %q", name, e)
		}
		if !noHan[name] && !hasHan(c) {
			t.Errorf("%s: Chinese text %q has no Chinese in it", name, c)
		}
		if hasHan(e) {
			t.Errorf("%s: English text %q has Chinese in it", name, e)
		}
	}
	for _, h := range []string{English.Help, Chinese.Help, English.Expired("5m"), Chinese.Expired("5m")} {
		if err := checkMessageText(h); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
}

func TestTextFor(t *testing.T) {
	if TextFor("zh") != &Chinese || TextFor("en") != &English || TextFor("") != &English {
		t.Fatal("TextFor picks the wrong catalog")
	}
	// The English toasts are their own IDs; every ID has a Chinese text.
	for _, id := range []string{toastUnknown, toastNotAllowed, toastGone, toastStale, toastBusy,
		toastSending, toastFailed, toastTypeAnswer, toastSelectFirst, toastPromptFailed,
		toastAnswered, toastAnsweredElsewhere, toastDismissed, toastExpired} {
		if English.toast(id) != id {
			t.Errorf("English toast %q = %q", id, English.toast(id))
		}
		if zh := Chinese.toast(id); zh == id || !hasHan(zh) {
			t.Errorf("Chinese toast %q = %q", id, zh)
		}
	}
	if got := Chinese.toast("Saved. Next: x"); got != "Saved. Next: x" {
		t.Errorf("a text that is no toast ID changed: %q", got)
	}
	// The agent reads the expiry reject; it is the same in every language.
	if hasHan(expiredReason) {
		t.Error("the reject message for the agent must stay English")
	}
}

func TestChineseQuestion(t *testing.T) {
	h := newHarness(t, Config{Lang: "zh", AllowedUserIDs: []int64{alice.ID}})
	multi := opencode.Question{
		Question: "哪些功能？", Header: "Features", Multiple: true,
		Options: []opencode.Option{{Label: "Auth"}, {Label: "Search"}},
	}
	e := h.ask("que_zh", multi, dbQuestion())
	sent := h.lastSent()
	if err := checkMessageText(sent.P.Text); err != nil {
		t.Fatalf("invalid message: %v", err)
	}
	if !strings.Contains(sent.P.Text, "问题 1/2") || !strings.Contains(sent.P.Text, Chinese.ChooseThenSubmit) {
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

	if got := h.toast(h.press(mallory, data(t, actToggle, e.UID, 0, 0), e)); got != Chinese.ToastNotAllowed {
		t.Errorf("toast = %q, want %q", got, Chinese.ToastNotAllowed)
	}
	if got := h.toast(h.press(alice, data(t, actSubmit, e.UID, 0, 0), e)); got != Chinese.ToastSelectFirst {
		t.Errorf("toast = %q, want %q", got, Chinese.ToastSelectFirst)
	}
	h.press(alice, data(t, actToggle, e.UID, 0, 0), e)
	if got := h.toast(h.press(alice, data(t, actSubmit, e.UID, 0, 0), e)); !strings.HasPrefix(got, "已保存。下一个：") {
		t.Errorf("toast = %q, want the Chinese saved-next toast", got)
	}
	if got := h.toast(h.press(alice, data(t, actOption, e.UID, 1, 0), e)); got != Chinese.ToastSending {
		t.Errorf("toast = %q, want %q", got, Chinese.ToastSending)
	}
	out := h.lastEdit().Text
	if err := checkMessageText(out); err != nil || !strings.Contains(out, "回答者：") {
		t.Errorf("outcome (%v):\n%s", err, out)
	}
	// A late press hears how the request ended, in Chinese, though the
	// outcome is remembered by its toast ID.
	if got := h.toast(h.press(alice, data(t, actOption, e.UID, 1, 0), e)); got != Chinese.ToastAnswered {
		t.Errorf("late toast = %q, want %q", got, Chinese.ToastAnswered)
	}
}

func TestChinesePermission(t *testing.T) {
	h := newHarness(t, Config{Lang: "zh"})
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
	if got := h.toast(h.press(alice, permData(t, actAllowOnce, e.UID), e)); got != Chinese.ToastSending {
		t.Errorf("toast = %q, want %q", got, Chinese.ToastSending)
	}
	out := h.lastEdit().Text
	if err := checkMessageText(out); err != nil || !strings.Contains(out, "已允许一次") {
		t.Errorf("outcome (%v):\n%s", err, out)
	}
}

// TestChinesePermissionReasons renders a permission in Chinese: its risk
// reasons are Chinese, with the command names kept.
func TestChinesePermissionReasons(t *testing.T) {
	cmd := "echo hi; rm -rf build"
	e := &pending.Entry{
		UID: "abcDEF12", Kind: pending.KindPermission, Directory: "/home/u/p", SessionID: "ses_1",
		Permission: &pending.Permission{Kind: "bash", Patterns: []string{cmd}},
	}
	assessed := risk.Assess(e.Directory, "bash", []string{cmd}, nil)
	if len(assessed.Reasons) < 2 {
		t.Fatalf("reasons %q: want the chaining and rm -rf", assessed.Reasons)
	}
	zh, _, err := renderPermission(&Chinese, e.UID, []*pending.Entry{e})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range assessed.Reasons {
		if strings.Contains(zh, r) {
			t.Errorf("Chinese message has the English reason %q:\n%s", r, zh)
		}
	}
	for _, want := range []string{"递归且不经确认地删除文件（rm -rf）", "串联了多条命令"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese message lacks %q:\n%s", want, zh)
		}
	}
	en, _, err := renderPermission(&English, e.UID, []*pending.Entry{e})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range assessed.Reasons {
		if !strings.Contains(en, r) {
			t.Errorf("English message lacks the reason %q:\n%s", r, en)
		}
	}
}

package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
)

func entryWith(qs ...frontend.Question) *frontend.View {
	return &frontend.View{
		UID:       "aB3dE6gH",
		Kind:      frontend.KindQuestion,
		Directory: "/home/user/projects/demo",
		SessionID: "ses_dd4235358ffeK4sOj0rQeppn49",
		RequestID: "que_1",
		Questions: qs,
	}
}

// mustRender renders every view of e and checks each the way Telegram
// would; it returns the question view.
func mustRender(t *testing.T, e *frontend.View) (string, *models.InlineKeyboardMarkup) {
	t.Helper()
	text, kb, err := renderQuestion(&i18n.English, e)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMessageText(text); err != nil {
		t.Fatalf("question view: %v\n%s", err, text)
	}
	if err := checkKeyboard(kb); err != nil {
		t.Fatalf("keyboard: %v", err)
	}
	answers := make([][]string, len(e.Questions))
	for i, q := range e.Questions {
		answers[i] = []string{q.Text}
		if len(q.Options) > 0 {
			answers[i] = append(answers[i], q.Options[0].Label)
		}
	}
	for _, out := range []string{
		renderOutcome(&i18n.English, e, "✅", answers, "Answered by "+who(userOf(&alice))),
		renderOutcome(&i18n.English, e, "🚫", nil, "Dismissed in opencode"),
	} {
		if err := checkMessageText(out); err != nil {
			t.Fatalf("outcome view: %v\n%s", err, out)
		}
	}
	if len(e.Questions) > 0 {
		p, ph := renderPrompt(&i18n.English, e, 0, userOf(&alice))
		if err := checkMessageText(p); err != nil {
			t.Fatalf("prompt: %v\n%s", err, p)
		}
		if n := u16len(ph); n == 0 || n > maxPlaceholder {
			t.Fatalf("placeholder %q is %d units", ph, n)
		}
	}
	return text, kb
}

// visible is the text as Telegram shows it, for tags we make.
func visible(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return html.UnescapeString(b.String())
}

func TestRenderEscapesAgentText(t *testing.T) {
	nasty := `<b>&"'</b> <a href="x">`
	e := entryWith(frontend.Question{Text: nasty, Header: nasty, Custom: true,
		Options: []frontend.Option{{Label: nasty, Description: nasty}}})
	e.Directory = "/srv/" + nasty
	text, kb := mustRender(t, e)
	if strings.Contains(text, nasty) || strings.Contains(text, `<a href="x">`) {
		t.Fatalf("agent text not escaped:\n%s", text)
	}
	if got := strings.Count(visible(text), nasty); got < 3 {
		t.Errorf("agent text appears %d times once unescaped, want ≥ 3:\n%s", got, visible(text))
	}
	if kb.InlineKeyboard[0][0].Text != nasty {
		t.Errorf("button text = %q: buttons are plain text and must not be escaped", kb.InlineKeyboard[0][0].Text)
	}
	u := &models.User{ID: 5, FirstName: "<i>Eve</i> & co", Username: "eve"}
	for _, s := range []string{who(userOf(u)), mention(userOf(u))} {
		if err := checkMessageText(s); err != nil || !strings.Contains(visible(s), "<i>Eve</i> & co") {
			t.Errorf("person rendered as %q (%v)", s, err)
		}
	}
}

func TestRenderEmojiAndRTL(t *testing.T) {
	text := "שלום עולם؟ مرحبا 👋🏽 👨‍👩‍👧 🇺🇦"
	e := entryWith(frontend.Question{Text: text, Header: "כותרת", Custom: true,
		Options: []frontend.Option{{Label: "🐘 Postgres", Description: "עברית"}, {Label: "مرحبا"}}})
	out, kb := mustRender(t, e)
	for _, want := range []string{text, "כותרת", "🐘 Postgres", "עברית", "مرحبا"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered text lacks %q:\n%s", want, out)
		}
	}
	if kb.InlineKeyboard[0][0].Text != "🐘 Postgres" {
		t.Errorf("button = %q", kb.InlineKeyboard[0][0].Text)
	}
}

func TestRenderLongTextIsCut(t *testing.T) {
	for name, unit := range map[string]string{
		"ascii":     "All work and no play. ",
		"entities":  `<&>"'`,
		"emoji":     "🐘",
		"rtl":       "שלום ",
		"combining": "e\u0301",
	} {
		t.Run(name, func(t *testing.T) {
			long := strings.Repeat(unit, 10240/len(unit)+1)
			e := entryWith(frontend.Question{Text: long, Header: long, Custom: true,
				Options: []frontend.Option{{Label: long, Description: long}, {Label: "short"}}})
			text, kb := mustRender(t, e)
			if !strings.Contains(text, ellipsis) {
				t.Error("cut text has no ellipsis")
			}
			if !strings.Contains(text, "short") {
				t.Errorf("the second option was pushed out:\n%s", text)
			}
			if n := u16len(kb.InlineKeyboard[0][0].Text); n > maxButtonText {
				t.Errorf("button text of %d units", n)
			}
		})
	}
}

func TestCutNeverSplitsEntitiesOrSurrogates(t *testing.T) {
	s := `a<b&c"d'e🐘f`
	for max := 0; max <= 40; max++ {
		got := esc(s, max)
		if n := u16len(got); n > max {
			t.Errorf("esc(%d) = %q, %d units", max, got, n)
		}
		if got != "" {
			if err := checkMessageText(got); err != nil {
				t.Errorf("esc(%d) = %q: %v", max, got, err)
			}
		}
		if p := plain(s, max); u16len(p) > max {
			t.Errorf("plain(%d) = %q", max, p)
		}
	}
	if got := esc("abc", 3); got != "abc" {
		t.Errorf("text that fits was changed: %q", got)
	}
	if got := esc("a\x00b\x1bc\nd\xff", 100); got != "abc\nd\uFFFD" {
		t.Errorf("control characters and bad UTF-8 kept: %q", got)
	}
}

func TestRenderManyOptions(t *testing.T) {
	for _, multiple := range []bool{false, true} {
		t.Run(fmt.Sprint("multiple=", multiple), func(t *testing.T) {
			var opts []frontend.Option
			for i := range 100 {
				opts = append(opts, frontend.Option{Label: fmt.Sprintf("Option number %d with a fairly long label", i),
					Description: strings.Repeat("description ", 30)})
			}
			e := entryWith(frontend.Question{Text: "Pick one", Custom: true, Multiple: multiple, Options: opts})
			text, kb := mustRender(t, e)
			shown := 0
			for _, row := range kb.InlineKeyboard {
				for _, b := range row {
					c, err := decodeCallback(b.CallbackData)
					if err != nil {
						t.Fatalf("button %q: %v", b.CallbackData, err)
					}
					if c.Action.hasOption() {
						if c.Option != shown {
							t.Errorf("button %d carries option %d", shown, c.Option)
						}
						shown++
					}
				}
			}
			if shown == 0 || shown >= 100 {
				t.Fatalf("%d option buttons", shown)
			}
			if !strings.Contains(text, fmt.Sprintf("Only the first %d of 100 options", shown)) {
				t.Errorf("text does not say options lack buttons:\n%s", text)
			}
			last := kb.InlineKeyboard[len(kb.InlineKeyboard)-1][0].CallbackData
			if !strings.HasPrefix(last, "qcustom:") {
				t.Errorf("last button %q, want the typed-answer button", last)
			}
		})
	}
}

func TestRenderManyQuestions(t *testing.T) {
	long := strings.Repeat("&<>", 3000)
	var qs []frontend.Question
	for i := range 40 {
		qs = append(qs, frontend.Question{Text: long, Header: fmt.Sprint("H", i, long), Custom: true,
			Options: []frontend.Option{{Label: long, Description: long}}})
	}
	e := entryWith(qs...)
	e.Current = 39
	for range 39 {
		e.Answers = append(e.Answers, []string{long})
	}
	text, _ := mustRender(t, e)
	if !strings.Contains(text, "Question 40/40") {
		t.Errorf("progress missing:\n%s", text)
	}
}

func TestRenderNoOptions(t *testing.T) {
	e := entryWith(frontend.Question{Text: "", Custom: false})
	text, kb := mustRender(t, e)
	if !strings.Contains(text, "(no question text)") {
		t.Errorf("text = %q", text)
	}
	if len(kb.InlineKeyboard) != 1 || !strings.HasPrefix(kb.InlineKeyboard[0][0].CallbackData, "qcustom:") {
		t.Errorf("a question without options must still be answerable: %+v", kb)
	}
	if b := buttonText(&i18n.English, "  \n ", 2); b != "Option 3" {
		t.Errorf("blank label button = %q", b)
	}
}

func TestProjectName(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/user/projects/demo":  "demo",
		"/home/user/projects/demo/": "demo",
		`C:\Users\me\proj`:          "proj",
		"/":                         "/",
		"":                          "unknown project",
	} {
		if got := projectName(&i18n.English, dir); got != want {
			t.Errorf("projectName(%q) = %q, want %q", dir, got, want)
		}
	}
}

// Bounds of FuzzRender's inputs; see there.
const (
	maxFuzzField   = 200
	maxFuzzOptions = 20
)

// FuzzRender checks that no agent text makes a message Telegram would
// refuse.
//
// Its seeds are short, because the fuzz engine minimizes every new
// interesting input before it goes on: for a string of n bytes it may run
// the target n²/2 times (it tries dropping every span), for up to a
// minute, and its execution counter shows those runs only when minimizing
// ends. The first inputs found used to be mutations of a 6000-byte seed:
// minimizing them took the whole of a 10 s run, shown as 0 executions a
// second. The bounds keep an execution near a millisecond; twenty options
// of 200 bytes still reach the cut to 4096 characters, and
// TestRenderLongTextIsCut covers 10 KB texts.
func FuzzRender(f *testing.F) {
	f.Add("Which database?", "DB", "Postgres", "relational", 2, false)
	f.Add(strings.Repeat("<&>", 8), "🐘", "<b>", "\x00\xff&amp;", maxFuzzOptions, true)
	f.Fuzz(func(t *testing.T, text, header, label, desc string, n int, multiple bool) {
		for _, s := range []*string{&text, &header, &label, &desc} {
			if len(*s) > maxFuzzField {
				*s = (*s)[:maxFuzzField]
			}
		}
		n = min(max(n, 0), maxFuzzOptions)
		var opts []frontend.Option
		for i := range n {
			opts = append(opts, frontend.Option{Label: strings.Repeat(label, i%5), Description: desc})
		}
		q := frontend.Question{Text: text, Header: header, Options: opts, Multiple: multiple, Custom: n%2 == 0}
		e := entryWith(q, q)
		e.Current = 1
		e.Answers = [][]string{{label, desc}}
		e.Selected = []string{label}
		mustRender(t, e)
	})
}

func TestPermissionRenderFitsTelegram(t *testing.T) {
	big := strings.Repeat("<&>\"'x\U0001F600 ", 3000)
	lines := strings.Repeat("+"+strings.Repeat("<a&b>", 40)+"\n", 200)
	meta, _ := json.Marshal(map[string]string{"command": big, "description": big, "filepath": big, "diff": lines, "url": big})
	pats := make([]string, 100)
	for i := range pats {
		pats[i] = big[:300]
	}
	e := &frontend.View{
		UID: "abcDEF12", Kind: frontend.KindPermission, Directory: "/x/" + big, SessionID: "ses_" + big,
		SessionTitle: big, ParentSessionID: "ses_p", ParentTitle: big,
		Permission: &frontend.Permission{Kind: big, Patterns: pats, Always: pats, Metadata: meta,
			Run: &frontend.Run{Read: true, Workdir: big, Elsewhere: true, Timeout: 1 << 50}},
	}
	es := []*frontend.View{e, e, e}
	text, kb, err := renderPermission(&i18n.English, e.UID, es, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMessageText(text); err != nil {
		t.Errorf("open message: %v", err)
	}
	if err := checkKeyboard(kb); err != nil {
		t.Error(err)
	}
	_, footer := decisionFooter(&i18n.English, "reject", e, userOf(&alice), big)
	if err := checkMessageText(renderPermissionOutcome(&i18n.English, es, "❌", footer)); err != nil {
		t.Errorf("closed message: %v", err)
	}
	_, footer = decisionFooter(&i18n.English, "always", e, userOf(&alice), "")
	if err := checkMessageText(renderPermissionOutcome(&i18n.English, es, "♾️", footer)); err != nil {
		t.Errorf("closed message: %v", err)
	}
	pt, ph := renderReasonPrompt(&i18n.English, e, userOf(&alice))
	if err := checkMessageText(pt); err != nil || u16len(ph) > maxPlaceholder {
		t.Errorf("prompt: %v (placeholder %q)", err, ph)
	}
}

// TestChinesePermissionReasons renders a permission in Chinese: its risk
// reasons are Chinese, with the command names kept.
func TestChinesePermissionReasons(t *testing.T) {
	cmd := "echo hi; rm -rf build"
	e := &frontend.View{
		UID: "abcDEF12", Kind: frontend.KindPermission, Directory: "/home/u/p", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{cmd}},
	}
	reasons := i18n.English.RiskReasons(risk.Assess(e.Directory, "bash", []string{cmd}, nil))
	if len(reasons) < 2 {
		t.Fatalf("reasons %q: want the chaining and rm -rf", reasons)
	}
	zh, _, err := renderPermission(&i18n.Chinese, e.UID, []*frontend.View{e}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reasons {
		if strings.Contains(zh, r) {
			t.Errorf("Chinese message has the English reason %q:\n%s", r, zh)
		}
	}
	for _, want := range []string{"递归且不经确认地删除文件（rm -rf）", "串联了多条命令"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese message lacks %q:\n%s", want, zh)
		}
	}
	en, _, err := renderPermission(&i18n.English, e.UID, []*frontend.View{e}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reasons {
		if !strings.Contains(en, r) {
			t.Errorf("English message lacks the reason %q:\n%s", r, en)
		}
	}
}

func TestRenderMoved(t *testing.T) {
	for _, tc := range []struct {
		chat          int64
		stale, cur    int
		closed        bool
		want, notWant string
	}{
		{-1001234567890, 5, 7, false, `moved to the message below. <a href="https://t.me/c/1234567890/7">`, ""},
		{-1001234567890, 9, 7, true, `closed: see the message above. <a href="https://t.me/c/1234567890/7">`, ""},
		{-4567, 5, 7, false, "moved to the message below.", "href"}, // a basic group has no links
	} {
		got := renderMoved(&i18n.English, tc.chat, tc.stale, tc.cur, tc.closed)
		if !strings.Contains(got, tc.want) || tc.notWant != "" && strings.Contains(got, tc.notWant) {
			t.Errorf("renderMoved(%d, %d, %d, %v) = %s", tc.chat, tc.stale, tc.cur, tc.closed, got)
		}
		if err := checkMessageText(got); err != nil {
			t.Errorf("renderMoved gives text Telegram refuses: %v", err)
		}
	}
}

// TestRenderRun shows what a command's tool call said: the folder when it
// is not the project's, a long timeout, or that it could not be read; a
// command run in the project as usual shows none of it.
func TestRenderRun(t *testing.T) {
	dir := t.TempDir()
	meta, _ := json.Marshal(map[string]string{"command": "ls"})
	for _, tc := range []struct {
		name   string
		run    *frontend.Run
		level  string
		want   []string
		wantZh []string
		not    []string
	}{
		{"here", &frontend.Run{Read: true, Workdir: dir}, "🟢", nil, nil, []string{"another folder", "May run", "Could not read"}},
		{"no call read yet", nil, "🟢", nil, nil, []string{"another folder", "Could not read"}},
		{"elsewhere", &frontend.Run{Read: true, Workdir: dir + "/.git", Elsewhere: true}, "🟡",
			[]string{"📁 Runs in another folder: <code>" + dir + "/.git</code>", "runs in another folder than the project&#39;s (" + dir + "/.git)"},
			[]string{"在另一个文件夹中运行：<code>" + dir + "/.git</code>"}, []string{"May run"}},
		{"a day", &frontend.Run{Read: true, Workdir: dir, Timeout: 86400000}, "🟡",
			[]string{"⏱ May run for up to 24h0m0s"}, []string{"最长可运行 24h0m0s"}, []string{"another folder"}},
		{"unread", &frontend.Run{}, "🟡", []string{"Could not read from opencode where this command runs"}, []string{"无法从 opencode 读取"}, []string{"another folder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &frontend.View{
				UID: "abcDEF12", Kind: frontend.KindPermission, Directory: dir, SessionID: "ses_1",
				Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"ls"}, Metadata: meta, Run: tc.run},
			}
			en, _, err := renderPermission(&i18n.English, e.UID, []*frontend.View{e}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range append([]string{tc.level}, tc.want...) {
				if !strings.Contains(en, w) {
					t.Errorf("message lacks %q:\n%s", w, en)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(en, w) {
					t.Errorf("message shows %q:\n%s", w, en)
				}
			}
			zh, _, err := renderPermission(&i18n.Chinese, e.UID, []*frontend.View{e}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.wantZh {
				if !strings.Contains(zh, w) {
					t.Errorf("Chinese message lacks %q:\n%s", w, zh)
				}
			}
		})
	}
}

// TestRenderAlwaysLine: the message says what Always allows, its patterns
// escaped and clipped, and for how long: until opencode restarts on 1.x,
// which keeps it in memory for the whole project, as a rule on OpenCode 2.
func TestRenderAlwaysLine(t *testing.T) {
	long := strings.Repeat("x", 300)
	e := &frontend.View{
		UID: "abcDEF12", Kind: frontend.KindPermission, Directory: "/home/u/p", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"git status"}, Always: []string{"git status <&> *", long}},
	}
	for _, tc := range []struct {
		tx        *i18n.Text
		gen       int
		want, not string
	}{
		{&i18n.English, 0, "♾️ <i>Always allow</i> allows <code>git status &lt;&amp;&gt; *</code>, <code>" + long[:99] + "…</code> in this project, in every session, until opencode restarts", "from now on"},
		{&i18n.English, 1, "in this project, in every session, until opencode restarts", "from now on"},
		{&i18n.English, 2, "♾️ <i>Always allow</i> allows <code>git status &lt;&amp;&gt; *</code>, <code>" + long[:99] + "…</code> in this project from now on", "until opencode restarts"},
		{&i18n.Chinese, 1, "♾️ <i>始终允许</i>将在本项目的所有会话中允许以下内容，直到 opencode 重启：<code>git status &lt;&amp;&gt; *</code>", "从现在起"},
		{&i18n.Chinese, 2, "♾️ <i>始终允许</i>将从现在起在本项目中允许：<code>git status", "重启"},
	} {
		text, _, err := renderPermission(tc.tx, e.UID, []*frontend.View{e}, tc.gen)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, tc.want) || strings.Contains(text, tc.not) {
			t.Errorf("generation %d: want %q and not %q in:\n%s", tc.gen, tc.want, tc.not, text)
		}
		if err := checkMessageText(text); err != nil {
			t.Error(err)
		}
	}
	every := &frontend.View{UID: "abcDEF12", Kind: frontend.KindPermission, Directory: "/p", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"ls"}, Always: []string{"*"}}}
	text, _, _ := renderPermission(&i18n.English, every.UID, []*frontend.View{every}, 1)
	if want := "allows <code>*</code> — that is, every bash request in this project, in every session, until opencode restarts"; !strings.Contains(text, want) {
		t.Errorf("lacks %q:\n%s", want, text)
	}
}

// TestPermissionKeyboardStyles: allowing is green, rejecting red.
func TestPermissionKeyboardStyles(t *testing.T) {
	kb, err := permissionKeyboard(&i18n.English, "abcDEF12")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"success", "success"}, {"danger", "danger"}}
	for i, row := range kb.InlineKeyboard {
		for j, b := range row {
			if b.Style != want[i][j] {
				t.Errorf("button %q: style %q, want %q", b.Text, b.Style, want[i][j])
			}
		}
	}
	_, qkb := mustRender(t, entryWith(frontend.Question{Text: "Which?", Options: []frontend.Option{{Label: "A"}, {Label: "B"}}}))
	for _, row := range qkb.InlineKeyboard {
		for _, b := range row {
			if b.Style != "" {
				t.Errorf("question button %q has style %q", b.Text, b.Style)
			}
		}
	}
}

// A permission's outcome says the project, the action and its command,
// escaped, and how it closed.
func TestRenderOutcomeOfPermission(t *testing.T) {
	v := &frontend.View{UID: "abcDEF12", Kind: frontend.KindPermission, Directory: "/home/user/projects/demo", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"make <all>"}, Metadata: json.RawMessage(`{"command":"make <all>"}`)}}
	f := New(Config{ChatID: testChat}, nil, nil, zerolog.Nop())
	text := f.outcome(frontend.Request{Key: v.UID, Members: []*frontend.View{v}}, frontend.Outcome{How: frontend.Gone})
	if err := checkMessageText(text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"✅ <b>demo</b>", "Permission: bash", "<pre>make &lt;all&gt;</pre>", "No longer pending in opencode"} {
		if !strings.Contains(text, want) {
			t.Errorf("outcome %q does not say %q", text, want)
		}
	}
}

// A notice says the project, the session's title and what became of it,
// quotes the agent's words or the error escaped, cut within a bound that
// never splits an entity, and owns up to notices skipped.
func TestRenderNotice(t *testing.T) {
	tg := newOutboxFake()
	f := New(Config{ChatID: testChat}, tg, nil, zerolog.Nop())
	notify := func(n frontend.Notice) string {
		t.Helper()
		if _, err := f.Notify(context.Background(), n); err != nil {
			t.Fatal(err)
		}
		calls := tg.Calls()
		text := calls[len(calls)-1].Text
		if err := checkMessageText(text); err != nil {
			t.Fatalf("notice %q: %v", text, err)
		}
		return text
	}
	base := frontend.Notice{Directory: "/home/user/projects/demo", SessionID: "ses_1", Title: "Fix the login bug"}
	n := base
	n.Body = "Done: <b>all</b> tests pass & the login works."
	text := notify(n)
	for _, want := range []string{"✅ <b>demo</b>", "<i>Fix the login bug</i>", "finished",
		"<blockquote>Done: &lt;b&gt;all&lt;/b&gt; tests pass &amp; the login works.</blockquote>"} {
		if !strings.Contains(text, want) {
			t.Errorf("notice %q lacks %q", text, want)
		}
	}
	n = base
	n.Failed, n.Body, n.Dropped = true, "ProviderAuthError: API key is invalid <sk-…>", 3
	text = notify(n)
	for _, want := range []string{"❌ <b>demo</b>", "failed", "<blockquote>ProviderAuthError: API key is invalid &lt;sk-…&gt;</blockquote>",
		"3 other notices were skipped"} {
		if !strings.Contains(text, want) {
			t.Errorf("notice %q lacks %q", text, want)
		}
	}
	// Emoji are two UTF-16 units each, and "<" grows when escaped.
	n = base
	n.Body = strings.Repeat("😀<", 400)
	_, quote, ok := strings.Cut(notify(n), "<blockquote>")
	quote, _, ok2 := strings.Cut(quote, "</blockquote>")
	if !ok || !ok2 {
		t.Fatal("no excerpt")
	}
	if n := u16len(quote); n > maxExcerpt {
		t.Errorf("excerpt is %d units, want at most %d", n, maxExcerpt)
	}
	if rest := strings.TrimSuffix(quote, "…"); rest == quote || !strings.HasSuffix(rest, "&lt;") && !strings.HasSuffix(rest, "😀") {
		t.Errorf("excerpt cut badly: ends %q", quote[max(0, len(quote)-20):])
	}
}

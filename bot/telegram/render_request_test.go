package telegram

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

// These render requests as the life cycle hands them over (Post, Close,
// Collect, AutoApproved) and check the HTML and keyboards Telegram gets.

const demoSession = "ses_dd4235358ffeK4sOj0rQeppn49"

// demoQuestion is the view of question request que_1 of the demo project.
func demoQuestion(qs ...frontend.Question) *frontend.View {
	return &frontend.View{UID: "aB3dE6gH", Kind: frontend.KindQuestion, RequestID: "que_1",
		Directory: "/home/user/projects/demo", SessionID: demoSession, Questions: qs}
}

func dbField() frontend.Question {
	return frontend.Question{Text: "Which database should I use?", Header: "Database", Custom: true,
		Options: []frontend.Option{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "embedded"}}}
}

// demoPermission is the view of bash permission request id running cmd.
func demoPermission(uid, id, cmd string) *frontend.View {
	meta, _ := json.Marshal(map[string]string{"command": cmd})
	return &frontend.View{UID: uid, Kind: frontend.KindPermission, RequestID: id,
		Directory: "/home/user/projects/demo", SessionID: demoSession,
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{cmd}, Always: []string{strings.Fields(cmd)[0] + " *"}, Metadata: meta}}
}

func testFrontend(lang string) *Frontend {
	return New(Config{ChatID: testChat, Lang: lang}, nil, nil, zerolog.Nop())
}

// open renders vs' open message, checked as Telegram would check it.
func open(t *testing.T, f *Frontend, vs ...*frontend.View) (string, [][2]string) {
	t.Helper()
	text, kb, err := f.render(frontend.Request{Key: vs[0].UID, Members: vs})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMessageText(text); err != nil {
		t.Fatalf("message: %v\n%s", err, text)
	}
	if err := checkKeyboard(kb); err != nil {
		t.Fatalf("keyboard: %v", err)
	}
	var bs [][2]string
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			bs = append(bs, [2]string{b.Text, b.CallbackData})
		}
	}
	return text, bs
}

// closed renders how vs' message ends once closed as o.
func closed(t *testing.T, f *Frontend, o frontend.Outcome, vs ...*frontend.View) string {
	t.Helper()
	text := f.outcome(frontend.Request{Key: vs[0].UID, Members: vs}, o)
	if err := checkMessageText(text); err != nil {
		t.Fatalf("outcome: %v\n%s", err, text)
	}
	return text
}

func data(t *testing.T, a frontend.Action, key string, qi, oi int) string {
	t.Helper()
	d, err := ButtonData(a, key, qi, oi)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func wantAll(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("message lacks %q:\n%s", w, text)
		}
	}
}

var aliceUser = frontend.User{ID: "11", Name: "Alice", Username: "alice"}

func TestRenderQuestionMessage(t *testing.T) {
	f := testFrontend("")
	v := demoQuestion(dbField())
	text, bs := open(t, f, v)
	wantAll(t, text, "<b>demo</b>", "Qeppn49", "<b>Database</b>", "Which database should I use?", "Postgres", "relational", "SQLite", "embedded")
	want := [][2]string{
		{"Postgres", data(t, frontend.Pick, v.UID, 0, 0)},
		{"SQLite", data(t, frontend.Pick, v.UID, 0, 1)},
		{"✏️ Type an answer", data(t, frontend.Type, v.UID, 0, 0)},
	}
	if !reflect.DeepEqual(bs, want) {
		t.Errorf("buttons = %q, want %q", bs, want)
	}
	// A question that takes no typed answer has no button for one.
	q := dbField()
	q.Custom = false
	_, bs = open(t, f, demoQuestion(q))
	for _, b := range bs {
		if b[1] == data(t, frontend.Type, v.UID, 0, 0) {
			t.Errorf("custom:false question has a typed-answer button %q", b)
		}
	}
}

func TestRenderQuestionsInSequence(t *testing.T) {
	f := testFrontend("")
	strict := frontend.Question{Text: "Strict?", Header: "Strict", Custom: true, Options: []frontend.Option{{Label: "Yes"}, {Label: "No"}}}
	v := demoQuestion(dbField(), strict)
	text, _ := open(t, f, v)
	wantAll(t, text, "Question 1/2")
	v.Current, v.Answers = 1, [][]string{{"Postgres"}, nil}
	text, bs := open(t, f, v)
	wantAll(t, text, "Question 2/2", "Strict?", "Postgres")
	if bs[0][1] != data(t, frontend.Pick, v.UID, 1, 0) {
		t.Errorf("buttons of question 2 = %q", bs)
	}
	out := closed(t, f, frontend.Outcome{How: frontend.Answered, Answers: [][]string{{"Postgres"}, {"Only on Sundays"}}, By: frontend.User{ID: "22", Name: "Bob"}}, v)
	wantAll(t, out, "Postgres", "Only on Sundays", "Answered by Bob")
}

func TestRenderMultiSelect(t *testing.T) {
	f := testFrontend("")
	q := frontend.Question{Text: "Which?", Multiple: true, Custom: true, Options: []frontend.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}
	v := demoQuestion(q)
	_, bs := open(t, f, v)
	want := [][2]string{
		{"☐ A", data(t, frontend.Toggle, v.UID, 0, 0)},
		{"☐ B", data(t, frontend.Toggle, v.UID, 0, 1)},
		{"☐ C", data(t, frontend.Toggle, v.UID, 0, 2)},
		{"✅ Submit", data(t, frontend.Submit, v.UID, 0, 0)},
		{"✏️ Type an answer", data(t, frontend.Type, v.UID, 0, 0)},
	}
	if !reflect.DeepEqual(bs, want) {
		t.Fatalf("buttons = %q, want %q", bs, want)
	}
	v.Selected = []string{"C", "A"}
	if _, bs = open(t, f, v); bs[0][0] != "☑ A" || bs[1][0] != "☐ B" || bs[2][0] != "☑ C" || bs[3][0] != "✅ Submit (2)" {
		t.Errorf("buttons with A and C selected = %q", bs)
	}
	// The next question starts with nothing selected.
	two := demoQuestion(q, q)
	two.Current, two.Answers = 1, [][]string{{"A"}, nil}
	if _, bs = open(t, f, two); bs[0] != [2]string{"☐ A", data(t, frontend.Toggle, two.UID, 1, 0)} {
		t.Errorf("second question starts with %q", bs[0])
	}
}

func TestRenderQuestionOutcomes(t *testing.T) {
	f := testFrontend("")
	v := demoQuestion(dbField())
	for _, tc := range []struct {
		o    frontend.Outcome
		want []string
	}{
		{frontend.Outcome{How: frontend.Answered, Answers: [][]string{{"SQLite"}}, By: aliceUser}, []string{"→ <b>SQLite</b>", "Answered by Alice (@alice)", "Which database"}},
		{frontend.Outcome{How: frontend.AnsweredElsewhere, Answers: [][]string{{"SQLite"}}}, []string{"Answered in opencode", "SQLite"}},
		{frontend.Outcome{How: frontend.Dismissed}, []string{"Dismissed in opencode"}},
		{frontend.Outcome{How: frontend.NoLongerPending}, []string{"No longer pending"}},
		{frontend.Outcome{How: frontend.Expired, TTL: time.Minute}, []string{"Expired", "within 1m"}},
	} {
		wantAll(t, closed(t, f, tc.o, v), tc.want...)
	}
}

func TestRenderPermissionMessage(t *testing.T) {
	f := testFrontend("")
	v := demoPermission("pK3dE6gH", "per_1", "rm -rf build && make")
	v.Permission.Patterns = []string{"rm -rf build", "make"}
	v.Permission.Always = []string{"rm *", "make *"}
	text, bs := open(t, f, v)
	wantAll(t, text,
		"<b>demo</b>", "Qeppn49", "Permission: bash",
		"<pre>rm -rf build &amp;&amp; make</pre>",
		"Patterns: <code>rm -rf build</code>, <code>make</code>",
		"allows <code>rm *</code>, <code>make *</code> in this project, in every session, until opencode restarts",
		"🔴 <b>high risk</b>", "rm -rf")
	want := [][2]string{
		{i18n.English.BtnAllowOnce, "ponce:" + v.UID},
		{i18n.English.BtnAllowAlways, "palways:" + v.UID},
		{i18n.English.BtnReject, "preject:" + v.UID},
		{i18n.English.BtnRejectReason, "preason:" + v.UID},
	}
	if !reflect.DeepEqual(bs, want) {
		t.Errorf("buttons = %q, want %q", bs, want)
	}
	for cmd, want := range map[string]string{
		"ls -la":                "🟢 <b>low risk</b>",
		"make test":             "🟡 <b>medium risk</b>",
		"echo hi; sudo rm -r /": "🔴 <b>high risk</b>",
	} {
		v := demoPermission("pK3dE6gH", "per_1", cmd)
		v.Directory = t.TempDir()
		v.Permission.Run = &frontend.Run{Read: true, Workdir: v.Directory}
		text, _ := open(t, f, v)
		wantAll(t, text, want)
	}
}

func TestRenderPermissionEditAndUnknown(t *testing.T) {
	f := testFrontend("")
	diff := "Index: /home/user/projects/demo/src/app.go\n" +
		"===================================================================\n" +
		"--- /home/user/projects/demo/src/app.go\n+++ /home/user/projects/demo/src/app.go\n" +
		"@@ -1,3 +1,3 @@\n package app\n-const x = 1 // <old>\n+const x = 2 // <new>\n"
	meta, _ := json.Marshal(map[string]string{"filepath": "/home/user/projects/demo/src/app.go", "diff": diff})
	v := demoPermission("pK3dE6gH", "per_e", "x")
	v.Permission = &frontend.Permission{Kind: "edit", Patterns: []string{"src/app.go"}, Always: []string{"*"}, Metadata: meta}
	text, _ := open(t, f, v)
	wantAll(t, text, "Permission: edit", "File: <code>/home/user/projects/demo/src/app.go</code>",
		"-const x = 1 // &lt;old&gt;", "+const x = 2 // &lt;new&gt;", "Patterns: <code>src/app.go</code>",
		"<code>*</code> — that is, every edit request", "🟡 <b>medium risk</b>")
	if strings.Contains(text, "=====") || strings.Contains(text, "Index:") {
		t.Errorf("diff headers shown:\n%s", text)
	}
	for _, meta := range []string{`[1,2]`, `{"weird":{"x":1},"command":7}`, `"text"`, ``} {
		v.Directory = "/p/demo"
		v.Permission = &frontend.Permission{Kind: "mystery_tool", Patterns: []string{"thing-<1>"}, Metadata: json.RawMessage(meta)}
		text, _ := open(t, f, v)
		wantAll(t, text, "Permission: mystery_tool", "<code>thing-&lt;1&gt;</code>", "🟡 <b>medium risk</b>", "opencode named no patterns")
	}
}

func TestRenderPermissionOutcomes(t *testing.T) {
	f := testFrontend("")
	v := demoPermission("pK3dE6gH", "per_1", "git push origin main")
	for _, tc := range []struct {
		o    frontend.Outcome
		want []string
	}{
		{frontend.Outcome{How: frontend.Decided, Reply: "once", By: aliceUser}, []string{"✅ <b>Allowed once</b> by Alice (@alice)"}},
		{frontend.Outcome{How: frontend.Decided, Reply: "always", By: aliceUser}, []string{"♾️ <b>Always allowed</b> by Alice (@alice)", "also allowed: <code>git *</code>"}},
		{frontend.Outcome{How: frontend.Decided, Reply: "reject", By: aliceUser}, []string{"❌ <b>Rejected</b> by Alice (@alice)"}},
		{frontend.Outcome{How: frontend.Decided, Reply: "reject", By: frontend.User{ID: "22", Name: "Bob"}, Reason: "not before the review <3"},
			[]string{"❌ <b>Rejected</b> by Bob", "Reason: <i>not before the review &lt;3</i>"}},
		{frontend.Outcome{How: frontend.DecidedElsewhere, Reply: "once"}, []string{"Approved in opencode (once)"}},
		{frontend.Outcome{How: frontend.DecidedElsewhere, Reply: "always"}, []string{"Approved in opencode (always)"}},
		{frontend.Outcome{How: frontend.DecidedElsewhere, Reply: "reject"}, []string{"Rejected in opencode"}},
		{frontend.Outcome{How: frontend.NoLongerPending}, []string{"No longer pending"}},
		{frontend.Outcome{How: frontend.Expired, TTL: time.Minute, Told: frontend.ToldRejected}, []string{"Expired", "within 1m"}},
		{frontend.Outcome{How: frontend.Expired, TTL: time.Minute, Told: frontend.NotTold}, []string{"Expired", "keeps trying"}},
	} {
		out := closed(t, f, tc.o, v)
		wantAll(t, out, append(tc.want, "<pre>git push origin main</pre>", "<b>demo</b>")...)
		if strings.Contains(out, "until opencode restarts") {
			t.Errorf("closed message still offers always:\n%s", out)
		}
	}
}

// Identical requests sharing a message say how many they are, open and
// closed; the buttons carry the first's key.
func TestRenderSharedPermission(t *testing.T) {
	f := testFrontend("")
	a, b := demoPermission("pK3dE6gH", "per_1", "go test ./..."), demoPermission("qK3dE6gH", "per_2", "go test ./...")
	text, bs := open(t, f, a, b)
	wantAll(t, text, "×2", "2 identical requests")
	if bs[0][1] != "ponce:"+a.UID {
		t.Errorf("buttons = %q", bs)
	}
	wantAll(t, closed(t, f, frontend.Outcome{How: frontend.Decided, Reply: "always", By: aliceUser}, a, b), "×2", "Always allowed")
	wantAll(t, closed(t, f, frontend.Outcome{How: frontend.Expired, TTL: time.Minute, Told: frontend.ToldRejected}, a, b), "×2", "Expired")
	if text, _ := open(t, f, b); strings.Contains(text, "×2") {
		t.Errorf("a message left with one request still says ×2:\n%s", text)
	}
}

func TestRenderPrompts(t *testing.T) {
	tx := &i18n.English
	text, ph := renderPrompt(tx, demoQuestion(dbField()), 0, aliceUser)
	wantAll(t, text, `<a href="tg://user?id=11">Alice</a>`, "Which database should I use?")
	if ph == "" {
		t.Error("prompt without a placeholder")
	}
	text, ph = renderReasonPrompt(tx, demoPermission("pK3dE6gH", "per_1", "npm publish"), frontend.User{ID: "22", Name: "Bob"})
	wantAll(t, text, `<a href="tg://user?id=22">Bob</a>`, "why you reject <b>bash</b> <code>npm publish</code>")
	if ph == "" {
		t.Error("reason prompt without a placeholder")
	}
}

func TestRenderSessionContext(t *testing.T) {
	f := testFrontend("")
	q, p := demoQuestion(dbField()), demoPermission("pK3dE6gH", "per_1", "make")
	for _, v := range []*frontend.View{q, p} {
		v.SessionTitle, v.ParentSessionID, v.ParentTitle = "Refactor <auth>", "ses_parent0001", "Ship v2"
	}
	ctx := []string{"<i>Refactor &lt;auth&gt;</i>", "subagent of <i>Ship v2</i>"}
	text, _ := open(t, f, q)
	wantAll(t, text, append(ctx, "Qeppn49")...)
	text, _ = open(t, f, p)
	wantAll(t, text, ctx...)
	wantAll(t, closed(t, f, frontend.Outcome{How: frontend.Answered, Answers: [][]string{{"Postgres"}}, By: aliceUser}, q), ctx...)
	wantAll(t, closed(t, f, frontend.Outcome{How: frontend.Decided, Reply: "once", By: aliceUser}, p), ctx...)
	// Without a title, the session's ID stands for it.
	text, _ = open(t, f, demoPermission("pK3dE6gH", "per_1", "make"))
	wantAll(t, text, "session <code>…rQeppn49</code>")
	if strings.Contains(text, "subagent") {
		t.Error("subagent shown without a parent")
	}
}

func TestRenderAutoApprovedNotice(t *testing.T) {
	v := demoPermission("pK3dE6gH", "per_1", "ls -la")
	v.SessionTitle = "Fix <the> build"
	text := renderAutoApproved(&i18n.English, v)
	if err := checkMessageText(text); err != nil {
		t.Fatal(err)
	}
	wantAll(t, text, "demo", "Fix &lt;the&gt; build", "🤖 Auto-approved (low risk): <code>ls -la</code>")
	v = demoPermission("pK3dE6gH", "per_1", "grep '<b>' index.html")
	wantAll(t, renderAutoApproved(&i18n.English, v), "<code>grep &#39;&lt;b&gt;&#39; index.html</code>")
}

func TestRenderChinese(t *testing.T) {
	f := testFrontend("zh")
	multi := frontend.Question{Text: "哪些功能？", Header: "Features", Multiple: true, Custom: true,
		Options: []frontend.Option{{Label: "Auth"}, {Label: "Search"}}}
	q := demoQuestion(multi, dbField())
	text, bs := open(t, f, q)
	wantAll(t, text, "问题 1/2", i18n.Chinese.ChooseThenSubmit)
	var texts []string
	for _, b := range bs {
		texts = append(texts, b[0])
	}
	if joined := strings.Join(texts, "|"); !strings.Contains(joined, "✅ 提交") || !strings.Contains(joined, "✏️ 输入答案") || strings.Contains(joined, "Submit") {
		t.Errorf("buttons = %q", texts)
	}
	wantAll(t, closed(t, f, frontend.Outcome{How: frontend.Answered, Answers: [][]string{{"Auth"}, {"Postgres"}}, By: aliceUser}, q), "回答者：")

	p := demoPermission("pK3dE6gH", "per_zh", "rm -rf build && "+strings.Repeat("echo 很长的命令 ", 400))
	text, bs = open(t, f, p)
	wantAll(t, text, "权限：", "风险", "始终允许")
	texts = nil
	for _, b := range bs {
		texts = append(texts, b[0])
	}
	if want := []string{"✅ 允许一次", "♾️ 始终允许", "❌ 拒绝", "💬 拒绝并说明原因"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("buttons = %q, want %q", texts, want)
	}
	wantAll(t, closed(t, f, frontend.Outcome{How: frontend.Decided, Reply: "once", By: aliceUser}, p), "已允许一次")
}

// The HTML texts of the catalogs are what Telegram accepts.
func TestCatalogHTML(t *testing.T) {
	for _, h := range []string{i18n.English.Help, i18n.Chinese.Help, i18n.English.Expired("5m"), i18n.Chinese.Expired("5m")} {
		if err := checkMessageText(h); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
}

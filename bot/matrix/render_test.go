package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// What the agent did before asking is quoted between the head and the
// question, escaped, tool calls short; nothing is quoted without it.
func TestRenderContextQuote(t *testing.T) {
	v := &frontend.View{UID: "q1", Kind: frontend.KindQuestion, Directory: "/home/u/demo", SessionID: "ses_1",
		Questions: []frontend.Question{{Text: "Which fix?", Custom: true, Options: []frontend.Option{{Label: "A"}}}},
		Context:   []frontend.ContextLine{{Text: "Two ways <b>&</b>"}, {Tool: "read", Text: "/home/u/demo/settings/config.json"}}}
	h := renderOpen(&i18n.English, frontend.Request{Key: "q1", Members: []*frontend.View{v}})
	quote := "<blockquote>Two ways &lt;b&gt;&amp;&lt;/b&gt;<br>\n🔧 read …/config.json</blockquote>"
	i := strings.Index(h, quote)
	if i < 0 || i > strings.Index(h, "Which fix?") || strings.Index(h, "demo") > i {
		t.Fatalf("no quote %q between the head and the question in\n%s", quote, h)
	}
	v.Context = nil
	if h := renderOpen(&i18n.English, frontend.Request{Key: "q1", Members: []*frontend.View{v}}); strings.Contains(h, "blockquote") {
		t.Errorf("quote without context:\n%s", h)
	}
}

// fakeState is an opencode server's stream as /status reads it.
type fakeState opencode.WatchState

func (s fakeState) State() opencode.WatchState { return opencode.WatchState(s) }

// With HERMES_LANG=zh, what the front-end writes is the Chinese catalogue's:
// an open question and permission, the poll answers, an outcome, !status.
func TestRenderChinese(t *testing.T) {
	zh, en := &i18n.Chinese, &i18n.English
	q := question("q1", frontend.Question{Text: "Which fix?", Custom: true, Options: []frontend.Option{{Label: "A"}}})
	meta, _ := json.Marshal(map[string]string{"command": "rm -rf build"})
	pv := &frontend.View{UID: "p1", Kind: frontend.KindPermission, Directory: "/srv/shop", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"rm *"}, Metadata: meta}}
	perm := frontend.Request{Key: "p1", Members: []*frontend.View{pv}}
	core := newFakeCore()
	f := NewFrontend(nil, nil, FrontendConfig{Lang: "zh", Version: "v1",
		Servers: []ServerStatus{{Status: fakeState{Connected: true, Version: "1.2", Generation: 1}}}}, zerolog.Nop())

	s := stepOf(zh, perm)
	var polls []string
	for _, c := range s.choices {
		polls = append(polls, c.Text)
	}
	if got, want := fmt.Sprint(polls), fmt.Sprint([]string{zh.BtnAllowOnce, zh.BtnAllowAlways, zh.BtnReject}); got != want {
		t.Errorf("permission poll %s, want %s", got, want)
	}
	checks := []struct {
		what, text string
		want, not  []string
	}{
		{"question", renderOpen(zh, q), []string{zh.Matrix.HowVoteOrReply},
			[]string{en.Matrix.HowVoteOrReply, en.Matrix.HowVote}},
		{"permission", renderOpen(zh, perm), []string{zh.Permission, zh.Patterns, zh.Risk(risk.High), zh.Matrix.HowPermission},
			[]string{en.Permission, en.Patterns, en.Risk(risk.High), en.Matrix.HowPermission}},
		{"poll", s.question, []string{zh.Matrix.AllowWhat("rm -rf build")}, []string{en.Matrix.AllowWhat("rm -rf build")}},
		{"outcome", footer(zh, pv, frontend.Outcome{How: frontend.Decided, Reply: frontend.ReplyReject,
			Reason: "no", By: userOf("@a:x")}),
			[]string{zh.Rejected, zh.By("@a:x"), zh.Reason}, []string{en.Rejected, en.By("@a:x"), en.Reason}},
		{"outcome", footer(zh, q.Members[0], frontend.Outcome{How: frontend.AnsweredElsewhere}),
			[]string{zh.AnsweredOC}, []string{en.AnsweredOC}},
		{"!status", f.status(context.Background(), core), []string{zh.Connected, zh.Version("1.2", 1), zh.WaitingCount(0)},
			[]string{en.Connected, en.Version("1.2", 1), en.WaitingCount(0)}},
	}
	for _, c := range checks {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s: no %q in\n%s", c.what, w, c.text)
			}
		}
		for _, n := range c.not {
			if strings.Contains(c.text, n) {
				t.Errorf("%s: English %q in\n%s", c.what, n, c.text)
			}
		}
	}
}

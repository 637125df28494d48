package matrix

import (
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// What the agent did before asking is quoted between the head and the
// question, escaped, tool calls short; nothing is quoted without it.
func TestRenderContextQuote(t *testing.T) {
	v := &frontend.View{UID: "q1", Kind: frontend.KindQuestion, Directory: "/home/u/demo", SessionID: "ses_1",
		Questions: []frontend.Question{{Text: "Which fix?", Custom: true, Options: []frontend.Option{{Label: "A"}}}},
		Context:   []frontend.ContextLine{{Text: "Two ways <b>&</b>"}, {Tool: "read", Text: "/home/u/demo/settings/config.json"}}}
	h := renderOpen(frontend.Request{Key: "q1", Members: []*frontend.View{v}})
	quote := "<blockquote>Two ways &lt;b&gt;&amp;&lt;/b&gt;<br>\n🔧 read …/config.json</blockquote>"
	i := strings.Index(h, quote)
	if i < 0 || i > strings.Index(h, "Which fix?") || strings.Index(h, "demo") > i {
		t.Fatalf("no quote %q between the head and the question in\n%s", quote, h)
	}
	v.Context = nil
	if h := renderOpen(frontend.Request{Key: "q1", Members: []*frontend.View{v}}); strings.Contains(h, "blockquote") {
		t.Errorf("quote without context:\n%s", h)
	}
}

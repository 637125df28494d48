package main_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestE2EContextAndQuickReply: against a real opencode, the question shows
// above it the last lines the agent wrote before asking (its words, and
// the file it read, short), and a stock reply's button answers it as if
// typed; a permission shows the agent's words above it too.
func TestE2EContextAndQuickReply(t *testing.T) {
	r := newRig(t, opencodetest.OpencodeOptions{},
		"HERMES_CONTEXT_LINES=3", "HERMES_QUICK_REPLIES=Yes, go ahead|No, stop|Explain first")
	bot := startBot(t, r.env)
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()

	config := filepath.Join(r.oc.Dir, "opencode.json")
	if _, err := r.model.SayAndCallTool("Let me look at the config first.", "read", map[string]string{"filePath": config}); err != nil {
		t.Fatal(err)
	}
	const q = "Which fix should I take?"
	call, err := r.model.SayAndCallTool("I found two ways to fix the port clash.\n\nBoth keep the tests green.", "question",
		map[string]any{"questions": []opencodetest.QuestionArg{{Question: q, Header: "Fix",
			Options: []opencodetest.OptionArg{{Label: "Move the port", Description: "8080"}, {Label: "Reuse it", Description: "SO_REUSEPORT"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r.prompt(ctx, t, r.oc.Dir, "fix the port clash")
	msg := r.waitPosted(ctx, t, "the question", q)

	// The newest three lines, in order, above the question; the oldest
	// line is left out.
	text := msg.PlainText
	want := []string{"🔧 read …/opencode.json", "I found two ways to fix the port clash.", "Both keep the tests green.", q}
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			t.Fatalf("question message lacks %q after the previous line:\n%s", w, text)
		}
		at += i + len(w)
	}
	if strings.Contains(text, "Let me look at the config first.") {
		t.Errorf("question message shows more than 3 lines of context:\n%s", text)
	}
	if !hasQuote(msg) {
		t.Errorf("the context is not a quote: entities %+v", msg.Entities)
	}

	if !hasButtons(msg, "Move the port", "Reuse it", btnType, "💬 Yes, go ahead", "💬 No, stop", "💬 Explain first") {
		t.Fatalf("buttons = %q, want the options, typing and the quick replies", buttonTexts(msg))
	}
	r.press(t, msg, "💬 Explain first")
	if res := r.toolResult(ctx, t, "quick reply", call); !strings.Contains(res, "Explain first") {
		t.Errorf("the model was told %q, want the quick reply", res)
	}
	closed := r.waitClosed(ctx, t, "quick reply", msg.ID, func(s string) bool { return contains(s, "Alice") })
	if !strings.Contains(closed.PlainText, "Explain first") {
		t.Errorf("closed message does not show the quick reply:\n%s", closed.PlainText)
	}

	// A permission shows the agent's words above it too.
	const command = "echo context > context.txt"
	bash, err := r.model.SayAndCallTool("Now I write the marker file.", "bash", bashArgs(command))
	if err != nil {
		t.Fatal(err)
	}
	r.prompt(ctx, t, r.oc.Dir, "write the marker")
	perm := r.waitPosted(ctx, t, "the permission request", command)
	if i, j := strings.Index(perm.PlainText, "Now I write the marker file."), strings.Index(perm.PlainText, command); i < 0 || j < i {
		t.Errorf("permission message lacks the agent's words above the command:\n%s", perm.PlainText)
	}
	r.press(t, perm, btnAllowOnce)
	r.toolResult(ctx, t, "allow once", bash)
	r.finish(t, bot)
}

// hasQuote reports whether m shows a quote.
func hasQuote(m telegramtest.Message) bool {
	for _, e := range m.Entities {
		if e.Type == "blockquote" || e.Type == "expandable_blockquote" {
			return true
		}
	}
	return false
}

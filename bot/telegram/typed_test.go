package telegram_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// typedPrompt posts question id, presses ✏️ and returns the question's
// message and the force_reply prompt.
func typedPrompt(ctx context.Context, t *testing.T, r *rig, id string) (telegramtest.Message, telegramtest.Message) {
	t.Helper()
	m := r.posted(t, ctx, id)
	if _, err := r.srv.PressButtonText(chatID, m.ID, ann, "✏️ Type an answer"); err != nil {
		t.Fatal(err)
	}
	prompt, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool { return x.ForceReply != nil && x.ReplyTo == m.ID })
	if err != nil {
		t.Fatal(err)
	}
	return m, prompt
}

// A typed answer opencode took is acknowledged by 👀 then 👍 on it, and
// no message answers it.
func TestTelegramTypedAnswerReactions(t *testing.T) {
	r, ctx := startRig(t)
	m, prompt := typedPrompt(ctx, t, r, "que_1")
	id, err := r.srv.Reply(chatID, prompt.ID, ann, "SQLite, please")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, id, "👍"); err != nil {
		t.Fatal(err)
	}
	if got := reactionsOn(t, r.srv, id); !slices.Equal(got, []string{"👀", "👍"}) {
		t.Errorf("reactions = %q, want 👀 then 👍", got)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool {
		return x.ID == m.ID && x.Keyboard == nil && strings.Contains(x.PlainText, "SQLite, please")
	}); err != nil {
		t.Fatal(err)
	}
	for _, x := range r.srv.Messages(chatID) {
		if x.FromBot && x.ID > id {
			t.Errorf("a new message after the answer: %q", x.PlainText)
		}
	}
}

// A typed answer opencode could not take has its 👀 taken back and a
// reply that says why; the request stays open.
func TestTelegramTypedAnswerFailureReplies(t *testing.T) {
	r, ctx := startRig(t)
	r.oc.replyErr = fmt.Errorf("reply: %w", opencode.ErrTransient)
	m, prompt := typedPrompt(ctx, t, r, "que_1")
	id, err := r.srv.Reply(chatID, prompt.ID, ann, "SQLite, please")
	if err != nil {
		t.Fatal(err)
	}
	tell, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool { return x.FromBot && x.ID > id })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tell.PlainText, "Could not reach opencode") || tell.ReplyTo != m.ID {
		t.Errorf("failure message %q replying to %d", tell.PlainText, tell.ReplyTo)
	}
	if err := r.srv.WaitReaction(ctx, chatID, id, ""); err != nil {
		t.Fatal(err)
	}
	if got := reactionsOn(t, r.srv, id); !slices.Equal(got, []string{"👀", ""}) {
		t.Errorf("reactions = %q, want 👀 then cleared", got)
	}
}

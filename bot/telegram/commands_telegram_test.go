package telegram_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// Commands through a real go-telegram/bot client: /pending@<this bot>
// lists the request with a link to its message; another bot's command and
// an outsider's get nothing.
func TestTelegramCommands(t *testing.T) {
	r, ctx := startRig(t, ann.ID)
	q := r.posted(t, ctx, "que_1")

	if _, err := r.srv.SendText(chatID, ann, "/pending@other_bot"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.SendText(chatID, eve, "/pending"); err != nil {
		t.Fatal(err)
	}
	id, err := r.srv.SendText(chatID, ann, "/pending@"+r.srv.BotUser().Username)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no reply to /pending: %v", err)
	}
	link := fmt.Sprintf(`<a href="https://t.me/c/1234567890/%d">`, q.ID)
	if !strings.Contains(reply.PlainText, "Waiting for you: 1") || !strings.Contains(reply.Text, link) {
		t.Errorf("/pending reply lacks the count or the link %s:\n%s", link, reply.Text)
	}

	id, err = r.srv.SendText(chatID, ann, "/help")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
		return m.ReplyTo == id && strings.Contains(m.PlainText, "/status")
	}); err != nil {
		t.Fatalf("no reply to /help: %v", err)
	}
	// Updates are handled in order, so by now the ignored commands were
	// seen: only the two replies and the question were sent.
	if n := len(r.srv.RequestsFor("sendMessage")); n != 3 {
		t.Errorf("%d messages sent, want the question and two replies", n)
	}
}

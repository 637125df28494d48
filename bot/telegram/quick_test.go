package telegram_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// A stock reply's button answers the question with its text, as typing it
// would, for an allowed person only; its callback data carries an index.
func TestTelegramQuickReply(t *testing.T) {
	replies := []string{"Yes, go ahead", "No, stop", "Explain first"}
	r, ctx := startRigWith(t, telegram.Config{AllowedUserIDs: []int64{ann.ID}, QuickReplies: replies})
	m := r.posted(t, ctx, "que_1")
	var texts []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			texts = append(texts, b.Text)
			if len(b.CallbackData) > 64 || strings.Contains(b.CallbackData, "go ahead") {
				t.Errorf("button %q carries %q", b.Text, b.CallbackData)
			}
		}
	}
	want := []string{"Postgres", "SQLite", "✏️ Type an answer", "💬 Yes, go ahead", "💬 No, stop", "💬 Explain first"}
	if !reflect.DeepEqual(texts, want) {
		t.Fatalf("buttons = %q, want %q", texts, want)
	}

	cb, err := r.srv.PressButtonText(chatID, m.ID, eve, "💬 No, stop")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Fatalf("press by someone not allowed answered %+v, %v", a, err)
	}
	if _, err := r.srv.PressButtonText(chatID, m.ID, ann, "💬 Explain first"); err != nil {
		t.Fatal(err)
	}
	if got := r.waitReplies(t, ctx, 1); len(got) != 1 || !reflect.DeepEqual(got[0], [][]string{{"Explain first"}}) {
		t.Fatalf("replies = %v, want Explain first once", got)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool {
		return x.ID == m.ID && x.Keyboard == nil && strings.Contains(x.PlainText, "Explain first") && strings.Contains(x.PlainText, "Ann")
	}); err != nil {
		t.Fatal(err)
	}
}

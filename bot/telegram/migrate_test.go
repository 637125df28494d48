package telegram

import (
	"context"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
)

// pressCore is a Core that records the presses handed to it.
type pressCore struct {
	frontend.Core
	presses []frontend.Press
}

func (c *pressCore) HandlePress(_ context.Context, _ zerolog.Logger, p frontend.Press) {
	c.presses = append(c.presses, p)
	p.Ack("")
}

// A group's upgrade to a supergroup, announced in the chat, moves the
// front-end to the new chat: presses from the old one are refused, from
// the new one handed over. One announced by another chat changes nothing.
func TestChatMigrationServiceMessage(t *testing.T) {
	const newChat int64 = -1009999
	var gotOld, gotNew int64
	logs := &testlog.Buffer{}
	f := New(Config{ChatID: testChat, OnChatMigrated: func(o, n int64) { gotOld, gotNew = o, n }}, newOutboxFake(), nil, zerolog.New(logs))
	core := &pressCore{}
	migrate := func(chat int64) {
		f.HandleUpdate(context.Background(), core, &models.Update{Message: &models.Message{
			ID: 50, Date: 1700000000, Chat: models.Chat{ID: chat, Type: "group"}, MigrateToChatID: newChat}})
	}
	press := func(chat int64) {
		data, err := callbackData{Action: actOption, UID: "abcDEF12"}.encode()
		if err != nil {
			t.Fatal(err)
		}
		f.HandleUpdate(context.Background(), core, &models.Update{CallbackQuery: &models.CallbackQuery{
			ID: "cb", From: alice, Data: data,
			Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage,
				Message: &models.Message{ID: 7, Chat: models.Chat{ID: chat, Type: "supergroup"}}}}})
	}
	migrate(-5)
	if f.ChatID() != testChat || gotNew != 0 {
		t.Fatalf("migration of another chat followed: chat %d, hook %d→%d", f.ChatID(), gotOld, gotNew)
	}
	migrate(testChat)
	if f.ChatID() != newChat || gotOld != testChat || gotNew != newChat {
		t.Fatalf("after migration: chat %d, hook %d→%d; want %d and the hook called", f.ChatID(), gotOld, gotNew, newChat)
	}
	if !strings.Contains(logs.String(), "migrated") {
		t.Errorf("no log line about the migration:\n%s", logs.String())
	}
	press(testChat)
	if len(core.presses) != 0 {
		t.Fatalf("a press from the old chat was handed over: %+v", core.presses)
	}
	press(newChat)
	if len(core.presses) != 1 || core.presses[0].Frontend != Name || placeAt(core.presses[0].From).Chat != newChat {
		t.Fatalf("presses handed over %+v, want the one from the new chat", core.presses)
	}
}

package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/go-telegram/bot/models"
)

func TestChatMigrationServiceMessage(t *testing.T) {
	const newChat int64 = -1009999
	var gotOld, gotNew int64
	h := newHarness(t, harnessConfig{OnChatMigrated: func(o, n int64) { gotOld, gotNew = o, n }})
	e := h.ask("que_1", dbQuestion())

	// A migration announced by another chat changes nothing.
	h.update(context.Background(), &models.Update{ID: 1, Message: &models.Message{
		ID: 50, Date: 1700000000, Chat: models.Chat{ID: -5, Type: "group"}, MigrateToChatID: newChat,
	}})
	if h.fe.ChatID() != testChat || gotNew != 0 {
		t.Fatalf("migration of another chat followed: chat %d, hook %d→%d", h.fe.ChatID(), gotOld, gotNew)
	}

	h.update(context.Background(), &models.Update{ID: 2, Message: &models.Message{
		ID: 51, Date: 1700000000, Chat: models.Chat{ID: testChat, Type: "group"}, MigrateToChatID: newChat,
	}})
	if h.fe.ChatID() != newChat || gotOld != testChat || gotNew != newChat {
		t.Fatalf("after migration: chat %d, hook %d→%d; want %d and the hook called", h.fe.ChatID(), gotOld, gotNew, newChat)
	}
	if !strings.Contains(h.logs.String(), "migrated") {
		t.Errorf("no log line about the migration:\n%s", h.logs.String())
	}

	// Presses from the old chat are refused now; from the new one they count.
	id := h.pressIn(testChat, alice, data(t, frontend.Pick, e.UID, 0, 1), msgID(e))
	if h.toast(id) != i18n.ToastNotAllowed || len(h.oc.Replies()) != 0 {
		t.Fatalf("press from the old chat: toast %q, replies %d", h.toast(id), len(h.oc.Replies()))
	}
	h.pressIn(newChat, alice, data(t, frontend.Pick, e.UID, 0, 1), msgID(e))
	if r := h.oc.Replies(); len(r) != 1 {
		t.Fatalf("press from the new chat: %d replies, want 1", len(r))
	}
}

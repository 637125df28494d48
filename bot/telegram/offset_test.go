package telegram_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// TestInitialOffsetSkipsHandledUpdates checks what cmd/hermes-bot relies
// on: the update ID InitialOffset returns, given to go-telegram/bot's
// WithInitialOffset, makes the first poll start after that update, so
// what was handled before a restart is not fetched again.
func TestInitialOffsetSkipsHandledUpdates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := telegramtest.NewServer(token)
	t.Cleanup(srv.Close)
	if err := srv.AddChat(chatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 3 {
		id, err := srv.Enqueue(fmt.Sprintf(`{"message":{"message_id":%d,"date":1700000000,"chat":{"id":%d,"type":"supergroup"},`+
			`"from":{"id":7,"is_bot":false,"first_name":"Ann"},"text":"update %d"}}`, i+1, chatID, i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}

	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	// The first two were handled before the restart.
	if err := telegram.StateOf(store).SetInputCursor(123, ids[1], time.Now()); err != nil {
		t.Fatal(err)
	}
	offset, err := telegram.InitialOffset(store, 123, time.Now())
	if err != nil || offset != ids[1] {
		t.Fatalf("InitialOffset = %d, %v; want %d", offset, err, ids[1])
	}

	got := make(chan int64, 3)
	tb := newFakeBot(t, srv, token,
		tgbot.WithNotAsyncHandlers(),
		tgbot.WithInitialOffset(offset),
		tgbot.WithDefaultHandler(func(_ context.Context, _ *tgbot.Bot, u *models.Update) { got <- u.ID }),
	)
	polling, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tb.Start(polling)
	}()
	defer func() {
		stop()
		<-stopped
	}()
	select {
	case id := <-got:
		if id != ids[2] {
			t.Errorf("first update handled after the restart = %d, want %d (the one not handled before)", id, ids[2])
		}
	case <-ctx.Done():
		t.Fatal("no update reached the handler")
	}
	polls, err := srv.WaitRequests(ctx, "getUpdates", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint(ids[1] + 1); polls[0].Params["offset"] != want {
		t.Errorf("first poll offset = %q, want %s", polls[0].Params["offset"], want)
	}
}

package telegram_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// pacedFrontend is a Frontend posting through a paced Outbox, as the
// daemon wires it, to the fake Bot API through a real client.
func pacedFrontend(t *testing.T, perMinute int, opts ...telegramtest.Option) (*telegram.Frontend, *telegramtest.Server) {
	t.Helper()
	srv := telegramtest.NewServer(token, opts...)
	t.Cleanup(srv.Close)
	if err := srv.AddChat(chatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	tb := newFakeBot(t, srv, token)
	out := telegram.NewOutbox(telegram.RedactTelegram(tb, telegram.NewRedactor(token)),
		telegram.OutboxOptions{PerMinute: perMinute, Burst: 1}, zerolog.Nop())
	t.Cleanup(out.Close)
	return telegram.New(telegram.Config{ChatID: chatID, Later: out}, out, store, zerolog.Nop()), srv
}

// multiEntry is an open multi-select question with selected chosen.
func multiEntry(selected ...string) *frontend.View {
	return &frontend.View{UID: "uid12345", Kind: frontend.KindQuestion, Directory: "/home/user/demo",
		SessionID: "ses_1", RequestID: "que_1", Selected: selected,
		Questions: []frontend.Question{{Text: "Which parts?", Multiple: true,
			Options: []frontend.Option{{Label: "Auth"}, {Label: "Cache"}, {Label: "Logs"}}}}}
}

func TestRefreshLaterDoesNotWaitForPacing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// One call a second: the post takes the only token, so each edit
	// after it waits about a second for Telegram.
	fe, srv := pacedFrontend(t, 60)
	at, err := fe.Post(ctx, frontend.Request{Key: "uid12345", Members: []*frontend.View{multiEntry()}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var results []error
	var wg sync.WaitGroup
	for _, sel := range [][]string{{"Auth"}, {"Auth", "Cache"}, {"Auth", "Cache", "Logs"}} {
		wg.Add(1)
		fe.RefreshLater(at, frontend.Request{Key: "uid12345", Members: []*frontend.View{multiEntry(sel...)}}, func(err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			results = append(results, err)
		})
	}
	// Handed over, not sent: the pacing holds them, and nothing waited.
	if m, _ := srv.Message(chatID, telegram.MessageAt(at)); m.Edits != 0 {
		t.Fatalf("message edited %d times before its token was due", m.Edits)
	}
	if err := fe.Close(ctx, at, frontend.Closing{Shown: "closed: Auth, Cache, Logs"}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, err := range results {
		if err != nil {
			t.Errorf("refresh result %v, want nil", err)
		}
	}
	// The refreshes coalesced into the closing edit, which came last.
	m, _ := srv.Message(chatID, telegram.MessageAt(at))
	if m.Edits != 1 || m.Keyboard != nil || m.PlainText != "closed: Auth, Cache, Logs" {
		t.Fatalf("message after %d edits shows %q with buttons %v, want the closing edit alone", m.Edits, m.PlainText, m.Keyboard)
	}
}

func TestRefreshLaterShowsTheLastSelection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fe, srv := pacedFrontend(t, 0)
	at, err := fe.Post(ctx, frontend.Request{Key: "uid12345", Members: []*frontend.View{multiEntry()}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	fe.RefreshLater(at, frontend.Request{Key: "uid12345", Members: []*frontend.View{multiEntry("Cache")}}, func(err error) { done <- err })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	m, _ := srv.Message(chatID, telegram.MessageAt(at))
	if !hasButtons(m, "☑ Cache", "☐ Auth") {
		t.Errorf("buttons %v, want Cache selected", m.Keyboard)
	}

	// Deleted: the result says so, for the life cycle to post it again.
	srv.FailNext("editMessageText", telegramtest.Fault{Code: 400, Description: "Bad Request: message to edit not found"})
	fe.RefreshLater(at, frontend.Request{Key: "uid12345", Members: []*frontend.View{multiEntry()}}, func(err error) { done <- err })
	if err := <-done; !errors.Is(err, frontend.ErrGone) {
		t.Errorf("refresh of a deleted message: %v, want ErrGone", err)
	}
}

func hasButtons(m telegramtest.Message, want ...string) bool {
	var all []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			all = append(all, b.Text)
		}
	}
	joined := "\x00" + strings.Join(all, "\x00") + "\x00"
	for _, w := range want {
		if !strings.Contains(joined, "\x00"+w) {
			return false
		}
	}
	return true
}

package bot

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// answeredAt records when the Bot API client returned Telegram's answer
// to each sendMessage, by message ID.
type answeredAt struct {
	telegram.Telegram
	mu sync.Mutex
	at map[int]time.Time
}

func (a *answeredAt) SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error) {
	m, err := a.Telegram.SendMessage(ctx, p)
	if err == nil {
		a.mu.Lock()
		a.at[m.ID] = time.Now()
		a.mu.Unlock()
	}
	return m, err
}

// BenchmarkDuplicateWindow measures the window in which a crash makes the
// next start post a question again: from Telegram's answer to its
// sendMessage (as the Bot API client returns it, over loopback) to the
// question stored, with its message ID, on disk. 50 sessions ask at
// once, through the lanes, the Outbox (pacing off) and a store on disk,
// as in cmd/hermes-bot.
func BenchmarkDuplicateWindow(b *testing.B) {
	const (
		token    = "123:abc"
		sessions = 50
	)
	tg := &answeredAt{Telegram: windowClient(b, token), at: make(map[int]time.Time)}
	out := telegram.NewOutbox(tg, telegram.OutboxOptions{}, zerolog.Nop())
	defer out.Close()
	store, err := pending.Open(filepath.Join(b.TempDir(), "pending.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	br := NewBridge(Config{Servers: map[string]Opencode{"": &fakeOpencode{}}}, store, []frontend.Frontend{telegram.New(telegram.Config{ChatID: testChat}, out, store, zerolog.Nop())}, zerolog.Nop())
	var mu sync.Mutex
	var windows []time.Duration
	br.stored = func(e *pending.Entry) {
		now := time.Now()
		tg.mu.Lock()
		at, ok := tg.at[msgID(e)]
		tg.mu.Unlock()
		if ok {
			mu.Lock()
			windows = append(windows, now.Sub(at))
			mu.Unlock()
		}
	}
	lanes := NewLanes(br, 0)
	ctx := context.Background()
	round := 0
	for b.Loop() {
		round++
		for i := range sessions {
			ev := askedEvent(fmt.Sprintf("que_%d_%d", round, i), dbQuestion())
			ev.QuestionAsked.SessionID = fmt.Sprintf("ses_%d", i)
			lanes.HandleEvent(ctx, ev)
		}
		if err := lanes.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if len(windows) != round*sessions {
		b.Fatalf("timed %d questions, want %d", len(windows), round*sessions)
	}
	slices.Sort(windows)
	ms := func(q float64) float64 {
		return float64(windows[int(q*float64(len(windows)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.5), "ms-p50")
	b.ReportMetric(ms(0.99), "ms-p99")
	b.ReportMetric(ms(1), "ms-max")

}

// windowClient is a Bot API client of a fake Telegram on loopback holding
// testChat, with an idle connection for every call the Outbox has in flight.
func windowClient(b *testing.B, token string) *tgbot.Bot {
	srv := telegramtest.NewServer(token)
	b.Cleanup(srv.Close)
	if err := srv.AddChat(testChat, telegramtest.ChatSupergroup); err != nil {
		b.Fatal(err)
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 2 * telegram.DefaultOutboxMaxInFlight}
	b.Cleanup(transport.CloseIdleConnections)
	tb, err := tgbot.New(token, tgbot.WithServerURL(srv.URL), tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(time.Second, &http.Client{Timeout: 10 * time.Second, Transport: transport}))
	if err != nil {
		b.Fatal(err)
	}
	return tb
}

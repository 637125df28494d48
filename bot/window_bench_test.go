package bot

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// postedAt records when each Post returned, by place.
type postedAt struct {
	*frontendtest.Frontend
	mu sync.Mutex
	at map[pending.Place]time.Time
}

func (p *postedAt) Post(ctx context.Context, r frontend.Request) (pending.Place, error) {
	at, err := p.Frontend.Post(ctx, r)
	if err == nil {
		p.mu.Lock()
		p.at[at] = time.Now()
		p.mu.Unlock()
	}
	return at, err
}

// BenchmarkDuplicateWindow measures the window in which a crash makes the
// next start post a question again: from the front-end's Post returning
// to the question stored, with its place, on disk. 50 sessions ask at
// once, through the lanes and a store on disk, as in cmd/hermes-bot.
// (The Telegram front-end's Outbox has its own BenchmarkOutboxBurst.)
func BenchmarkDuplicateWindow(b *testing.B) {
	const sessions = 50
	fe := &postedAt{Frontend: frontendtest.New("test"), at: make(map[pending.Place]time.Time)}
	store, err := pending.Open(filepath.Join(b.TempDir(), "pending.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	br := NewBridge(Config{Servers: map[string]Opencode{"": &fakeOpencode{}}}, store, []frontend.Frontend{fe}, zerolog.Nop())
	var mu sync.Mutex
	var windows []time.Duration
	br.stored = func(e *pending.Entry) {
		now := time.Now()
		fe.mu.Lock()
		at, ok := fe.at[e.Places[fe.Name()]]
		fe.mu.Unlock()
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

package daemon

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

type countingSweeper struct {
	expired, resent atomic.Int32
	resentTwice     chan struct{}
}

func (s *countingSweeper) ExpireDue(context.Context) error { s.expired.Add(1); return nil }

func (s *countingSweeper) SendUnsent(context.Context) error {
	if s.resent.Add(1) == 2 {
		close(s.resentTwice)
	}
	return nil
}

func TestExpireLoopAlsoResendsUnsent(t *testing.T) {
	s := &countingSweeper{resentTwice: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var settled atomic.Int32
	go func() {
		defer close(done)
		expireLoop(ctx, s, time.Millisecond, 5*time.Millisecond, func() { settled.Add(1) }, zerolog.Nop())
	}()
	select {
	case <-s.resentTwice:
	case <-time.After(30 * time.Second):
		t.Fatal("unsent requests were never retried")
	}
	cancel()
	<-done
	if e, r := s.expired.Load(), s.resent.Load(); e <= r {
		t.Fatalf("ExpireDue ran %d times, SendUnsent %d: the resend must be rarer than the sweep", e, r)
	}
	if e, n := s.expired.Load(), settled.Load(); n != e {
		t.Errorf("ExpireDue ran %d times, settle %d: want the store's pages handed back after every sweep", e, n)
	}
	if got := sweepInterval(time.Hour); got != 30*time.Second {
		t.Errorf("sweepInterval(1h) = %s, want 30s", got)
	}
	if got := sweepInterval(3 * time.Second); got != 1500*time.Millisecond {
		t.Errorf("sweepInterval(3s) = %s, want 1.5s", got)
	}
}

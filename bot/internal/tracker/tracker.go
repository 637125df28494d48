// Package tracker counts the goroutines a component started, so that
// shutdown can wait for them; the bot packages share it.
package tracker

import (
	"context"
	"fmt"
	"sync"
)

// Tracker counts running handlers so shutdown can wait for them. Unlike a
// sync.WaitGroup it allows add while a wait is in progress, which happens
// when an update arrives just as polling stops.
type Tracker struct {
	mu   sync.Mutex
	n    int
	idle chan struct{}
}

// Add counts one more handler running.
func (t *Tracker) Add() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
}

// Done counts one handler less.
func (t *Tracker) Done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 {
		close(t.idle)
	}
}

// Wait returns when no handler runs, or ctx's error when ctx ends first.
func (t *Tracker) Wait(ctx context.Context) error {
	t.mu.Lock()
	if t.n == 0 {
		t.mu.Unlock()
		return nil
	}
	idle, n := t.idle, t.n
	t.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for %d running handlers: %w", n, ctx.Err())
	}
}

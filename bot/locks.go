package bot

import (
	"context"
	"fmt"
	"sync"
)

// keyedMutex is one mutex per key (an entry UID), created on demand and
// dropped when nobody holds or waits for it. Locking honours a context, so
// a press can give up instead of waiting for another answer to be sent.
type keyedMutex struct {
	mu    sync.Mutex
	locks map[string]*keyLock
}

type keyLock struct {
	// ch holds a token while the lock is held.
	ch   chan struct{}
	refs int
}

// lock takes the lock of key, or returns ctx's error if ctx ends first.
// The returned unlock must be called exactly once.
func (k *keyedMutex) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	l := k.locks[key]
	if l == nil {
		l = &keyLock{ch: make(chan struct{}, 1)}
		k.locks[key] = l
	}
	l.refs++
	k.mu.Unlock()

	release := func() {
		k.mu.Lock()
		l.refs--
		if l.refs == 0 {
			delete(k.locks, key)
		}
		k.mu.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
	case <-ctx.Done():
		release()
		return nil, fmt.Errorf("lock %s: %w", key, ctx.Err())
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.ch
			release()
		})
	}, nil
}

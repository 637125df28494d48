package opencode

import (
	"sync"
	"time"
)

// WatchState is what Watch last knew of its connection to opencode, for a
// status report. The zero value means Watch has not connected or failed
// yet.
type WatchState struct {
	// Connected is true while the event stream is up.
	Connected bool
	// Since is when the stream came up, while Connected; otherwise when
	// it was lost (the first failure since the last connect). Zero before
	// the first attempt ended.
	Since time.Time
	// Version is the server version /global/health reported at the last
	// connect; empty if it never answered.
	Version string
	// Generation is 1 for opencode 1.x, 2 for OpenCode 2, as the last
	// connect's probe found; 0 before one succeeded.
	Generation int
	// LastError names the class of the last failure ("unauthorized",
	// "unsupported", "transient", "silent", "not_found", "not_accepted",
	// "other"), empty
	// if none; LastErrorAt is when it happened. Kept after a reconnect.
	LastError   string
	LastErrorAt time.Time
	// Connects counts the connections made since the Client was created;
	// every one after the first is a reconnect. Events counts the records
	// read from the stream (heartbeats included), for metrics.
	Connects, Events uint64
}

// watchState records WatchState; Watch writes it, State reads it from any
// goroutine.
type watchState struct {
	mu sync.Mutex
	s  WatchState
}

func (w *watchState) connected(at time.Time, version string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.s.Connected, w.s.Since = true, at
	w.s.Connects++
	if version != "" {
		w.s.Version = version
	}
}

func (w *watchState) event() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.s.Events++
}

func (w *watchState) failed(at time.Time, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.s.Connected || w.s.Since.IsZero() {
		w.s.Since = at
	}
	w.s.Connected = false
	w.s.LastError, w.s.LastErrorAt = errorClass(err), at
}

// State returns what Watch last knew of the event stream: whether it is up
// and since when, the server's version, and the last failure's class. Safe
// for concurrent use.
func (c *Client) State() WatchState {
	c.state.mu.Lock()
	s := c.state.s
	c.state.mu.Unlock()
	s.Generation = c.Generation()
	return s
}

package opencode

import "time"

// WithClock sets the clock the watcher's log limiter reads, so a test can
// let minutes pass between reconnects.
func WithClock(now func() time.Time) ClientOption {
	return func(c *Client) { c.now = now }
}

// SetGeneration makes c act as if Probe had found generation g, so the
// calls of OpenCode 2 can be tested before Probe accepts it.
func SetGeneration(c *Client, g int) { c.gen.Store(int32(g)) }

package opencode

import "time"

// WithClock sets the clock the watcher's log limiter reads, so a test can
// let minutes pass between reconnects.
func WithClock(now func() time.Time) ClientOption {
	return func(c *Client) { c.now = now }
}

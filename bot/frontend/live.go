package frontend

import (
	"context"
	"time"
)

// LiveStatus is what a busy session is doing, for a front-end that
// shows a long turn is alive (HERMES_LIVE_STATUS).
type LiveStatus struct {
	Server, Directory, SessionID string
	// Tool and Argument are the current step: the tool running and its
	// short argument; "" before the first.
	Tool, Argument string
	// Busy is when the session went busy; At is now, by the core's clock.
	Busy, At time.Time
	// Steps is how many model steps ended; Tokens and Cost are their sum
	// (Cost in US dollars, 0 when the provider has no prices).
	Steps  int
	Tokens int64
	Cost   float64
	// Done says the session went idle: the last status of this turn.
	Done bool
	// Unfollowed, with Done, says hermes-bot stops following the turn
	// (it shuts down), which may still run.
	Unfollowed bool
}

// Elapsed is how long the turn has run.
func (s LiveStatus) Elapsed() time.Duration { return s.At.Sub(s.Busy) }

// LiveShower is a Frontend that shows live status. The core hands it
// every change of a busy session, in order per session, and Done once;
// pacing what it shows is the front-end's. A front-end without it shows
// none.
type LiveShower interface {
	LiveStatus(ctx context.Context, s LiveStatus)
}

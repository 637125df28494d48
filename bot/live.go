package bot

import (
	"context"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// Live status: the turn's progress events (opencode.WithLiveStatus) are
// summed per busy session and handed to the front-ends that show them.
// The lanes hand one session's events in order, so only the map needs
// the lock.

type liveKey struct{ server, session string }

// liveEvent handles an event of a turn's progress; it reports whether ev
// was one.
func (b *Bridge) liveEvent(ctx context.Context, ev opencode.Event) bool {
	var key liveKey
	switch {
	case ev.Status != nil:
		key = liveKey{ev.Server, ev.Status.SessionID}
	case ev.ToolStep != nil:
		key = liveKey{ev.Server, ev.ToolStep.SessionID}
	case ev.StepFinished != nil:
		key = liveKey{ev.Server, ev.StepFinished.SessionID}
	default:
		return false
	}
	if key.session == "" {
		return true
	}
	now := b.now()
	b.liveMu.Lock()
	s, busy := b.live[key]
	switch {
	case ev.Status != nil && ev.Status.Type == "idle":
		if !busy {
			b.liveMu.Unlock()
			return true
		}
		delete(b.live, key)
		s.Done = true
	case !busy:
		if ev.Status == nil || ev.Status.Type != "busy" {
			// Progress of a turn that started before we watched: shown
			// from its next busy.
			b.liveMu.Unlock()
			return true
		}
		s = frontend.LiveStatus{Server: ev.Server, Directory: ev.Directory, SessionID: key.session, Busy: now}
	case ev.ToolStep != nil:
		t := ev.ToolStep
		if t.Tool != "" && (t.Status == "pending" || t.Status == "running") {
			s.Tool, s.Argument = t.Tool, t.Argument
		}
	case ev.StepFinished != nil:
		s.Steps++
		s.Tokens += ev.StepFinished.Tokens.Total()
		s.Cost += ev.StepFinished.Cost
	}
	s.At = now
	if !s.Done {
		if b.live == nil {
			b.live = map[liveKey]frontend.LiveStatus{}
		}
		b.live[key] = s
	}
	b.liveMu.Unlock()
	for _, fe := range b.fes {
		if ls, ok := fe.(frontend.LiveShower); ok {
			ls.LiveStatus(ctx, s)
		}
	}
	return true
}

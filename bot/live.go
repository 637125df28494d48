package bot

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/rs/zerolog"

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
		b.live[key] = s
	}
	b.liveMu.Unlock()
	b.showLive(ctx, s)
	return true
}

// showLive hands s to the front-ends that show live status.
func (b *Bridge) showLive(ctx context.Context, s frontend.LiveStatus) {
	for _, fe := range b.fes {
		if ls, ok := fe.(frontend.LiveShower); ok {
			ls.LiveStatus(ctx, s)
		}
	}
}

// liveCheckTimeout bounds the one busy check a snapshot makes, so a slow
// opencode does not hold up the listing.
const liveCheckTimeout = 5 * time.Second

// liveSnapshot ends the live status of each session snapshot s covers
// that opencode no longer runs: its idle came while the stream was down.
// A failed check ends none; the next connect checks again.
func (b *Bridge) liveSnapshot(ctx context.Context, log zerolog.Logger, s opencode.Snapshot) {
	var keys []liveKey
	b.liveMu.Lock()
	for k, st := range b.live {
		if k.server == s.Server && (k.session == s.SessionID || s.SessionID == "" && st.Directory == s.Directory) {
			keys = append(keys, k)
		}
	}
	b.liveMu.Unlock()
	if len(keys) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, liveCheckTimeout)
	busy, err := b.opencodeOf(s.Server).BusySessions(cctx, s.Directory)
	cancel()
	if err != nil {
		if ctx.Err() == nil { // not the shutdown
			log.Warn().Err(fmt.Errorf("busy sessions %s: %w", s.Directory, err)).Int("live", len(keys)).
				Msg("live status: could not tell which sessions still run; their status stays until their idle or the next connect")
		}
		return
	}
	now := b.now()
	var done []frontend.LiveStatus
	b.liveMu.Lock()
	for _, k := range keys {
		st, ok := b.live[k]
		if !ok || busy[k.session] {
			continue
		}
		delete(b.live, k)
		st.At, st.Done = now, true
		done = append(done, st)
	}
	b.liveMu.Unlock()
	for _, st := range done {
		log.Debug().Str("sessionID", st.SessionID).Msg("live status: the session went idle while the stream was down; its status ends")
		b.showLive(ctx, st)
	}
}

// EndLive ends every live status as no longer followed. The daemon calls
// it at shutdown: a restart forgets them, and would leave each "working".
func (b *Bridge) EndLive(ctx context.Context) {
	b.liveMu.Lock()
	all := slices.SortedFunc(maps.Values(b.live), func(x, y frontend.LiveStatus) int {
		return cmp.Or(cmp.Compare(x.Server, y.Server), cmp.Compare(x.SessionID, y.SessionID))
	})
	clear(b.live)
	b.liveMu.Unlock()
	now := b.now()
	for _, s := range all {
		s.At, s.Done, s.Unfollowed = now, true, true
		b.showLive(ctx, s)
	}
}

// LiveSessions returns the sessions of server with a live status, so an
// OpenCode 2 connect lists them and liveSnapshot sees their end.
func (b *Bridge) LiveSessions(server string) []string {
	b.liveMu.Lock()
	defer b.liveMu.Unlock()
	var ids []string
	for k := range b.live {
		if k.server == server {
			ids = append(ids, k.session)
		}
	}
	slices.Sort(ids)
	return ids
}

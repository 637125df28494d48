package bot

import (
	"context"
	"sync"

	"github.com/hermes-bot/hermes-bot/bot/internal/tracker"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// DefaultLaneBacklog is how many events Lanes holds, queued or being
// handled, across all sessions before HandleEvent waits: enough for a
// burst of every session of a busy server asking at once, small enough
// that a stalled Telegram slows the reading of the stream instead of
// growing memory without bound.
const DefaultLaneBacklog = 1024

// EventHandler is what Lanes hands events to; *Bridge is one.
type EventHandler interface {
	HandleEvent(ctx context.Context, ev opencode.Event)
	HandleSnapshot(ctx context.Context, s opencode.Snapshot)
}

var (
	_ EventHandler     = (*Bridge)(nil)
	_ opencode.Handler = (*Lanes)(nil)
)

// Lanes lets the requests of different opencode sessions be handled at
// the same time. The watcher hands events over one at a time, and a
// question costs a store write and a Telegram round trip or two: handled
// in stream order, the hundredth session to ask in a burst would wait for
// the ninety-nine before it.
//
// Each session has a lane: its events are handled one at a time, in
// stream order, so a request's asked and replied events, or a session's
// questions and its idle notice, never overtake each other. Events that
// name no session (server.connected) share one lane of their own.
// HandleSnapshot first waits until every lane is idle, so a snapshot
// sees the store as the events before it left it, as it would without
// lanes.
//
// Lanes is an opencode.Handler; Watch calls HandleEvent and
// HandleSnapshot from one goroutine. Wait, at shutdown,
// may be called from another once Watch has returned.
type Lanes struct {
	h EventHandler
	// slots holds a token per event queued or being handled.
	slots chan struct{}

	mu    sync.Mutex
	lanes map[string][]opencode.Event // a session's lane exists while it has a goroutine
	// running counts the lanes' goroutines.
	running tracker.Tracker
}

// NewLanes returns Lanes handing events to h, holding at most backlog
// events (DefaultLaneBacklog if backlog ≤ 0) before HandleEvent waits.
func NewLanes(h EventHandler, backlog int) *Lanes {
	if backlog <= 0 {
		backlog = DefaultLaneBacklog
	}
	return &Lanes{h: h, slots: make(chan struct{}, backlog), lanes: make(map[string][]opencode.Event)}
}

// HandleEvent queues ev on its session's lane and returns, unless the
// backlog is full: then it waits for room, or for ctx to end, when the
// event is dropped (at shutdown: what it announced is listed again at the
// next start).
func (l *Lanes) HandleEvent(ctx context.Context, ev opencode.Event) {
	select {
	case l.slots <- struct{}{}:
	default:
		select {
		case l.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
	key := laneKey(ev)
	l.mu.Lock()
	defer l.mu.Unlock()
	q, running := l.lanes[key]
	l.lanes[key] = append(q, ev)
	if running {
		return
	}
	l.running.Add()
	go l.run(ctx, key)
}

// run handles key's events until its lane is empty.
func (l *Lanes) run(ctx context.Context, key string) {
	for {
		l.mu.Lock()
		q := l.lanes[key]
		if len(q) == 0 {
			delete(l.lanes, key)
			l.mu.Unlock()
			l.running.Done()
			return
		}
		ev := q[0]
		q[0] = opencode.Event{}
		l.lanes[key] = q[1:]
		l.mu.Unlock()
		l.h.HandleEvent(ctx, ev)
		<-l.slots
	}
}

// HandleSnapshot waits until every event handed over before it has been
// handled, then hands s to the handler. If ctx ends first, s is dropped.
func (l *Lanes) HandleSnapshot(ctx context.Context, s opencode.Snapshot) {
	if l.Wait(ctx) != nil {
		return
	}
	l.h.HandleSnapshot(ctx, s)
}

// Wait blocks until every event handed over has been handled, or ctx
// ends.
func (l *Lanes) Wait(ctx context.Context) error {
	return l.running.Wait(ctx)
}

// laneKey is the session an event belongs to; "" for server-wide events.
// A session ID is unique across the directories of a server, so with the
// server's name it names the lane: two servers may share a session ID.
func laneKey(ev opencode.Event) string {
	if ev.Server == "" {
		return ev.SessionID()
	}
	return ev.Server + "\x00" + ev.SessionID()
}

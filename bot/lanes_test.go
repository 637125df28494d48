package bot

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// laneHandler records what Lanes hands it. An event whose ID is in block
// waits in HandleEvent until that channel is closed.
type laneHandler struct {
	block map[string]chan struct{}

	mu       sync.Mutex
	handled  []string // event IDs, in the order handling finished
	started  map[string]chan struct{}
	inFlight map[string]int // per session
	busy     int            // events being handled, all sessions
	overlaps []string
	snaps    []string
}

func newLaneHandler(blocked ...string) *laneHandler {
	h := &laneHandler{block: make(map[string]chan struct{}), started: make(map[string]chan struct{}), inFlight: make(map[string]int)}
	for _, id := range blocked {
		h.block[id] = make(chan struct{})
		h.started[id] = make(chan struct{})
	}
	return h
}

func (h *laneHandler) HandleEvent(ctx context.Context, ev opencode.Event) {
	key := laneKey(ev)
	h.mu.Lock()
	h.inFlight[key]++
	h.busy++
	if h.inFlight[key] > 1 {
		h.overlaps = append(h.overlaps, ev.ID)
	}
	h.mu.Unlock()
	if c, ok := h.started[ev.ID]; ok {
		close(c)
	}
	if c, ok := h.block[ev.ID]; ok {
		<-c
	}
	h.mu.Lock()
	h.inFlight[key]--
	h.busy--
	h.handled = append(h.handled, ev.ID)
	h.mu.Unlock()
}

func (h *laneHandler) HandleSnapshot(ctx context.Context, s opencode.Snapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.busy > 0 {
		s.Directory += " (while events were being handled)"
	}
	h.snaps = append(h.snaps, s.Directory)
}

func (h *laneHandler) record() (handled, overlaps, snaps []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.handled...), append([]string(nil), h.overlaps...), append([]string(nil), h.snaps...)
}

func asked(id, session string) opencode.Event {
	return opencode.Event{ID: id, Type: opencode.TypeQuestionAsked, QuestionAsked: &opencode.QuestionRequest{ID: id, SessionID: session}}
}

func waitLanes(t *testing.T, l *Lanes) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.Wait(ctx); err != nil {
		t.Fatalf("lanes did not drain: %v", err)
	}
}

func TestLanesKeepSessionOrder(t *testing.T) {
	h := newLaneHandler()
	l := NewLanes(h, 0)
	ctx := context.Background()
	var want []string
	for i := range 50 {
		id := fmt.Sprintf("que_%02d", i)
		want = append(want, id)
		l.HandleEvent(ctx, asked(id, "ses_one"))
	}
	// Every kind of event of the session joins its lane.
	l.HandleEvent(ctx, opencode.Event{ID: "replied", Type: opencode.TypeQuestionReplied, QuestionReplied: &opencode.QuestionReplied{SessionID: "ses_one"}})
	l.HandleEvent(ctx, opencode.Event{ID: "idle", Type: opencode.TypeSessionIdle, SessionIdle: &opencode.SessionIdle{SessionID: "ses_one"}})
	want = append(want, "replied", "idle")
	waitLanes(t, l)

	handled, overlaps, _ := h.record()
	if fmt.Sprint(handled) != fmt.Sprint(want) {
		t.Errorf("handled %v, want stream order %v", handled, want)
	}
	if len(overlaps) > 0 {
		t.Errorf("events of one session handled at the same time: %v", overlaps)
	}
}

func TestLanesRunSessionsConcurrently(t *testing.T) {
	h := newLaneHandler("slow")
	l := NewLanes(h, 0)
	ctx := context.Background()
	l.HandleEvent(ctx, asked("slow", "ses_a"))
	l.HandleEvent(ctx, asked("after-slow", "ses_a"))
	<-h.started["slow"]
	for i := range 5 {
		l.HandleEvent(ctx, asked(fmt.Sprintf("b%d", i), fmt.Sprintf("ses_b%d", i)))
	}
	// Server-wide events have a lane of their own.
	l.HandleEvent(ctx, opencode.Event{ID: "connected", Type: opencode.TypeServerConnected})

	// While ses_a's first event is held, every other session's goes
	// through; ses_a's second waits behind its first.
	deadline := time.After(10 * time.Second)
	for {
		handled, _, _ := h.record()
		if len(handled) == 6 {
			for _, id := range handled {
				if id == "after-slow" {
					t.Fatalf("ses_a's second event overtook its first: %v", handled)
				}
			}
			break
		}
		select {
		case <-deadline:
			t.Fatalf("other sessions waited behind a blocked one: handled %v", handled)
		case <-time.After(5 * time.Millisecond):
		}
	}
	close(h.block["slow"])
	waitLanes(t, l)
	handled, overlaps, _ := h.record()
	if n := len(handled); n != 8 || handled[n-2] != "slow" || handled[n-1] != "after-slow" {
		t.Errorf("handled %v, want the 6 others then slow, after-slow", handled)
	}
	if len(overlaps) > 0 {
		t.Errorf("events of one session handled at the same time: %v", overlaps)
	}
}

func TestLanesSnapshotWaitsForEvents(t *testing.T) {
	h := newLaneHandler("slow")
	l := NewLanes(h, 0)
	ctx := context.Background()
	l.HandleEvent(ctx, asked("slow", "ses_a"))
	<-h.started["slow"]
	// The release comes later than an implementation that did not wait
	// would need to hand the snapshot over; a waiting one passes however
	// late it comes.
	release := time.AfterFunc(50*time.Millisecond, func() { close(h.block["slow"]) })
	defer release.Stop()
	l.HandleSnapshot(ctx, opencode.Snapshot{Directory: "/p"})

	handled, _, snaps := h.record()
	if fmt.Sprint(snaps) != "[/p]" {
		t.Errorf("snapshots %q, want [/p] handed over once no event was in hand", snaps)
	}
	if fmt.Sprint(handled) != "[slow]" {
		t.Errorf("handled %v before the snapshot, want [slow]", handled)
	}
}

func TestLanesBacklogWaitsAndDropsAtShutdown(t *testing.T) {
	h := newLaneHandler("first")
	l := NewLanes(h, 1)
	l.HandleEvent(context.Background(), asked("first", "ses_a"))
	<-h.started["first"]

	// The backlog is full: a stopping watcher does not wait for room.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l.HandleEvent(ctx, asked("dropped", "ses_b"))

	// Wait gives up with its ctx while an event is in hand.
	if err := l.Wait(ctx); err == nil {
		t.Error("Wait returned nil with an event still being handled")
	}
	// A snapshot is not handed over on a stopping watcher's ctx.
	l.HandleSnapshot(ctx, opencode.Snapshot{Directory: "/p"})

	close(h.block["first"])
	waitLanes(t, l)
	// Room again: the next event is taken.
	l.HandleEvent(context.Background(), asked("later", "ses_b"))
	waitLanes(t, l)
	handled, _, snaps := h.record()
	if fmt.Sprint(handled) != "[first later]" {
		t.Errorf("handled %v, want [first later] (the event offered on a done ctx with no room dropped)", handled)
	}
	if len(snaps) != 0 {
		t.Errorf("snapshot handed over on a done ctx: %v", snaps)
	}
}

func TestLaneKey(t *testing.T) {
	for _, tc := range []struct {
		ev   opencode.Event
		want string
	}{
		{asked("q", "s1"), "s1"},
		{opencode.Event{Type: opencode.TypeQuestionRejected, QuestionRejected: &opencode.QuestionRejected{SessionID: "s2"}}, "s2"},
		{opencode.Event{Type: opencode.TypePermissionAsked, PermissionAsked: &opencode.PermissionRequest{SessionID: "s3"}}, "s3"},
		{opencode.Event{Type: opencode.TypePermissionReplied, PermissionReplied: &opencode.PermissionReplied{SessionID: "s4"}}, "s4"},
		{opencode.Event{Type: opencode.TypeSessionError, SessionError: &opencode.SessionError{SessionID: "s5"}}, "s5"},
		{opencode.Event{Type: opencode.TypeSessionError}, ""},
		{opencode.Event{Type: opencode.TypeServerConnected}, ""},
		{opencode.Event{Type: "no.such.type"}, ""},
	} {
		if got := laneKey(tc.ev); got != tc.want {
			t.Errorf("laneKey(%+v) = %q, want %q", tc.ev, got, tc.want)
		}
	}
}

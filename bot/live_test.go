package bot

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
)

func liveEv(server string, s *opencode.SessionStatus, t *opencode.ToolStep, f *opencode.StepFinished) opencode.Event {
	return opencode.Event{Server: server, Directory: "/p", Type: "live", Status: s, ToolStep: t, StepFinished: f}
}

// A busy session's progress reaches every front-end that shows it: the
// current step, the time since busy, the steps' tokens and cost summed;
// idle ends it once. Progress before a busy is not shown.
func TestLiveStatusSummed(t *testing.T) {
	c := newChats(t)
	ctx := context.Background()
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := start
	c.b.now = func() time.Time { return clock }
	const ses = "ses_1"
	c.b.HandleEvent(ctx, liveEv("", nil, &opencode.ToolStep{SessionID: ses, Tool: "bash", Status: "running"}, nil))
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: ses, Type: "busy"}, nil, nil))
	clock = start.Add(3 * time.Second)
	c.b.HandleEvent(ctx, liveEv("", nil, &opencode.ToolStep{SessionID: ses, Tool: "bash", Status: "running", Argument: "go test ./..."}, nil))
	c.b.HandleEvent(ctx, liveEv("", nil, nil, &opencode.StepFinished{SessionID: ses, Tokens: opencode.Tokens{Input: 1000, Output: 200}, Cost: 0.01}))
	c.b.HandleEvent(ctx, liveEv("", nil, &opencode.ToolStep{SessionID: ses, Tool: "bash", Status: "completed", Argument: "ls"}, nil))
	c.b.HandleEvent(ctx, liveEv("", nil, nil, &opencode.StepFinished{SessionID: ses, Tokens: opencode.Tokens{Output: 300}, Cost: 0.02}))
	clock = start.Add(70 * time.Second)
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: ses, Type: "idle"}, nil, nil))
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: ses, Type: "idle"}, nil, nil))

	for name, got := range map[string]int{"a": len(c.a.Live()), "b": len(c.z.Live())} {
		if got != 6 {
			t.Errorf("front-end %s got %d statuses, want 6 (busy, step, 2 finished, completed step, idle)", name, got)
		}
	}
	live := c.a.Live()
	if len(live) == 0 {
		t.Fatal("no live status")
	}
	last := live[len(live)-1]
	if !last.Done || last.Tool != "bash" || last.Argument != "go test ./..." || last.Steps != 2 || last.Tokens != 1500 ||
		last.Cost < 0.0299 || last.Cost > 0.0301 || last.Elapsed() != 70*time.Second || last.SessionID != ses || last.Directory != "/p" {
		t.Errorf("last status = %+v", last)
	}
	for _, s := range live[:len(live)-1] {
		if s.Done {
			t.Errorf("done before idle: %+v", s)
		}
	}
	if live[0].Tool != "" || live[0].Elapsed() != 0 {
		t.Errorf("first status shows progress from before busy: %+v", live[0])
	}
}

// An idle missed while the stream was down ends the live status at the
// next connect's snapshot, once, when opencode no longer runs the
// session; a session still running, or a check that fails, keeps it.
func TestLiveStatusEndsAtSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name string
		snap opencode.Snapshot
		busy map[string]bool
		err  error
		// ended says the status ends; logs the warnings logged.
		ended bool
		logs  int
	}{
		{name: "idle", snap: opencode.Snapshot{Directory: "/p"}, ended: true},
		{name: "idle, OpenCode 2", snap: opencode.Snapshot{SessionID: "ses_1", Generation: 2}, busy: map[string]bool{"ses_2": true}, ended: true},
		{name: "still busy", snap: opencode.Snapshot{Directory: "/p"}, busy: map[string]bool{"ses_1": true}},
		{name: "check fails", snap: opencode.Snapshot{Directory: "/p"}, err: errors.New("connection refused"), logs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChats(t)
			ctx := context.Background()
			st := &fakeSteer{busy: tc.busy, err: tc.err}
			c.oc.steer = st
			var logs bytes.Buffer
			c.b.log = zerolog.New(&logs).Level(zerolog.WarnLevel)
			c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: "ses_1", Type: "busy"}, nil, nil))
			c.b.HandleSnapshot(ctx, tc.snap)
			// A snapshot of another directory or server ends nothing.
			c.b.HandleSnapshot(ctx, opencode.Snapshot{Directory: "/other"})
			c.b.HandleSnapshot(ctx, opencode.Snapshot{Server: "ci", Directory: "/p"})

			var done int
			for _, s := range c.a.Live() {
				if s.Done {
					done++
					if s.SessionID != "ses_1" || s.Directory != "/p" {
						t.Errorf("ended status = %+v", s)
					}
				}
			}
			want := map[bool]int{true: 1}[tc.ended]
			if done != want || len(c.z.Live()) != len(c.a.Live()) {
				t.Errorf("front-end a got %d Done statuses (b %d statuses, a %d), want %d", done, len(c.z.Live()), len(c.a.Live()), want)
			}
			if got := c.b.LiveSessions(""); (len(got) == 0) != tc.ended {
				t.Errorf("live sessions after the snapshot: %q", got)
			}
			lines := strings.Count(logs.String(), "\n")
			if lines != tc.logs || tc.logs > 0 && !strings.Contains(logs.String(), "connection refused") {
				t.Errorf("logged %d warnings, want %d:\n%s", lines, tc.logs, logs.String())
			}
			// Its idle, late, ends it no second time.
			c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: "ses_1", Type: "idle"}, nil, nil))
			if got := c.a.Live(); !got[len(got)-1].Done || len(got) != 2 {
				t.Errorf("statuses after the idle: %+v, want busy then one Done", got)
			}
		})
	}
}

// A snapshot with no live status matching asks opencode nothing.
func TestLiveSnapshotWithoutLiveAsksNothing(t *testing.T) {
	c := newChats(t)
	ctx := context.Background()
	c.oc.steer = &fakeSteer{err: errors.New("must not be called")}
	var logs bytes.Buffer
	c.b.log = zerolog.New(&logs).Level(zerolog.WarnLevel)
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: "ses_1", Type: "busy"}, nil, nil))
	c.b.HandleSnapshot(ctx, opencode.Snapshot{Directory: "/elsewhere"})
	c.b.HandleSnapshot(ctx, opencode.Snapshot{SessionID: "ses_9", Generation: 2})
	if logs.Len() != 0 {
		t.Errorf("logged:\n%s", logs.String())
	}
	if got := c.b.LiveSessions(""); len(got) != 1 {
		t.Errorf("live sessions: %q", got)
	}
}

// At shutdown every live status ends, said to be no longer followed; an
// idle after it ends nothing more.
func TestEndLive(t *testing.T) {
	c := newChats(t)
	ctx := context.Background()
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: "ses_1", Type: "busy"}, nil, nil))
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: "ses_2", Type: "busy"}, nil, nil))
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: "ses_2", Type: "idle"}, nil, nil))
	c.b.EndLive(ctx)
	c.b.HandleEvent(ctx, liveEv("", &opencode.SessionStatus{SessionID: "ses_1", Type: "idle"}, nil, nil))
	got := c.a.Live()
	if len(got) != 4 {
		t.Fatalf("statuses: %+v, want 2 busy, ses_2's idle, ses_1's end", got)
	}
	if last := got[3]; last.SessionID != "ses_1" || !last.Done || !last.Unfollowed {
		t.Errorf("status at shutdown = %+v", last)
	}
	if got[2].Unfollowed || !got[2].Done {
		t.Errorf("idle status = %+v", got[2])
	}
	if ids := c.b.LiveSessions(""); len(ids) != 0 {
		t.Errorf("live sessions after shutdown: %q", ids)
	}
}

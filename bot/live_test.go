package bot

import (
	"context"
	"testing"
	"time"

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

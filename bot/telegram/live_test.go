package telegram_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A long turn has one silent status message, edited with the latest step
// no more than once per 5 s (a change within that waits for its timer),
// and edited a last time, not deleted, when the session goes idle.
func TestTelegramLiveStatus(t *testing.T) {
	timers := &manualTimers{}
	clock := &fakeClock{now: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	r, _, ctx := startSteerRigWith(t, func(c *telegram.Config) {
		c.AfterFunc, c.Now = timers.AfterFunc, clock.Now
	}, ann.ID)
	const ses = "ses_live"
	event := func(s *opencode.SessionStatus, step *opencode.ToolStep, fin *opencode.StepFinished) {
		r.bridge.HandleEvent(ctx, opencode.Event{Directory: "/home/user/projects/demo", Type: "live", Status: s, ToolStep: step, StepFinished: fin})
	}
	step := func(arg string) {
		event(nil, &opencode.ToolStep{SessionID: ses, Tool: "bash", Status: "running", Argument: arg}, nil)
	}
	event(&opencode.SessionStatus{SessionID: ses, Type: "busy"}, nil, nil)
	sent := r.srv.RequestsFor("sendMessage")
	if len(sent) != 1 || sent[0].Params["disable_notification"] != "true" {
		t.Fatalf("status posts: %+v, want one without notification", sent)
	}
	status, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.FromBot && strings.Contains(m.PlainText, "working for") })
	if err != nil {
		t.Fatal(err)
	}
	edits := func() []string {
		var out []string
		for _, q := range r.srv.RequestsFor("editMessageText") {
			if q.Params["message_id"] == strconv.Itoa(status.ID) {
				out = append(out, q.Params["text"])
			}
		}
		return out
	}
	shows := func(want string) {
		t.Helper()
		m, ok := r.srv.Message(chatID, status.ID)
		if !ok || !strings.Contains(m.PlainText, want) {
			t.Fatalf("status message %q does not show %q", m.PlainText, want)
		}
	}

	// Within 5 s of the post: no edit, one timer for the latest.
	for i := 1; i <= 4; i++ {
		clock.add(time.Second)
		step("go test ./pkg" + strconv.Itoa(i))
	}
	timers.wait(ctx, t, 1)
	if got := edits(); len(got) != 0 || timers.count() != 1 {
		t.Fatalf("edits within 5 s: %d, timers %d", len(got), timers.count())
	}
	clock.add(time.Second)
	timers.fire()
	if got := edits(); len(got) != 1 {
		t.Fatalf("edits once due: %d, want 1", len(got))
	}
	shows("go test ./pkg4")

	// 5 s later a step shows at once; tokens and cost once reported.
	clock.add(5 * time.Second)
	event(nil, nil, &opencode.StepFinished{SessionID: ses, Tokens: opencode.Tokens{Input: 12000, Output: 345}, Cost: 0.042})
	if got := edits(); len(got) != 2 {
		t.Fatalf("edits after 5 s: %d, want 2", len(got))
	}
	shows("12.3k tokens · $0.04")
	clock.add(time.Second)
	step("go vet ./...")
	if got := edits(); len(got) != 2 {
		t.Fatalf("edits within 5 s of the last: %d, want 2", len(got))
	}

	// Idle: a last edit at once, the pending one dropped, nothing deleted.
	event(&opencode.SessionStatus{SessionID: ses, Type: "idle"}, nil, nil)
	timers.fire()
	if got := edits(); len(got) != 3 {
		t.Fatalf("edits in all: %d, want 3", len(got))
	}
	shows("turn done in")
	m, _ := r.srv.Message(chatID, status.ID)
	if strings.Contains(m.PlainText, "go vet") || !strings.Contains(m.PlainText, "12.3k tokens") {
		t.Errorf("final status %q", m.PlainText)
	}
	if n := len(r.srv.RequestsFor("deleteMessage")); n != 0 {
		t.Errorf("%d messages deleted", n)
	}
	if sent := r.srv.RequestsFor("sendMessage"); len(sent) != 1 {
		t.Errorf("%d messages sent, want the one status", len(sent))
	}
}

// At shutdown the status message of a turn still running says it is no
// longer followed, so no message says "working" after a restart.
func TestTelegramLiveStatusUnfollowedAtShutdown(t *testing.T) {
	clock := &fakeClock{now: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	r, _, ctx := startSteerRigWith(t, func(c *telegram.Config) {
		c.AfterFunc, c.Now = (&manualTimers{}).AfterFunc, clock.Now
	}, ann.ID)
	r.bridge.HandleEvent(ctx, opencode.Event{Directory: "/home/user/projects/demo", Type: "live",
		Status: &opencode.SessionStatus{SessionID: "ses_live", Type: "busy"}})
	status, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.FromBot && strings.Contains(m.PlainText, "working for") })
	if err != nil {
		t.Fatal(err)
	}
	r.bridge.EndLive(ctx)
	m, ok := r.srv.Message(chatID, status.ID)
	if !ok || !strings.Contains(m.PlainText, "no longer followed") || strings.Contains(m.PlainText, "working for") {
		t.Errorf("status message after shutdown: %q", m.PlainText)
	}
}

// TestTelegramLiveStatusEndedAfterCrash: a status message the last run
// left working (it crashed: no EndLive) is ended at the next start, once;
// one whose turn ended is not touched again.
func TestTelegramLiveStatusEndedAfterCrash(t *testing.T) {
	timers := &manualTimers{}
	clock := &fakeClock{now: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	r, _, ctx := startSteerRigWith(t, func(c *telegram.Config) {
		c.AfterFunc, c.Now = timers.AfterFunc, clock.Now
	}, ann.ID)
	event := func(ses string, s *opencode.SessionStatus, step *opencode.ToolStep) {
		r.bridge.HandleEvent(ctx, opencode.Event{Directory: "/home/user/projects/demo", Type: "live", Status: s, ToolStep: step})
	}
	posted := func(not int) telegramtest.Message {
		t.Helper()
		m, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
			return m.FromBot && m.ID != not && strings.Contains(m.PlainText, "working for")
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	event("ses_crashed", &opencode.SessionStatus{SessionID: "ses_crashed", Type: "busy"}, nil)
	crashed := posted(0)
	clock.add(6 * time.Second)
	event("ses_crashed", nil, &opencode.ToolStep{SessionID: "ses_crashed", Tool: "bash", Status: "running", Argument: "make test"})
	event("ses_ended", &opencode.SessionStatus{SessionID: "ses_ended", Type: "busy"}, nil)
	ended := posted(crashed.ID)
	event("ses_ended", &opencode.SessionStatus{SessionID: "ses_ended", Type: "idle"}, nil)
	editsOf := func(id int) int {
		n := 0
		for _, q := range r.srv.RequestsFor("editMessageText") {
			if q.Params["message_id"] == strconv.Itoa(id) {
				n++
			}
		}
		return n
	}
	endedEdits := editsOf(ended.ID)

	// The next start, on the same store, without the last run's EndLive.
	tb := newFakeBot(t, r.srv, token)
	next := telegram.New(telegram.Config{ChatID: chatID, AllowedUserIDs: []int64{ann.ID}, BotID: tb.ID(), Now: clock.Now},
		telegram.RedactTelegram(tb, telegram.NewRedactor(token)), r.store, zerolog.New(r.logs))
	next.EndOrphanedLive(ctx)
	m, ok := r.srv.Message(chatID, crashed.ID)
	if !ok || !strings.Contains(m.PlainText, "no longer followed") || strings.Contains(m.PlainText, "working for") {
		t.Errorf("status message the crash left, after the next start: %q", m.PlainText)
	}
	if got := editsOf(ended.ID); got != endedEdits {
		t.Errorf("the ended status message was edited %d more times at the next start", got-endedEdits)
	}
	crashedEdits := editsOf(crashed.ID)
	next.EndOrphanedLive(ctx)
	if got := editsOf(crashed.ID); got != crashedEdits {
		t.Errorf("a second start edited the ended message again (%d edits, want %d)", got, crashedEdits)
	}
}

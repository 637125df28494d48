package telegram_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// manualTimers is an AfterFunc that runs its calls when the test says.
type manualTimers struct {
	mu      sync.Mutex
	started int
	waiting []*manualTimer
	changed chan struct{}
}

type manualTimer struct {
	f       func()
	stopped bool
}

func (m *manualTimers) AfterFunc(_ time.Duration, f func()) func() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &manualTimer{f: f}
	m.started++
	m.waiting = append(m.waiting, t)
	if m.changed != nil {
		close(m.changed)
		m.changed = nil
	}
	return func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

func (m *manualTimers) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.started
}

// wait waits until n timers were started.
func (m *manualTimers) wait(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	for {
		m.mu.Lock()
		if m.started >= n {
			m.mu.Unlock()
			return
		}
		if m.changed == nil {
			m.changed = make(chan struct{})
		}
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("waiting for %d timers: %v", n, ctx.Err())
		}
	}
}

// fire runs the calls not stopped.
func (m *manualTimers) fire() {
	m.mu.Lock()
	var run []func()
	for _, t := range m.waiting {
		if !t.stopped {
			t.stopped = true
			run = append(run, t.f)
		}
	}
	m.waiting = nil
	m.mu.Unlock()
	for _, f := range run {
		f()
	}
}

// longText is n words, about 8·n characters.
func longText(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = "word" + string(rune('a'+i%26)) + "xy"
	}
	return strings.Join(words, " ")
}

// partsJoined is the text of the messages ids as the bot joins them.
func partsJoined(t *testing.T, srv *telegramtest.Server, ids []int) string {
	t.Helper()
	var texts []string
	for _, id := range ids {
		m, ok := srv.Message(chatID, id)
		if !ok {
			t.Fatalf("part %d not found", id)
		}
		texts = append(texts, m.PlainText)
	}
	return strings.Join(texts, "\n")
}

// A typed answer Telegram split in two reaches opencode as one, its
// parts joined by a line break, acknowledged on its first part.
func TestTelegramSplitTypedAnswer(t *testing.T) {
	timers := &manualTimers{}
	r, _, ctx := startSteerRigWith(t, func(c *telegram.Config) { c.AfterFunc = timers.AfterFunc }, ann.ID)
	_, prompt := typedPrompt(ctx, t, r, "que_1")
	ids, err := r.srv.SendLongText(chatID, ann, prompt.ID, longText(700))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 {
		t.Fatalf("sent in %d parts, want 2", len(ids))
	}
	want := partsJoined(t, r.srv, ids)
	if got := r.waitReplies(t, ctx, 1); len(got) != 1 || len(got[0]) != 1 || len(got[0][0]) != 1 || got[0][0][0] != want {
		t.Fatalf("replies = %d, want one of the joined text (%d bytes)", len(got), len(want))
	}
	if err := r.srv.WaitReaction(ctx, chatID, ids[0], "👍"); err != nil {
		t.Fatal(err)
	}
	if got := reactionsOn(t, r.srv, ids[1]); len(got) != 0 {
		t.Errorf("reactions on the second part: %q", got)
	}
}

// A text of long parts only waits for the window to pass: the timer
// ends it, and only then is it steered, as one prompt.
func TestTelegramSplitSteeringWaitsForWindow(t *testing.T) {
	timers := &manualTimers{}
	r, st, ctx := startSteerRigWith(t, func(c *telegram.Config) { c.AfterFunc = timers.AfterFunc }, ann.ID)
	notice := r.idle(ctx, t)
	ids, err := r.srv.SendLongText(chatID, ann, notice.ID, longText(1000))
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || len([]rune(partsJoined(t, r.srv, ids[1:]))) < 3000 {
		t.Fatalf("want two long parts, got %d", len(ids))
	}
	// Each part starts the wait anew.
	timers.wait(ctx, t, 2)
	if p, _ := st.calls(); len(p) != 0 {
		t.Fatalf("steered before the text ended: %d prompts", len(p))
	}
	timers.fire()
	if err := r.srv.WaitReaction(ctx, chatID, ids[0], "👍"); err != nil {
		t.Fatal(err)
	}
	if p, _ := st.calls(); len(p) != 1 || p[0] != "ses_parent: "+partsJoined(t, r.srv, ids) {
		t.Errorf("prompts: %d, want the joined text once", len(p))
	}
}

// Two people's messages are never joined: Bob's short reply right after
// Ann's long message (held for a next part) is a prompt of its own, and
// Ann's text goes once the wait ends.
func TestTelegramSplitNotJoinedAcrossPeople(t *testing.T) {
	timers := &manualTimers{}
	r, st, ctx := startSteerRigWith(t, func(c *telegram.Config) { c.AfterFunc = timers.AfterFunc }, ann.ID, bob.ID)
	notice := r.idle(ctx, t)
	ids, err := r.srv.SendLongText(chatID, ann, notice.ID, longText(450))
	if err != nil {
		t.Fatal(err)
	}
	bobs, err := r.srv.Reply(chatID, notice.ID, bob, "and stop after that")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, bobs, "👍"); err != nil {
		t.Fatal(err)
	}
	timers.wait(ctx, t, 1)
	timers.fire()
	if err := r.srv.WaitReaction(ctx, chatID, ids[0], "👍"); err != nil {
		t.Fatal(err)
	}
	p, _ := st.calls()
	want := map[string]bool{"ses_parent: and stop after that": true, "ses_parent: " + partsJoined(t, r.srv, ids): true}
	if len(p) != 2 || !want[p[0]] || !want[p[1]] || p[0] == p[1] {
		t.Errorf("prompts: %d %q…", len(p), p)
	}
}

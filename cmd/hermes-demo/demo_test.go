package main

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// startTestDemo runs a demo with no settings at all, as on a fresh clone,
// until the test ends, and checks then that it stopped cleanly and
// removed its temporary store.
func startTestDemo(t *testing.T) *demo {
	t.Helper()
	d, _ := startTestDemoWith(t, demoSettings{})
	return d
}

// startTestDemoWith is startTestDemo with s's heartbeat and opencode
// options; it returns hermes-bot's log too.
func startTestDemoWith(t *testing.T, s demoSettings) (*demo, *logSink) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &logSink{}
	// A long settle: a press's page then always shows the bot's answer,
	// whatever the machine's speed; the tests wait on the fakes anyway.
	d, err := startDemo(ctx, demoSettings{addr: "127.0.0.1:0", getenv: func(string) string { return "" },
		log: out, settle: 30 * time.Second, heartbeat: s.heartbeat, opencode: s.opencode})
	if err != nil {
		cancel()
		t.Fatalf("start the demo: %v", err)
	}
	if !strings.HasPrefix(d.URL, "http://127.0.0.1:") {
		t.Errorf("the page is at %s, want loopback", d.URL)
	}
	if _, err := os.Stat(d.tmpDir); err != nil {
		t.Errorf("no temporary store: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := d.Wait(); err != nil {
			t.Errorf("the demo stopped with %v", err)
		}
		if _, err := os.Stat(d.tmpDir); !os.IsNotExist(err) {
			t.Errorf("the temporary store %s is still there after the demo (%v)", d.tmpDir, err)
		}
		if t.Failed() {
			t.Logf("hermes-bot's log:\n%s", out)
		}
	})
	return d, out
}

// waitBot waits, on the fake Telegram, until a message of the bot
// satisfies pred; the page then shows it. Waiting on the fake, not on the
// page, keeps the test free of polling.
func waitBot(t *testing.T, d *demo, what string, pred func(telegramtest.Message) bool) telegramtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := d.tg.WaitMessage(ctx, demoChatID, func(m telegramtest.Message) bool { return m.FromBot && pred(m) })
	if err != nil {
		t.Fatalf("the bot never showed %s: %v", what, err)
	}
	return m
}

// waitReaction waits until the bot's reaction on the person's message
// text is emoji.
func waitReaction(ctx context.Context, t *testing.T, d *demo, text, emoji string) {
	t.Helper()
	if err := d.tg.Wait(ctx, func() bool {
		for _, m := range d.tg.History(demoChatID) {
			if !m.FromBot && m.Text == text && strings.Join(m.Reaction, "") == emoji {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the bot never reacted %s on %q: %v", emoji, text, err)
	}
}

// waitReplies waits until the fake opencode received n answers.
func waitReplies(t *testing.T, d *demo, n int) []opencodetest.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := d.oc.WaitReplies(ctx, n)
	if err != nil {
		t.Fatalf("the fake opencode received %d answers, want %d: %v", len(got), n, err)
	}
	return got
}

// TestDemoOverHTTP answers the four sample requests through the page, as
// a person with a browser would, and checks that each answer reaches the
// fake opencode and that the page shows it.
func TestDemoOverHTTP(t *testing.T) {
	d := startTestDemo(t)
	c := newPageClient(t)

	// 1. A question. Mallory, not on the allow-list, is refused.
	first := waitBot(t, d, "the first question", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Which database") && len(m.Keyboard) > 0
	})
	page := c.get(d.URL)
	msg := page.byID(t, first.ID)
	if !strings.Contains(msg.html, "<b>Database</b>") || strings.Contains(msg.text, "<b>") {
		t.Errorf("the question is not rendered from its HTML:\n%s", msg.html)
	}
	if !contains(page.panel, "waits for an answer", "which database") {
		t.Errorf("the opencode panel does not say what it waits for: %q", page.panel)
	}
	mallory, ok := page.actAs["Mallory (not on the allow-list)"]
	if !ok {
		t.Fatalf("the page offers no way to act as Mallory: %v", page.actAs)
	}
	page = c.get(page.url.ResolveReference(mustURL(t, mallory)).String())
	page = c.submit(page, page.byID(t, first.ID).button(t, "SQLite"), "")
	if !contains(page.activity, "Telegram shows Mallory", "not allowed") {
		t.Errorf("Mallory's press shows no refusal: %q", page.activity)
	}
	if n := len(d.oc.Replies()); n != 0 {
		t.Fatalf("Mallory's press reached opencode (%d answers)", n)
	}
	page = c.get(page.url.ResolveReference(mustURL(t, page.actAs["Alice (on the allow-list)"])).String())
	page = c.submit(page, page.byID(t, first.ID).button(t, "SQLite"), "")
	if got := waitReplies(t, d, 1)[0]; got.Kind != opencodetest.ReplyQuestion || !slices.Equal(got.Answers[0], []string{"SQLite"}) {
		t.Fatalf("opencode received %+v, want the answer SQLite", got)
	}
	waitBot(t, d, "the answered question", func(m telegramtest.Message) bool { return m.ID == first.ID && m.Keyboard == nil })
	page = c.get(page.url.String())
	if msg := page.byID(t, first.ID); len(msg.buttons) != 0 || !strings.Contains(msg.text, "Alice") || !strings.Contains(msg.text, "SQLite") {
		t.Errorf("the answered question does not show Alice's answer, or still has buttons:\n%s", page.dump())
	}
	if !contains(page.panel, "opencode received", "which database", "SQLite") {
		t.Errorf("the page does not show what opencode received: %q", page.panel)
	}

	// 2. A multiple-choice question: two options toggled, then Submit.
	multi := waitBot(t, d, "the multiple-choice question", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Which checks") && len(m.Keyboard) > 0
	})
	page = c.get(page.url.String())
	for i, label := range []string{"gofmt", "go test -race"} {
		page = c.submit(page, page.byID(t, multi.ID).button(t, label), "")
		waitBot(t, d, "the toggle of "+label, func(m telegramtest.Message) bool { return m.ID == multi.ID && m.Edits > i })
		page = c.get(page.url.String())
	}
	page = c.submit(page, page.byID(t, multi.ID).button(t, "Submit"), "")
	if got := waitReplies(t, d, 2)[1]; !slices.Equal(got.Answers[0], []string{"gofmt", "go test -race"}) {
		t.Fatalf("opencode received %+v, want gofmt and go test -race", got)
	}

	// 3. A typed answer: "Type an answer", then a reply to the prompt.
	typed := waitBot(t, d, "the question to type an answer to", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "What should the new table be called") && len(m.Keyboard) > 0
	})
	page = c.get(page.url.String())
	page = c.submit(page, page.byID(t, typed.ID).button(t, "Type an answer"), "")
	prompt := waitBot(t, d, "the force-reply prompt", func(m telegramtest.Message) bool { return m.ForceReply != nil })
	page = c.get(page.url.String())
	box := page.byID(t, prompt.ID).reply
	if box == nil {
		t.Fatalf("the force-reply prompt has no reply box:\n%s", page.dump())
	}
	const name = "orders_2026 & <archive>"
	page = c.submit(page, *box, name)
	if got := waitReplies(t, d, 3)[2]; !slices.Equal(got.Answers[0], []string{name}) {
		t.Fatalf("opencode received %+v, want the typed %q", got, name)
	}
	var mine *pageMessage // Alice's reply, as typed: escaped, not markup
	for _, m := range page.messages {
		if !m.fromBot && m.text == name {
			mine = &m
		}
	}
	if mine == nil || !strings.Contains(mine.html, "orders_2026 &amp; &lt;archive&gt;") {
		t.Errorf("the page does not show Alice's reply as typed:\n%s", page.dump())
	}

	// 4. A permission: allowed once.
	perm := waitBot(t, d, "the permission request", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "go test -race ./...") && len(m.Keyboard) > 0
	})
	page = c.get(page.url.String())
	page = c.submit(page, page.byID(t, perm.ID).button(t, "Allow once"), "")
	if got := waitReplies(t, d, 4)[3]; got.Kind != opencodetest.ReplyPermission || got.Reply != "once" {
		t.Fatalf("opencode received %+v, want the permission allowed once", got)
	}

	// The fake then starts over; the page lists all four answers.
	waitBot(t, d, "the second round", func(m telegramtest.Message) bool {
		return m.ID > perm.ID && strings.Contains(m.PlainText, "Which database")
	})
	page = c.get(page.url.String())
	if !contains(page.panel, "starts over", "round 2") {
		t.Errorf("the page does not say the fake opencode starts over: %q", page.panel)
	}
	for _, want := range [][]string{
		{"which database", "SQLite"}, {"which checks", "gofmt, go test -race"},
		{"table's name", name}, {"run the tests", "once"},
	} {
		if !contains(page.panel, append([]string{"opencode received"}, want...)...) {
			t.Errorf("the page does not show that opencode received %q: %q", want, page.panel)
		}
	}
}

// The demo's fake opencode sends heartbeats, as the real one does, so a
// page left idle logs no "event stream silent" warning: with a silence
// timeout of 1 s and a heartbeat every 50 ms, the bridge keeps its one
// stream through three timeouts' worth of heartbeats.
func TestDemoIdleIsNotSilent(t *testing.T) {
	d, out := startTestDemoWith(t, demoSettings{heartbeat: 50 * time.Millisecond,
		opencode: []opencode.ClientOption{opencode.WithSilenceTimeout(time.Second)}})
	waitBot(t, d, "the first question", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Which database") })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.oc.WaitHeartbeats(ctx, 60); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "silent") || d.oc.Connections() != 1 {
		t.Errorf("the idle demo reconnected (%d streams) or logged silence:\n%s", d.oc.Connections(), out)
	}
}

// Steering works in the demo: a reply to an answered question prompts its
// session, /sessions lists it, /new starts one in the demo's project; the
// fake finishes each turn (noticed for the new session, whose requests
// are not pending) and the page says what it received.
func TestDemoSteering(t *testing.T) {
	d := startTestDemo(t)
	c := newPageClient(t)
	first := waitBot(t, d, "the first question", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Which database") && len(m.Keyboard) > 0
	})
	page := c.get(d.URL)
	page = c.submit(page, page.byID(t, first.ID).button(t, "SQLite"), "")
	waitReplies(t, d, 1)
	waitBot(t, d, "the answered question", func(m telegramtest.Message) bool { return m.ID == first.ID && m.Keyboard == nil })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	page = c.get(page.url.String())
	compose := *page.compose
	compose.fields.Set("reply_to", strconv.Itoa(first.ID))
	page = c.submit(page, compose, "use WAL mode")
	ps, err := d.oc.WaitPrompts(ctx, 1)
	if err != nil || ps[0].SessionID != demoSession().ID || ps[0].Text != "use WAL mode" {
		t.Fatalf("opencode received %+v, %v; want the reply as a prompt to %s", ps, err, demoSession().ID)
	}
	// Taken and accepted: the bot reacts 👍 on the reply, and the page shows it.
	waitReaction(ctx, t, d, "use WAL mode", "👍")
	page = c.get(page.url.String())
	shown := false
	for _, m := range page.messages {
		shown = shown || (!m.fromBot && m.text == "use WAL mode" && m.reaction == "👍")
	}
	if !shown {
		t.Error("the page does not show the bot's 👍 under the reply")
	}

	compose.fields.Set("reply_to", "0")
	page = c.submit(page, compose, "/sessions")
	waitBot(t, d, "the session list", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, demoSession().Title) && len(m.Keyboard) > 0 && m.ReplyTo == 0
	})

	page = c.submit(page, compose, "/new")
	choose := waitBot(t, d, "the project choice", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "which project") && len(m.Keyboard) > 0
	})
	page = c.get(page.url.String())
	page = c.submit(page, page.byID(t, choose.ID).button(t, "shop"), "")
	ask := waitBot(t, d, "the prompt for the first words", func(m telegramtest.Message) bool { return m.ForceReply != nil })
	page = c.get(page.url.String())
	page = c.submit(page, *page.byID(t, ask.ID).reply, "write the README")
	ps, err = d.oc.WaitPrompts(ctx, 2)
	if err != nil || ps[1].SessionID == demoSession().ID || ps[1].Text != "write the README" {
		t.Fatalf("opencode received %+v, %v; want a prompt to a new session", ps, err)
	}
	waitReaction(ctx, t, d, "write the README", "👍")
	// The new session waits for nothing, so its finished turn is noticed.
	waitBot(t, d, "the finished notice", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Reply to this message") })
	page = c.get(page.url.String())
	if !contains(page.panel, "received the prompt", "use WAL mode") || !contains(page.panel, "received the prompt", "write the README") {
		t.Errorf("the page does not show the prompts opencode received: %q", page.panel)
	}
}

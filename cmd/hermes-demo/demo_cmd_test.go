package main

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestDemoCommand runs hermes-demo as a newcomer would, with a real
// bot's settings left in the environment: it prints one line with the
// page's address, the page shows the fake opencode's first question (so
// the real token and Telegram address were not used), and a cancel, as
// Ctrl-C, stops it cleanly.
func TestDemoCommand(t *testing.T) {
	env := map[string]string{
		"TELEGRAM_BOT_TOKEN": "5550001:SECRET-real-token",
		"TELEGRAM_API_URL":   "http://127.0.0.1:9", // nothing listens: using it would fail
		"TELEGRAM_CHAT_ID":   "-100555",
	}
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &logSink{}, &logSink{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, nil, func(k string) string { return env[k] }, nil, stdout, stderr)
	}()
	stopped := false
	defer func() {
		if !stopped {
			cancel()
			<-done
		}
	}()

	line := stdout.WaitLines(t, 1, "http://")[0]
	// The address holds the run's secret: 26 base32 characters, 130 bits.
	found := regexp.MustCompile(`http://127\.0\.0\.1:\d+/([A-Z2-7]{26})/`).FindStringSubmatch(line)
	if found == nil {
		t.Fatalf("the demo printed %q, want the page's loopback address with its secret", line)
	}
	addr, secret := found[0], found[1]
	if !strings.Contains(line, "Ctrl-C") {
		t.Errorf("the line does not say how to stop: %q", line)
	}
	u, err := url.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	c := newPageClient(t)
	var page *demoPage
	deadline := time.Now().Add(30 * time.Second)
	for page == nil || len(page.messages) == 0 {
		// The page is all a person has, with no event to wait on: read it
		// again until the bot's first message is there.
		if time.Now().After(deadline) {
			t.Fatalf("no message on the page after 30 s; log:\n%s", stderr)
		}
		page = c.get(u.String())
		if len(page.messages) == 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	page.message(t, "Which database")

	cancel()
	stopped = true
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the demo ended with %v after Ctrl-C", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the demo did not stop within 30 s of Ctrl-C")
	}
	if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 1 {
		t.Errorf("the demo printed %d lines, want one:\n%s", len(lines), stdout)
	}
	if strings.Contains(stdout.String()+stderr.String(), "SECRET") {
		t.Errorf("the demo's output shows the token of the environment:\n%s\n%s", stdout, stderr)
	}
	if strings.Count(stdout.String(), secret) != 1 || strings.Contains(stderr.String(), secret) {
		t.Errorf("the page's secret shows elsewhere than in the one address printed:\n%s\n%s", stdout, stderr)
	}
}

func TestDemoFlags(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:8080", ":8080"} {
		_, stderr, code := runCmd(t, nil, "--addr", addr)
		if code != 2 || !strings.HasPrefix(stderr, "hermes-demo: ") || !strings.Contains(stderr, "loopback") {
			t.Errorf("demo --addr %s: code %d, stderr %q; want 2 and a word about loopback", addr, code, stderr)
		}
	}
	// A store that cannot be opened is a setting to fix: exit 2, naming it.
	for _, db := range []string{"relative/pending.db", "/proc/nope/pending.db"} {
		_, stderr, code := runCmd(t, map[string]string{"HERMES_DB": db})
		if code != 2 || !strings.Contains(stderr, "HERMES_DB") {
			t.Errorf("demo with HERMES_DB=%s: code %d, stderr %q; want 2 naming HERMES_DB", db, code, stderr)
		}
	}
	stdout, stderr, code := runCmd(t, nil, "--help")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "go run ./cmd/hermes-demo") || !strings.Contains(stdout, "-addr") {
		t.Errorf("demo --help: code %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}

// TestDemoWithOpencodeURL: with OPENCODE_URL and its password set, the
// page shows that server's requests and the answers go to it; the
// password shows nowhere.
func TestDemoWithOpencodeURL(t *testing.T) {
	const password = "SECRET-oc-demo-pw"
	oc := opencodetest.NewServer(opencodetest.WithAuth("", password))
	t.Cleanup(oc.Close)
	oc.SetProjects([]opencode.Project{{ID: "app", Worktree: "/srv/app"}})
	env := map[string]string{"OPENCODE_URL": oc.URL, "OPENCODE_SERVER_PASSWORD": password}

	ctx, cancel := context.WithCancel(context.Background())
	log := &logSink{}
	d, err := startDemo(ctx, demoSettings{addr: "127.0.0.1:0", getenv: func(k string) string { return env[k] },
		log: log, settle: 30 * time.Second})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := d.Wait(); err != nil {
			t.Errorf("the demo stopped with %v", err)
		}
		if strings.Contains(log.String(), password) {
			t.Errorf("the log shows the opencode password:\n%s", log)
		}
	})
	if d.oc != nil {
		t.Fatal("the demo started its fake opencode although OPENCODE_URL was given")
	}

	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if err := oc.WaitConnections(wctx, 1); err != nil {
		t.Fatal(err)
	}
	oc.AddQuestion("/srv/app", testQuestion("que_real1", "ses_real", "Deploy to which region?"))
	m := waitBot(t, d, "the server's question", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Deploy to which region?") && len(m.Keyboard) > 0
	})
	c := newPageClient(t)
	page := c.get(d.URL)
	if !contains(page.panel, "opencode at "+oc.URL) {
		t.Errorf("the page does not say which opencode it shows: %q", page.panel)
	}
	page = c.submit(page, page.byID(t, m.ID).button(t, "beta"), "")
	got, err := oc.WaitReplies(wctx, 1)
	if err != nil || got[0].RequestID != "que_real1" || got[0].Answers[0][0] != "beta" {
		t.Fatalf("opencode received %+v (%v), want beta for que_real1", got, err)
	}
	for _, r := range oc.Requests() {
		if !r.Authorized {
			t.Errorf("%s %s went without the password", r.Method, r.Path)
		}
	}
	if strings.Contains(page.dump(), password) {
		t.Error("the page shows the opencode password")
	}
}

// TestDemoWithRealOpencode: pointed at a real opencode, the demo shows
// the agent's own question, and the answer pressed on the page reaches
// the model. Skipped, like the other end-to-end tests, where opencode
// cannot be had.
func TestDemoWithRealOpencode(t *testing.T) {
	t.Parallel()
	model := opencodetest.NewModel()
	t.Cleanup(model.Close)
	oc := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: model.URL})
	if oc == nil {
		return // skipped, saying why
	}
	env := map[string]string{"OPENCODE_URL": oc.URL, "OPENCODE_SERVER_USERNAME": oc.Username, "OPENCODE_SERVER_PASSWORD": oc.Password}
	ctx, cancel := context.WithCancel(context.Background())
	log := &logSink{}
	d, err := startDemo(ctx, demoSettings{addr: "127.0.0.1:0", getenv: func(k string) string { return env[k] },
		log: log, settle: 30 * time.Second})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := d.Wait(); err != nil {
			t.Errorf("the demo stopped with %v", err)
		}
		if t.Failed() {
			t.Logf("hermes-bot's log:\n%s", log)
		}
	})

	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer wcancel()
	session, err := oc.CreateSession(wctx)
	if err != nil {
		t.Fatal(err)
	}
	call := model.AskQuestion(opencodetest.QuestionArg{
		Question: "Which port should the shop listen on?", Header: "Port",
		Options: []opencodetest.OptionArg{{Label: "8080", Description: "the usual"}, {Label: "3000", Description: "node's"}},
	})
	if err := oc.Prompt(wctx, session, "start the shop"); err != nil {
		t.Fatal(err)
	}
	m := waitBot(t, d, "the agent's question", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Which port should the shop listen on?") && len(m.Keyboard) > 0
	})
	c := newPageClient(t)
	page := c.get(d.URL)
	c.submit(page, page.byID(t, m.ID).button(t, "3000"), "")
	result, err := model.WaitToolResult(wctx, call)
	if err != nil {
		t.Fatalf("the model never received the answer: %v", err)
	}
	if !strings.Contains(result, "3000") {
		t.Fatalf("the model was told %q, want 3000", result)
	}
}

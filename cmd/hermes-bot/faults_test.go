package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/hermes-bot/hermes-bot/cmd/internal/logsink"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// TestMain fails the package's tests if a goroutine outlives them. The
// tests here run hermes-bot in-process and stop it as a signal would, so
// this is the check that serve's shutdown leaves nothing running.
func TestMain(m *testing.M) {
	// Then, in a line go test shows without -v, whether the end-to-end
	// tests were skipped for want of opencode.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		opencodetest.AnnounceUnavailable("cmd/hermes-bot")
		os.Exit(code)
	}))
}

// These tests run hermes-bot in-process, through run, against the fake
// Telegram and the fake opencode, and break one thing at a time.

// The secrets are distinctive so that finding them in the output cannot be
// a coincidence (secrets_test.go looks for them).
const (
	faultToken    = "918273:SECRET-tg-Zq8vN3wLpRt5"
	faultPassword = "SECRET-oc-Kx7wQm2Hj9"
	faultChatID   = int64(-1001234567890)
	faultDir      = "/srv/projects/app"
	// hintPassword is in every log line about a refused opencode password.
	hintPassword = "wrong username or password"
)

var (
	dana = telegramtest.User{ID: 5150, FirstName: "Dana", Username: "dana"}
	eve  = telegramtest.User{ID: 6660, FirstName: "Eve", Username: "eve"}
)

// logSink is what a test reads the log of the process it runs in.
type logSink = logsink.Sink

// rig is a fake Telegram group, a fake opencode and the settings of a
// hermes-bot bridging them.
type rig struct {
	tg  *telegramtest.Server
	oc  *opencodetest.Server
	env map[string]string
}

func newRig(t *testing.T, tgOpts ...telegramtest.Option) *rig {
	t.Helper()
	tg := telegramtest.NewServer(faultToken, tgOpts...)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(faultChatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	oc := opencodetest.NewServer(opencodetest.WithAuth("", faultPassword))
	t.Cleanup(oc.Close)
	oc.SetProjects([]opencode.Project{{ID: "app", Worktree: faultDir}})
	home := t.TempDir()
	return &rig{tg: tg, oc: oc, env: map[string]string{
		"HOME":                      home,
		"TELEGRAM_BOT_TOKEN":        faultToken,
		"TELEGRAM_CHAT_ID":          fmt.Sprint(faultChatID),
		"TELEGRAM_ALLOWED_USER_IDS": fmt.Sprint(dana.ID),
		"TELEGRAM_API_URL":          tg.URL,
		"OPENCODE_URL":              oc.URL,
		"OPENCODE_SERVER_PASSWORD":  faultPassword,
		"HERMES_DB":                 filepath.Join(home, "state", "pending.db"),
		"HERMES_TELEGRAM_RATE":      "0",
		"HERMES_LOG_LEVEL":          "debug",
		"HERMES_LOG_FORMAT":         "json",
	}}
}

// with returns a copy of the settings with kv (key, value, …) changed.
func (r *rig) with(kv ...string) map[string]string {
	env := make(map[string]string, len(r.env))
	for k, v := range r.env {
		env[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	return env
}

// waitMessage waits for the bot's request message showing text.
func (r *rig) waitMessage(t *testing.T, text string) telegramtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := r.tg.WaitMessage(ctx, faultChatID, func(m telegramtest.Message) bool {
		return isRequest(m) && strings.Contains(m.PlainText, text)
	})
	if err != nil {
		t.Fatalf("no message with %q: %v", text, err)
	}
	return m
}

// posts counts the bot's request messages showing text.
func (r *rig) posts(text string) int {
	n := 0
	for _, m := range r.tg.Messages(faultChatID) {
		if isRequest(m) && strings.Contains(m.PlainText, text) {
			n++
		}
	}
	return n
}

// isRequest tells a request message from the prompts and notes the bot
// sends in reply to one.
func isRequest(m telegramtest.Message) bool {
	return m.FromBot && m.ForceReply == nil && m.ReplyTo == 0
}

func testQuestion(id, session, text string) opencode.QuestionRequest {
	return opencode.QuestionRequest{
		ID: id, SessionID: session,
		Questions: []opencode.Question{{Question: text, Header: "Pick",
			Options: []opencode.Option{{Label: "alpha"}, {Label: "beta"}}}},
		Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id},
	}
}

// instance is one hermes-bot running in-process.
type instance struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set when done is closed
	out    *logSink
}

// start runs hermes-bot with env until stop, or until the test ends.
func start(t *testing.T, env map[string]string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	in := &instance{cancel: cancel, done: make(chan struct{}), out: &logSink{}}
	go func() {
		defer close(in.done)
		in.err = run(ctx, nil, func(k string) string { return env[k] }, nil, in.out, in.out)
		exitCode(in.err, in.out)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-in.done:
		case <-time.After(30 * time.Second):
			t.Errorf("hermes-bot did not stop within 30s of the cancel")
		}
		if t.Failed() {
			t.Logf("hermes-bot output:\n%s", in.out)
		}
	})
	return in
}

// stop cancels the run, as SIGTERM does, and returns its error.
func (in *instance) stop(t *testing.T) error {
	t.Helper()
	in.cancel()
	return in.wait(t)
}

// wait waits for the run to end on its own, with a generous deadline.
func (in *instance) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-in.done:
		return in.err
	case <-time.After(30 * time.Second):
		t.Fatalf("hermes-bot still running after 30s; output:\n%s", in.out)
		return nil
	}
}

func (in *instance) running() bool {
	select {
	case <-in.done:
		return false
	default:
		return true
	}
}

// runOnce runs hermes-bot with env to its end and returns its exit code
// and everything it wrote.
func runOnce(t *testing.T, env map[string]string) (int, string) {
	t.Helper()
	in := start(t, env)
	err := in.wait(t)
	return exitCode(err, io.Discard), in.out.String()
}

func TestSecondInstanceExits(t *testing.T) {
	r := newRig(t)
	first := start(t, r.env)
	first.out.WaitLines(t, 1, "hermes-bot started")

	code, out := runOnce(t, r.env)
	if want := "another hermes-bot holds " + r.env["HERMES_DB"]; code != 1 || !strings.Contains(out, want) {
		t.Fatalf("second instance: exit %d, output %q; want 1 and %q", code, out, want)
	}
	if !first.running() {
		t.Fatalf("the first instance stopped: %v", first.err)
	}
	if err := first.stop(t); err != nil {
		t.Errorf("first instance: %v", err)
	}
}

func TestDamagedStoreFile(t *testing.T) {
	cases := []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"text", func(t *testing.T, path string) {
			writeStore(t, path, bytes.Repeat([]byte("this is not a bbolt file\n"), 3000))
		}},
		{"meta pages zeroed", func(t *testing.T, path string) {
			s, err := pending.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			clear(b[:min(len(b), 2*os.Getpagesize())])
			writeStore(t, path, b)
		}},
		{"truncated", func(t *testing.T, path string) {
			writeStore(t, path, []byte("\x00\x00\x00"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			path := r.env["HERMES_DB"]
			tc.write(t, path)
			code, out := runOnce(t, r.env)
			if code != 1 {
				t.Fatalf("exit %d, want 1; output:\n%s", code, out)
			}
			for _, want := range []string{path, "mv " + path} {
				if !strings.Contains(out, want) {
					t.Errorf("output does not say %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
				t.Errorf("output shows a panic:\n%s", out)
			}
			if n := len(r.tg.RequestsFor("getUpdates")); n > 0 {
				t.Errorf("polled Telegram %d times with a damaged store", n)
			}
		})
	}
	t.Run("a folder", func(t *testing.T) {
		r := newRig(t)
		path := r.env["HERMES_DB"]
		if err := os.MkdirAll(path, 0o700); err != nil {
			t.Fatal(err)
		}
		// A folder where the file should be is a bad setting, which a
		// restart does not fix: exit 2, naming HERMES_DB.
		code, out := runOnce(t, r.env)
		if code != 2 || !strings.Contains(out, "HERMES_DB cannot be used: open pending store "+path) {
			t.Fatalf("exit %d, output %q; want 2, HERMES_DB and the path", code, out)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads any file")
		}
		r := newRig(t)
		path := r.env["HERMES_DB"]
		writeStore(t, path, nil)
		if err := os.Chmod(path, 0); err != nil {
			t.Fatal(err)
		}
		code, out := runOnce(t, r.env)
		if code != 2 || !strings.Contains(out, "HERMES_DB cannot be used") || !strings.Contains(out, path) ||
			!strings.Contains(out, "permission denied") {
			t.Fatalf("exit %d, output %q; want 2, HERMES_DB, the path and the reason", code, out)
		}
	})
}

func writeStore(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// flakyProxy forwards TCP connections to an opencode server while it is
// up, and resets them at once while it is down: to hermes-bot, opencode
// is then unreachable, at the same address it comes back on.
type flakyProxy struct {
	ln     net.Listener
	target string
	up     atomic.Bool
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func newFlakyProxy(t *testing.T, target string) *flakyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{ln: ln, target: strings.TrimPrefix(target, "http://"), conns: make(map[net.Conn]struct{})}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// URL is the proxy's address as an OPENCODE_URL.
func (p *flakyProxy) URL() string { return "http://" + p.ln.Addr().String() }

// setUp lets connections through (true) or resets them, and cuts the
// connections open now (false).
func (p *flakyProxy) setUp(up bool) {
	p.up.Store(up)
	if !up {
		p.cutAll()
	}
}

func (p *flakyProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.up.Load() {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // a reset, not an orderly close
			}
			_ = c.Close()
			continue
		}
		p.wg.Add(1)
		go p.forward(c)
	}
}

func (p *flakyProxy) forward(c net.Conn) {
	defer p.wg.Done()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.track(c, s)
	defer p.untrack(c, s)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(s, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, s); done <- struct{}{} }()
	<-done
	_ = c.Close()
	_ = s.Close()
	<-done
}

func (p *flakyProxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
}

func (p *flakyProxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

func (p *flakyProxy) cutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

func (p *flakyProxy) close() {
	_ = p.ln.Close()
	p.cutAll()
	p.wg.Wait()
}

func TestOpencodeDownAtStart(t *testing.T) {
	r := newRig(t)
	proxy := newFlakyProxy(t, r.oc.URL)
	bot := start(t, r.with("OPENCODE_URL", proxy.URL()))

	bot.out.WaitLines(t, 1, `"level":"warn"`, "opencode event stream failed")
	bot.out.WaitLines(t, 1, "hermes-bot started")
	if !bot.running() {
		t.Fatalf("hermes-bot stopped while opencode was down: %v", bot.err)
	}
	// Asked while nobody could listen: found by the listing after the connect.
	r.oc.StoreQuestion(faultDir, testQuestion("que_down1", "ses_down", "Asked while the bridge could not connect"))
	proxy.setUp(true)

	m := r.waitMessage(t, "Asked while the bridge could not connect")
	cb, err := r.tg.PressButtonText(faultChatID, m.ID, dana, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	replies, err := r.oc.WaitReplies(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep := replies[0]; rep.RequestID != "que_down1" || len(rep.Answers) != 1 || rep.Answers[0][0] != "alpha" {
		t.Errorf("reply %+v, want alpha for que_down1", rep)
	}
	if _, err := r.tg.WaitAnswer(ctx, cb); err != nil {
		t.Error(err)
	}
	// Live events flow too, not only the listing.
	r.oc.AddQuestion(faultDir, testQuestion("que_live", "ses_down", "Asked once connected"))
	r.waitMessage(t, "Asked once connected")
	if n := len(bot.out.Lines(`"level":"warn"`, "opencode event stream failed")); n != 1 {
		t.Errorf("%d warn lines about the stream while it was down, want 1 (repeats once a minute)", n)
	}
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
}

func TestWrongOpencodePassword(t *testing.T) {
	r := newRig(t)
	// First a run with the right password posts a question.
	r.oc.StoreQuestion(faultDir, testQuestion("que_pw1", "ses_pw", "Asked before the password changed"))
	first := start(t, r.env)
	m := r.waitMessage(t, "Asked before the password changed")
	// Stopped only once the message ID is saved: a send cut short by the
	// stop would leave the press below nothing to reply to.
	first.out.WaitLines(t, 1, `"requestID":"que_pw1"`, "question posted")
	if err := first.stop(t); err != nil {
		t.Fatal(err)
	}

	// Then the password is wrong: hermes-bot keeps running, says so once.
	bot := start(t, r.with("OPENCODE_SERVER_PASSWORD", "not-the-"+faultPassword))
	// The default backoff makes these three attempts about 3 s; a line for
	// each repeat reaches only the debug level.
	bot.out.WaitLines(t, 3, hintPassword)
	if got := bot.out.Lines(`"level":"error"`, hintPassword); len(got) != 1 || !strings.Contains(got[0], "OPENCODE_SERVER_PASSWORD") {
		t.Errorf("error lines about the password: %q; want exactly one naming OPENCODE_SERVER_PASSWORD", got)
	}
	if !bot.running() {
		t.Fatalf("hermes-bot stopped over a wrong password: %v", bot.err)
	}

	// A press is told opencode is unreachable; the request stays open.
	cb, err := r.tg.PressButtonText(faultChatID, m.ID, dana, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.tg.WaitAnswer(ctx, cb); err != nil {
		t.Fatal(err)
	}
	note, err := r.tg.WaitMessage(ctx, faultChatID, func(x telegramtest.Message) bool {
		return x.FromBot && x.ReplyTo == m.ID
	})
	if err != nil {
		t.Fatalf("the person was not told: %v", err)
	}
	if !strings.Contains(note.PlainText, "Could not reach opencode") {
		t.Errorf("the person was told %q, want that opencode could not be reached", note.PlainText)
	}
	if cur, _ := r.tg.Message(faultChatID, m.ID); len(cur.Keyboard) == 0 {
		t.Errorf("the request lost its buttons: %s", cur.PlainText)
	}
	if n := len(r.oc.Replies()); n != 0 {
		t.Errorf("opencode recorded %d replies through a wrong password", n)
	}
	if n := len(r.oc.Questions(faultDir)); n != 1 {
		t.Errorf("opencode holds %d questions, want the one still pending", n)
	}
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
	if n := len(bot.out.Lines(`"level":"error"`, hintPassword)); n != 1 {
		t.Errorf("%d error lines about the password over the run, want 1", n)
	}
}

func TestTelegramFaultsDuringPost(t *testing.T) {
	r := newRig(t)
	bot := start(t, r.env)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := r.oc.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	bot.out.WaitLines(t, 1, "connected to opencode event stream")

	r.tg.FailNext("sendMessage", telegramtest.Fault{Code: 429, RetryAfter: 1})
	r.tg.FailNext("sendMessage", telegramtest.Fault{Code: 502, Body: "<html>Bad Gateway</html>"})
	r.tg.FailNext("sendMessage", telegramtest.Fault{Code: 500})
	r.oc.AddQuestion(faultDir, testQuestion("que_tg1", "ses_tg", "Posted through a flaky Telegram"))
	m := r.waitMessage(t, "Posted through a flaky Telegram")
	if sent := len(r.tg.RequestsFor("sendMessage")); sent < 4 {
		t.Errorf("%d sendMessage calls, want the 3 failed and 1 good", sent)
	}

	r.tg.FailNext("editMessageText", telegramtest.Fault{Code: 429, RetryAfter: 1})
	r.tg.FailNext("editMessageText", telegramtest.Fault{Code: 503})
	if _, err := r.tg.PressButtonText(faultChatID, m.ID, dana, "beta"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.tg.WaitMessage(ctx, faultChatID, func(x telegramtest.Message) bool {
		return x.ID == m.ID && len(x.Keyboard) == 0 && strings.Contains(x.PlainText, "beta")
	}); err != nil {
		t.Fatalf("the answer never showed through a flaky Telegram: %v", err)
	}
	if n := r.posts("Posted through a flaky Telegram"); n != 1 {
		t.Errorf("%d messages for the request, want 1", n)
	}
	if reps := r.oc.Replies(); len(reps) != 1 || reps[0].Answers[0][0] != "beta" {
		t.Errorf("opencode replies %+v, want one: beta", reps)
	}
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
	if un := r.tg.UnansweredCallbacks(); len(un) > 0 {
		t.Errorf("callback queries left unanswered: %v", un)
	}
}

// TestLateAskedEventIsNotPostedAgain: an asked event can come after the
// request was answered, when it was asked during the listing that follows
// a connect (listed, posted and answered first, its event read after). The
// request must not be posted a second time: one message per request.
func TestLateAskedEventIsNotPostedAgain(t *testing.T) {
	r := newRig(t)
	// Pending at start: once it is posted, the listing after the connect
	// is over, and what follows is read from the stream alone.
	r.oc.StoreQuestion(faultDir, testQuestion("que_late0", "ses_late", "Pending at start"))
	bot := start(t, r.env)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r.waitMessage(t, "Pending at start")

	q := testQuestion("que_late1", "ses_late", "Asked once, announced twice")
	r.oc.AddQuestion(faultDir, q)
	m := r.waitMessage(t, "Asked once, announced twice")
	if _, err := r.tg.PressButtonText(faultChatID, m.ID, dana, "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.oc.WaitReplies(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.tg.WaitMessage(ctx, faultChatID, func(x telegramtest.Message) bool {
		return x.ID == m.ID && len(x.Keyboard) == 0
	}); err != nil {
		t.Fatal(err)
	}

	// The same asked event again, then a new question: once that one is
	// posted, the late event has been handled (events are handled in order).
	r.oc.SendEvent(faultDir, opencode.TypeQuestionAsked, q)
	r.oc.AddQuestion(faultDir, testQuestion("que_late2", "ses_late", "The question after"))
	r.waitMessage(t, "The question after")
	if n := r.posts("Asked once, announced twice"); n != 1 {
		t.Errorf("the answered question has %d messages, want 1: a late asked event posted it again", n)
	}
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
}

// TestStopSendsOwedEdits: a closing edit Telegram failed (the Outbox gave
// up retrying) is owed; a stop (SIGTERM) sends it before exiting, so the
// message shows the answer without waiting for the next start.
func TestStopSendsOwedEdits(t *testing.T) {
	r := newRig(t)
	bot := start(t, r.env)
	r.oc.AddQuestion(faultDir, testQuestion("que_stop", "ses_stop", "Closed at the stop"))
	m := r.waitMessage(t, "Closed at the stop")
	// Every edit fails until the stop: the Outbox's tries, and any owed
	// edit a connect sends beside them, so only the stop can show it.
	r.tg.FailNextN("editMessageText", 1000, telegramtest.Fault{Code: 500})
	if _, err := r.tg.PressButtonText(faultChatID, m.ID, dana, "beta"); err != nil {
		t.Fatal(err)
	}
	bot.out.WaitLines(t, 1, "could not edit request message")
	if cur, _ := r.tg.Message(faultChatID, m.ID); len(cur.Keyboard) == 0 {
		t.Fatal("the closing edit went through although Telegram failed it")
	}
	r.tg.ClearFaults("editMessageText")
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
	if cur, _ := r.tg.Message(faultChatID, m.ID); len(cur.Keyboard) != 0 || !strings.Contains(cur.PlainText, "beta") {
		t.Errorf("after the stop the message reads (buttons %d):\n%s", len(cur.Keyboard), cur.PlainText)
	}
}

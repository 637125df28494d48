package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestMain fails the package's tests if a goroutine outlives them: the
// demo runs the bridge in-process, and its end must stop all of it.
func TestMain(m *testing.M) {
	// Then, in a line go test shows without -v, whether the end-to-end
	// test was skipped for want of opencode, or the browser test for want
	// of a Chromium.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		opencodetest.AnnounceUnavailable("cmd/hermes-demo")
		announceNoBrowser()
		os.Exit(code)
	}))
}

// runCmd runs hermes-demo with args and env as main would, and returns
// its output and exit status.
func runCmd(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, nil, &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// logSink collects what the demo writes, from any goroutine, and lets a
// test wait for it. The zero value is ready to use.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// changed, when a test waits, is closed by the next Write.
	changed chan struct{}
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// lines returns the lines holding every one of subs.
func (l *logSink) lines(subs ...string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		ok := line != ""
		for _, s := range subs {
			ok = ok && strings.Contains(line, s)
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// waitLines blocks until at least n lines hold every one of subs.
func (l *logSink) waitLines(tb testing.TB, n int, subs ...string) []string {
	tb.Helper()
	deadline := time.After(30 * time.Second)
	for {
		l.mu.Lock()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		if got := l.lines(subs...); len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("the demo never wrote %d lines with %q; output:\n%s", n, subs, l.String())
		}
	}
}

// testQuestion is a question with two options, alpha and beta, as an
// opencode server asks it.
func testQuestion(id, session, text string) opencode.QuestionRequest {
	return opencode.QuestionRequest{
		ID: id, SessionID: session,
		Questions: []opencode.Question{{Question: text, Header: "Pick",
			Options: []opencode.Option{{Label: "alpha"}, {Label: "beta"}}}},
		Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id},
	}
}

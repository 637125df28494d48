package opencode_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// logBuffer is a zerolog sink tests can read and wait on.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLogBuffer() *logBuffer { return &logBuffer{changed: make(chan struct{})} }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// lines returns the log lines that contain s.
func (l *logBuffer) lines(s string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

func (l *logBuffer) logger() zerolog.Logger { return zerolog.New(l) }

// waitFor blocks until the log holds s, failing the test after a generous
// deadline.
func (l *logBuffer) waitFor(tb testing.TB, s string) {
	tb.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		ok, ch := strings.Contains(l.buf.String(), s), l.changed
		l.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("log never said %q; log:\n%s", s, l.String())
		}
	}
}

// testContext is a context that ends with the test, or after a deadline
// that only a hung test reaches.
func testContext(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	tb.Cleanup(cancel)
	return ctx
}

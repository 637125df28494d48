// Package logsink is what the commands' tests write a process's log into
// and wait on: an io.Writer safe for any goroutine, read line by line.
// Only tests import it.
package logsink

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// Sink collects what is written to it. The zero value is ready to use.
type Sink struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// changed, when a test waits, is closed by the next Write.
	changed chan struct{}
}

func (l *Sink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return len(p), nil
}

func (l *Sink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Lines returns the lines holding every one of subs.
func (l *Sink) Lines(subs ...string) []string {
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

// WaitLines blocks until at least n lines hold every one of subs, and
// fails tb after 30 s.
func (l *Sink) WaitLines(tb testing.TB, n int, subs ...string) []string {
	tb.Helper()
	deadline := time.After(30 * time.Second)
	for {
		l.mu.Lock()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.mu.Unlock()
		if got := l.Lines(subs...); len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("the log never had %d lines with %q; it holds:\n%s", n, subs, l.String())
		}
	}
}

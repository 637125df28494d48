package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestSeqOf(t *testing.T) {
	for text, want := range map[string]int{
		"<b>service-01</b>\nBench question #42: which database should I use?": 42,
		"Bench question #7:":           7,
		"Bench question #x: nope":      0,
		"Stored question 12: which db": 0,
		"Bench question #12":           0,
	} {
		if got := seqOf(text); got != want {
			t.Errorf("seqOf(%q) = %d, want %d", text, got, want)
		}
	}
}

func TestLogWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	w := newLogWatch()
	go w.read(pr)

	found := make(chan logLine, 1)
	go func() {
		l, err := w.wait(ctx, func(l logLine) bool { return l.Message == "question posted" && l.RequestID == "que_2" })
		if err != nil {
			t.Error(err)
		}
		found <- l
	}()
	lines := `{"level":"info","requestID":"que_1","message":"question posted"}
not json at all
{"level":"warn","message":"opencode event stream failed; reconnecting"}
{"level":"info","requestID":"que_2","message":"question posted"}
`
	if _, err := io.WriteString(pw, lines); err != nil {
		t.Fatal(err)
	}
	l := <-found
	if l.RequestID != "que_2" || l.at.IsZero() || !strings.Contains(l.raw, `"que_2"`) {
		t.Errorf("found %+v", l)
	}
	if p := w.problems(); len(p) != 1 || !strings.Contains(p[0], "reconnecting") {
		t.Errorf("problems = %q, want the one warn line", p)
	}
	if tail := w.tail(2); !strings.HasPrefix(tail, `{"level":"warn"`) || strings.Count(tail, "\n") != 2 {
		t.Errorf("tail(2) = %q", tail)
	}

	// A line that never comes: the end of the log ends the wait.
	pw.Close()
	if _, err := w.wait(ctx, func(l logLine) bool { return l.Message == "never" }); !errors.Is(err, errLogEnded) {
		t.Errorf("wait after the end = %v, want errLogEnded", err)
	}
}

func TestLogWatchContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	w := newLogWatch()
	go w.read(pr)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.wait(ctx, func(logLine) bool { return true }); !errors.Is(err, context.Canceled) {
		t.Errorf("wait with a cancelled context = %v", err)
	}
}

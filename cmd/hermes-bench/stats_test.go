package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	var samples []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		samples = append(samples, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{
		{50, 50 * time.Millisecond},
		{99, 99 * time.Millisecond},
		{100, 100 * time.Millisecond},
		{0.5, 1 * time.Millisecond},
	} {
		if got := percentile(samples, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if samples[0] != 100*time.Millisecond {
		t.Error("percentile sorted the caller's slice")
	}
	// With fewer samples than 1/(1-p), p99 is the worst one.
	few := []time.Duration{3, 1, 2}
	if got := percentile(few, 99); got != 3 {
		t.Errorf("p99 of 3 samples = %v, want the largest", got)
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("p99 of nothing = %v, want 0", got)
	}
	if got := median([]time.Duration{4, 1, 3, 2}); got != 2 {
		t.Errorf("median of 1..4 = %v, want 2 (nearest rank)", got)
	}
}

func TestMs(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1234 * time.Microsecond:  "1.23 ms",
		25500 * time.Microsecond: "25.5 ms",
		708 * time.Millisecond:   "708 ms",
	} {
		if got := ms(d); got != want {
			t.Errorf("ms(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestTablePrintsAlignedMarkdown(t *testing.T) {
	tb := &table{title: "T", head: []string{"a", "long header"}}
	tb.add("1", "x")
	tb.add("22 µs", "y")
	var buf bytes.Buffer
	tb.print(&buf)
	want := "\n### T\n\n" +
		"| a     | long header |\n" +
		"|-------|-------------|\n" +
		"| 1     | x           |\n" +
		"| 22 µs | y           |\n"
	if buf.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), want)
	}
	if !strings.Contains(verdict(false), "MISSED") || verdict(true) != "met" {
		t.Error("verdict words changed")
	}
}

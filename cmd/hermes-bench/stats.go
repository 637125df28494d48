package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// percentile returns the p-th percentile (0 < p ≤ 100) of samples by the
// nearest-rank method: the smallest sample at least p% of all are at or
// below. samples need not be sorted.
func percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100 + 0.999999)
	return s[min(max(rank, 1), len(s))-1]
}

// median is percentile 50.
func median(samples []time.Duration) time.Duration { return percentile(samples, 50) }

// ms formats d in milliseconds with enough digits for sub-ms figures.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f < 10:
		return fmt.Sprintf("%.2f ms", f)
	case f < 100:
		return fmt.Sprintf("%.1f ms", f)
	default:
		return fmt.Sprintf("%.0f ms", f)
	}
}

// mib formats KiB as MiB.
func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// table is the result of a measurement: rows of figures, each with the
// target it is held to (empty when it has none), printed as Markdown.
type table struct {
	title string
	head  []string
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) print(w io.Writer) {
	fmt.Fprintf(w, "\n### %s\n\n", t.title)
	widths := make([]int, len(t.head))
	for i, h := range t.head {
		widths[i] = len([]rune(h))
	}
	for _, r := range t.rows {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], len([]rune(c)))
			}
		}
	}
	line := func(cells []string) {
		parts := make([]string, len(widths))
		for i := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			parts[i] = c + strings.Repeat(" ", widths[i]-len([]rune(c)))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(parts, " | "))
	}
	line(t.head)
	seps := make([]string, len(widths))
	for i, n := range widths {
		seps[i] = strings.Repeat("-", n)
	}
	fmt.Fprintf(w, "|-%s-|\n", strings.Join(seps, "-|-"))
	for _, r := range t.rows {
		line(r)
	}
}

// verdict says whether a figure meets its target.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

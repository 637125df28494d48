// Package prom writes the Prometheus text exposition format (version
// 0.0.4) and keeps the fixed-bucket histograms it reports. It owns the
// format only: which series exist and what they count is package bot's
// Metrics. hermes-bot has no dependency on a Prometheus client: the
// format is small enough to write by hand.
package prom

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Histogram counts durations in fixed buckets, Prometheus style. Call
// Init before the first Observe; it is then safe for concurrent use.
type Histogram struct {
	mu     sync.Mutex
	bounds []float64 // upper bounds in seconds, ascending
	counts []uint64  // per bucket, not cumulative; the last is +Inf
	sum    float64
	count  uint64
}

// Init sets the buckets' upper bounds, in seconds, ascending.
func (h *Histogram) Init(bounds []float64) {
	h.bounds, h.counts = bounds, make([]uint64, len(bounds)+1)
}

// Observe counts d (a negative d as 0) in its bucket.
func (h *Histogram) Observe(d time.Duration) {
	v := max(d.Seconds(), 0)
	h.mu.Lock()
	defer h.mu.Unlock()
	i, _ := slices.BinarySearch(h.bounds, v) // the first bucket whose bound is ≥ v
	h.counts[i]++
	h.sum += v
	h.count++
}

// Snapshot returns the cumulative bucket counts, the sum and the count,
// consistent with each other.
func (h *Histogram) Snapshot() (cumulative []uint64, sum float64, count uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cumulative = make([]uint64, len(h.counts))
	var c uint64
	for i, n := range h.counts {
		c += n
		cumulative[i] = c
	}
	return cumulative, h.sum, h.count
}

// Writer writes the text exposition format to an io.Writer, keeping the
// first error and the byte count (Result), so a scrape is written
// without checking each line.
type Writer struct {
	w   io.Writer
	n   int64
	err error
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Result is what an io.WriterTo returns: the bytes written and the first
// error.
func (p *Writer) Result() (int64, error) { return p.n, p.err }

func (p *Writer) printf(format string, args ...any) {
	if p.err != nil {
		return
	}
	n, err := fmt.Fprintf(p.w, format, args...)
	p.n += int64(n)
	p.err = err
}

// Family starts the series of metric name: its help and type lines.
func (p *Writer) Family(name, typ, help string) {
	p.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

// Sample writes one sample of name; labels is "" or a list such as
// `server="a"`.
func (p *Writer) Sample(name, labels string, v float64) {
	if labels != "" {
		name += "{" + labels + "}"
	}
	p.printf("%s %s\n", name, formatFloat(v))
}

// Histogram writes histogram h as the family name: its cumulative
// buckets, +Inf, sum and count.
func (p *Writer) Histogram(name, help string, h *Histogram) {
	cum, sum, count := h.Snapshot()
	p.Family(name, "histogram", help)
	for i, b := range h.bounds {
		p.Sample(name+"_bucket", `le="`+formatFloat(b)+`"`, float64(cum[i]))
	}
	p.Sample(name+"_bucket", `le="+Inf"`, float64(cum[len(cum)-1]))
	p.Sample(name+"_sum", "", sum)
	p.Sample(name+"_count", "", float64(count))
}

// Bool is a boolean as the format gives it: 1 or 0.
func Bool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// UnixSeconds is a time as the format gives it, 0 for the zero time.
func UnixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Escape makes v safe inside a label value's quotes: backslash, quote and
// newline escaped, as the text format requires.
func Escape(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}

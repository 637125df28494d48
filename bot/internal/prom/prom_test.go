package prom

import (
	"fmt"
	"testing"
	"time"
)

func TestHistogramBuckets(t *testing.T) {
	var h Histogram
	h.Init([]float64{1, 5})
	for _, d := range []time.Duration{500 * time.Millisecond, time.Second, 3 * time.Second, time.Minute} {
		h.Observe(d)
	}
	cum, sum, count := h.Snapshot()
	// 1 s falls in le="1": Prometheus buckets are inclusive.
	if fmt.Sprint(cum) != "[2 3 4]" || count != 4 || sum != 64.5 {
		t.Fatalf("cumulative %v, sum %v, count %v", cum, sum, count)
	}
}

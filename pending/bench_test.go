package pending_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

func benchEntry(i int) *pending.Entry {
	e := fullEntry()
	e.UID = ""
	e.RequestID = fmt.Sprintf("que_%d", i)
	return e
}

// fill creates n entries in one transaction and returns their UIDs.
func fill(tb testing.TB, s *pending.Store, n int) []string {
	tb.Helper()
	es := make([]*pending.Entry, n)
	for i := range es {
		es[i] = benchEntry(i)
	}
	if err := pending.CreateAll(s, es); err != nil {
		tb.Fatal(err)
	}
	uids := make([]string, n)
	for i, e := range es {
		uids[i] = e.UID
	}
	return uids
}

// BenchmarkPut measures Create; each one commits and fsyncs.
func BenchmarkPut(b *testing.B) {
	s := mustOpenStore(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Create(benchEntry(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	s := mustOpenStore(b)
	uids := fill(b, s, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Get(uids[i%len(uids)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDelete measures Delete of an entry with both index keys.
func BenchmarkDelete(b *testing.B) {
	s := mustOpenStore(b)
	uids := fill(b, s, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for _, uid := range uids {
		if err := s.Delete(uid); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen10000 measures what start-up pays: opening a store of
// 10,000 entries and listing them.
func BenchmarkOpen10000(b *testing.B) {
	path := filepath.Join(b.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	fill(b, s, 10000)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s, err := pending.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		all, err := s.List()
		if err != nil {
			b.Fatal(err)
		}
		if len(all) != 10000 {
			b.Fatalf("listed %d entries, want 10000", len(all))
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// storeBacklog is how many entries the latency benchmarks keep in the
// store: the size the start-up target is set for.
const storeBacklog = 10000

// BenchmarkStoreLatency times single operations on a store holding
// storeBacklog entries and reports the median and 99th percentile of one
// operation, in microseconds, besides the mean (ns/op). put is Create and
// delete is Delete, each one transaction with its fsync, so they measure
// the disk under the temporary folder; get is Get.
//
//	go test -run='^$' -bench=StoreLatency -benchmem ./pending/
func BenchmarkStoreLatency(b *testing.B) {
	s := mustOpenStore(b)
	uids := fill(b, s, storeBacklog)
	next := storeBacklog // request IDs of new entries never clash
	ops := []struct {
		name string
		// prepare runs untimed and returns the op for iteration i.
		prepare func(b *testing.B) func(i int) error
	}{
		{"put", func(b *testing.B) func(int) error {
			es := make([]*pending.Entry, b.N)
			for i := range es {
				es[i] = benchEntry(next + i)
			}
			next += b.N
			return func(i int) error { return s.Create(es[i]) }
		}},
		{"get", func(b *testing.B) func(int) error {
			return func(i int) error {
				_, err := s.Get(uids[i%len(uids)])
				return err
			}
		}},
		{"delete", func(b *testing.B) func(int) error {
			es := make([]*pending.Entry, b.N)
			for i := range es {
				es[i] = benchEntry(next + i)
			}
			next += b.N
			if err := pending.CreateAll(s, es); err != nil {
				b.Fatal(err)
			}
			return func(i int) error { return s.Delete(es[i].UID) }
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			do := op.prepare(b)
			took := make([]time.Duration, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if err := do(i); err != nil {
					b.Fatal(err)
				}
				took[i] = time.Since(start)
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(percentile(took, 50))/1e3, "p50-µs")
			b.ReportMetric(float64(percentile(took, 99))/1e3, "p99-µs")
		})
	}
}

// percentile returns the p-th percentile of sorted, by the nearest-rank
// method.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

// BenchmarkStoreConcurrentWrites is what a burst of questions costs the
// store: each of n goroutines, released together, creates its own entry
// and then updates it (as the bridge stores a request, then the message it
// posted), and the median and 99th percentile of one write (Create or
// Update) are reported in microseconds. Writers arriving while a commit
// runs share the next one, so the percentiles grow far slower than n.
//
//	go test -run='^$' -bench=StoreConcurrentWrites -benchmem ./pending/
func BenchmarkStoreConcurrentWrites(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("writers=%d", n), func(b *testing.B) {
			s := mustOpenStore(b)
			fill(b, s, storeBacklog)
			next := storeBacklog
			took := make([]time.Duration, 0, 2*n*b.N)
			var mu sync.Mutex
			commits := 0
			pending.SetCommitHooks(s, nil, func(int) { commits++ })
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				start := make(chan struct{})
				var wg sync.WaitGroup
				for w := range n {
					e := benchEntry(next + w)
					e.Places = shown("")
					wg.Go(func() {
						<-start
						t0 := time.Now()
						if err := s.Create(e); err != nil {
							b.Error(err)
							return
						}
						t1 := time.Now()
						if _, err := s.Update(e.UID, func(e *pending.Entry) error {
							e.Places = shown("42")
							return nil
						}); err != nil {
							b.Error(err)
							return
						}
						t2 := time.Now()
						mu.Lock()
						took = append(took, t1.Sub(t0), t2.Sub(t1))
						mu.Unlock()
					})
				}
				next += n
				close(start)
				wg.Wait()
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(percentile(took, 50))/1e3, "p50-µs")
			b.ReportMetric(float64(percentile(took, 99))/1e3, "p99-µs")
			b.ReportMetric(float64(len(took))/float64(commits), "writes/commit")
		})
	}
}

package pending_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hermes-bot/hermes-bot/pending"
)

func benchEntry(i int) *pending.Entry {
	e := fullEntry()
	e.UID = ""
	e.RequestID = fmt.Sprintf("que_%d", i)
	e.PromptMessageID = i + 1
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

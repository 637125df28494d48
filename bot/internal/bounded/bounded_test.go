package bounded_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/internal/bounded"
)

func TestGetPut(t *testing.T) {
	m := bounded.New[string, int](3)
	if _, ok := m.Get("a"); ok {
		t.Fatal("an empty map holds a")
	}
	m.Put("a", 1)
	m.Put("a", 2)
	if v, ok := m.Get("a"); !ok || v != 2 {
		t.Fatalf("Get(a) = %d, %v; want 2, true", v, ok)
	}
	if n := m.Len(); n != 1 {
		t.Fatalf("Len = %d after putting one key twice, want 1", n)
	}
}

// held lists which of keys m holds.
func held(m *bounded.Map[string, int], keys ...string) []string {
	var out []string
	for _, k := range keys {
		if _, ok := m.Get(k); ok {
			out = append(out, k)
		}
	}
	return out
}

func TestForgetsOldestFirst(t *testing.T) {
	m := bounded.New[string, int](3)
	for i, k := range []string{"a", "b", "c", "d"} {
		m.Put(k, i)
	}
	if got := fmt.Sprint(held(m, "a", "b", "c", "d")); got != "[b c d]" {
		t.Fatalf("holds %s after a fourth key, want [b c d]", got)
	}
	// Replacing b's value and reading c keep their places: b is still
	// the oldest, then c.
	m.Put("b", 10)
	m.Get("c")
	m.Put("e", 4)
	if got := fmt.Sprint(held(m, "b", "c", "d", "e")); got != "[c d e]" {
		t.Fatalf("holds %s, want [c d e]: a replaced value must not renew its key", got)
	}
	m.Put("f", 5)
	m.Put("g", 6)
	if got := fmt.Sprint(held(m, "c", "d", "e", "f", "g")); got != "[e f g]" {
		t.Fatalf("holds %s after going round the ring, want [e f g]", got)
	}
	if n := m.Len(); n != 3 {
		t.Fatalf("Len = %d, want the bound 3", n)
	}
}

func TestBoundOfOne(t *testing.T) {
	m := bounded.New[string, int](1)
	m.Put("a", 1)
	m.Put("b", 2)
	if got := fmt.Sprint(held(m, "a", "b")); got != "[b]" {
		t.Fatalf("holds %s, want [b]", got)
	}
}

func TestNewRefusesNoRoom(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(0) did not panic")
		}
	}()
	bounded.New[string, int](0)
}

// TestConcurrentUse is for the race detector: puts and gets from several
// goroutines, and the bound holds after.
func TestConcurrentUse(t *testing.T) {
	m := bounded.New[int, int](50)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				m.Put(g*1000+i, i)
				m.Get(g*1000 + i/2)
			}
		}()
	}
	wg.Wait()
	if n := m.Len(); n != 50 {
		t.Fatalf("Len = %d, want the bound 50", n)
	}
}

// BenchmarkPutGet is a full map taking a new key and reading a held one,
// as the bridge does for each request it posts or closes.
func BenchmarkPutGet(b *testing.B) {
	const size = 1000
	m := bounded.New[string, int](size)
	keys := make([]string, 4*size)
	for i := range keys {
		keys[i] = fmt.Sprintf("ses_%08d", i)
	}
	for i := range size {
		m.Put(keys[i], i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m.Put(keys[(size+i)%len(keys)], i)
		m.Get(keys[(size+i/2)%len(keys)])
	}
}

// Package bounded provides Map, a map that holds at most a fixed number
// of keys and forgets the oldest first. The bridge keeps a few such
// memories (how requests closed, sessions looked up, when sessions were
// last notified) that must not grow with every request a long-running
// process sees.
//
// # Concurrency
//
// A Map is safe for concurrent use by several goroutines; each call holds
// its lock briefly and calls out to nothing.
package bounded

import "sync"

// Map maps keys to values and holds at most the number of keys given to
// New. When a new key would pass that bound, the key put first goes:
// first in, first out. Putting a key already held replaces its value and
// keeps its place, and Get does not move a key either, so the order is
// that of first insertion. Make one with New.
type Map[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
	// keys holds the keys in the order they were put, as a ring once
	// full: oldest is the index of the first put of those still held.
	keys   []K
	oldest int
	size   int
}

// New returns an empty Map holding at most size keys. It panics when size
// is less than 1, a bound that could hold nothing.
func New[K comparable, V any](size int) *Map[K, V] {
	if size < 1 {
		panic("bounded: New with a bound less than 1")
	}
	return &Map[K, V]{m: make(map[K]V), size: size}
}

// Get returns the value held for k; ok is false when k is not held
// (never put, or forgotten since).
func (c *Map[K, V]) Get(k K) (v V, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok = c.m[k]
	return v, ok
}

// Put holds v for k. A key already held keeps its place in the order;
// a new one, when the Map is full, makes it forget the oldest key.
func (c *Map[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok {
		if len(c.keys) < c.size {
			c.keys = append(c.keys, k)
		} else {
			delete(c.m, c.keys[c.oldest])
			c.keys[c.oldest] = k
			c.oldest = (c.oldest + 1) % c.size
		}
	}
	c.m[k] = v
}

// Len returns how many keys the Map holds.
func (c *Map[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

package pending

import (
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// committer groups write transactions. bbolt has one writer at a time
// and each commit waits for an fsync (milliseconds on a virtual disk), so
// with a transaction each, a burst of requests (a Create and an Update
// apiece) would wait for one fsync per write, one after the other. So a
// writer that finds no commit running commits at once, alone, with no
// added delay (bbolt's Batch would wait for its timer); writers arriving
// meanwhile queue, and the next commit runs all of them in one
// transaction, one fsync. The first of them leads that commit, and hands
// the lead on to the first writer queued after: every caller returns as
// soon as its own group is on disk.
//
// A function that fails or panics in a group is taken out, the group's
// transaction is rolled back, and the others run again without it; its
// caller then runs it alone, as bbolt's Batch does, so its error or panic
// reaches that caller only. A function may therefore run more than once:
// it must have no effect outside the transaction but what it sets again
// on each run.
type committer struct {
	db *bolt.DB

	mu     sync.Mutex
	queue  []*call
	busy   bool           // a leader is committing
	closed bool           // no writer gets in any more
	active sync.WaitGroup // writers that got in, so close can wait for them

	// Test hooks: queued is called when a writer joins the queue behind
	// a running commit, committing with the size of a group about to be
	// committed, inside its transaction.
	queued     func()
	committing func(n int)
}

type call struct {
	fn   func(*bolt.Tx) error
	err  error
	solo bool      // failed in a group: the caller runs it alone
	wake chan bool // true: lead the next group; false: done
}

// panicked carries a panic out of a grouped function.
type panicked struct{ v any }

func (p panicked) Error() string { return fmt.Sprintf("panic: %v", p.v) }

// write runs fn in a write transaction, possibly with other writers' fns.
func (c *committer) write(fn func(*bolt.Tx) error) error {
	cl := &call{fn: fn, wake: make(chan bool, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	c.active.Add(1)
	defer c.active.Done()
	c.queue = append(c.queue, cl)
	lead := !c.busy
	c.busy = true
	hook := c.queued
	c.mu.Unlock()
	if !lead {
		if hook != nil {
			hook()
		}
		lead = <-cl.wake
	}
	if lead {
		c.mu.Lock()
		group := c.queue
		c.queue = nil
		c.mu.Unlock()
		c.commit(group)
		c.mu.Lock()
		if len(c.queue) > 0 {
			c.queue[0].wake <- true
		} else {
			c.busy = false
		}
		c.mu.Unlock()
	}
	if cl.solo {
		return c.db.Update(fn)
	}
	return cl.err
}

// commit runs the group's fns in one transaction and hands each call its
// outcome.
func (c *committer) commit(group []*call) {
	for len(group) > 0 {
		failed := -1
		err := safely(func() error {
			return c.db.Update(func(tx *bolt.Tx) error {
				for i, cl := range group {
					if err := safely(func() error { return cl.fn(tx) }); err != nil {
						failed = i
						return err
					}
				}
				if c.committing != nil {
					c.committing(len(group))
				}
				return nil
			})
		})
		if failed >= 0 && len(group) > 1 {
			group[failed].solo = true
			group[failed].wake <- false
			group = slices.Delete(group, failed, failed+1)
			continue
		}
		// A panic, in the one fn or in bbolt's commit, is raised again
		// in each caller's goroutine by running its fn alone.
		_, again := err.(panicked)
		for _, cl := range group {
			cl.err, cl.solo = err, again
			cl.wake <- false
		}
		return
	}
}

func safely(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked{v}
		}
	}()
	return fn()
}

// close lets no writer in any more and waits for those already in, so a
// writer queued before Close is committed.
func (c *committer) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.active.Wait()
}

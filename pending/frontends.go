package pending

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// bucketFrontends holds one bucket per front-end name, each the key/value
// space of that front-end's own bookkeeping (FrontendState). The store
// does not interpret its keys or values.
var bucketFrontends = []byte("frontends")

// State is the key/value space a front-end keeps its own bookkeeping in,
// beside the entries and committed like them: for Telegram the update
// offset, the chats that became supergroups and a forum topic per
// project. Keys and values are the front-end's; the store does not read
// them. Get it with Store.FrontendState; it is safe for concurrent use.
type State struct {
	s    *Store
	name []byte
}

// FrontendState returns the key/value space of front-end name (say
// "telegram"), a bucket of its own under the frontends bucket, created
// by its first write. name must not be empty: its methods fail with
// ErrInvalid then.
func (s *Store) FrontendState(name string) *State {
	return &State{s: s, name: []byte(name)}
}

// KV is a front-end's key/value space inside one transaction
// (State.View, State.Update). It is valid only during that transaction.
type KV struct {
	b     *bolt.Bucket // nil in a read transaction when nothing was written yet
	write bool
}

// Get returns a copy of the value of key, and whether there is one.
func (kv KV) Get(key string) ([]byte, bool) {
	if kv.b == nil {
		return nil, false
	}
	v := kv.b.Get([]byte(key))
	if v == nil {
		return nil, false
	}
	return bytes.Clone(v), true
}

// Put sets key to value, replacing what it held. key must not be empty.
// It fails in View.
func (kv KV) Put(key string, value []byte) error {
	if !kv.write {
		return fmt.Errorf("put %q: %w: a read transaction", key, ErrInvalid)
	}
	if key == "" {
		return fmt.Errorf("put: %w: an empty key", ErrInvalid)
	}
	if value == nil {
		value = []byte{}
	}
	return kv.b.Put([]byte(key), value)
}

// Delete removes key; a missing key is no error. It fails in View.
func (kv KV) Delete(key string) error {
	if !kv.write {
		return fmt.Errorf("delete %q: %w: a read transaction", key, ErrInvalid)
	}
	return kv.b.Delete([]byte(key))
}

// ForEach calls fn with each key starting with prefix and its value, in
// key order, and stops at fn's first error, which it returns. value is
// valid only during the call. fn must not Put or Delete (bbolt forbids
// changing a bucket while walking it): collect, then write.
func (kv KV) ForEach(prefix string, fn func(key string, value []byte) error) error {
	if kv.b == nil {
		return nil
	}
	p := []byte(prefix)
	c := kv.b.Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		if err := fn(string(k), v); err != nil {
			return err
		}
	}
	return nil
}

func (st *State) check() error {
	if len(st.name) == 0 {
		return fmt.Errorf("%w: a front-end state needs a name", ErrInvalid)
	}
	return nil
}

// View runs fn in a read transaction.
func (st *State) View(fn func(KV) error) error {
	if err := st.check(); err != nil {
		return err
	}
	err := closedErr(st.s.db.View(func(tx *bolt.Tx) error {
		var b *bolt.Bucket
		if fe := tx.Bucket(bucketFrontends); fe != nil {
			b = fe.Bucket(st.name)
		}
		return fn(KV{b: b})
	}))
	if err != nil {
		return fmt.Errorf("read %s state: %w", st.name, err)
	}
	return nil
}

// Update runs fn in a write transaction, committed when fn returns nil
// and rolled back otherwise. Like Store.Update's function, fn may run
// more than once (the store commits concurrent writes together), so it
// must be quick, leave nothing behind outside the transaction but what
// it sets afresh on each run, and call no Store method.
func (st *State) Update(fn func(KV) error) error {
	if err := st.check(); err != nil {
		return err
	}
	err := st.s.write(func(tx *bolt.Tx) error {
		fe, err := tx.CreateBucketIfNotExists(bucketFrontends)
		if err != nil {
			return err
		}
		b, err := fe.CreateBucketIfNotExists(st.name)
		if err != nil {
			return err
		}
		return fn(KV{b: b, write: true})
	})
	if err != nil {
		return fmt.Errorf("write %s state: %w", st.name, err)
	}
	return nil
}

// Get returns a copy of the value of key, and whether there is one.
func (st *State) Get(key string) (value []byte, ok bool, err error) {
	err = st.View(func(kv KV) error {
		value, ok = kv.Get(key)
		return nil
	})
	return value, ok, err
}

// Put sets key to value, replacing what it held.
func (st *State) Put(key string, value []byte) error {
	return st.Update(func(kv KV) error { return kv.Put(key, value) })
}

// Delete removes key; a missing key is no error.
func (st *State) Delete(key string) error {
	return st.Update(func(kv KV) error { return kv.Delete(key) })
}

// Files of 03d8d17 (OldestRelease) kept the Telegram front-end's
// bookkeeping in the meta bucket, under keys starting with these
// prefixes: the update offset ("updateOffset:" and the bot ID, a JSON
// value), a chat's move to a supergroup ("chatMigration:" and the old
// chat, the new one in decimal) and a project's forum topic ("topic:",
// the chat, ":" and the directory, the thread in decimal).
// moveLegacyFrontendState moves them, verbatim, to the Telegram
// front-end's state, which reads them in that format.
var legacyFrontendPrefixes = [][]byte{[]byte("updateOffset:"), []byte("chatMigration:"), []byte("topic:")}

// moveLegacyFrontendState moves the meta keys of legacyFrontendPrefixes
// into the frontends bucket of legacyFrontend, in Open's transaction. A
// key already there is replaced: the meta key is only there if an older
// release wrote it since.
func moveLegacyFrontendState(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	type kv struct{ k, v []byte }
	var found []kv
	c := meta.Cursor()
	for _, p := range legacyFrontendPrefixes {
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			found = append(found, kv{bytes.Clone(k), bytes.Clone(v)})
		}
	}
	if len(found) == 0 {
		return nil
	}
	// Open created the frontends bucket earlier in this transaction.
	b, err := tx.Bucket(bucketFrontends).CreateBucketIfNotExists([]byte(legacyFrontend))
	if err != nil {
		return fmt.Errorf("bucket %s: %w", legacyFrontend, err)
	}
	for _, e := range found {
		if err := b.Put(e.k, e.v); err != nil {
			return fmt.Errorf("move %s: %w", e.k, err)
		}
		if err := meta.Delete(e.k); err != nil {
			return fmt.Errorf("move %s: %w", e.k, err)
		}
	}
	return nil
}

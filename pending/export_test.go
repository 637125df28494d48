package pending

import bolt "go.etcd.io/bbolt"

// Test-only hooks, compiled only with the tests of this package.

// PutRaw writes raw bytes as the entry under key, bypassing JSON, so tests
// can store an entry that cannot be decoded.
func PutRaw(s *Store, key string, raw []byte) error {
	return s.update(func(b *buckets) error { return b.entries.Put([]byte(key), raw) })
}

// CreateAll creates every entry in one transaction, so benchmarks can fill
// a store without one fsync per entry.
func CreateAll(s *Store, es []*Entry) error {
	return s.update(func(b *buckets) error {
		for _, e := range es {
			if e.UID == "" {
				e.UID = NewUID()
			}
			if e.CreatedAt.IsZero() {
				e.CreatedAt = s.now().Round(0)
			}
			if err := b.checkFree(e); err != nil {
				return err
			}
			if err := b.put(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetCommitHooks sets the group committer's test hooks (commit.go):
// queued runs in a writer that joins the queue behind a running commit,
// committing inside each group's transaction, with the group's size, just
// before it commits. Set them before the first write.
func SetCommitHooks(s *Store, queued func(), committing func(n int)) {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	s.group.queued, s.group.committing = queued, committing
}

// Closing reports whether Close has begun.
func Closing(s *Store) bool {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return s.group.closed
}

// PutRawThenFail writes raw under key, as PutRaw does, then fails with
// fail in the same transaction, so nothing may be written.
func PutRawThenFail(s *Store, key string, raw []byte, fail error) error {
	return s.update(func(b *buckets) error {
		if err := b.entries.Put([]byte(key), raw); err != nil {
			return err
		}
		return fail
	})
}

// RequestIndexKeys returns the keys of the index that finds an entry by
// opencode's request ID, so tests can see their format in the file.
func RequestIndexKeys(s *Store) []string {
	var keys []string
	_ = s.view(func(b *buckets) error {
		return b.byRequest.ForEach(func(k, _ []byte) error {
			keys = append(keys, string(k))
			return nil
		})
	})
	return keys
}

// PutMetaRaw writes raw bytes under key in the meta bucket, so tests can
// store a record RememberAlways would not write.
func PutMetaRaw(s *Store, key string, raw []byte) error {
	return s.write(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put([]byte(key), raw) })
}

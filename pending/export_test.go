package pending

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
				e.UID = newUID()
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

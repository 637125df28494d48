//go:build !linux

package pending

// ReleaseMapped does nothing here: it is written for Linux's madvise
// semantics (see release_linux.go).
func (s *Store) ReleaseMapped() error { return nil }

//go:build linux

package pending

import (
	"fmt"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// ReleaseMapped takes the store file's pages out of the process's
// resident memory; they stay in the kernel's page cache, so the next read
// of one costs a minor fault, not disk I/O. bbolt reads the file through
// a shared memory map, and the kernel maps neighbouring pages on every
// fault (fault-around), so a scan of the indexes, as after every connect,
// leaves nearly the whole file resident: 10 MiB with 10,000 entries, for
// data the store rarely reads again. Call it after such a scan.
func (s *Store) ReleaseMapped() error {
	return closedErr(s.db.View(func(tx *bolt.Tx) error {
		// The read transaction holds bbolt's map lock, so the map cannot be
		// replaced (bbolt remaps under the write side) while it is advised;
		// tx.Size is the part of the file in use, which the map covers.
		size := uintptr(tx.Size())
		if size == 0 {
			return nil
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, s.db.Info().Data, size, syscall.MADV_DONTNEED); errno != 0 {
			return fmt.Errorf("release the mapped pages of %s: %w", s.path, errno)
		}
		return nil
	}))
}

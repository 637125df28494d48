//go:build unix

package pending

import (
	"os"
	"syscall"
)

// unlockFile drops bbolt's flock explicitly: after a panic inside
// bbolt.Open the file may still be memory-mapped, and the mapping keeps the
// open file, and so its lock, alive after Close.
func unlockFile(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

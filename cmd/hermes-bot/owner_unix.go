//go:build unix

package main

import (
	"os"
	"syscall"
)

// ownedByMe reports whether the file at path belongs to the user this
// process runs as: only then is "fix its permissions" advice one can
// follow.
func ownedByMe(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

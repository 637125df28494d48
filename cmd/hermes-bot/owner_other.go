//go:build !unix

package main

import "io/fs"

// ownedByMe reports whether the file at path belongs to the user this
// process runs as; where ownership cannot be read, it says no, so no
// advice to fix permissions is given.
func ownedByMe(string) bool { return false }

// openToOthers reports whether others may read the file at path; where
// permissions are no Unix modes, it says no.
func openToOthers(string) (fs.FileMode, bool) { return 0, false }

package pending

import "errors"

// These errors can occur when opening a store.
var (
	// ErrLocked is returned by Open when another process, or another Store
	// in this process, still holds the file's lock when the lock timeout
	// runs out.
	ErrLocked = errors.New("store is locked by another process")

	// ErrCorrupt is returned by Open when the file is not a readable store,
	// and by Get, ByRequestID and Update when one entry's JSON
	// cannot be decoded.
	ErrCorrupt = errors.New("store is corrupt")

	// ErrTooOld is returned by Open when the file was written by a
	// hermes-bot older than OldestRelease, whose records this one does not
	// read. The file is left as it was.
	ErrTooOld = errors.New("store is too old")
)

// These errors can occur when reading or writing entries.
var (
	// ErrNotFound is returned when no entry has the UID or request ID asked
	// for.
	ErrNotFound = errors.New("entry not found")

	// ErrExists is returned when an entry would take a UID or request ID
	// that another entry already holds. It is how the
	// caller learns that a request was seen before.
	ErrExists = errors.New("entry already exists")

	// ErrInvalid is returned when an entry cannot be stored as given: a nil
	// entry, a UID outside [a-zA-Z0-9], or an Update that changes the UID.
	ErrInvalid = errors.New("invalid entry")

	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("store is closed")
)

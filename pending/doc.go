// Package pending owns the bbolt file of requests in flight: each Entry,
// keyed by a short UID derived from its request (UIDFor), the indexes
// kept consistent with it in the same transaction, the queries the
// bridge runs (Expired, Unsent, Directories, SessionsOf, CompareListed,
// BySession, Group), a meta bucket (closed requests, owed closing edits,
// which session a message is about, directories where an "always" answer
// paused auto-approval), each front-end's own key/value space
// (FrontendState) and the single-instance lock on the file. It knows
// nothing of HTTP, chats or opencode: deciding what an entry means is
// left to package bot. Where a request is shown is a Place per front-end,
// by name, which the store keeps and compares but never reads. Its
// indexes, one entry model for both opencode generations, and how it
// reads older files are in docs/architecture.md, "The store".
//
// # Basics
//
// Open the store once per process with Open and Close it last. Create is
// the dedupe check every path that can see a request twice goes through:
// it fails with ErrExists, writing nothing, when the request ID is already
// held. Entries are stored as JSON, so Entry may gain fields without a
// migration. An entry that cannot be decoded is skipped by the listing
// methods, with a warning naming its key, so one bad record never stops
// the bridge; Delete still removes it. Open builds the indexes again when
// the file lacks one or holds another version of them, and refuses a file
// of a release older than OldestRelease with ErrTooOld, leaving it as it
// was.
//
// # Concurrency
//
// Every method of Store is safe for concurrent use by several goroutines.
// Writes that come while a commit runs are committed together in the
// next transaction, one fsync for all (commit.go); each returns once its
// own write is on disk. The function passed to Update runs inside the
// write transaction, possibly more than once (see Update), so it must be
// quick, must not block and must change nothing but the entry it is
// given: nobody calls the front-end, opencode or anything else on the
// network inside a transaction, and nobody calls another Store method
// from it (that would deadlock). Read, decide, talk to the network, then
// write with Update.
//
// Only one Store may hold a file at a time, across processes too: a second
// Open of the same file fails with ErrLocked once the lock timeout runs out.
package pending

// Package pending owns the bbolt file of requests in flight: each Entry,
// keyed by a short UID derived from its request (UIDFor), and the indexes
// kept consistent with it in the same transaction (by opencode request ID,
// by directory, by expiry time, by session and parent session, by the
// message a request shares, and of entries a front-end is still owed the
// message of), the queries the bridge runs (Expired, Unsent, Directories,
// SessionsOf, CompareListed, BySession, Group), a small
// meta bucket (requests closed in the last day so a late press is told
// how they closed, the closing edits still owed to their messages,
// recorded in the transaction that closes them, which session a message
// is about, and the directories where an "always" answer let the agent
// change files) and the single-instance lock on the file. It knows
// nothing of HTTP, Telegram or opencode: deciding what an entry means,
// and talking to either side, is left to package bot.
//
// An entry holds one request model for both opencode generations: a
// question request of opencode 1.x is a form whose fields are its
// questions, and an OpenCode 2 form is an entry with Form set whose
// Questions are its fields, with their type, conditions and checks. The
// field attributes are all omitted when empty, so entries written by
// hermes-bot 03d8d17, the last release before forms, read, and are
// answered, exactly as it wrote them.
//
// The store is front-end neutral. Where a request is shown is a Place per
// front-end, by the front-end's name: a string of the front-end's own
// encoding, which the store keeps and compares but never reads (an empty
// one is a front-end still owed the message, which Unsent lists). Owed
// edits, the messages remembered about sessions and closed requests are
// keyed by front-end and place alike. When a front-end loses messages
// (Telegram: a group that became a supergroup), Unpost forgets their
// places, so those entries are posted there again.
//
// A front-end's own bookkeeping is the front-end's: FrontendState gives
// each front-end, by name, a key/value space of its own (a bucket under
// the frontends bucket), read and written in the store's transactions,
// whose keys and values the store does not interpret. Telegram keeps its
// update offset, its chats' moves to supergroups and a forum topic per
// project there (bot/telegram's State).
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
// the file lacks one or holds another version of them.
//
// # Concurrency
//
// Every method of Store is safe for concurrent use by several goroutines.
// bbolt allows many readers and one writer at a time, and each commit
// waits for an fsync: a write that finds none running commits at once,
// and the writes that come meanwhile are committed together in the next
// transaction, one fsync for all (commit.go). Each returns once its own
// write is on disk. The function passed to Update runs inside the write
// transaction, possibly more than once (see Update), so it must be quick,
// must not block and must change nothing but the entry it is given:
// nobody calls the front-end, opencode or anything else on the network inside
// a transaction, and nobody calls another Store method from it (that
// would deadlock). Read, decide, talk to the network, then write with
// Update.
//
// Only one Store may hold a file at a time, across processes too: a second
// Open of the same file fails with ErrLocked once the lock timeout runs out.
//
// # Files of older releases
//
// Open reads the files of hermes-bot 03d8d17 (OldestRelease) and later.
// Those of older releases, whose records named the place after Telegram,
// carry no schema marker in the meta bucket: Open refuses such a file with
// ErrTooOld, naming it, and leaves it as it was. Opening it once with
// 03d8d17, which rewrites it, makes it readable; moving it aside starts
// afresh. A file of 03d8d17 kept the Telegram front-end's bookkeeping in
// the meta bucket, under the keys "updateOffset:", "chatMigration:" and
// "topic:" and what follows them: Open moves them, verbatim and in the
// transaction of its other work on the file, to the frontends bucket of
// "telegram", which reads them in that format. Its records name one place,
// Telegram's {chat, message, thread}: Open rewrites them once with a
// place per front-end, that JSON becoming the "telegram" front-end's
// Place (legacy.go), and marks the file with today's schema, which
// 03d8d17 refuses as newer than itself.
package pending

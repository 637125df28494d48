package pending

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DefaultLockTimeout is how long Open waits for another holder of the
// file to let go before it fails with ErrLocked.
const DefaultLockTimeout = 3 * time.Second

var (
	bucketEntries   = []byte("entries")
	bucketByRequest = []byte("byRequest")
	// The indexes that spare the listings a decode of every entry
	// (entries.go, buckets), built by Open when missing (rebuildIndexes).
	bucketByDirectory = []byte("byDirectory")
	bucketByExpiry    = []byte("byExpiry")
	bucketUnsent      = []byte("unsent")
	// So do bySession and bySharedWith for the bridge's lookups on each
	// permission asked, each press and each session's end.
	bucketBySession    = []byte("bySession")
	bucketBySharedWith = []byte("bySharedWith")
	// bucketMeta holds small facts about the file and the requests, such
	// as the schema, the index version and how requests closed (closed.go).
	bucketMeta = []byte("meta")
)

// OpenOption configures Open. (Option is the name of a question's choice.)
type OpenOption func(*openConfig)

type openConfig struct {
	lockTimeout time.Duration
	now         func() time.Time
	log         zerolog.Logger
}

// WithLockTimeout sets how long Open waits for the file's lock; d <= 0
// keeps DefaultLockTimeout, so Open never waits forever.
func WithLockTimeout(d time.Duration) OpenOption {
	return func(c *openConfig) {
		if d > 0 {
			c.lockTimeout = d
		}
	}
}

// WithClock sets the clock that stamps CreatedAt; tests pass a fixed one.
func WithClock(now func() time.Time) OpenOption {
	return func(c *openConfig) {
		if now != nil {
			c.now = now
		}
	}
}

// WithLogger sets where the store warns about entries it skips. The
// default discards.
func WithLogger(log zerolog.Logger) OpenOption {
	return func(c *openConfig) { c.log = log }
}

// Store is the bbolt file of requests in flight. Create it with Open; all
// methods are safe for concurrent use, and return ErrClosed after Close.
type Store struct {
	db   *bolt.DB
	path string
	now  func() time.Time
	log  zerolog.Logger

	// group is where every write transaction goes (commit.go).
	group committer

	mu     sync.Mutex
	closed bool
}

// Open opens the store at path, creating the folder (0700) and the file
// (0600) when they do not exist; an existing folder keeps its mode. It
// blocks up to the lock timeout while another Store, in this process or
// another, holds the file, then fails with an error wrapping ErrLocked. A
// file that is not a readable store gives an error wrapping ErrCorrupt,
// and one written by a hermes-bot older than OldestRelease an error
// wrapping ErrTooOld; both name the file, say what to do, and leave it
// as it was. The caller must Close the store.
func Open(path string, opts ...OpenOption) (*Store, error) {
	cfg := openConfig{lockTimeout: DefaultLockTimeout, now: time.Now, log: zerolog.Nop()}
	for _, o := range opts {
		o(&cfg)
	}
	if path == "" {
		return nil, errors.New("open pending store: no path given (set HERMES_DB)")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open pending store %s: create folder: %w", path, err)
	}
	db, err := openDB(path, cfg.lockTimeout)
	if err != nil {
		return nil, classifyOpenError(path, err)
	}
	if err := createBuckets(db, cfg.log, path); err != nil {
		return nil, classifyOpenError(path, err)
	}
	return &Store{db: db, path: path, now: cfg.now, log: cfg.log, group: committer{db: db}}, nil
}

// openDB turns a panic inside bbolt.Open, which some damaged files cause,
// into an error, and unlocks and closes the file so the lock does not
// outlive the call. The memory map bbolt may have made by then cannot be
// reached and stays until the process exits; it is read-only and the
// caller is about to report the damaged file and stop.
func openDB(path string, timeout time.Duration) (db *bolt.DB, err error) {
	var file *os.File
	opts := &bolt.Options{
		Timeout: timeout,
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, mode)
			file = f
			return f, err
		},
	}
	defer func() {
		if r := recover(); r != nil {
			if file != nil {
				unlockFile(file)
				_ = file.Close()
			}
			db, err = nil, fmt.Errorf("%w: reading it panicked: %v", ErrCorrupt, r)
		}
	}()
	return bolt.Open(path, 0o600, opts)
}

// listingIndexes are the buckets rebuildIndexes builds afresh.
var listingIndexes = [][]byte{bucketByDirectory, bucketByExpiry, bucketUnsent, bucketBySession, bucketBySharedWith}

// indexVersionKey is the meta key saying which indexes the file has, so
// Open builds them only once. indexVersion goes up whenever an index is
// added or its keys change.
var indexVersionKey = []byte("indexVersion")

const indexVersion = "4"

// schemaKey is the meta key naming the shape of the file's records:
// schemaPlaces today's (a place per front-end), schemaPlace that of
// OldestRelease (one place, Telegram's), which Open rewrites (legacy.go).
// Every release since OldestRelease has written it, and a new file gets
// it at once; a file holding the store's buckets without it was written
// by an older release, whose records Open refuses (ErrTooOld) rather than
// misread.
var schemaKey = []byte("schema")

const (
	schemaPlace  = "place"
	schemaPlaces = "places"
)

// OldestRelease is the oldest hermes-bot release whose files this one
// reads: the last release before forms, whose records are today's less
// the fields of a form. A file of an older one must be opened once by it,
// which rewrites the file in its shape, first.
const OldestRelease = "03d8d17"

// checkSchema reports whether the file is new (none of the store's
// buckets yet), and refuses a file whose records are in another shape
// than today's.
func checkSchema(tx *bolt.Tx) (fresh bool, err error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil && tx.Bucket(bucketEntries) == nil {
		return true, nil
	}
	var schema []byte
	if meta != nil {
		schema = meta.Get(schemaKey)
	}
	switch {
	case schema == nil:
		return false, ErrTooOld
	case string(schema) != schemaPlace && string(schema) != schemaPlaces:
		return false, fmt.Errorf("%w: its records are marked %q, a shape this hermes-bot does not know (written by a newer one?)", ErrCorrupt, schema)
	}
	return false, nil
}

// createBuckets is the first transaction on the file, so it is where a
// damaged page tree shows up; a panic here closes the database. It
// checks the file's shape before it writes anything.
func createBuckets(db *bolt.DB, log zerolog.Logger, path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: reading it panicked: %v", ErrCorrupt, r)
			func() {
				defer func() { _ = recover() }()
				_ = db.Close()
			}()
		}
	}()
	err = db.Update(func(tx *bolt.Tx) error {
		fresh, err := checkSchema(tx)
		if err != nil {
			return err
		}
		for _, name := range [][]byte{bucketEntries, bucketByRequest, bucketMeta, bucketFrontends} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
		}
		if fresh {
			if err := tx.Bucket(bucketMeta).Put(schemaKey, []byte(schemaPlaces)); err != nil {
				return fmt.Errorf("record the schema: %w", err)
			}
		} else if string(tx.Bucket(bucketMeta).Get(schemaKey)) == schemaPlace {
			if err := upgradePlaces(tx, log, path); err != nil {
				return fmt.Errorf("upgrade the file of %s: %w", OldestRelease, err)
			}
		}
		rebuild := string(tx.Bucket(bucketMeta).Get(indexVersionKey)) != indexVersion
		for _, name := range listingIndexes {
			if tx.Bucket(name) == nil {
				rebuild = true
			}
		}
		if rebuild {
			return rebuildIndexes(tx, log, path)
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
	}
	return err
}

// rebuildIndexes builds the listingIndexes afresh from the entries. An
// entry that cannot be decoded gets no keys, with a warning, as the
// listings skip it anyway.
func rebuildIndexes(tx *bolt.Tx, log zerolog.Logger, path string) error {
	for _, name := range listingIndexes {
		if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return fmt.Errorf("drop index %s: %w", name, err)
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("bucket %s: %w", name, err)
		}
	}
	b := newBuckets(tx)
	if err := b.meta.Delete(nulDirectoryKey); err != nil {
		return fmt.Errorf("drop %s: %w", nulDirectoryKey, err)
	}
	n := 0
	err := b.entries.ForEach(func(k, v []byte) error {
		e, err := decode(v)
		if err != nil {
			log.Warn().Err(err).Str("key", string(k)).Str("db", path).
				Msg("not indexing an entry of the pending store that cannot be decoded; delete it or move the file aside")
			return nil
		}
		if string(k) != e.UID {
			log.Warn().Str("key", string(k)).Str("uid", e.UID).Str("db", path).
				Msg("not indexing an entry of the pending store stored under another UID than its own")
			return nil
		}
		n++
		return b.indexListings(e)
	})
	if err != nil {
		return fmt.Errorf("build indexes: %w", err)
	}
	if err := tx.Bucket(bucketMeta).Put(indexVersionKey, []byte(indexVersion)); err != nil {
		return fmt.Errorf("record index version: %w", err)
	}
	if n > 0 {
		log.Info().Int("entries", n).Str("db", path).Msg("built the indexes of the pending store")
	}
	return nil
}

func classifyOpenError(path string, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("open pending store: another hermes-bot holds %s (stop it, or set HERMES_DB to another file): %w", path, ErrLocked)
	case errors.Is(err, ErrTooOld):
		return fmt.Errorf("open pending store %s: %w: it was written by a hermes-bot older than %s, whose records this one no longer reads; "+
			"open it once with hermes-bot %s (starting it, or its hermes-bot check, rewrites the file), then start this one again; "+
			"or move it aside (mv %s %s.old) and start with an empty store, requests in flight are found again from opencode",
			path, err, OldestRelease, OldestRelease, path, path)
	case errors.Is(err, ErrCorrupt):
		// already says so
	default:
		var pathErr *os.PathError
		var errno syscall.Errno
		if errors.As(err, &pathErr) || errors.As(err, &errno) {
			// Permissions, a missing disk and the like: the file may be fine.
			return fmt.Errorf("open pending store %s: %w", path, err)
		}
		// What is left comes from bbolt reading the file's pages: an
		// invalid meta page, a bad checksum, a file too small or a clash
		// with our bucket names.
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return fmt.Errorf("open pending store %s: the file is damaged or not a hermes-bot store (%w); "+
		"move it aside (mv %s %s.broken) and start again with an empty store, "+
		"requests in flight are found again from opencode", path, err, path, path)
}

// Path returns the file the store was opened on.
func (s *Store) Path() string { return s.path }

// Close releases the file and its lock. It blocks until running
// transactions finish, and writes already waiting for a commit are
// committed first; writes begun after Close return ErrClosed. Calling it
// again does nothing and returns nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.group.close()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close pending store %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) view(fn func(*buckets) error) error {
	return closedErr(s.db.View(func(tx *bolt.Tx) error { return fn(newBuckets(tx)) }))
}

// update runs fn in a write transaction, maybe grouped with others and
// maybe more than once (commit.go): fn must leave nothing behind outside
// the transaction but what it sets afresh on each run.
func (s *Store) update(fn func(*buckets) error) error {
	return s.write(func(tx *bolt.Tx) error { return fn(newBuckets(tx)) })
}

// write is update for the buckets that buckets does not hold.
func (s *Store) write(fn func(*bolt.Tx) error) error {
	return closedErr(s.group.write(fn))
}

func closedErr(err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

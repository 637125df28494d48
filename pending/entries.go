package pending

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

const (
	// uidLen characters of 62 give 62^8 ≈ 2·10^14 UIDs: collisions are
	// rare enough that a retry or two settles them, and the UID stays short
	// in 64-byte callback data.
	uidLen      = 8
	uidAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	uidAttempts = 10
)

// NewUID returns a fresh UID, for a caller that must name an entry (in
// the buttons of its message) before it stores it with Create. Create
// refuses it with ErrExists in the unlikely case that it is taken.
func NewUID() string { return newUID() }

// UIDFor returns the UID of the entry for request requestID of the
// opencode server named server: uidLen characters of uidAlphabet drawn
// from a SHA-256 of both, the same in every process. A message posted
// for the request by a process that died before storing it carries the
// UID the restart stores, so its buttons still answer. Two requests
// sharing one is as rare as for NewUID; Create refuses the second with
// ErrExists, so check with Get first and fall back to NewUID.
func UIDFor(server, requestID string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + requestID))
	// 62^8 is below 2^48, so the modulo's bias over 64 bits is nil in
	// practice.
	n := binary.BigEndian.Uint64(sum[:8])
	out := make([]byte, uidLen)
	for i := range out {
		out[i] = uidAlphabet[n%uint64(len(uidAlphabet))]
		n /= uint64(len(uidAlphabet))
	}
	return string(out)
}

// requestKey is the key of request requestID of server in the indexes
// that find a request by opencode's ID. The unnamed server's is the ID
// alone, as in files written before servers had names, so they need no
// rebuild. A named server's holds its name and a NUL, which no server
// name holds; and a deployment has either one unnamed server or only
// named ones, so no two servers' keys can meet.
func requestKey(server, requestID string) []byte {
	if server == "" {
		return []byte(requestID)
	}
	return []byte(server + "\x00" + requestID)
}

// newUID draws uidLen characters uniformly from uidAlphabet; bytes at or
// above the largest multiple of 62 are dropped so no character is favoured.
func newUID() string {
	const limit = 256 - 256%len(uidAlphabet)
	out := make([]byte, 0, uidLen)
	var buf [2 * uidLen]byte
	for len(out) < uidLen {
		_, _ = rand.Read(buf[:]) // never fails; it panics rather than return short
		for _, b := range buf {
			if int(b) < limit && len(out) < uidLen {
				out = append(out, uidAlphabet[int(b)%len(uidAlphabet)])
			}
		}
	}
	return string(out)
}

func validUID(uid string) bool {
	if uid == "" || len(uid) > 64 {
		return false
	}
	for i := range len(uid) {
		if strings.IndexByte(uidAlphabet, uid[i]) < 0 {
			return false
		}
	}
	return true
}

// promptKey is the byPrompt key of a prompt: its chat and message in
// decimal, as files hold them.
func promptKey(chat int64, message int) []byte {
	return []byte(strconv.FormatInt(chat, 10) + ":" + strconv.Itoa(message))
}

// buckets is one transaction's view of the entries and their indexes;
// every write goes through put and unindex so the indexes never drift from
// the entries.
//
// byRequest and byPrompt map a request ID and a prompt message to the UID
// holding it. The others let the frequent listings find their entries
// without decoding every one: byDirectory has a key dir + "\x00" + uid per
// entry, whose value is the request ID; byExpiry has a key expiryStamp +
// uid per entry with an ExpiresAt; unsent has the UID of every entry whose
// message was never sent (Place.Message 0). bySession has a key session +
// "\x00" + uid per entry under its SessionID, and another under its
// ParentSessionID when that is set and differs; bySharedWith has a key
// sharedWith + "\x00" + uid per entry with a SharedWith. Their values are
// empty.
type buckets struct {
	entries, byRequest, byPrompt  *bolt.Bucket
	byDirectory, byExpiry, unsent *bolt.Bucket
	bySession, bySharedWith       *bolt.Bucket
	meta                          *bolt.Bucket
}

func newBuckets(tx *bolt.Tx) *buckets {
	return &buckets{
		entries:      tx.Bucket(bucketEntries),
		byRequest:    tx.Bucket(bucketByRequest),
		byPrompt:     tx.Bucket(bucketByPrompt),
		byDirectory:  tx.Bucket(bucketByDirectory),
		byExpiry:     tx.Bucket(bucketByExpiry),
		unsent:       tx.Bucket(bucketUnsent),
		bySession:    tx.Bucket(bucketBySession),
		bySharedWith: tx.Bucket(bucketBySharedWith),
		meta:         tx.Bucket(bucketMeta),
	}
}

// nameKey is the key of uid under name in byDirectory, bySession or
// bySharedWith.
func nameKey(name, uid string) []byte {
	return []byte(name + "\x00" + uid)
}

func directoryKey(dir, uid string) []byte { return nameKey(dir, uid) }

// sessionKeys are e's keys in bySession. An entry is indexed under its
// SessionID even when that is empty, so BySession("") finds what a scan
// for SessionID == "" would; an empty ParentSessionID names no parent.
func sessionKeys(e *Entry) [][]byte {
	keys := [][]byte{nameKey(e.SessionID, e.UID)}
	if e.ParentSessionID != "" && e.ParentSessionID != e.SessionID {
		keys = append(keys, nameKey(e.ParentSessionID, e.UID))
	}
	return keys
}

// nulDirectoryKey, in meta, is there once an entry's directory held a
// NUL. Its keys can then sit among another directory's, and Directories
// reads every key of the index instead of skipping each directory's with
// one Seek. It is not removed with the entry; a rebuild of the indexes
// clears it.
var nulDirectoryKey = []byte("nulDirectory")

// splitNameKey returns the name (directory, session or shared UID) and the
// UID of a nameKey. It splits at the last NUL, since a UID has none and a
// name could.
func splitNameKey(k []byte) (name, uid []byte, ok bool) {
	i := bytes.LastIndexByte(k, 0)
	if i < 0 {
		return nil, nil, false
	}
	return k[:i], k[i+1:], true
}

const stampLen = 8

var (
	minStampTime = time.Unix(0, math.MinInt64)
	maxStampTime = time.Unix(0, math.MaxInt64)
)

// expiryStamp orders byExpiry keys by time: t's Unix nanoseconds,
// big-endian, with the sign bit flipped so times before 1970 sort first.
// Times UnixNano cannot express are clamped; Expired checks the decoded
// ExpiresAt again, so clamping never changes what it returns.
func expiryStamp(t time.Time) [stampLen]byte {
	var n int64
	switch {
	case t.Before(minStampTime):
		n = math.MinInt64
	case t.After(maxStampTime):
		n = math.MaxInt64
	default:
		n = t.UnixNano()
	}
	var out [stampLen]byte
	binary.BigEndian.PutUint64(out[:], uint64(n)^(1<<63))
	return out
}

func expiryKey(t time.Time, uid string) []byte {
	stamp := expiryStamp(t)
	return append(stamp[:], uid...)
}

func decode(raw []byte) (*Entry, error) {
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("decode JSON: %w: %w", ErrCorrupt, err)
	}
	return &e, nil
}

func (b *buckets) get(uid string) (*Entry, error) {
	raw := b.entries.Get([]byte(uid))
	if raw == nil {
		return nil, ErrNotFound
	}
	return decode(raw)
}

// checkFree fails with ErrExists when the index keys e would take belong
// to an entry other than e.
func (b *buckets) checkFree(e *Entry) error {
	if e.RequestID != "" {
		if owner := b.byRequest.Get(requestKey(e.Server, e.RequestID)); owner != nil && string(owner) != e.UID {
			return fmt.Errorf("request %s is held by entry %s: %w", e.RequestID, owner, ErrExists)
		}
	}
	if e.Prompt != 0 {
		key := promptKey(e.Place.Chat, e.Prompt)
		if owner := b.byPrompt.Get(key); owner != nil && string(owner) != e.UID {
			return fmt.Errorf("prompt %s is held by entry %s: %w", key, owner, ErrExists)
		}
	}
	return nil
}

func (b *buckets) put(e *Entry) error {
	raw, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode entry %s: %w", e.UID, err)
	}
	if err := b.entries.Put([]byte(e.UID), raw); err != nil {
		return fmt.Errorf("write entry %s: %w", e.UID, err)
	}
	return b.index(e)
}

// index writes e's index keys.
func (b *buckets) index(e *Entry) error {
	uid := []byte(e.UID)
	if e.RequestID != "" {
		if err := b.byRequest.Put(requestKey(e.Server, e.RequestID), uid); err != nil {
			return fmt.Errorf("index request %s: %w", e.RequestID, err)
		}
	}
	if e.Prompt != 0 {
		if err := b.byPrompt.Put(promptKey(e.Place.Chat, e.Prompt), uid); err != nil {
			return fmt.Errorf("index prompt of entry %s: %w", e.UID, err)
		}
	}
	return b.indexListings(e)
}

// indexListings writes e's keys in the indexes of the listings; Open calls
// it alone when it builds those indexes for a file that lacks them.
func (b *buckets) indexListings(e *Entry) error {
	uid := []byte(e.UID)
	if err := b.byDirectory.Put(directoryKey(e.Directory, e.UID), []byte(e.RequestID)); err != nil {
		return fmt.Errorf("index directory of entry %s: %w", e.UID, err)
	}
	if strings.IndexByte(e.Directory, 0) >= 0 {
		if err := b.meta.Put(nulDirectoryKey, []byte{}); err != nil {
			return fmt.Errorf("note the NUL in the directory of entry %s: %w", e.UID, err)
		}
	}
	for _, k := range sessionKeys(e) {
		if err := b.bySession.Put(k, []byte{}); err != nil {
			return fmt.Errorf("index session of entry %s: %w", e.UID, err)
		}
	}
	if e.SharedWith != "" {
		if err := b.bySharedWith.Put(nameKey(e.SharedWith, e.UID), []byte{}); err != nil {
			return fmt.Errorf("index shared message of entry %s: %w", e.UID, err)
		}
	}
	if !e.ExpiresAt.IsZero() {
		if err := b.byExpiry.Put(expiryKey(e.ExpiresAt, e.UID), []byte{}); err != nil {
			return fmt.Errorf("index expiry of entry %s: %w", e.UID, err)
		}
	}
	if e.Place.Message == 0 {
		if err := b.unsent.Put(uid, []byte{}); err != nil {
			return fmt.Errorf("index entry %s as unsent: %w", e.UID, err)
		}
	}
	return nil
}

// unindex removes e's index keys, but only those that still point at e, so
// a stale copy can never remove another entry's keys. (The keys of
// byDirectory, byExpiry, unsent, bySession and bySharedWith hold e's UID,
// so they are e's alone.)
func (b *buckets) unindex(e *Entry) error {
	uid := []byte(e.UID)
	if e.RequestID != "" {
		if err := deleteIfOwned(b.byRequest, requestKey(e.Server, e.RequestID), uid); err != nil {
			return err
		}
	}
	if e.Prompt != 0 {
		if err := deleteIfOwned(b.byPrompt, promptKey(e.Place.Chat, e.Prompt), uid); err != nil {
			return err
		}
	}
	if err := b.byDirectory.Delete(directoryKey(e.Directory, e.UID)); err != nil {
		return fmt.Errorf("unindex directory of entry %s: %w", e.UID, err)
	}
	for _, k := range sessionKeys(e) {
		if err := b.bySession.Delete(k); err != nil {
			return fmt.Errorf("unindex session of entry %s: %w", e.UID, err)
		}
	}
	if e.SharedWith != "" {
		if err := b.bySharedWith.Delete(nameKey(e.SharedWith, e.UID)); err != nil {
			return fmt.Errorf("unindex shared message of entry %s: %w", e.UID, err)
		}
	}
	if !e.ExpiresAt.IsZero() {
		if err := b.byExpiry.Delete(expiryKey(e.ExpiresAt, e.UID)); err != nil {
			return fmt.Errorf("unindex expiry of entry %s: %w", e.UID, err)
		}
	}
	if err := b.unsent.Delete(uid); err != nil {
		return fmt.Errorf("unindex entry %s as unsent: %w", e.UID, err)
	}
	return nil
}

func deleteIfOwned(bk *bolt.Bucket, key, uid []byte) error {
	if !bytes.Equal(bk.Get(key), uid) {
		return nil
	}
	if err := bk.Delete(key); err != nil {
		return fmt.Errorf("unindex %s: %w", key, err)
	}
	return nil
}

// unindexAll removes every index key pointing at uid; Delete uses it when
// the entry cannot be decoded to say which keys it had. It reads whole
// indexes, which is slow, but only for a damaged entry.
func (b *buckets) unindexAll(uid []byte) error {
	byName := func(k, _ []byte) bool {
		_, u, ok := splitNameKey(k)
		return ok && bytes.Equal(u, uid)
	}
	owned := []struct {
		bk   *bolt.Bucket
		owns func(k, v []byte) bool
	}{
		{b.byRequest, func(_, v []byte) bool { return bytes.Equal(v, uid) }},
		{b.byPrompt, func(_, v []byte) bool { return bytes.Equal(v, uid) }},
		{b.byDirectory, byName},
		{b.bySession, byName},
		{b.bySharedWith, byName},
		{b.byExpiry, func(k, _ []byte) bool { return len(k) > stampLen && bytes.Equal(k[stampLen:], uid) }},
	}
	for _, o := range owned {
		var stale [][]byte
		err := o.bk.ForEach(func(k, v []byte) error {
			if o.owns(k, v) {
				stale = append(stale, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range stale {
			if err := o.bk.Delete(k); err != nil {
				return fmt.Errorf("unindex %q: %w", k, err)
			}
		}
	}
	if err := b.unsent.Delete(uid); err != nil {
		return fmt.Errorf("unindex %s as unsent: %w", uid, err)
	}
	return nil
}

// Create stores e as a new entry, in one transaction with its index keys.
// It assigns e.UID when empty (8 random characters of [a-zA-Z0-9]) and sets
// e.CreatedAt from the store's clock when zero; e is changed only when the
// entry was written. When another entry already holds e.RequestID (or
// e.UID, or e's prompt message) it returns an error wrapping ErrExists and
// writes nothing: this is the dedupe check for requests seen twice.
func (s *Store) Create(e *Entry) error {
	if e == nil {
		return fmt.Errorf("create entry: %w: nil", ErrInvalid)
	}
	if e.UID != "" && !validUID(e.UID) {
		return fmt.Errorf("create entry %q: %w: UID must be 1–64 characters of [a-zA-Z0-9]", e.UID, ErrInvalid)
	}
	// Round(0) drops the monotonic reading, which JSON would drop too, so
	// e stays equal to what Get returns.
	now := s.now().Round(0)
	var c Entry
	err := s.update(func(b *buckets) error {
		// Built afresh on each run, so a run again draws a new UID.
		c = *e
		if c.CreatedAt.IsZero() {
			c.CreatedAt = now
		}
		if c.UID == "" {
			for range uidAttempts {
				if uid := newUID(); b.entries.Get([]byte(uid)) == nil {
					c.UID = uid
					break
				}
			}
			if c.UID == "" {
				return fmt.Errorf("no free UID after %d attempts", uidAttempts)
			}
		} else if b.entries.Get([]byte(c.UID)) != nil {
			return fmt.Errorf("uid %s is taken: %w", c.UID, ErrExists)
		}
		if err := b.checkFree(&c); err != nil {
			return err
		}
		return b.put(&c)
	})
	if err != nil && e.RequestID != "" {
		return fmt.Errorf("create entry for request %s: %w", e.RequestID, err)
	}
	if err != nil {
		return fmt.Errorf("create entry: %w", err)
	}
	e.UID, e.CreatedAt = c.UID, c.CreatedAt
	return nil
}

// Get returns the entry with the UID, or an error wrapping ErrNotFound.
// An entry that cannot be decoded gives an error wrapping ErrCorrupt.
func (s *Store) Get(uid string) (*Entry, error) {
	var e *Entry
	err := s.view(func(b *buckets) (err error) {
		e, err = b.get(uid)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get entry %s: %w", uid, err)
	}
	return e, nil
}

// ByRequestID returns the entry holding request requestID of the opencode
// server named server ("" for the unnamed one), or an error wrapping
// ErrNotFound.
func (s *Store) ByRequestID(server, requestID string) (*Entry, error) {
	if requestID == "" {
		return nil, fmt.Errorf("get entry by request: %w", ErrNotFound)
	}
	return s.byIndex(func(b *buckets) *bolt.Bucket { return b.byRequest }, requestKey(server, requestID), "request "+requestID+serverSuffix(server))
}

// serverSuffix names server in an error, when it has a name.
func serverSuffix(server string) string {
	if server == "" {
		return ""
	}
	return " of server " + server
}

// ByPrompt returns the entry whose Prompt is message in chat, or an error
// wrapping ErrNotFound.
func (s *Store) ByPrompt(chat int64, message int) (*Entry, error) {
	key := promptKey(chat, message)
	return s.byIndex(func(b *buckets) *bolt.Bucket { return b.byPrompt }, key, "prompt "+string(key))
}

func (s *Store) byIndex(index func(*buckets) *bolt.Bucket, key []byte, what string) (*Entry, error) {
	var e *Entry
	err := s.view(func(b *buckets) (err error) {
		if len(key) == 0 {
			return ErrNotFound
		}
		uid := index(b).Get(key)
		if uid == nil {
			return ErrNotFound
		}
		e, err = b.get(string(uid))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get by %s: %w", what, err)
	}
	return e, nil
}

// Update reads the entry, lets fn change it, and writes it back with its
// index keys, all in one write transaction. An error from fn aborts the
// transaction and is returned wrapped; nothing is written. A changed
// RequestID or prompt (Place.Chat, Prompt) moves its index key; taking
// one that another entry holds fails with ErrExists. fn must not change the
// UID (ErrInvalid). Update returns the entry as stored.
//
// fn runs inside the transaction, with every other writer waiting: it must
// not call the network or any method of the Store. fn may be called more
// than once, each time on the entry freshly decoded: writes are committed
// in groups, and when another write of its group fails the group runs
// again without it. Only the last call counts, so fn must only change
// the entry it is given, or set outside variables afresh on each call
// (never append to them, count, or send).
//
// The closing edits of owed are recorded as owed in the same transaction,
// as DeleteClosed records them, for a request that closes in place (an
// expired one still being rejected).
func (s *Store) Update(uid string, fn func(*Entry) error, owed ...Edit) (*Entry, error) {
	var out *Entry
	err := s.update(func(b *buckets) error {
		old, err := b.get(uid)
		if err != nil {
			return err
		}
		// A second decode gives fn a copy that shares no slices with old,
		// whose index keys are still needed below.
		next, err := decode(b.entries.Get([]byte(uid)))
		if err != nil {
			return err
		}
		if err := fn(next); err != nil {
			return err
		}
		if next.UID != uid {
			return fmt.Errorf("%w: UID changed to %q", ErrInvalid, next.UID)
		}
		if err := b.checkFree(next); err != nil {
			return err
		}
		if err := b.unindex(old); err != nil {
			return err
		}
		if err := b.put(next); err != nil {
			return err
		}
		if err := putOwed(b.meta, owed, s.now()); err != nil {
			return err
		}
		out = next
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update entry %s: %w", uid, err)
	}
	return out, nil
}

// Delete removes the entry and its index keys in one transaction, or
// returns an error wrapping ErrNotFound. An entry that cannot be decoded
// is removed too.
func (s *Store) Delete(uid string) error {
	err := s.update(func(b *buckets) error {
		key := []byte(uid)
		raw := b.entries.Get(key)
		if raw == nil {
			return ErrNotFound
		}
		if e, err := decode(raw); err != nil {
			if err := b.unindexAll(key); err != nil {
				return err
			}
		} else if err := b.unindex(e); err != nil {
			return err
		}
		return b.entries.Delete(key)
	})
	if err != nil {
		return fmt.Errorf("delete entry %s: %w", uid, err)
	}
	return nil
}

// scan returns the decodable entries that keep accepts, oldest first.
// Undecodable ones are skipped with a warning so the rest still work.
func (s *Store) scan(what string, keep func(*Entry) bool) ([]*Entry, error) {
	var out []*Entry
	err := s.view(func(b *buckets) error {
		return b.entries.ForEach(func(k, v []byte) error {
			e, err := decode(v)
			if err != nil {
				s.warnUndecodable(k, err)
				return nil
			}
			if keep(e) {
				out = append(out, e)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	sortEntries(out)
	return out, nil
}

func (s *Store) warnUndecodable(key []byte, err error) {
	s.log.Warn().Err(err).Str("key", string(key)).Str("db", s.path).
		Msg("skipping an entry of the pending store that cannot be decoded; delete it or move the file aside")
}

// sortEntries puts es oldest first, ties by UID.
func sortEntries(es []*Entry) {
	slices.SortStableFunc(es, func(a, b *Entry) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.UID, b.UID)
	})
}

// lookup decodes the entries with the UIDs an index gave, keeping those
// keep accepts, oldest first. One that cannot be decoded is skipped with a
// warning, as scan does; keep guards against an index key the entry no
// longer matches, which the write paths never leave but a damaged file
// could.
func (s *Store) lookup(b *buckets, uids [][]byte, keep func(*Entry) bool) []*Entry {
	out := make([]*Entry, 0, len(uids))
	for _, uid := range uids {
		raw := b.entries.Get(uid)
		if raw == nil {
			continue
		}
		e, err := decode(raw)
		if err != nil {
			s.warnUndecodable(uid, err)
			continue
		}
		if keep(e) {
			out = append(out, e)
		}
	}
	sortEntries(out)
	return out
}

// List returns every entry, oldest first (ties by UID).
func (s *Store) List() ([]*Entry, error) {
	return s.scan("list entries", func(*Entry) bool { return true })
}

// Expired returns the entries whose ExpiresAt is set and not after now,
// oldest first. It reads the expiry index up to now and decodes only the
// entries found there, so the periodic sweep costs next to nothing while
// nothing is due.
func (s *Store) Expired(now time.Time) ([]*Entry, error) {
	var out []*Entry
	err := s.view(func(b *buckets) error {
		limit := expiryStamp(now)
		var uids [][]byte
		c := b.byExpiry.Cursor()
		for k, _ := c.First(); k != nil && len(k) > stampLen && bytes.Compare(k[:stampLen], limit[:]) <= 0; k, _ = c.Next() {
			uids = append(uids, k[stampLen:])
		}
		out = s.lookup(b, uids, func(e *Entry) bool {
			return !e.ExpiresAt.IsZero() && !e.ExpiresAt.After(now)
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list expired entries: %w", err)
	}
	return out, nil
}

// AwaitingText returns the entries in chat waiting for a typed answer,
// oldest first.
func (s *Store) AwaitingText(chat int64) ([]*Entry, error) {
	return s.scan("list entries awaiting text", func(e *Entry) bool {
		return e.AwaitingText && e.Place.Chat == chat
	})
}

// Unsent returns the entries whose message was never sent
// (Place.Message 0), oldest first, so start-up can send them again. Only those
// entries are decoded.
func (s *Store) Unsent() ([]*Entry, error) {
	var out []*Entry
	err := s.view(func(b *buckets) error {
		var uids [][]byte
		err := b.unsent.ForEach(func(k, _ []byte) error {
			uids = append(uids, k)
			return nil
		})
		if err != nil {
			return err
		}
		out = s.lookup(b, uids, func(e *Entry) bool { return e.Place.Message == 0 })
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list unsent entries: %w", err)
	}
	return out, nil
}

// Directories returns the distinct, non-empty directories of the stored
// entries, sorted: the projects to list pending requests for after a
// (re)connect. It reads the directory index and decodes no entry; per
// directory, it looks up entries only until one exists (an index key
// whose entry is gone is skipped) and then skips the directory's other
// keys with one Seek, so start-up does not page in the whole store.
func (s *Store) Directories() ([]string, error) {
	return s.directories(nil)
}

// DirectoriesOf returns, as Directories does, the directories of the
// entries of the opencode server named server ("" for the unnamed one):
// the projects to list on that server after it (re)connects. Listing a
// directory on a server that never saw it would make opencode start an
// instance there. It decodes the entries it looks at, one per directory
// when they are all server's.
func (s *Store) DirectoriesOf(server string) ([]string, error) {
	return s.directories(&server)
}

// directories serves Directories and DirectoriesOf; server, when set,
// keeps the entries of that server only.
func (s *Store) directories(server *string) ([]string, error) {
	ofServer := func(raw []byte) bool {
		if raw == nil {
			return false
		}
		if server == nil {
			return true
		}
		e, err := decode(raw)
		return err == nil && e.Server == *server
	}
	var dirs []string
	err := s.view(func(b *buckets) error {
		// A directory's keys are dir+"\x00"+uid, all before dir+"\x01";
		// but those of a directory dir+"\x00x" would sit among them.
		jump := b.meta.Get(nulDirectoryKey) == nil
		seen := make(map[string]bool)
		c := b.byDirectory.Cursor()
		for k, _ := c.First(); k != nil; {
			dir, uid, ok := splitNameKey(k)
			done := ok && (len(dir) == 0 || seen[string(dir)])
			if ok && !done && ofServer(b.entries.Get(uid)) {
				seen[string(dir)] = true
				dirs = append(dirs, string(dir))
				done = true
			}
			if done && jump {
				k, _ = c.Seek([]byte(string(dir) + "\x01"))
			} else {
				k, _ = c.Next()
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list directories: %w", err)
	}
	slices.Sort(dirs)
	return dirs, nil
}

// CompareListed reads, in one transaction, what a reconnect compares with
// the requests opencode lists in dir: held reports which of the request
// IDs in listed some entry holds, in any directory; unlisted is the
// entries in dir whose request ID is not in listed, oldest first. Only
// the unlisted entries are decoded, so a reconnect costs little when
// nearly everything held is still pending. An entry that cannot be
// decoded is left out of unlisted with a warning; its request ID still
// counts as held, since it cannot be stored again under a new entry.
//
// Only the entries of the opencode server named server count: the same
// directory, and the same request ID, may be another server's.
func (s *Store) CompareListed(server, dir string, listed map[string]bool) (held map[string]bool, unlisted []*Entry, err error) {
	held = make(map[string]bool)
	err = s.view(func(b *buckets) error {
		for id := range listed {
			if id != "" && b.byRequest.Get(requestKey(server, id)) != nil {
				held[id] = true
			}
		}
		prefix := directoryKey(dir, "")
		var uids [][]byte
		c := b.byDirectory.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			d, uid, ok := splitNameKey(k)
			if !ok || string(d) != dir || listed[string(v)] {
				continue
			}
			uids = append(uids, uid)
		}
		unlisted = s.lookup(b, uids, func(e *Entry) bool {
			return e.Directory == dir && e.Server == server && !listed[e.RequestID]
		})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("compare entries in %s%s with those listed: %w", dir, serverSuffix(server), err)
	}
	return held, unlisted, nil
}

// BySession returns the entries of session, oldest first: those whose
// SessionID is session, and those of a subagent's session under it (their
// ParentSessionID is session). It reads the session index and decodes
// only those entries, so a busy store costs an event of one session no
// more than that session's requests. An entry that cannot be decoded is
// skipped with a warning, as List skips it. An empty session finds the
// entries without a SessionID.
func (s *Store) BySession(session string) ([]*Entry, error) {
	var out []*Entry
	err := s.view(func(b *buckets) error {
		uids := namedUIDs(b.bySession, session)
		out = s.lookup(b, uids, func(e *Entry) bool {
			return e.SessionID == session || session != "" && e.ParentSessionID == session
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list entries of session %s: %w", session, err)
	}
	return out, nil
}

// Group returns, in one read, the entry with UID key if it is held and
// the entries whose SharedWith is key, oldest first: the requests sharing
// the message whose buttons carry key. Those found by SharedWith are found
// even after the entry key itself is gone. An entry that cannot be decoded
// is skipped with a warning, as List skips it.
func (s *Store) Group(key string) ([]*Entry, error) {
	var out []*Entry
	err := s.view(func(b *buckets) error {
		uids := namedUIDs(b.bySharedWith, key)
		self := []byte(key)
		if key != "" && b.entries.Get(self) != nil && !slices.ContainsFunc(uids, func(u []byte) bool { return bytes.Equal(u, self) }) {
			uids = append(uids, self)
		}
		out = s.lookup(b, uids, func(e *Entry) bool {
			return e.UID == key || e.SharedWith == key
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list entries sharing the message of %s: %w", key, err)
	}
	return out, nil
}

// namedUIDs returns the UIDs of the keys of name in index bk (a nameKey
// index). A name holding a NUL can have another name's keys among its
// own, so each key's name is compared whole.
func namedUIDs(bk *bolt.Bucket, name string) [][]byte {
	prefix := nameKey(name, "")
	var uids [][]byte
	c := bk.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if n, uid, ok := splitNameKey(k); ok && string(n) == name {
			uids = append(uids, uid)
		}
	}
	return uids
}

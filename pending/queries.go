package pending

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

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

// indexed returns the entries with the UIDs that uids reads from an
// index, as lookup does; what names the listing in an error.
func (s *Store) indexed(what string, uids func(*buckets) [][]byte, keep func(*Entry) bool) ([]*Entry, error) {
	var out []*Entry
	err := s.view(func(b *buckets) error {
		out = s.lookup(b, uids(b), keep)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
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
	limit := expiryStamp(now)
	due := func(b *buckets) (uids [][]byte) {
		c := b.byExpiry.Cursor()
		for k, _ := c.First(); k != nil && len(k) > stampLen && bytes.Compare(k[:stampLen], limit[:]) <= 0; k, _ = c.Next() {
			uids = append(uids, k[stampLen:])
		}
		return uids
	}
	return s.indexed("list expired entries", due, func(e *Entry) bool {
		return !e.ExpiresAt.IsZero() && !e.ExpiresAt.After(now)
	})
}

// Unsent returns the entries a front-end is still owed the message of
// (an empty Place), oldest first, so start-up can send them again. Only those
// entries are decoded.
func (s *Store) Unsent() ([]*Entry, error) {
	unsent := func(b *buckets) (uids [][]byte) {
		c := b.unsent.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			uids = append(uids, k)
		}
		return uids
	}
	return s.indexed("list unsent entries", unsent, (*Entry).unsent)
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

// SessionsOf returns the distinct, non-empty sessions of the entries of
// the opencode server named server ("" for the unnamed one), sorted: the
// sessions to list on an OpenCode 2 server after it (re)connects, as its
// lists are per session. It reads the session index and decodes, per
// session, entries only until one is server's own request of that
// session (the index also holds a subagent's entries under its parent).
func (s *Store) SessionsOf(server string) ([]string, error) {
	var sessions []string
	err := s.view(func(b *buckets) error {
		found := make(map[string]bool)
		c := b.bySession.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			name, uid, ok := splitNameKey(k)
			if !ok || len(name) == 0 || found[string(name)] {
				continue
			}
			raw := b.entries.Get(uid)
			if raw == nil {
				continue
			}
			e, err := decode(raw)
			if err != nil || e.Server != server || e.SessionID != string(name) {
				continue
			}
			found[string(name)] = true
			sessions = append(sessions, string(name))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions%s: %w", serverSuffix(server), err)
	}
	slices.Sort(sessions)
	return sessions, nil
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
		prefix := nameKey(dir, "")
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
	uids := func(b *buckets) [][]byte { return namedUIDs(b.bySession, session) }
	return s.indexed("list entries of session "+session, uids, func(e *Entry) bool {
		return e.SessionID == session || session != "" && e.ParentSessionID == session
	})
}

// Group returns, in one read, the entry with UID key if it is held and
// the entries whose SharedWith is key, oldest first: the requests sharing
// the message whose buttons carry key. Those found by SharedWith are found
// even after the entry key itself is gone. An entry that cannot be decoded
// is skipped with a warning, as List skips it.
func (s *Store) Group(key string) ([]*Entry, error) {
	self := []byte(key)
	group := func(b *buckets) [][]byte {
		uids := namedUIDs(b.bySharedWith, key)
		if key != "" && b.entries.Get(self) != nil && !slices.ContainsFunc(uids, func(u []byte) bool { return bytes.Equal(u, self) }) {
			uids = append(uids, self)
		}
		return uids
	}
	return s.indexed("list entries sharing the message of "+key, group, func(e *Entry) bool {
		return e.UID == key || e.SharedWith == key
	})
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

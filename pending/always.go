package pending

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// alwaysPrefix starts the meta key of an "always" answer given to a
// request that lets the agent change files (RememberAlways); the server
// quoted and the directory follow. The value is the permission's kind and
// when it was recorded.
const alwaysPrefix = "always:"

func alwaysKey(server, dir string) []byte {
	return []byte(alwaysPrefix + strconv.Quote(server) + dir)
}

// Always is an "always" answer RememberAlways recorded: in directory
// Directory of server Server, to a request of Kind, at At.
type Always struct {
	Server    string
	Directory string
	Kind      string
	At        time.Time
}

// RememberAlways records that a request of kind (edit,
// external_directory, …) in directory dir of server was answered
// "always", and reports whether that is new: nothing was recorded for
// server and dir, which keep the first record until ForgetAlways. opencode
// keeps such answers where no one can list them, so AlwaysGiven is how the
// bridge knows its own rules were widened. dir must not be empty
// (ErrInvalid).
func (s *Store) RememberAlways(server, dir, kind string) (bool, error) {
	if dir == "" {
		return false, fmt.Errorf("remember always for %s: %w: no directory", kind, ErrInvalid)
	}
	value := []byte(kind + " " + s.now().UTC().Format(time.RFC3339))
	var added bool
	err := s.write(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		added = meta.Get(alwaysKey(server, dir)) == nil
		if !added {
			return nil
		}
		return meta.Put(alwaysKey(server, dir), value)
	})
	if err != nil {
		return false, fmt.Errorf("remember always for %s in %s: %w", kind, dir, err)
	}
	return added, nil
}

// AlwaysGiven returns what RememberAlways recorded for directory dir of
// server ("edit 2026-01-02T15:04:05Z": the kind and when), and whether
// anything is.
func (s *Store) AlwaysGiven(server, dir string) (string, bool, error) {
	var v string
	var ok bool
	err := closedErr(s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketMeta).Get(alwaysKey(server, dir))
		v, ok = string(raw), raw != nil
		return nil
	}))
	if err != nil {
		return "", false, fmt.Errorf("look up always answers in %s: %w", dir, err)
	}
	return v, ok, nil
}

// ForgetAlways removes what RememberAlways recorded for directory dir of
// server, once a person said opencode forgot it (restarted), and reports
// whether anything was recorded.
func (s *Store) ForgetAlways(server, dir string) (bool, error) {
	var had bool
	err := s.write(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		had = meta.Get(alwaysKey(server, dir)) != nil
		if !had {
			return nil
		}
		return meta.Delete(alwaysKey(server, dir))
	})
	if err != nil {
		return false, fmt.Errorf("forget always answers in %s: %w", dir, err)
	}
	return had, nil
}

// AlwaysList returns every record of RememberAlways, oldest first. A
// record whose key cannot be read is skipped with a warning naming it; one
// whose time cannot be read has the zero At and its whole value as Kind.
func (s *Store) AlwaysList() ([]Always, error) {
	var out []Always
	err := closedErr(s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketMeta).Cursor()
		prefix := []byte(alwaysPrefix)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			a, ok := parseAlways(k, v)
			if !ok {
				s.log.Warn().Str("key", string(k)).Str("db", s.path).
					Msg("skipping an always record of the pending store whose key cannot be read")
				continue
			}
			out = append(out, a)
		}
		return nil
	}))
	if err != nil {
		return nil, fmt.Errorf("list always answers: %w", err)
	}
	slices.SortStableFunc(out, func(a, b Always) int { return a.At.Compare(b.At) })
	return out, nil
}

// parseAlways reads a record written by RememberAlways.
func parseAlways(k, v []byte) (Always, bool) {
	rest := string(k[len(alwaysPrefix):])
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return Always{}, false
	}
	server, err := strconv.Unquote(q)
	if err != nil || len(rest) == len(q) {
		return Always{}, false
	}
	a := Always{Server: server, Directory: rest[len(q):], Kind: string(v)}
	if kind, at, ok := strings.Cut(string(v), " "); ok {
		if t, err := time.Parse(time.RFC3339, at); err == nil {
			a.Kind, a.At = kind, t
		}
	}
	return a, true
}

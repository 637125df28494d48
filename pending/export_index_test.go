package pending

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// IndexBuckets names the buckets Open builds for a file that lacks them,
// so a test can remove them and make the file look old.
var IndexBuckets = listingIndexes

// IndexVersionKey is the meta key that records which indexes a file has.
var IndexVersionKey = indexVersionKey

// CheckIndexes builds every index afresh from the decodable entries and
// compares it with the one stored, returning an error naming each key
// that differs.
func CheckIndexes(s *Store) error {
	return s.view(func(b *buckets) error {
		want := map[string]map[string]string{
			"byRequest": {}, "byDirectory": {}, "byExpiry": {}, "unsent": {},
			"bySession": {}, "bySharedWith": {},
		}
		err := b.entries.ForEach(func(k, v []byte) error {
			e, err := decode(v)
			if err != nil {
				return nil
			}
			if e.RequestID != "" {
				want["byRequest"][e.RequestID] = e.UID
			}
			want["byDirectory"][string(nameKey(e.Directory, e.UID))] = e.RequestID
			if !e.ExpiresAt.IsZero() {
				want["byExpiry"][string(expiryKey(e.ExpiresAt, e.UID))] = ""
			}
			if e.unsent() {
				want["unsent"][e.UID] = ""
			}
			want["bySession"][e.SessionID+"\x00"+e.UID] = ""
			if e.ParentSessionID != "" && e.ParentSessionID != e.SessionID {
				want["bySession"][e.ParentSessionID+"\x00"+e.UID] = ""
			}
			if e.SharedWith != "" {
				want["bySharedWith"][e.SharedWith+"\x00"+e.UID] = ""
			}
			return nil
		})
		if err != nil {
			return err
		}
		have := map[string]*bolt.Bucket{
			"byRequest": b.byRequest, "byDirectory": b.byDirectory,
			"byExpiry": b.byExpiry, "unsent": b.unsent, "bySession": b.bySession, "bySharedWith": b.bySharedWith,
		}
		var diffs []string
		for _, name := range slices.Sorted(maps.Keys(want)) {
			got := map[string]string{}
			if err := have[name].ForEach(func(k, v []byte) error {
				got[string(k)] = string(v)
				return nil
			}); err != nil {
				return err
			}
			for k, v := range want[name] {
				if g, ok := got[k]; !ok {
					diffs = append(diffs, fmt.Sprintf("%s: missing %q → %q", name, k, v))
				} else if g != v {
					diffs = append(diffs, fmt.Sprintf("%s: %q → %q, want %q", name, k, g, v))
				}
			}
			for k, g := range got {
				if _, ok := want[name][k]; !ok {
					diffs = append(diffs, fmt.Sprintf("%s: stale %q → %q", name, k, g))
				}
			}
		}
		if len(diffs) > 0 {
			slices.Sort(diffs)
			return fmt.Errorf("indexes differ from the entries:\n%s", strings.Join(diffs, "\n"))
		}
		return nil
	})
}

// NulDirectoryKey is the meta key saying some directory held a NUL.
var NulDirectoryKey = nulDirectoryKey

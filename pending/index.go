package pending

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// buckets is one transaction's view of the entries and their indexes;
// every write goes through put and unindex so the indexes never drift from
// the entries.
//
// byRequest maps a request ID to the UID holding it. The others let the frequent listings find their entries
// without decoding every one: byDirectory has a key dir + "\x00" + uid per
// entry, whose value is the request ID; byExpiry has a key expiryStamp +
// uid per entry with an ExpiresAt; unsent has the UID of every entry a
// front-end is still owed the message of (an empty Place). bySession has a key session +
// "\x00" + uid per entry under its SessionID, and another under its
// ParentSessionID when that is set and differs; bySharedWith has a key
// sharedWith + "\x00" + uid per entry with a SharedWith. Their values are
// empty.
type buckets struct {
	entries, byRequest            *bolt.Bucket
	byDirectory, byExpiry, unsent *bolt.Bucket
	bySession, bySharedWith       *bolt.Bucket
	meta                          *bolt.Bucket
}

func newBuckets(tx *bolt.Tx) *buckets {
	return &buckets{
		entries:      tx.Bucket(bucketEntries),
		byRequest:    tx.Bucket(bucketByRequest),
		byDirectory:  tx.Bucket(bucketByDirectory),
		byExpiry:     tx.Bucket(bucketByExpiry),
		unsent:       tx.Bucket(bucketUnsent),
		bySession:    tx.Bucket(bucketBySession),
		bySharedWith: tx.Bucket(bucketBySharedWith),
		meta:         tx.Bucket(bucketMeta),
	}
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

// checkFree fails with ErrExists when the request ID e would take
// belongs to an entry other than e.
func (b *buckets) checkFree(e *Entry) error {
	if e.RequestID != "" {
		if owner := b.byRequest.Get(requestKey(e.Server, e.RequestID)); owner != nil && string(owner) != e.UID {
			return fmt.Errorf("request %s is held by entry %s: %w", e.RequestID, owner, ErrExists)
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
	return b.indexListings(e)
}

// indexListings writes e's keys in the indexes of the listings; Open calls
// it alone when it builds those indexes for a file that lacks them.
func (b *buckets) indexListings(e *Entry) error {
	uid := []byte(e.UID)
	if err := b.byDirectory.Put(nameKey(e.Directory, e.UID), []byte(e.RequestID)); err != nil {
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
	if e.unsent() {
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
	if key := requestKey(e.Server, e.RequestID); e.RequestID != "" && bytes.Equal(b.byRequest.Get(key), uid) {
		if err := b.byRequest.Delete(key); err != nil {
			return fmt.Errorf("unindex %s: %w", key, err)
		}
	}
	if err := b.byDirectory.Delete(nameKey(e.Directory, e.UID)); err != nil {
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

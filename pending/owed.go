package pending

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A request's message must end showing how the request closed, without
// buttons, even when the process dies before the edit that says so
// reaches the front-end. So the edit is part of closing: DeleteClosed (or
// an Update that closes the request in place) records it as owed in the
// same transaction that closes the request, and Edited forgets it once
// the front-end has taken it. OwedEdits lists what is left, for a restart
// or a reconnect to send again; so the front-end must take an edit twice
// harmlessly (Telegram answers "message is not modified").

// owedPrefix starts the meta key of an owed edit; the front-end and its
// place follow (placeKey), so a message owes one edit at most: a later
// one replaces it.
const owedPrefix = "owed:"

func owedKey(frontend string, at Place) []byte { return placeKey(owedPrefix, frontend, at) }

// Edit is a closing edit owed to a message of a front-end: what the
// message must end showing, without buttons, which the store does not
// read: Data (how the request closed, for the front-end to render), or,
// owed by an earlier release, Text, as that release rendered it.
type Edit struct {
	Frontend string `json:"frontend"`
	Place    Place  `json:"place"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	// At is when it was owed (the store's clock when left zero);
	// PruneClosed forgets it with the closed requests of that time.
	At time.Time `json:"at"`
}

// valid reports whether e names a message and says what it shows.
func (e Edit) valid() bool {
	return e.Frontend != "" && e.Place != "" && (e.Text != "" || e.Data != "")
}

// putOwed records the edits that are valid; the others name no message
// (a request never posted) and are skipped. An edit without a time is
// stamped now: PruneClosed judges it by its time, and the zero time would
// make the first prune forget it before anything could send it.
func putOwed(meta *bolt.Bucket, edits []Edit, now time.Time) error {
	for _, e := range edits {
		if !e.valid() {
			continue
		}
		if e.At.IsZero() {
			e.At = now
		}
		e.At = e.At.Round(0)
		raw, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode owed edit of %s message %s: %w", e.Frontend, e.Place, err)
		}
		if err := meta.Put(owedKey(e.Frontend, e.Place), raw); err != nil {
			return fmt.Errorf("record owed edit of %s message %s: %w", e.Frontend, e.Place, err)
		}
	}
	return nil
}

// Edited forgets the edit owed to e's message, once the front-end has
// taken it, or answered that the message is gone or already shows it. An edit
// owed since with other content is kept: it was not the one sent.
// Forgetting an edit nobody owes does nothing.
func (s *Store) Edited(e Edit) error {
	key := owedKey(e.Frontend, e.Place)
	owes := func(meta *bolt.Bucket) bool {
		var old Edit
		raw := meta.Get(key)
		return raw != nil && (json.Unmarshal(raw, &old) != nil || (old.Text == e.Text && old.Data == e.Data))
	}
	var found bool
	err := closedErr(s.db.View(func(tx *bolt.Tx) error {
		found = owes(tx.Bucket(bucketMeta))
		return nil
	}))
	if err == nil && found {
		err = s.write(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			if !owes(meta) {
				return nil
			}
			return meta.Delete(key)
		})
	}
	if err != nil {
		return fmt.Errorf("forget owed edit of %s message %s: %w", e.Frontend, e.Place, err)
	}
	return nil
}

// OwedEdits returns the edits still owed, oldest first. A record that
// cannot be decoded is skipped with a warning (PruneClosed drops it).
func (s *Store) OwedEdits() ([]Edit, error) {
	var out []Edit
	err := closedErr(s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketMeta).Cursor()
		prefix := []byte(owedPrefix)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var e Edit
			if err := json.Unmarshal(v, &e); err != nil || !e.valid() {
				s.log.Warn().Str("key", string(k)).Str("db", s.path).Msg("skipping an owed edit of the pending store that cannot be decoded")
				continue
			}
			out = append(out, e)
		}
		return nil
	}))
	if err != nil {
		return nil, fmt.Errorf("list owed edits: %w", err)
	}
	slices.SortStableFunc(out, func(a, b Edit) int { return a.At.Compare(b.At) })
	return out, nil
}

// staleOwed returns the keys of the owed edits owed before before, or
// that cannot be decoded.
func staleOwed(meta *bolt.Bucket, before time.Time) [][]byte {
	var keys [][]byte
	c := meta.Cursor()
	prefix := []byte(owedPrefix)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var e Edit
		if err := json.Unmarshal(v, &e); err != nil || e.At.Before(before) {
			keys = append(keys, bytes.Clone(k))
		}
	}
	return keys
}

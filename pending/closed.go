package pending

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Requests that closed are remembered for a while in the meta bucket, one
// key each, so a press that comes after the close (a double tap, or an
// update Telegram delivers again after a restart) is told how the request
// ended, however many restarts lie in between.

// closedPrefix starts the meta key of a closed request; its UID follows.
// The value is a ClosedRequest in JSON.
const closedPrefix = "closed:"

// closedRequestPrefix starts the meta key that finds a closed request by
// opencode's request ID, which follows; the value is its UID.
const closedRequestPrefix = "closedRequest:"

func closedKey(uid string) []byte { return []byte(closedPrefix + uid) }

// closedRequestKey is the meta key finding closed request requestID of
// server; see requestKey, which keeps the unnamed server's as it was.
func closedRequestKey(server, requestID string) []byte {
	return append([]byte(closedRequestPrefix), requestKey(server, requestID)...)
}

// ClosedRequest is what the store remembers of a request after it closed.
type ClosedRequest struct {
	// Toast names what a late press on its buttons is told: an
	// identifier the front-end translates. The store does not read it.
	Toast string `json:"toast"`
	// At is when it closed; PruneClosed forgets it some time after.
	At time.Time `json:"at"`
	// Places are the messages that show the outcome, by front-end.
	Places map[string]Place `json:"places,omitempty"`
	// RequestID is opencode's ID of the request, set by DeleteClosed from
	// the entry it deletes.
	RequestID string `json:"requestID,omitempty"`
	// Server is the opencode server of the request, set with RequestID.
	Server string `json:"server,omitempty"`
	// Closing is how it closed (Edit.Data), so a press on a message while
	// it still shows buttons can put the outcome back; Texts are what an
	// earlier release rendered for its message instead (Edit.Text).
	Closing string            `json:"closing,omitempty"`
	Texts   map[string]string `json:"texts,omitempty"`
}

// getJSON decodes the meta record under key into v; ok is false when
// there is none.
func getJSON(meta *bolt.Bucket, key []byte, v any) (ok bool, err error) {
	raw := meta.Get(key)
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("%w: decode JSON: %w", ErrCorrupt, err)
	}
	return true, nil
}

func putClosed(meta *bolt.Bucket, uid string, c ClosedRequest) error {
	c.At = c.At.Round(0)
	raw, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if err := meta.Put(closedKey(uid), raw); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// RememberClosed records that request uid closed, as c says, replacing
// what was remembered of it before (but for a request ID, kept when c has
// none). uid must be a valid UID (ErrInvalid).
// It is for a key that names a closed request without being an entry any
// more (the UID of a group of permission requests sharing a message);
// DeleteClosed deletes an entry and remembers it at once.
func (s *Store) RememberClosed(uid string, c ClosedRequest) error {
	if !validUID(uid) {
		return fmt.Errorf("remember closed request %q: %w: UID must be 1–64 characters of [a-zA-Z0-9]", uid, ErrInvalid)
	}
	err := s.write(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		rec := c // c stays as given, should this run again
		if rec.RequestID == "" {
			// Keep the request ID DeleteClosed found for this UID.
			var old ClosedRequest
			if raw := meta.Get(closedKey(uid)); raw != nil && json.Unmarshal(raw, &old) == nil {
				rec.RequestID, rec.Server = old.RequestID, old.Server
			}
		}
		return putClosed(meta, uid, rec)
	})
	if err != nil {
		return fmt.Errorf("remember closed request %s: %w", uid, err)
	}
	return nil
}

// DeleteClosed deletes entry uid with its index keys, as Delete does, and
// remembers it closed, as RememberClosed does, in one transaction: a
// crash cannot leave the request both gone and forgotten. The entry's
// request ID is remembered with it, so ClosedByRequestID finds it. An
// entry already gone is not an error; it is remembered all the same.
//
// The closing edits of owed, those naming a message, are recorded as owed
// in the same transaction (see Edited), so a crash cannot leave a closed
// request's message showing buttons.
func (s *Store) DeleteClosed(uid string, c ClosedRequest, owed ...Edit) error {
	if !validUID(uid) {
		return fmt.Errorf("delete closed request %q: %w: UID must be 1–64 characters of [a-zA-Z0-9]", uid, ErrInvalid)
	}
	err := s.write(func(tx *bolt.Tx) error {
		b := newBuckets(tx)
		meta := tx.Bucket(bucketMeta)
		key := []byte(uid)
		c := c // the caller's c stays as given, should this run again
		if raw := b.entries.Get(key); raw != nil {
			if e, err := decode(raw); err != nil {
				if err := b.unindexAll(key); err != nil {
					return err
				}
			} else {
				if err := b.unindex(e); err != nil {
					return err
				}
				c.RequestID, c.Server = e.RequestID, e.Server
				// A reply to the closed request's message goes on with
				// its session.
				for fe, at := range e.Places {
					if at == "" || e.SessionID == "" || e.Directory == "" {
						continue
					}
					if err := putMessage(meta, fe, at, SessionRef{Server: e.Server, Directory: e.Directory, ID: e.SessionID}, s.now()); err != nil {
						return fmt.Errorf("remember the message's session: %w", err)
					}
				}
			}
			if err := b.entries.Delete(key); err != nil {
				return fmt.Errorf("delete entry: %w", err)
			}
		}
		if c.RequestID != "" {
			if err := meta.Put(closedRequestKey(c.Server, c.RequestID), key); err != nil {
				return fmt.Errorf("index by request %s: %w", c.RequestID, err)
			}
		}
		if err := putOwed(meta, owed, s.now()); err != nil {
			return err
		}
		return putClosed(meta, uid, c)
	})
	if err != nil {
		return fmt.Errorf("delete closed request %s: %w", uid, err)
	}
	return nil
}

// Closed returns what is remembered of closed request uid; ok is false
// when nothing is (never closed, pruned, or not a UID). A record that
// cannot be decoded gives an error wrapping ErrCorrupt.
func (s *Store) Closed(uid string) (c ClosedRequest, ok bool, err error) {
	if !validUID(uid) {
		return ClosedRequest{}, false, nil
	}
	err = closedErr(s.db.View(func(tx *bolt.Tx) (err error) {
		ok, err = getJSON(tx.Bucket(bucketMeta), closedKey(uid), &c)
		return err
	}))
	if err != nil {
		return ClosedRequest{}, false, fmt.Errorf("look up closed request %s: %w", uid, err)
	}
	return c, ok, nil
}

// ClosedByRequestID returns the UID of the closed request that held
// request requestID of the opencode server named server ("" for the
// unnamed one) and what is remembered of it, as Closed does; ok is false
// when no request with that ID was closed on that server through
// DeleteClosed (or it was pruned).
func (s *Store) ClosedByRequestID(server, requestID string) (uid string, c ClosedRequest, ok bool, err error) {
	if requestID == "" {
		return "", ClosedRequest{}, false, nil
	}
	err = closedErr(s.db.View(func(tx *bolt.Tx) (err error) {
		meta := tx.Bucket(bucketMeta)
		owner := meta.Get(closedRequestKey(server, requestID))
		if owner == nil {
			return nil
		}
		if ok, err = getJSON(meta, closedKey(string(owner)), &c); ok {
			uid = string(owner)
		}
		return err
	}))
	if err != nil {
		return "", ClosedRequest{}, false, fmt.Errorf("look up closed request %s: %w", requestID, err)
	}
	return uid, c, ok, nil
}

// PruneClosed forgets the closed requests remembered as closed before
// before, and records that cannot be decoded, and returns how many it
// forgot (request IDs leading to them go too, and edits owed since
// before before: a message that could not be edited for so long is not
// going to be). It writes only when there is something to forget, so calling
// it often is cheap.
func (s *Store) PruneClosed(before time.Time) (int, error) {
	// stale returns the keys to delete and how many closed requests they
	// forget: the records, and the request IDs that lead to no record.
	stale := func(tx *bolt.Tx) ([][]byte, int) {
		var keys [][]byte
		meta := tx.Bucket(bucketMeta)
		prefix := []byte(closedPrefix)
		gone := make(map[string]bool)
		c := meta.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var rec ClosedRequest
			if err := json.Unmarshal(v, &rec); err != nil || rec.At.Before(before) {
				keys = append(keys, bytes.Clone(k))
				gone[string(k[len(prefix):])] = true
			}
		}
		n := len(keys)
		prefix = []byte(closedRequestPrefix)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if gone[string(v)] || meta.Get(closedKey(string(v))) == nil {
				keys = append(keys, bytes.Clone(k))
			}
		}
		keys = append(keys, staleMessages(meta, before)...)
		return append(keys, staleOwed(meta, before)...), n
	}
	var n, dead int
	err := closedErr(s.db.View(func(tx *bolt.Tx) error {
		var keys [][]byte
		keys, n = stale(tx)
		dead = len(keys)
		return nil
	}))
	if err == nil && dead > 0 {
		err = s.write(func(tx *bolt.Tx) error {
			var keys [][]byte
			keys, n = stale(tx)
			meta := tx.Bucket(bucketMeta)
			for _, k := range keys {
				if err := meta.Delete(k); err != nil {
					return fmt.Errorf("delete %s: %w", k, err)
				}
			}
			return nil
		})
	}
	if err != nil {
		return 0, fmt.Errorf("prune closed requests: %w", err)
	}
	return n, nil
}

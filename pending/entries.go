package pending

import "fmt"

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
				if uid := NewUID(); b.entries.Get([]byte(uid)) == nil {
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
	var e *Entry
	err := s.view(func(b *buckets) (err error) {
		uid := b.byRequest.Get(requestKey(server, requestID))
		if uid == nil {
			return ErrNotFound
		}
		e, err = b.get(string(uid))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get by request %s%s: %w", requestID, serverSuffix(server), err)
	}
	return e, nil
}

// serverSuffix names server in an error, when it has a name.
func serverSuffix(server string) string {
	if server == "" {
		return ""
	}
	return " of server " + server
}

// Update reads the entry, lets fn change it, and writes it back with its
// index keys, all in one write transaction. An error from fn aborts the
// transaction and is returned wrapped; nothing is written. A changed
// RequestID moves its index key; taking one that another entry holds
// fails with ErrExists. fn must not change the
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

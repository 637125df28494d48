package pending

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Messages a front-end posted about a session (a notice that it finished,
// a request's message once the request closed, a prompt for a new
// session's first words) are remembered for a day, so a person's reply to
// one can be routed to that session. Two keys per message: from the
// message to its session, and from the session to its latest message.

// messagePrefix starts the meta key of a message about a session; its
// front-end and place follow (placeKey). The value is a messageRecord in
// JSON.
const messagePrefix = "msgSession:"

// latestPrefix starts the meta key of a session's latest message in a
// front-end; the front-end's name, a NUL and the session ID follow. The
// value is a messageRecord in JSON.
const latestPrefix = "sessionMsg:"

func messageKey(frontend string, at Place) []byte { return placeKey(messagePrefix, frontend, at) }

func latestKey(frontend, session string) []byte {
	return []byte(latestPrefix + frontend + "\x00" + session)
}

// SessionRef names an opencode session: its server (as Entry.Server),
// project directory and ID. An empty ID names no session yet: a new one
// to start in Directory.
type SessionRef struct {
	Server    string `json:"server,omitempty"`
	Directory string `json:"directory"`
	ID        string `json:"session,omitempty"`
}

type messageRecord struct {
	Ref      SessionRef `json:"ref"`
	Frontend string     `json:"frontend"`
	Place    Place      `json:"place"`
	At       time.Time  `json:"at"`
}

func putMessage(meta *bolt.Bucket, frontend string, at Place, ref SessionRef, now time.Time) error {
	raw, err := json.Marshal(messageRecord{Ref: ref, Frontend: frontend, Place: at, At: now.Round(0)})
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if err := meta.Put(messageKey(frontend, at), raw); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if ref.ID != "" {
		if err := meta.Put(latestKey(frontend, ref.ID), raw); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return nil
}

// RememberMessage records that the message at at of front-end frontend
// is about session ref, so MessageSession finds it, and that it is the
// session's latest message there (LatestMessage), for a day (PruneClosed
// forgets it after). A message remembered again is about the ref given
// last. frontend, at and ref's directory must not be empty (ErrInvalid).
func (s *Store) RememberMessage(frontend string, at Place, ref SessionRef) error {
	if frontend == "" || at == "" || ref.Directory == "" {
		return fmt.Errorf("remember %s message %s: %w: want a front-end, a place and a directory", frontend, at, ErrInvalid)
	}
	now := s.now()
	err := s.write(func(tx *bolt.Tx) error {
		return putMessage(tx.Bucket(bucketMeta), frontend, at, ref, now)
	})
	if err != nil {
		return fmt.Errorf("remember %s message %s: %w", frontend, at, err)
	}
	return nil
}

// MessageSession returns the session the message at at of front-end
// frontend is about, as RememberMessage (or DeleteClosed, for a request's
// message) recorded it; ok is false when none is remembered. A record
// that cannot be decoded gives an error wrapping ErrCorrupt.
func (s *Store) MessageSession(frontend string, at Place) (ref SessionRef, ok bool, err error) {
	rec, ok, err := s.messageRecord(messageKey(frontend, at))
	if err != nil {
		return SessionRef{}, false, fmt.Errorf("look up session of %s message %s: %w", frontend, at, err)
	}
	return rec.Ref, ok, nil
}

// LatestMessage returns where the latest message of front-end frontend
// remembered about session is, and its ref; ok is false when none is.
func (s *Store) LatestMessage(frontend, session string) (at Place, ref SessionRef, ok bool, err error) {
	if session == "" {
		return "", SessionRef{}, false, nil
	}
	rec, ok, err := s.messageRecord(latestKey(frontend, session))
	if err != nil {
		return "", SessionRef{}, false, fmt.Errorf("look up latest message of session %s: %w", session, err)
	}
	return rec.Place, rec.Ref, ok, nil
}

func (s *Store) messageRecord(key []byte) (rec messageRecord, ok bool, err error) {
	err = closedErr(s.db.View(func(tx *bolt.Tx) (err error) {
		ok, err = getJSON(tx.Bucket(bucketMeta), key, &rec)
		return err
	}))
	return rec, ok, err
}

// staleMessages returns the keys of messages remembered before before,
// and of records that cannot be decoded.
func staleMessages(meta *bolt.Bucket, before time.Time) [][]byte {
	var keys [][]byte
	c := meta.Cursor()
	for _, prefix := range [][]byte{[]byte(messagePrefix), []byte(latestPrefix)} {
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var rec messageRecord
			if err := json.Unmarshal(v, &rec); err != nil || rec.At.Before(before) {
				keys = append(keys, bytes.Clone(k))
			}
		}
	}
	return keys
}

// RecentDirectories returns the project directories, with their servers,
// of the messages remembered about sessions (RememberMessage), each once,
// in no order (the refs have no session ID): the
// projects people worked on lately, which opencode may not list on its
// own (folders outside a git repository all belong to its one global
// project).
func (s *Store) RecentDirectories() ([]SessionRef, error) {
	seen := map[SessionRef]bool{}
	var out []SessionRef
	err := closedErr(s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketMeta).Cursor()
		prefix := []byte(messagePrefix)
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var rec messageRecord
			if json.Unmarshal(v, &rec) != nil || rec.Ref.Directory == "" {
				continue
			}
			ref := SessionRef{Server: rec.Ref.Server, Directory: rec.Ref.Directory}
			if seen[ref] {
				continue
			}
			seen[ref] = true
			out = append(out, ref)
		}
		return nil
	}))
	if err != nil {
		return nil, fmt.Errorf("list recent directories: %w", err)
	}
	return out, nil
}

package pending

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"
)

// Place is where a front-end shows a request: a chat (a group, a channel), a
// message in it, and the thread of the chat it is in. What the numbers mean is the
// front-end's business; the store keeps and indexes them. Message 0: not shown yet.
type Place struct {
	Chat    int64 `json:"chat"`
	Message int   `json:"message,omitempty"`
	Thread  int   `json:"thread,omitempty"`
}

// Files written before Place existed name the place after Telegram:
// chatID, messageID and threadID beside the other fields, and an entry's
// prompt as promptMessageID. Open rewrites such records once
// (upgradeRecords), reading them with the legacy readers below; every
// other read takes today's shape only, so decoding an entry, which
// start-up and every session look-up do thousands of times, costs no
// more than the fields it has. legacyPlace holds those old fields.
type legacyPlace struct {
	ChatID    int64 `json:"chatID,omitempty"`
	MessageID int   `json:"messageID,omitempty"`
	ThreadID  int   `json:"threadID,omitempty"`
}

// place returns the Place the old fields name.
func (l legacyPlace) place() Place {
	return Place{Chat: l.ChatID, Message: l.MessageID, Thread: l.ThreadID}
}

// legacyEntry reads an entry in the shape of files written before Place
// (see legacyPlace); a record holding both shapes keeps the new fields.
func legacyEntry(raw []byte) (*Entry, error) {
	var v struct {
		Entry
		legacyPlace
		PromptMessageID int `json:"promptMessageID,omitempty"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decode JSON: %w: %w", ErrCorrupt, err)
	}
	e := v.Entry
	if e.Place == (Place{}) {
		e.Place = v.legacyPlace.place()
	}
	if e.Prompt == 0 {
		e.Prompt = v.PromptMessageID
	}
	return &e, nil
}

// legacyClosed reads a closed request in the shape of files written
// before Place.
func legacyClosed(raw []byte) (ClosedRequest, error) {
	var v struct {
		ClosedRequest
		legacyPlace
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return ClosedRequest{}, err
	}
	c := v.ClosedRequest
	if c.Place == (Place{}) {
		c.Place = v.legacyPlace.place()
	}
	return c, nil
}

// legacyEdit reads an owed edit in the shape of files written before
// Place.
func legacyEdit(raw []byte) (Edit, error) {
	var v struct {
		Edit
		legacyPlace
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Edit{}, err
	}
	e := v.Edit
	if e.Place == (Place{}) {
		e.Place = v.legacyPlace.place()
	}
	return e, nil
}

// schemaKey is the meta key saying in which shape the file's records are.
// Without it they may be in the shape before Place; schemaPlace says Open
// has rewritten every record it could into today's, so it does so once.
var schemaKey = []byte("schema")

const schemaPlace = "place"

// legacyKeys are the JSON keys only a record in the shape before Place has.
var legacyKeys = []string{"chatID", "messageID", "threadID", "promptMessageID"}

// isLegacy reports whether raw is a JSON object holding a key of the
// shape before Place. A record that is not an object is not legacy: it is
// left for the readers to skip.
func isLegacy(raw []byte) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return false
	}
	for _, k := range legacyKeys {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	return false
}

// upgradeRecords rewrites, in Open's transaction, every entry, closed
// request and owed edit still in the shape before Place into today's, and
// then records schemaPlace. The index keys do not change: the numbers
// they are made of stay the same. A record that cannot be decoded is left
// as it is, with a warning, as the readers skip it anyway.
func upgradeRecords(tx *bolt.Tx, log zerolog.Logger, path string) error {
	meta := tx.Bucket(bucketMeta)
	entries, err := upgradeBucket(tx.Bucket(bucketEntries), nil, log, path, "entry", func(raw []byte) (any, error) {
		return legacyEntry(raw)
	})
	if err != nil {
		return fmt.Errorf("upgrade entries: %w", err)
	}
	closed, err := upgradeBucket(meta, []byte(closedPrefix), log, path, "closed request", func(raw []byte) (any, error) {
		return legacyClosed(raw)
	})
	if err != nil {
		return fmt.Errorf("upgrade closed requests: %w", err)
	}
	owed, err := upgradeBucket(meta, []byte(owedPrefix), log, path, "owed edit", func(raw []byte) (any, error) {
		return legacyEdit(raw)
	})
	if err != nil {
		return fmt.Errorf("upgrade owed edits: %w", err)
	}
	if err := meta.Put(schemaKey, []byte(schemaPlace)); err != nil {
		return fmt.Errorf("record the schema: %w", err)
	}
	if n := entries + closed + owed; n > 0 {
		log.Info().Int("entries", entries).Int("closed", closed).Int("owed", owed).Str("db", path).
			Msg("upgraded the records of the pending store to the front-end neutral shape")
	}
	return nil
}

// upgradeBucket rewrites the records of bk under prefix (all when nil) that
// are in the shape before Place, decoding each with read, and returns how
// many it rewrote.
func upgradeBucket(bk *bolt.Bucket, prefix []byte, log zerolog.Logger, path, what string, read func([]byte) (any, error)) (int, error) {
	type record struct{ key, raw []byte }
	var stale []record
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if v == nil || !isLegacy(v) { // nil: a nested bucket
			continue
		}
		rec, err := read(v)
		if err != nil {
			log.Warn().Err(err).Str("key", string(k)).Str("db", path).
				Msgf("not upgrading a %s of the pending store that cannot be decoded", what)
			continue
		}
		raw, err := json.Marshal(rec)
		if err != nil {
			return 0, fmt.Errorf("encode %s %s: %w", what, k, err)
		}
		stale = append(stale, record{bytes.Clone(k), raw})
	}
	// Written after the walk: bbolt forbids changing a bucket under a cursor.
	for _, r := range stale {
		if err := bk.Put(r.key, r.raw); err != nil {
			return 0, fmt.Errorf("write %s %s: %w", what, r.key, err)
		}
	}
	return len(stale), nil
}

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
// (upgradeRecords), but a record is still read in either shape, so a file
// whose upgrade had to skip a record, or a record put back by hand, reads
// the same. legacyPlace holds those old fields.
type legacyPlace struct {
	ChatID    int64 `json:"chatID,omitempty"`
	MessageID int   `json:"messageID,omitempty"`
	ThreadID  int   `json:"threadID,omitempty"`
}

// place returns the Place the old fields name.
func (l legacyPlace) place() Place {
	return Place{Chat: l.ChatID, Message: l.MessageID, Thread: l.ThreadID}
}

// UnmarshalJSON reads an entry in today's shape or in the shape of files
// written before Place (see legacyPlace); a record holding both keeps the
// new fields.
func (e *Entry) UnmarshalJSON(raw []byte) error {
	type plain Entry // without this method, so decoding it does not recurse
	var v struct {
		plain
		legacyPlace
		PromptMessageID int `json:"promptMessageID,omitempty"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*e = Entry(v.plain)
	if e.Place == (Place{}) {
		e.Place = v.legacyPlace.place()
	}
	if e.Prompt == 0 {
		e.Prompt = v.PromptMessageID
	}
	return nil
}

// UnmarshalJSON reads a closed request in today's shape or in the shape of
// files written before Place.
func (c *ClosedRequest) UnmarshalJSON(raw []byte) error {
	type plain ClosedRequest
	var v struct {
		plain
		legacyPlace
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*c = ClosedRequest(v.plain)
	if c.Place == (Place{}) {
		c.Place = v.legacyPlace.place()
	}
	return nil
}

// UnmarshalJSON reads an owed edit in today's shape or in the shape of
// files written before Place.
func (e *Edit) UnmarshalJSON(raw []byte) error {
	type plain Edit
	var v struct {
		plain
		legacyPlace
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*e = Edit(v.plain)
	if e.Place == (Place{}) {
		e.Place = v.legacyPlace.place()
	}
	return nil
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
		return decode(raw)
	})
	if err != nil {
		return fmt.Errorf("upgrade entries: %w", err)
	}
	closed, err := upgradeBucket(meta, []byte(closedPrefix), log, path, "closed request", func(raw []byte) (any, error) {
		var c ClosedRequest
		return c, json.Unmarshal(raw, &c)
	})
	if err != nil {
		return fmt.Errorf("upgrade closed requests: %w", err)
	}
	owed, err := upgradeBucket(meta, []byte(owedPrefix), log, path, "owed edit", func(raw []byte) (any, error) {
		var e Edit
		return e, json.Unmarshal(raw, &e)
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

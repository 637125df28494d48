package pending

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"
)

// A file of OldestRelease (schema "place") shows every request in one
// front-end, Telegram, at a place {chat, message, thread} of integers.
// Open rewrites it once, in its first transaction: each place becomes the
// "telegram" front-end's Place, whose encoding is that same JSON (so the
// store moves it without reading Telegram's numbers but for "message",
// whose 0 meant not posted yet), under the keys of today's shape.

// legacyFrontend is the front-end the files of OldestRelease served.
const legacyFrontend = "telegram"

// legacyPlace is the place of OldestRelease, in the field order of its
// JSON, which Telegram's Place keeps.
type legacyPlace struct {
	Chat    int64 `json:"chat"`
	Message int   `json:"message,omitempty"`
	Thread  int   `json:"thread,omitempty"`
}

// place is l as the Telegram front-end's Place, "" when not posted.
func (l *legacyPlace) place() Place {
	if l == nil || l.Message == 0 {
		return ""
	}
	raw, _ := json.Marshal(l) // a struct of integers always encodes
	return Place(raw)
}

// upgradePlaces rewrites a file of schema "place" in today's shape; a
// record it cannot decode is left as it was (the listings skip it, with a
// warning, as any other).
func upgradePlaces(tx *bolt.Tx, log zerolog.Logger, path string) error {
	if err := moveLegacyFrontendState(tx); err != nil {
		return fmt.Errorf("move the Telegram state of the meta bucket: %w", err)
	}
	if err := tx.DeleteBucket([]byte("byPrompt")); err != nil && tx.Bucket([]byte("byPrompt")) != nil {
		return fmt.Errorf("drop the prompt index: %w", err)
	}
	entries := tx.Bucket(bucketEntries)
	if err := rewrite(entries, nil, func(_, v []byte) ([]byte, []byte, bool) {
		return nil, upgradeRecord(v, "prompt", "awaitingUserID"), true
	}); err != nil {
		return fmt.Errorf("entries: %w", err)
	}
	meta := tx.Bucket(bucketMeta)
	err := rewrite(meta, []byte(closedPrefix), func(_, v []byte) ([]byte, []byte, bool) {
		return nil, upgradeRecord(v), true
	})
	if err != nil {
		return fmt.Errorf("closed requests: %w", err)
	}
	// An owed edit and a message's session move to keys naming the place.
	err = rewrite(meta, []byte(owedPrefix), func(_, v []byte) ([]byte, []byte, bool) {
		var old struct {
			Place *legacyPlace `json:"place"`
			Edit
		}
		if json.Unmarshal(v, &old) != nil || old.Place.place() == "" {
			return nil, nil, false
		}
		e := Edit{Frontend: legacyFrontend, Place: old.Place.place(), Text: old.Edit.Text, At: old.At}
		raw, err := json.Marshal(e)
		return owedKey(e.Frontend, e.Place), raw, err == nil
	})
	if err != nil {
		return fmt.Errorf("owed edits: %w", err)
	}
	for _, prefix := range []string{messagePrefix, latestPrefix} {
		err = rewrite(meta, []byte(prefix), func(k, v []byte) ([]byte, []byte, bool) {
			var old struct {
				Ref   SessionRef   `json:"ref"`
				Place *legacyPlace `json:"place"`
				At    json.RawMessage
			}
			if json.Unmarshal(v, &old) != nil || old.Place.place() == "" {
				return nil, nil, false
			}
			rec := messageRecord{Ref: old.Ref, Frontend: legacyFrontend, Place: old.Place.place()}
			_ = json.Unmarshal(old.At, &rec.At)
			raw, err := json.Marshal(rec)
			key := messageKey(legacyFrontend, rec.Place)
			if prefix == latestPrefix {
				key = latestKey(legacyFrontend, string(k[len(latestPrefix):]))
			}
			return key, raw, err == nil
		})
		if err != nil {
			return fmt.Errorf("messages: %w", err)
		}
	}
	// The indexes are built again from the entries rewritten.
	if err := meta.Delete(indexVersionKey); err != nil {
		return fmt.Errorf("drop the index version: %w", err)
	}
	if err := meta.Put(schemaKey, []byte(schemaPlaces)); err != nil {
		return fmt.Errorf("record the schema: %w", err)
	}
	log.Info().Str("db", path).Msg("rewrote the pending store of an earlier release with a place per front-end")
	return nil
}

// rewrite replaces each record of bk under prefix by what fn returns: a
// new key (nil: the same) and value; ok false leaves it as it was.
func rewrite(bk *bolt.Bucket, prefix []byte, fn func(k, v []byte) (key, value []byte, ok bool)) error {
	type kv struct{ k, v []byte }
	var found []kv
	c := bk.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if v != nil {
			found = append(found, kv{bytes.Clone(k), bytes.Clone(v)})
		}
	}
	// Written after the walk: bbolt forbids changing a bucket while walking it.
	for _, r := range found {
		key, value, ok := fn(r.k, r.v)
		if !ok || value == nil {
			continue
		}
		if key != nil && !bytes.Equal(key, r.k) {
			if err := bk.Delete(r.k); err != nil {
				return err
			}
		} else {
			key = r.k
		}
		if err := bk.Put(key, value); err != nil {
			return err
		}
	}
	return nil
}

// upgradeRecord moves the legacy place of JSON object raw, and the text
// of a closed request, to maps of the one front-end, and drops the fields
// drop. raw is returned as it was when it cannot be decoded.
func upgradeRecord(raw []byte, drop ...string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	if p, ok := m["place"]; ok {
		var l *legacyPlace
		if json.Unmarshal(p, &l) != nil {
			return raw
		}
		delete(m, "place")
		m["places"], _ = json.Marshal(map[string]Place{legacyFrontend: l.place()})
	}
	if t, ok := m["text"]; ok {
		delete(m, "text")
		m["texts"] = json.RawMessage(`{"` + legacyFrontend + `":` + string(t) + `}`)
	}
	for _, f := range drop {
		delete(m, f)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

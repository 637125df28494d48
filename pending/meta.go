package pending

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The meta bucket holds small facts about the deployment, each under its
// own key, next to the entries so they are committed with them.

// chatMigrationPrefix starts the meta key of a chat's move (MoveChat); the
// old chat follows and the value is the new chat, both in decimal. (The
// name is from when the store knew only Telegram's chat migrations; the
// key stays as files hold it.)
const chatMigrationPrefix = "chatMigration:"

// maxMigrationHops bounds the walk along remembered migrations, so a file
// edited by hand into a loop cannot hang ChatFor.
const maxMigrationHops = 8

func chatMigrationKey(old int64) []byte {
	return []byte(chatMigrationPrefix + strconv.FormatInt(old, 10))
}

// migratedTo returns what chat became by the moves in meta, and whether
// it moved at all.
func migratedTo(meta *bolt.Bucket, chat int64) (int64, bool, error) {
	id, moved := chat, false
	for range maxMigrationHops {
		raw := meta.Get(chatMigrationKey(id))
		if raw == nil {
			return id, moved, nil
		}
		next, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || next == 0 {
			return 0, false, fmt.Errorf("%w: migration of chat %d holds %q, not a chat ID", ErrCorrupt, id, raw)
		}
		id, moved = next, true
	}
	return 0, false, fmt.Errorf("%w: migrations starting at chat %d go round in a loop", ErrCorrupt, chat)
}

// ChatFor returns the chat to post to for the configured chat: where it
// moved, if MoveChat recorded a move (Telegram's group upgraded to a
// supergroup), else configured itself. Call it at start-up, so a restart
// keeps posting where the chat went even though the configuration still
// names the old one.
func (s *Store) ChatFor(configured int64) (int64, error) {
	var id int64
	err := closedErr(s.db.View(func(tx *bolt.Tx) (err error) {
		id, _, err = migratedTo(tx.Bucket(bucketMeta), configured)
		return err
	}))
	if err != nil {
		return 0, fmt.Errorf("look up migration of chat %d: %w", configured, err)
	}
	return id, nil
}

// MoveChat records that chat oldID is now chat newID, as Telegram reports
// when a group becomes a supergroup, so ChatFor(oldID) returns newID from
// now on, across restarts. In the same transaction every entry in chat
// oldID moves to chat newID and, since the messages of the old chat are
// not those of the new one, loses its message: Place.Message and Prompt
// become 0 and a typed answer is no longer awaited (AwaitingText false).
// Unsent then lists those entries, so the bridge posts them again; an
// open prompt is not re-sent, the person presses the button again.
// Entries that cannot be decoded are left alone, with a warning. Moving a
// chat again does nothing more; oldID and newID must be different non-zero
// IDs (ErrInvalid).
func (s *Store) MoveChat(oldID, newID int64) error {
	if oldID == 0 || newID == 0 || oldID == newID {
		return fmt.Errorf("remember migration of chat %d to %d: %w: two different non-zero chat IDs are needed", oldID, newID, ErrInvalid)
	}
	err := s.write(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		// newID may itself have moved on (a migration remembered late):
		// point oldID straight at the end, so lookups take one step.
		to, _, err := migratedTo(meta, newID)
		if err != nil {
			return err
		}
		if to == oldID {
			return fmt.Errorf("%w: chat %d already migrated to %d", ErrInvalid, newID, oldID)
		}
		value := []byte(strconv.FormatInt(to, 10))
		if err := meta.Put(chatMigrationKey(oldID), value); err != nil {
			return fmt.Errorf("write migration: %w", err)
		}
		// Chats that had moved to oldID move on to the same end.
		oldValue := []byte(strconv.FormatInt(oldID, 10))
		var earlier [][]byte
		err = meta.ForEach(func(k, v []byte) error {
			if bytes.HasPrefix(k, []byte(chatMigrationPrefix)) && bytes.Equal(v, oldValue) {
				earlier = append(earlier, bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range earlier {
			if err := meta.Put(k, value); err != nil {
				return fmt.Errorf("write migration: %w", err)
			}
		}
		return s.moveEntries(newBuckets(tx), oldID, to)
	})
	if err != nil {
		return fmt.Errorf("remember migration of chat %d to %d: %w", oldID, newID, err)
	}
	return nil
}

// moveEntries moves every entry of chat old to chat to, as
// MoveChat describes.
func (s *Store) moveEntries(b *buckets, old, to int64) error {
	var stale []*Entry
	err := b.entries.ForEach(func(k, v []byte) error {
		e, err := decode(v)
		if err != nil {
			s.log.Warn().Err(err).Str("key", string(k)).Str("db", s.path).
				Msg("not moving an entry of the pending store that cannot be decoded to the upgraded chat")
			return nil
		}
		if e.Place.Chat == old {
			stale = append(stale, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Written after the walk: bbolt forbids changing a bucket inside ForEach.
	for _, e := range stale {
		if err := b.unindex(e); err != nil {
			return err
		}
		e.Place.Chat = to
		e.Place.Message = 0
		e.Prompt = 0
		e.AwaitingText, e.AwaitingQuestion, e.AwaitingUserID = false, 0, 0
		if err := b.put(e); err != nil {
			return err
		}
	}
	return nil
}

// updateOffsetPrefix starts the meta key of an input cursor (SetInputCursor);
// the source follows, in decimal. The value is an inputCursor in JSON. (Key
// and JSON are named for Telegram's update IDs, the first such cursor, and
// stay as files hold them.)
const updateOffsetPrefix = "updateOffset:"

func updateOffsetKey(source int64) []byte {
	return []byte(updateOffsetPrefix + strconv.FormatInt(source, 10))
}

type inputCursor struct {
	Cursor int64     `json:"updateID"`
	At     time.Time `json:"at"`
}

// SetInputCursor records that the front-end has handled its input from
// source up to cursor, at time at, so a restart can ask for the input after
// it only (InputCursor): for Telegram, the last update ID a bot handled,
// per bot since update IDs count per bot. It replaces what was recorded
// before, even with a smaller cursor.
func (s *Store) SetInputCursor(source, cursor int64, at time.Time) error {
	raw, err := json.Marshal(inputCursor{Cursor: cursor, At: at.Round(0)})
	if err != nil {
		return fmt.Errorf("remember input cursor %d of %d: %w", cursor, source, err)
	}
	err = s.write(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(updateOffsetKey(source), raw)
	})
	if err != nil {
		return fmt.Errorf("remember input cursor %d of %d: %w", cursor, source, err)
	}
	return nil
}

// InputCursor returns what SetInputCursor last recorded for source: the
// cursor and when it was recorded; 0 and the zero time when nothing was.
// A record that cannot be decoded gives an error wrapping ErrCorrupt.
func (s *Store) InputCursor(source int64) (cursor int64, at time.Time, err error) {
	var rec inputCursor
	err = closedErr(s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketMeta).Get(updateOffsetKey(source))
		if raw == nil {
			return nil
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%w: decode JSON: %w", ErrCorrupt, err)
		}
		return nil
	}))
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("read input cursor of %d: %w", source, err)
	}
	return rec.Cursor, rec.At, nil
}

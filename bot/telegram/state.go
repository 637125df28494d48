package telegram

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// stateName names the front-end's key/value space in the store
// (pending.Store.FrontendState).
const stateName = Name

// State is the Telegram front-end's own bookkeeping, kept in its
// key/value space of the store and committed like the entries: the last
// update each bot handled (the update offset), the chats that became
// supergroups, and the forum topic of each project. The keys and values
// are those hermes-bot 03d8d17 kept in the store's meta bucket, which
// pending.Open moves here verbatim. Get it with StateOf; it is safe for
// concurrent use.
type State struct {
	store *pending.Store
	kv    *pending.State
}

// StateOf returns the Telegram front-end's state in store.
func StateOf(store *pending.Store) *State {
	return &State{store: store, kv: store.FrontendState(stateName)}
}

// chatMigrationPrefix starts the key of a chat's move (MoveChat); the old
// chat follows and the value is the new chat, both in decimal.
const chatMigrationPrefix = "chatMigration:"

// maxMigrationHops bounds the walk along remembered migrations, so a file
// edited by hand into a loop cannot hang ChatFor.
const maxMigrationHops = 8

func chatMigrationKey(old int64) string {
	return chatMigrationPrefix + strconv.FormatInt(old, 10)
}

// migratedTo returns what chat became by the moves in kv, and whether it
// moved at all.
func migratedTo(kv pending.KV, chat int64) (int64, bool, error) {
	id, moved := chat, false
	for range maxMigrationHops {
		raw, ok := kv.Get(chatMigrationKey(id))
		if !ok {
			return id, moved, nil
		}
		next, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || next == 0 {
			return 0, false, fmt.Errorf("%w: migration of chat %d holds %q, not a chat ID", pending.ErrCorrupt, id, raw)
		}
		id, moved = next, true
	}
	return 0, false, fmt.Errorf("%w: migrations starting at chat %d go round in a loop", pending.ErrCorrupt, chat)
}

// ChatFor returns the chat to post to for the configured chat: where it
// moved, if MoveChat recorded a move (the group became a supergroup),
// else configured itself. Call it at start-up, so a restart keeps posting
// where the chat went even though the configuration still names the old
// one.
func (st *State) ChatFor(configured int64) (int64, error) {
	var id int64
	err := st.kv.View(func(kv pending.KV) (err error) {
		id, _, err = migratedTo(kv, configured)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("look up migration of chat %d: %w", configured, err)
	}
	return id, nil
}

// MoveChat records that chat oldID is now chat newID, as Telegram reports
// when a group becomes a supergroup, so ChatFor(oldID) returns newID from
// now on, across restarts; then it moves the store's entries of chat
// oldID there (pending.Store.Unpost: they lose their message and are
// posted again). Should the process stop between the two, the entries
// still name the old chat: the first edit of one fails with the
// migration again, which moves them. Moving a chat again does nothing
// more; oldID and newID must be different non-zero IDs
// (pending.ErrInvalid).
func (st *State) MoveChat(oldID, newID int64) error {
	if oldID == 0 || newID == 0 || oldID == newID {
		return fmt.Errorf("remember migration of chat %d to %d: %w: two different non-zero chat IDs are needed", oldID, newID, pending.ErrInvalid)
	}
	var to int64
	err := st.kv.Update(func(kv pending.KV) error {
		// newID may itself have moved on (a migration remembered late):
		// point oldID straight at the end, so lookups take one step.
		var err error
		to, _, err = migratedTo(kv, newID)
		if err != nil {
			return err
		}
		if to == oldID {
			return fmt.Errorf("%w: chat %d already migrated to %d", pending.ErrInvalid, newID, oldID)
		}
		value := []byte(strconv.FormatInt(to, 10))
		// Chats that had moved to oldID move on to the same end.
		earlier := []string{chatMigrationKey(oldID)}
		oldValue := strconv.FormatInt(oldID, 10)
		err = kv.ForEach(chatMigrationPrefix, func(k string, v []byte) error {
			if string(v) == oldValue {
				earlier = append(earlier, k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range earlier {
			if err := kv.Put(k, value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remember migration of chat %d to %d: %w", oldID, newID, err)
	}
	return st.store.Unpost(Name, func(at pending.Place) bool { return placeAt(at).Chat == oldID })
}

// updateOffsetPrefix starts the key of a bot's update offset
// (SetInputCursor); the bot ID follows, in decimal. The value is an
// inputCursor in JSON.
const updateOffsetPrefix = "updateOffset:"

func updateOffsetKey(botID int64) string {
	return updateOffsetPrefix + strconv.FormatInt(botID, 10)
}

type inputCursor struct {
	Cursor int64     `json:"updateID"`
	At     time.Time `json:"at"`
}

// SetInputCursor records that bot botID has handled its updates up to
// update ID id, at time at, so a restart can ask for the updates after it
// only (InputCursor, InitialOffset). Update IDs count per bot. It replaces
// what was recorded before, even with a smaller ID.
func (st *State) SetInputCursor(botID, id int64, at time.Time) error {
	raw, err := json.Marshal(inputCursor{Cursor: id, At: at.Round(0)})
	if err == nil {
		err = st.kv.Put(updateOffsetKey(botID), raw)
	}
	if err != nil {
		return fmt.Errorf("remember update offset %d of bot %d: %w", id, botID, err)
	}
	return nil
}

// InputCursor returns what SetInputCursor last recorded for bot botID:
// the update ID and when it was recorded; 0 and the zero time when
// nothing was. A record that cannot be decoded gives an error wrapping
// pending.ErrCorrupt.
func (st *State) InputCursor(botID int64) (id int64, at time.Time, err error) {
	raw, ok, err := st.kv.Get(updateOffsetKey(botID))
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("read update offset of bot %d: %w", botID, err)
		}
		return 0, time.Time{}, err
	}
	var rec inputCursor
	if err := json.Unmarshal(raw, &rec); err != nil {
		return 0, time.Time{}, fmt.Errorf("read update offset of bot %d: %w: decode JSON: %w", botID, pending.ErrCorrupt, err)
	}
	return rec.Cursor, rec.At, nil
}

// topicPrefix starts the key of the forum topic a project directory
// posts in (RememberThread); the chat in decimal, a colon and the
// directory follow. The chat holds no colon, so a directory that does
// cannot make two keys collide. The value is the thread ID in decimal.
const topicPrefix = "topic:"

func topicKey(chat int64, dir string) string {
	return topicPrefix + strconv.FormatInt(chat, 10) + ":" + dir
}

// ThreadFor returns the forum topic RememberThread recorded for project
// directory dir in chat, and whether one was. A record that cannot be
// decoded gives an error wrapping pending.ErrCorrupt.
func (st *State) ThreadFor(chat int64, dir string) (thread int, ok bool, err error) {
	raw, ok, err := st.kv.Get(topicKey(chat, dir))
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("look up topic of %s in chat %d: %w", dir, chat, err)
		}
		return 0, false, err
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n <= 0 {
		return 0, false, fmt.Errorf("look up topic of %s in chat %d: %w: holds %q, not a thread ID", dir, chat, pending.ErrCorrupt, raw)
	}
	return n, true, nil
}

// RememberThread records that requests from project directory dir are
// shown in forum topic thread of chat, so ThreadFor finds it across
// restarts. It replaces what was recorded before. chat must be non-zero,
// dir non-empty and thread positive (pending.ErrInvalid).
func (st *State) RememberThread(chat int64, dir string, thread int) error {
	if chat == 0 || dir == "" || thread <= 0 {
		return fmt.Errorf("remember topic %d of %q in chat %d: %w: want a chat, a directory and a positive thread ID",
			thread, dir, chat, pending.ErrInvalid)
	}
	if err := st.kv.Put(topicKey(chat, dir), []byte(strconv.Itoa(thread))); err != nil {
		return fmt.Errorf("remember topic %d of %s in chat %d: %w", thread, dir, chat, err)
	}
	return nil
}

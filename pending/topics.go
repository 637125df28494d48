package pending

import (
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// topicPrefix starts the meta key of the thread a project directory posts
// in (RememberThread); the chat in decimal, a colon and the directory
// follow. The chat holds no colon, so a directory that does cannot make
// two keys collide. The value is the thread in decimal. (The name is from
// Telegram's forum topics, the first such threads; the key stays as files
// hold it.)
const topicPrefix = "topic:"

func topicKey(chat int64, dir string) []byte {
	return []byte(topicPrefix + strconv.FormatInt(chat, 10) + ":" + dir)
}

// ThreadFor returns the thread RememberThread recorded for project
// directory dir in chat, and whether one was. A record that cannot be
// decoded gives an error wrapping ErrCorrupt.
func (s *Store) ThreadFor(chat int64, dir string) (thread int, ok bool, err error) {
	err = closedErr(s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketMeta).Get(topicKey(chat, dir))
		if raw == nil {
			return nil
		}
		n, err := strconv.Atoi(string(raw))
		if err != nil || n <= 0 {
			return fmt.Errorf("%w: holds %q, not a thread ID", ErrCorrupt, raw)
		}
		thread, ok = n, true
		return nil
	}))
	if err != nil {
		return 0, false, fmt.Errorf("look up topic of %s in chat %d: %w", dir, chat, err)
	}
	return thread, ok, nil
}

// RememberThread records that requests from project directory dir are
// shown in thread thread of chat, so ThreadFor finds it across restarts
// (for Telegram, a forum topic). It replaces what was recorded before. chat
// must be non-zero, dir non-empty and thread positive (ErrInvalid).
func (s *Store) RememberThread(chat int64, dir string, thread int) error {
	if chat == 0 || dir == "" || thread <= 0 {
		return fmt.Errorf("remember topic %d of %q in chat %d: %w: want a chat, a directory and a positive thread ID",
			thread, dir, chat, ErrInvalid)
	}
	err := s.write(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(topicKey(chat, dir), []byte(strconv.Itoa(thread)))
	})
	if err != nil {
		return fmt.Errorf("remember topic %d of %s in chat %d: %w", thread, dir, chat, err)
	}
	return nil
}

package pending

import (
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// topicPrefix starts the meta key of the forum topic a project directory
// posts in; the chat ID in decimal, a colon and the directory follow. The
// chat ID holds no colon, so a directory that does cannot make two keys
// collide. The value is the topic's message_thread_id in decimal.
const topicPrefix = "topic:"

func topicKey(chatID int64, dir string) []byte {
	return []byte(topicPrefix + strconv.FormatInt(chatID, 10) + ":" + dir)
}

// TopicFor returns the forum topic RememberTopic recorded for project
// directory dir in chat chatID, and whether one was. A record that cannot
// be decoded gives an error wrapping ErrCorrupt.
func (s *Store) TopicFor(chatID int64, dir string) (threadID int, ok bool, err error) {
	err = closedErr(s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketMeta).Get(topicKey(chatID, dir))
		if raw == nil {
			return nil
		}
		n, err := strconv.Atoi(string(raw))
		if err != nil || n <= 0 {
			return fmt.Errorf("%w: holds %q, not a thread ID", ErrCorrupt, raw)
		}
		threadID, ok = n, true
		return nil
	}))
	if err != nil {
		return 0, false, fmt.Errorf("look up topic of %s in chat %d: %w", dir, chatID, err)
	}
	return threadID, ok, nil
}

// RememberTopic records that requests from project directory dir are
// posted in forum topic threadID of chat chatID, so TopicFor finds it
// across restarts. It replaces what was recorded before. chatID must be
// non-zero, dir non-empty and threadID positive (ErrInvalid).
func (s *Store) RememberTopic(chatID int64, dir string, threadID int) error {
	if chatID == 0 || dir == "" || threadID <= 0 {
		return fmt.Errorf("remember topic %d of %q in chat %d: %w: want a chat, a directory and a positive thread ID",
			threadID, dir, chatID, ErrInvalid)
	}
	err := s.write(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(topicKey(chatID, dir), []byte(strconv.Itoa(threadID)))
	})
	if err != nil {
		return fmt.Errorf("remember topic %d of %s in chat %d: %w", threadID, dir, chatID, err)
	}
	return nil
}

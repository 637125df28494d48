package pending

import "fmt"

// MovePlaces moves every entry shown in chat oldChat to chat newChat,
// as a front-end asks when it learns that the chat has a new ID (for
// Telegram, a group that became a supergroup). Since the messages of the
// old chat are not those of the new one, each moved entry loses its
// message: Place.Message and Prompt become 0 and a typed answer is no
// longer awaited (AwaitingText false). Unsent then lists those entries,
// so the bridge posts them again; an open prompt is not re-sent, the
// person presses the button again. Entries that cannot be decoded are
// left alone, with a warning. Moving again does nothing more; oldChat and
// newChat must be different non-zero IDs (ErrInvalid). Remembering that
// the chat moved is the front-end's business.
func (s *Store) MovePlaces(oldChat, newChat int64) error {
	if oldChat == 0 || newChat == 0 || oldChat == newChat {
		return fmt.Errorf("move the entries of chat %d to %d: %w: two different non-zero chat IDs are needed", oldChat, newChat, ErrInvalid)
	}
	err := s.update(func(b *buckets) error { return s.moveEntries(b, oldChat, newChat) })
	if err != nil {
		return fmt.Errorf("move the entries of chat %d to %d: %w", oldChat, newChat, err)
	}
	return nil
}

// moveEntries moves every entry of chat old to chat to, as
// MovePlaces describes.
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

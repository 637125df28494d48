package pending

import "fmt"

// Unpost forgets the places of front-end frontend that gone accepts, as
// a front-end asks when those messages are lost to it (for Telegram, a
// group that became a supergroup). Each such entry is owed its message
// there again (Unsent lists it, so the bridge posts it again) and no
// longer awaits a typed answer. Entries that cannot be decoded are left
// alone, with a warning. gone runs inside a write transaction: it must
// be quick and touch nothing else.
func (s *Store) Unpost(frontend string, gone func(Place) bool) error {
	if frontend == "" {
		return fmt.Errorf("unpost: %w: no front-end named", ErrInvalid)
	}
	err := s.update(func(b *buckets) error {
		var stale []*Entry
		err := b.entries.ForEach(func(k, v []byte) error {
			e, err := decode(v)
			if err != nil {
				s.log.Warn().Err(err).Str("key", string(k)).Str("db", s.path).
					Msg("not unposting an entry of the pending store that cannot be decoded")
				return nil
			}
			if at := e.Places[frontend]; at != "" && gone(at) {
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
			e.Places[frontend] = ""
			e.AwaitingText, e.AwaitingQuestion, e.AwaitingReason = false, 0, false
			if err := b.put(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("unpost the entries of %s: %w", frontend, err)
	}
	return nil
}

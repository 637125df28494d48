package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/hermes-bot/hermes-bot/bot/frontend"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Grouping: identical permission requests of one session (same kind,
// patterns and metadata: the same command, diff or content) share one
// message, so a person decides them once rather than pressing the same
// buttons again for each. The first of them gives the
// group its key, which the buttons carry and whose lock guards them all.

// lockKey is the key of the lock guarding e. Permission requests sharing
// one message are guarded together by the key their buttons carry: the
// UID of the first of them.
func lockKey(e *pending.Entry) string {
	if e.SharedWith != "" {
		return e.SharedWith
	}
	return e.UID
}

// group returns the requests whose message carries key in its buttons,
// oldest first: request key itself while it is held, and the permission
// requests sharing its message, which outlive it. A question is a group
// of one.
//
// The members are all of key's session (findTwin joins only within a
// session), but reading that session's requests would need key's own
// entry to say which session, and it may be closed while members live on.
// So the store finds them by their SharedWith, which names key for good.
func (b *Bridge) group(key string) ([]*pending.Entry, error) {
	e, err := b.store.Get(key)
	switch {
	case err == nil && e.Kind != pending.KindPermission:
		return []*pending.Entry{e}, nil
	case err != nil && !errors.Is(err, pending.ErrNotFound):
		return nil, err
	}
	members, err := b.store.Group(key)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(members, func(x *pending.Entry) bool { return x.Kind != pending.KindPermission }), nil
}

// lockGroup takes the lock of group key, then that of each of its
// requests, and returns the requests as stored once all locks are held.
// Requests join a group only under its key's lock, so none can be missing;
// one closed meanwhile is left out. The returned unlock must be called
// once, also after an error (it is a no-op then).
func (b *Bridge) lockGroup(ctx context.Context, key string) ([]*pending.Entry, func(), error) {
	var unlocks []func()
	release := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
		unlocks = nil
	}
	u, err := b.locks.lock(ctx, key)
	if err != nil {
		return nil, release, err
	}
	unlocks = append(unlocks, u)
	members, err := b.group(key)
	if err != nil {
		release()
		return nil, release, fmt.Errorf("read requests of %s: %w", key, err)
	}
	if len(members) <= 1 && (len(members) == 0 || members[0].UID == key) {
		return members, release, nil
	}
	for _, m := range members {
		if m.UID == key {
			continue
		}
		u, err := b.locks.lock(ctx, m.UID)
		if err != nil {
			release()
			return nil, release, err
		}
		unlocks = append(unlocks, u)
	}
	// Read again: one may have been closed while we waited for its lock.
	if members, err = b.group(key); err != nil {
		release()
		return nil, release, fmt.Errorf("read requests of %s: %w", key, err)
	}
	return members, release, nil
}

// open returns the requests of es still waiting for a decision: not
// expired.
func open(es []*pending.Entry) []*pending.Entry {
	return slices.DeleteFunc(slices.Clone(es), func(e *pending.Entry) bool { return e.ExpiredNotified })
}

// messageOf returns the first of es shown somewhere, or nil.
func messageOf(es []*pending.Entry) *pending.Entry {
	for _, e := range es {
		if e.Shown() {
			return e
		}
	}
	return nil
}

// placeOf returns where front-end name shows the first of es shown there.
func placeOf(es []*pending.Entry, name string) pending.Place {
	for _, e := range es {
		if at := e.Places[name]; at != "" {
			return at
		}
	}
	return ""
}

// samePermission reports whether two requests would run exactly the same
// thing, so that one tap may answer both: every field equal, the metadata
// (command, diff, file, content) included. opencode's patterns alone leave
// out a command's cd and an edit's content.
func samePermission(a, b *pending.Permission) bool {
	if a == nil || b == nil {
		return false
	}
	x, y := *a, *b
	x.Metadata, y.Metadata = nil, nil
	jx, errX := json.Marshal(x)
	jy, errY := json.Marshal(y)
	if errX != nil || errY != nil || !bytes.Equal(jx, jy) {
		return false
	}
	return sameJSON(a.Metadata, b.Metadata)
}

// sameJSON reports whether two JSON texts hold the same value, whatever
// their key order and spacing. Text that does not decode is never the same.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// findTwin returns the group key of an open request asking what e asks,
// in e's session. It reads that session's requests alone, so a store full
// of other sessions' requests costs it nothing.
func (b *Bridge) findTwin(e *pending.Entry) (string, bool) {
	all, err := b.store.BySession(e.SessionID)
	if err != nil {
		b.log.Warn().Err(err).Msg("could not look for an identical permission request; posting this one on its own")
		return "", false
	}
	for _, x := range all {
		// Same server too: one decision goes to every member's server,
		// and a session ID is unique on one server only.
		if x.Kind == pending.KindPermission && x.Server == e.Server && x.Directory == e.Directory && x.SessionID == e.SessionID &&
			!x.ExpiredNotified && samePermission(x.Permission, e.Permission) {
			return lockKey(x), true
		}
	}
	return "", false
}

// join stores e as a member of group key, whose message then covers it
// too. joined is false when the group closed meanwhile (e is not stored
// then); post is true when e is stored but the group's message was never
// sent, so posting e sends it.
func (b *Bridge) join(ctx context.Context, e *pending.Entry, key string) (joined, post bool) {
	members, unlock, err := b.lockGroup(ctx, key)
	defer unlock()
	if err != nil {
		b.log.Warn().Err(err).Str("requestID", e.RequestID).Msg("could not join an identical permission request; posting this one on its own")
		return false, false
	}
	members = slices.DeleteFunc(members, func(m *pending.Entry) bool { return !samePermission(m.Permission, e.Permission) })
	live := open(members)
	if len(live) == 0 {
		return false, false
	}
	e.SharedWith = key
	// The message is shared, so are its places.
	copyContext(e, live[0])
	e.Places = b.unposted()
	for name := range e.Places {
		e.Places[name] = placeOf(live, name)
	}
	if err := b.store.Create(e); err != nil {
		if !errors.Is(err, pending.ErrExists) {
			b.log.Error().Err(err).Str("requestID", e.RequestID).Msg("could not store permission request; it is not posted")
		}
		return true, false
	}
	log := withEntry(b.log, e)
	log.Info().Str("sharedWith", key).Int("requests", len(live)+1).Msg("permission asked again; it shares the message of the identical request")
	if e.Shown() {
		b.rerenderPermission(ctx, log, key, append(live, e))
	}
	return true, len(b.owing(e)) > 0
}

// rerenderPermission shows the open requests of group key in their
// message, keyboard included. The caller holds the group's locks.
func (b *Bridge) rerenderPermission(ctx context.Context, log zerolog.Logger, key string, members []*pending.Entry) {
	live := open(members)
	m := messageOf(live)
	if m == nil {
		return
	}
	b.refresh(ctx, log, m, b.withGeneration(frontend.Request{Key: key, Members: views(live...)}))
}

// stillOpen returns the other requests that share e's message and still
// wait for a decision.
func (b *Bridge) stillOpen(e *pending.Entry) []*pending.Entry {
	members, err := b.group(lockKey(e))
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(open(members), func(m *pending.Entry) bool {
		return m.UID == e.UID || !sharesMessage(m, e)
	})
}

// sharesMessage reports whether a and b are shown by one message.
func sharesMessage(a, b *pending.Entry) bool {
	for name, at := range a.Places {
		if at != "" && b.Places[name] == at {
			return true
		}
	}
	return false
}

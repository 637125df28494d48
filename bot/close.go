package bot

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/pending"
	"github.com/rs/zerolog"
)

// Closing a request: its entry leaves the store in the write that
// remembers how it closed (for a late press) and owes its message's
// closing edit (see owed.go); the message then shows the outcome the
// front-end rendered, or stays open for identical requests sharing it.

// closedRetention is how long a closed request is remembered, so a late
// press on its buttons is told how it ended. Telegram keeps an update it
// was not told we took for about a day, so a press redelivered after a
// restart is still recognised.
const closedRetention = 24 * time.Hour

// pruneEvery is how often ExpireDue forgets closed requests older than
// closedRetention.
const pruneEvery = time.Hour

// deleteEntry removes closed request e from the store and remembers,
// durably, that it closed; toast is what a late press on it is told. The
// closing edit owed to its message, if any (see owedEdit), is recorded in
// the same write, so it is sent again after a crash.
func (b *Bridge) deleteEntry(log zerolog.Logger, e *pending.Entry, toast i18n.Toast, owed ...pending.Edit) {
	c := b.closedRecord(e, toast, owed)
	b.cfg.Metrics.requestClosed(toast, c.At.Sub(e.CreatedAt))
	b.closed.Put(e.UID, c)
	if err := b.store.DeleteClosed(e.UID, c, owed...); err != nil {
		log.Error().Err(err).Msg("could not delete closed request from the store")
	}
}

// rememberGroup records that the group of permission requests whose
// buttons carry key closed, the requests of closed having just closed
// with the same toast: the key need not be an entry any more. When it is
// one of them, deleteEntry has recorded it already.
// owed is the closing edit of the group's message, if it closed.
func (b *Bridge) rememberGroup(log zerolog.Logger, key string, closed []*pending.Entry, toast i18n.Toast, owed []pending.Edit) {
	if len(closed) == 0 || slices.ContainsFunc(closed, func(m *pending.Entry) bool { return m.UID == key }) {
		return
	}
	e := messageOf(closed)
	if e == nil {
		e = closed[0]
	}
	c := b.closedRecord(e, toast, owed)
	b.closed.Put(key, c)
	if err := b.store.RememberClosed(key, c); err != nil {
		log.Warn().Err(err).Str("key", key).Msg("could not remember that the request closed; a late press hears only that it is no longer pending")
	}
}

// closedRecord is what is remembered of e, closed with toast: its
// messages, and their closing, if owed, so a press on one while it still
// shows buttons can put the outcome back.
func (b *Bridge) closedRecord(e *pending.Entry, toast i18n.Toast, owed []pending.Edit) pending.ClosedRequest {
	c := pending.ClosedRequest{Toast: string(toast), At: b.now()}
	for name, at := range e.Places {
		if at == "" {
			continue
		}
		if c.Places == nil {
			c.Places = map[string]pending.Place{}
		}
		c.Places[name] = at
		for _, o := range owed {
			if o.Frontend == name && o.Place == at {
				c.Closing = o.Data
			}
		}
	}
	return c
}

// closedAs returns what is remembered of closed request uid: in memory
// for the requests this process closed, else in the store, which keeps
// them across restarts for closedRetention.
func (b *Bridge) closedAs(log zerolog.Logger, uid string) (pending.ClosedRequest, bool) {
	if c, ok := b.closed.Get(uid); ok {
		return c, true
	}
	c, ok, err := b.store.Closed(uid)
	if err != nil {
		log.Warn().Err(err).Msg("could not look up how a request closed")
		return pending.ClosedRequest{}, false
	}
	return c, ok
}

// pruneClosed forgets closed requests older than closedRetention, at most
// once per pruneEvery.
func (b *Bridge) pruneClosed() {
	now := b.now()
	b.pruneMu.Lock()
	due := b.lastPrune.IsZero() || now.Sub(b.lastPrune) >= pruneEvery
	if due {
		b.lastPrune = now
	}
	b.pruneMu.Unlock()
	if !due {
		return
	}
	n, err := b.store.PruneClosed(now.Add(-closedRetention))
	if err != nil {
		b.log.Warn().Err(err).Msg("could not forget old closed requests; retrying later")
		return
	}
	if n > 0 {
		b.log.Debug().Int("forgotten", n).Msg("forgot closed requests older than a day")
	}
}

// closedMemory is how many closed requests Bridge.closed remembers.
const closedMemory = 512

// requestOf is the request e's message shows on its own: a question,
// or a permission request of a group of one.
func requestOf(e *pending.Entry) frontend.Request {
	return frontend.Request{Key: e.UID, Members: views(e), Generation: e.Generation}
}

// views are es as front-ends see them.
func views(es ...*pending.Entry) []*frontend.View {
	out := make([]*frontend.View, len(es))
	for i, e := range es {
		out[i] = viewOf(e)
	}
	return out
}

// closeMessage makes e's messages show how e closed, done, without
// buttons. The caller holds e's lock (its group's, for
// a permission).
//
// Closing a permission request's message while identical requests still
// share it would strand them without buttons; the message is shown open
// for them instead. A message gone from the chat (someone deleted it)
// has nowhere to show the outcome, which is dropped. The outcome also
// goes to pc, the stale copy of the message the press being handled came
// from, if any (see pressedCopy).
func (b *Bridge) closeMessage(ctx context.Context, log zerolog.Logger, e *pending.Entry, done closing, pc *pressedCopy) {
	if done == "" {
		return // logged by outcome
	}
	if !e.Shown() {
		return
	}
	if e.Kind == pending.KindPermission {
		if live := b.stillOpen(e); len(live) > 0 {
			log.Info().Int("stillOpen", len(live)).Msg("request closed; its message stays open for the identical requests sharing it")
			b.refresh(ctx, log, e, b.withGeneration(frontend.Request{Key: lockKey(e), Members: views(live...)}))
			return
		}
	}
	if pc != nil && pc.at != e.Places[pc.fe] {
		pc.outcome = done
	}
	for _, m := range b.shownAt(e.Places) {
		o := pending.Edit{Frontend: m.fe.Name(), Place: m.at, Data: string(done)}
		b.sendOwed(ctx, log.With().Str("frontend", o.Frontend).Str("place", string(o.Place)).Logger(), o)
	}
}

// closeRequest closes e, shown on its own, as o: its entry goes, owing
// its messages' closing edit, and they (and pc) show the outcome. A
// permission request sharing its message with identical ones still open
// owes none: the message stays open for them. The caller holds e's lock.
func (b *Bridge) closeRequest(ctx context.Context, log zerolog.Logger, e *pending.Entry, o frontend.Outcome, toast i18n.Toast, pc *pressedCopy) {
	done := b.outcome(requestOf(e), o)
	var owed []pending.Edit
	if e.Kind != pending.KindPermission || len(b.stillOpen(e)) == 0 {
		owed = owedEdits(e, done)
	}
	b.deleteEntry(log, e, toast, owed...)
	b.closeMessage(ctx, log, e, done, pc)
}

// refresh shows r, open, in the messages of e, one of r's requests. When
// a chat no longer has its message (someone deleted it), r gets a new
// one there, whose place replaces the old one in the store (see repost).
// The caller holds the lock of r.
func (b *Bridge) refresh(ctx context.Context, log zerolog.Logger, e *pending.Entry, r frontend.Request) {
	for _, m := range b.shownAt(e.Places) {
		err := m.fe.Refresh(ctx, m.at, r)
		switch {
		case err == nil:
		case errors.Is(err, frontend.ErrGone):
			b.repost(ctx, log, e, m, r)
		default:
			log.Warn().Err(err).Str("frontend", m.fe.Name()).Msg("could not edit request message")
		}
	}
}

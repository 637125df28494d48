package bot

import (
	"context"
	"errors"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/pending"
)

// A request can be shown by more than one message. If hermes-bot stops
// between sending a request's message and saving its ID, the restart
// posts it again, and the first copy keeps working buttons, since they
// carry only the request's UID; the store knows the second only. A press
// on such a stale copy is handled like any other, and then the copy is
// settled: it shows the outcome when the press closed the request, or
// else becomes a short note, without buttons, pointing at the message
// the store knows.

// pressedCopy is the message a press came from when it is not the one
// the store knows for the request. It travels with the press (answerer),
// so closeMessage can hand it the outcome whichever path closes the
// request; it is used by one press's goroutine only.
type pressedCopy struct {
	fe string
	at pending.Place
	// outcome is how the request closed, set by closeMessage when the
	// press closed it.
	outcome closing
}

// staleCopy returns the message p came from when it is a message of p's
// request in p's front-end but not current, the one the store knows
// there; else nil.
func staleCopy(p frontend.Press, current pending.Place) *pressedCopy {
	if current == "" || p.From == "" || p.From == current || !p.FromCarries {
		return nil
	}
	return &pressedCopy{fe: p.Frontend, at: p.From}
}

// adopt makes the message p came from the message of those of es that
// have none in its front-end, if it has a button for p's request (es's,
// or their group's): it carries their buttons, so it was sent for them by
// a process that could not save its place (it died, or the save failed),
// and posting another would make a second copy. The caller holds their
// locks; es are updated in place.
func (b *Bridge) adopt(log zerolog.Logger, p frontend.Press, es []*pending.Entry) {
	if p.From == "" || !p.FromCarries || b.frontendNamed(p.Frontend) == nil {
		return
	}
	for _, e := range es {
		if e.Places[p.Frontend] != "" || e.ExpiredNotified {
			continue
		}
		next, err := b.store.Update(e.UID, func(x *pending.Entry) error {
			b.place(x, map[string]pending.Place{p.Frontend: p.From})
			return nil
		})
		if err != nil {
			log.Warn().Err(err).Str("place", string(p.From)).Msg("could not save the message a press came from as the request's message")
			continue
		}
		*e = *next
		log.Info().Str("uid", e.UID).Str("frontend", p.Frontend).Str("place", string(p.From)).
			Msg("a press came from a message of the request whose place was never saved; it is the request's message now")
	}
}

// settleCopy runs after a press on stale copy pc of request key (a
// question's UID or a permission group's key) was handled, under the
// request's lock: the copy shows the outcome if the press closed the
// request, else a note pointing at the request's message as the store
// now has it (current, if it cannot be read).
func (b *Bridge) settleCopy(ctx context.Context, log zerolog.Logger, pc *pressedCopy, key string, current pending.Place) {
	fe := b.frontendNamed(pc.fe)
	if fe == nil {
		return
	}
	if pc.outcome != "" {
		log.Info().Str("stalePlace", string(pc.at)).Msg("closing a stale copy of the request's message too")
		c, err := closingOf(pending.Edit{Frontend: pc.fe, Place: pc.at, Data: string(pc.outcome)})
		if err == nil {
			err = fe.Close(ctx, pc.at, c)
		}
		b.settleCopyErr(log, pc.at, err)
		return
	}
	if es, err := b.group(key); err == nil {
		if at := placeOf(es, pc.fe); at != "" {
			current = at
		}
	}
	if current == "" || current == pc.at {
		return
	}
	log.Info().Str("stalePlace", string(pc.at)).Str("place", string(current)).
		Msg("press on a stale copy of the request's message; it now points at the current one")
	b.settleCopyErr(log, pc.at, fe.Moved(ctx, pc.at, current, false))
}

// settleClosedCopy handles a press on a request that has closed: when it
// came from another message than the one showing the outcome, that
// message is a stale copy, and becomes a note pointing at the outcome.
func (b *Bridge) settleClosedCopy(ctx context.Context, log zerolog.Logger, p frontend.Press, c pending.ClosedRequest) {
	pc := staleCopy(p, c.Places[p.Frontend])
	fe := b.frontendNamed(p.Frontend)
	if pc == nil || fe == nil {
		return
	}
	log.Info().Str("stalePlace", string(pc.at)).Str("place", string(c.Places[p.Frontend])).
		Msg("press on a stale copy of a closed request's message; it now points at the outcome")
	b.settleCopyErr(log, pc.at, fe.Moved(ctx, pc.at, c.Places[p.Frontend], true))
}

// refuseClosed answers a press on request uid, which is no longer held,
// with how it ended, and settles the pressed message: the request's own
// message gets its outcome back, a stale copy points at it.
func (b *Bridge) refuseClosed(ctx context.Context, log zerolog.Logger, p frontend.Press, a *ack) {
	c, ok := b.closedAs(log, p.Key)
	toast := i18n.ToastGone
	if ok && c.Toast != "" {
		toast = i18n.Toast(c.Toast)
	}
	log.Info().Str("toast", string(toast)).Msg("refusing press: request no longer pending")
	a.toast(toast)
	if ok && !b.repairClosed(ctx, log, p, c) {
		b.settleClosedCopy(ctx, log, p, c)
	}
}

// settleCopyErr logs what became of the edit of stale copy at.
func (b *Bridge) settleCopyErr(log zerolog.Logger, at pending.Place, err error) {
	switch {
	case err == nil:
	case errors.Is(err, frontend.ErrGone):
		log.Debug().Err(err).Str("stalePlace", string(at)).Msg("stale copy of the request's message is gone already")
	default:
		log.Warn().Err(err).Str("stalePlace", string(at)).Msg("could not edit a stale copy of the request's message")
	}
}

// repost shows r, open, in a new message of m's front-end after its chat
// said m is gone, and saves the new place on every request m showed (a
// permission's group shares it). The caller holds e's lock, or its
// group's. When the send fails the requests are left owed their message
// there, so SendUnsent posts them at the next connect.
func (b *Bridge) repost(ctx context.Context, log zerolog.Logger, e *pending.Entry, m shown, r frontend.Request) {
	name := m.fe.Name()
	log = log.With().Str("frontend", name).Str("oldPlace", string(m.at)).Logger()
	members := []*pending.Entry{e}
	if e.Kind == pending.KindPermission {
		if g, err := b.group(lockKey(e)); err == nil {
			members = g
		}
	}
	at, err := m.fe.Post(ctx, r)
	if err != nil {
		at = ""
		log.Error().Err(err).Msg("request message was deleted in the chat and posting it again failed; it is posted again after the next connect")
	}
	var errs []error
	for _, x := range members {
		if x.Places[name] != m.at {
			continue
		}
		_, uerr := b.store.Update(x.UID, func(x *pending.Entry) error {
			if x.Places[name] == m.at {
				x.Places[name] = at
			}
			return nil
		})
		if uerr != nil && !errors.Is(uerr, pending.ErrNotFound) {
			errs = append(errs, uerr)
		}
	}
	e.Places[name] = at
	if err := errors.Join(errs...); err != nil {
		log.Error().Err(err).Str("place", string(at)).Msg("request message was deleted in the chat; could not save the place of the new one")
		return
	}
	if at != "" {
		log.Info().Str("place", string(at)).Msg("request message was deleted in the chat; posted it again")
	}
}

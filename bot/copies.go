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
	at pending.Place
	// outcome is the outcome shown in the request's message, set by
	// closeMessage when the press closed the request.
	outcome string
}

// staleCopy returns the message p came from when it is a message of p's
// request in chatID but not messageID, the one the store knows; else nil.
func staleCopy(p frontend.Press, chatID int64, messageID int) *pressedCopy {
	if messageID == 0 || p.From.Message == 0 || p.From.Chat != chatID || p.From.Message == messageID || !p.FromCarries {
		return nil
	}
	return &pressedCopy{at: pending.Place{Chat: chatID, Message: p.From.Message}}
}

// adopt makes the message p came from the message of those of es that
// have none, in its chat, if it has a button for p's request (es's, or
// their group's): it carries their buttons, so it was sent for them by a
// process that could not save its place (it died, or the save failed),
// and posting another would make a second copy. The caller holds their
// locks; es are updated in place.
func (b *Bridge) adopt(log zerolog.Logger, p frontend.Press, es []*pending.Entry) {
	if p.From.Message == 0 || !p.FromCarries {
		return
	}
	for _, e := range es {
		if e.Place.Message != 0 || (e.Place.Chat != 0 && e.Place.Chat != p.From.Chat) || e.ExpiredNotified {
			continue
		}
		next, err := b.store.Update(e.UID, func(x *pending.Entry) error {
			if x.Place.Message == 0 {
				x.Place = p.From
			}
			return nil
		})
		if err != nil {
			log.Warn().Err(err).Int("messageID", p.From.Message).Msg("could not save the message a press came from as the request's message")
			continue
		}
		*e = *next
		log.Info().Str("uid", e.UID).Int("messageID", e.Place.Message).
			Msg("a press came from a message of the request whose ID was never saved; it is the request's message now")
	}
}

// settleCopy runs after a press on stale copy pc of request key (a
// question's UID or a permission group's key) was handled, under the
// request's lock: the copy shows the outcome if the press closed the
// request, else a note pointing at the request's message as the store
// now has it (current, if it cannot be read).
func (b *Bridge) settleCopy(ctx context.Context, log zerolog.Logger, pc *pressedCopy, key string, current int) {
	if pc.outcome != "" {
		log.Info().Int("staleMessageID", pc.at.Message).Msg("closing a stale copy of the request's message too")
		b.settleCopyErr(log, pc.at, b.fe.Close(ctx, pc.at, pc.outcome))
		return
	}
	if es, err := b.group(key); err == nil {
		if m := messageOf(es); m != nil && m.Place.Chat == pc.at.Chat {
			current = m.Place.Message
		}
	}
	if current == 0 || current == pc.at.Message {
		return
	}
	log.Info().Int("staleMessageID", pc.at.Message).Int("messageID", current).
		Msg("press on a stale copy of the request's message; it now points at the current one")
	b.settleCopyErr(log, pc.at, b.fe.Moved(ctx, pc.at, pending.Place{Chat: pc.at.Chat, Message: current}, false))
}

// settleClosedCopy handles a press on a request that has closed: when it
// came from another message than the one showing the outcome, that
// message is a stale copy, and becomes a note pointing at the outcome.
func (b *Bridge) settleClosedCopy(ctx context.Context, log zerolog.Logger, p frontend.Press, c pending.ClosedRequest) {
	pc := staleCopy(p, c.Place.Chat, c.Place.Message)
	if pc == nil {
		return
	}
	log.Info().Int("staleMessageID", pc.at.Message).Int("messageID", c.Place.Message).
		Msg("press on a stale copy of a closed request's message; it now points at the outcome")
	b.settleCopyErr(log, pc.at, b.fe.Moved(ctx, pc.at, c.Place, true))
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
		log.Debug().Err(err).Int("staleMessageID", at.Message).Msg("stale copy of the request's message is gone already")
	default:
		log.Warn().Err(err).Int("staleMessageID", at.Message).Msg("could not edit a stale copy of the request's message")
	}
}

// repost shows r, open, in a new message after the chat said the message
// e names is gone, and saves the new message's place on every request the
// old one showed (a permission's group shares it). The
// caller holds e's lock, or its group's. When the send fails the requests
// are left without a message (Place.Message 0), so SendUnsent posts them at
// the next connect.
func (b *Bridge) repost(ctx context.Context, log zerolog.Logger, e *pending.Entry, r frontend.Request) {
	old := e.Place.Message
	members := []*pending.Entry{e}
	if e.Kind == pending.KindPermission {
		if g, err := b.group(lockKey(e)); err == nil {
			members = g
		}
	}
	at, err := b.fe.Post(ctx, r)
	msgID, thread := at.Message, at.Thread
	if err != nil {
		thread = e.Place.Thread
		log.Error().Err(err).Int("oldMessageID", old).
			Msg("request message was deleted in the chat and posting it again failed; it is posted again after the next connect")
	}
	var errs []error
	for _, m := range members {
		if m.Place.Message != old || m.Place.Chat != e.Place.Chat {
			continue
		}
		_, uerr := b.store.Update(m.UID, func(x *pending.Entry) error {
			if x.Place.Message == old {
				x.Place.Message, x.Place.Thread = msgID, thread
			}
			return nil
		})
		if uerr != nil && !errors.Is(uerr, pending.ErrNotFound) {
			errs = append(errs, uerr)
		}
	}
	e.Place.Message, e.Place.Thread = msgID, thread
	if err := errors.Join(errs...); err != nil {
		log.Error().Err(err).Int("oldMessageID", old).Int("messageID", msgID).
			Msg("request message was deleted in the chat; could not save the ID of the new one")
		return
	}
	if msgID != 0 {
		log.Info().Int("oldMessageID", old).Int("messageID", msgID).
			Msg("request message was deleted in the chat; posted it again")
	}
}

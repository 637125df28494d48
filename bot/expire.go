package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// ExpireDue closes every request whose TTL has run out:
// a question is rejected in opencode (a form cancelled), a permission rejected with a
// message telling the agent nobody answered in time; its message says it
// expired, without buttons; its entry is deleted. Identical permission
// requests sharing a message expire together, with the first of them.
//
// A reject that fails (opencode unreachable, say) only warns: the message
// says "expired" at once, presses on it are refused, and the reject is
// tried again at each call until it succeeds, opencode no longer knows the
// request, or 10 minutes have passed since it expired; then the entry is
// deleted with a warning.
//
// It also forgets, at most once an hour, the closed requests remembered
// for late presses that closed over a day ago.
//
// Call it at start-up and at least every 30 seconds. It returns the
// failures to list or read the store; per-request problems are logged.
func (b *Bridge) ExpireDue(ctx context.Context) error {
	b.pruneClosed()
	due, err := b.store.Expired(b.now())
	if err != nil {
		return fmt.Errorf("expire due requests: %w", err)
	}
	var errs []error
	seen := make(map[string]bool)
	for _, e := range due {
		key := lockKey(e)
		if seen[key] || e.Kind != pending.KindQuestion && e.Kind != pending.KindPermission {
			continue
		}
		seen[key] = true
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		// Like an event's, an expiry under way when hermes-bot stops is
		// finished rather than cut off: a reject cancelled midway would
		// count as failed, the request would be marked as announced, and
		// its message would never say it expired.
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handlerTimeout)
		err := b.expire(ectx, key)
		cancel()
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("expire due requests: %w", err)
	}
	return nil
}

// expire closes the requests of group key if one of them is due.
func (b *Bridge) expire(ctx context.Context, key string) error {
	members, unlock, err := b.lockGroup(ctx, key)
	defer unlock()
	if err != nil {
		return fmt.Errorf("expire %s: %w", key, err)
	}
	now := b.now()
	if !slices.ContainsFunc(members, func(m *pending.Entry) bool {
		return !m.ExpiresAt.IsZero() && !m.ExpiresAt.After(now)
	}) {
		return nil // answered (or never due) while we waited
	}
	notified := slices.ContainsFunc(members, func(m *pending.Entry) bool { return m.ExpiredNotified })
	closed, kept := b.rejectMembers(ctx, members, now)
	// The message says the requests expired at the first try (the
	// retries leave it be). That closing edit is owed from the last write
	// of recordExpired, once every request it shows is closed or marked
	// expired: earlier, a crash could leave it without buttons for a
	// request that can still be answered.
	m := messageOf(members)
	var done closing
	var owed []pending.Edit
	if !notified && m != nil {
		done = b.expiredText(key, m, members, len(kept) > 0)
		owed = owedEdits(m, done)
	}
	b.recordExpired(key, members, closed, kept, owed)
	if done == "" {
		return nil // the message said so at the first try, or there is none
	}
	log := withEntry(b.log, m)
	b.closeMessage(ctx, log, m, done, nil)
	return nil
}

// rejectMembers rejects the expired requests members in opencode. closed
// are those done with: rejected, gone from opencode, or failing past
// expireRetryFor; kept are those whose reject is tried again later.
func (b *Bridge) rejectMembers(ctx context.Context, members []*pending.Entry, now time.Time) (closed, kept []*pending.Entry) {
	for _, m := range members {
		log := withEntry(b.log, m)
		err := b.rejectExpired(ctx, m)
		switch {
		case err == nil:
			log.Info().Msg("request expired; rejected in opencode")
		case errors.Is(err, opencode.ErrNotFound):
			log.Info().Msg("request expired; it was no longer pending in opencode")
		case now.Sub(m.ExpiresAt) > b.expireRetryFor:
			log.Warn().Err(err).Dur("retriedFor", b.expireRetryFor).
				Msg("request expired and rejecting it in opencode kept failing; giving up and forgetting it")
		default:
			log.Warn().Err(err).Msg("request expired but could not be rejected in opencode; retrying at the next sweep")
			kept = append(kept, m)
			continue
		}
		closed = append(closed, m)
	}
	return closed, kept
}

// expiredText is the closing text of the message m of group key, whose
// requests are members: opencode was told of the expiry unless retrying
// says a reject is still owed.
func (b *Bridge) expiredText(key string, m *pending.Entry, members []*pending.Entry, retrying bool) closing {
	o := frontend.Outcome{How: frontend.Expired, TTL: b.cfg.TTL}
	switch {
	case retrying:
		o.Told = frontend.NotTold
	case m.Kind == pending.KindPermission:
		o.Told = frontend.ToldRejected
	default:
		o.Told = frontend.ToldDismissed
	}
	r := requestOf(m)
	if m.Kind == pending.KindPermission {
		r = frontend.Request{Key: key, Members: views(members...)}
	}
	return b.outcome(r, o)
}

// recordExpired deletes the closed requests of group key and marks the
// kept ones as announced, the last of those writes recording owed; with
// none kept, the group is remembered as expired for late presses.
func (b *Bridge) recordExpired(key string, members, closed, kept []*pending.Entry, owed []pending.Edit) {
	closed = keyLast(closed, key)
	mark := slices.DeleteFunc(slices.Clone(kept), func(k *pending.Entry) bool { return k.ExpiredNotified })
	last := len(closed) + len(mark) - 1
	owedAt := func(i int) []pending.Edit {
		if i == last {
			return owed
		}
		return nil
	}
	for i, c := range closed {
		b.deleteEntry(withEntry(b.log, c), c, i18n.ToastExpired, owedAt(i)...)
	}
	for i, k := range mark {
		if _, err := b.store.Update(k.UID, func(x *pending.Entry) error {
			x.ExpiredNotified = true
			clearAwaiting(x)
			return nil
		}, owedAt(len(closed)+i)...); err != nil {
			log := withEntry(b.log, k)
			log.Error().Err(err).Msg("could not mark the expired request")
		}
	}
	if len(kept) == 0 {
		b.rememberGroup(b.log.With().Str("uid", key).Logger(), key, members, i18n.ToastExpired, owed)
	}
}

// rejectExpired tells opencode nobody answered request e.
func (b *Bridge) rejectExpired(ctx context.Context, e *pending.Entry) error {
	if e.Kind == pending.KindPermission {
		return b.opencodeOf(e.Server).Requests(surfaceOf(e)).ReplyPermission(ctx, e.Directory, e.SessionID, e.RequestID, frontend.ReplyReject, expiredReason)
	}
	if e.Form != nil {
		return b.opencodeOf(e.Server).CancelForm(ctx, e.SessionID, e.RequestID)
	}
	id, err := b.resolveQuestionID(ctx, e)
	if err != nil {
		return err
	}
	return b.opencodeOf(e.Server).Requests(surfaceOf(e)).RejectQuestion(ctx, e.Directory, e.SessionID, id)
}

// expiredReason is the reject message sent to the agent when nobody
// answered a permission request in time. It is for the model, not a
// person, so it stays English whatever HERMES_LANG is.
const expiredReason = "No one answered this permission request in time in the chat hermes-bot shows it in; " +
	"treat it as rejected and continue without it."

package bot

import (
	"context"
	"errors"
	"slices"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Answering: a press on a permission button, or a typed reason for a
// reject, decides every request of the group it names at once.

// pressPermission acts on a permission button: a decision for every
// request of the group, or the prompt for a reason.
func (b *Bridge) pressPermission(ctx context.Context, press zerolog.Logger, p frontend.Press, a *ack) {
	log := press.With().Str("uid", p.Key).Logger()
	lockCtx, cancel := context.WithTimeout(ctx, b.lockWait)
	members, unlock, err := b.lockGroup(lockCtx, p.Key)
	busy := lockCtx.Err() != nil
	cancel()
	defer unlock()
	if err != nil {
		if busy {
			log.Info().Msg("refusing press: another answer to this request is in progress")
			a.toast(i18n.ToastBusy)
			return
		}
		log.Error().Err(err).Msg("could not read request for a press")
		a.toast(i18n.ToastFailed)
		return
	}
	if len(members) == 0 {
		b.refuseClosed(ctx, log, p, a)
		return
	}
	e := members[0]
	elog := withEntry(press, e)
	b.adopt(elog, p, members)
	by := answerer{User: p.User, in: p.Frontend, at: p.At}
	current := placeOf(members, p.Frontend)
	if pc := staleCopy(p, current); pc != nil {
		// Runs before unlock, deferred earlier: the copy is settled while
		// the requests cannot change.
		by.copy = pc
		defer b.settleCopy(ctx, elog, pc, p.Key, current)
	}
	switch {
	case e.Kind != pending.KindPermission:
		elog.Info().Str("data", p.Data).Msg("refusing button that does not match its request")
		a.toast(i18n.ToastUnknown)
		return
	case slices.ContainsFunc(members, func(m *pending.Entry) bool { return m.ExpiredNotified }):
		elog.Info().Msg("refusing press on an expired request")
		a.toast(i18n.ToastExpired)
		return
	}
	var reply string
	switch p.Action {
	case frontend.AllowOnce:
		reply = frontend.ReplyOnce
	case frontend.AllowAlways:
		reply = frontend.ReplyAlways
	case frontend.Reject:
		reply = frontend.ReplyReject
	case frontend.RejectWithReason:
		// The reason is awaited on the pressed request, else the group's first.
		holder := members[0]
		if i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == p.Key }); i >= 0 {
			holder = members[i]
		}
		b.prompt(ctx, elog, holder, 0, true, by, a, "waiting for the reason of a reject")
		return
	}
	elog.Info().Str("reply", reply).Int("requests", len(members)).Msg("permission decision pressed")
	a.toast(i18n.ToastSending)
	b.decide(ctx, elog, p.Key, members, reply, "", by)
}

// reasonReceived rejects every request of the group of request uid, which
// waits for the reason of a reject, with text as the reason the agent
// reads. It reports whether opencode took the reject.
func (b *Bridge) reasonReceived(ctx context.Context, log zerolog.Logger, uid string, text string, user answerer) bool {
	e, err := b.store.Get(uid)
	if err != nil {
		log.Debug().Err(err).Msg("ignoring typed reason: the request is not held")
		return false
	}
	key := lockKey(e)
	members, unlock, err := b.lockGroup(ctx, key)
	defer unlock()
	if err != nil {
		log.Warn().Err(err).Msg("gave up waiting to take the reason of a reject")
		return false
	}
	i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == e.UID })
	if i < 0 {
		return false
	}
	holder := members[i]
	elog := withEntry(b.log, holder).With().Str("userID", user.ID).Logger()
	switch {
	case !holder.AwaitingText || !holder.AwaitingReason:
		elog.Debug().Msg("ignoring typed reason: request no longer awaits this prompt")
		return false
	case slices.ContainsFunc(members, func(m *pending.Entry) bool { return m.ExpiredNotified }):
		elog.Info().Msg("ignoring typed reason: the request expired")
		return false
	}
	elog.Info().Int("requests", len(members)).Msg("reason for a reject received")
	return b.decide(ctx, elog, key, members, frontend.ReplyReject, text, user)
}

// decide sends reply (and message, the reason of a reject) for every
// request of the group, then shows the outcome. A
// request opencode no longer knows is closed; one refused or not
// delivered stays open, with its buttons, and the person is told. The
// caller holds the group's locks. It reports whether opencode took the
// decision for every request still open there.
func (b *Bridge) decide(ctx context.Context, log zerolog.Logger, key string, members []*pending.Entry, reply, message string, user answerer) bool {
	var done, gone, refused, failed []*pending.Entry
	for _, m := range members {
		mlog := withEntry(b.log, m)
		err := b.opencodeOf(m.Server).Requests(surfaceOf(m)).ReplyPermission(ctx, m.Directory, m.SessionID, m.RequestID, reply, message)
		switch {
		case err == nil:
			mlog.Info().Str("reply", reply).Str("by", user.DisplayName()).Bool("reason", message != "").Msg("permission decision delivered to opencode")
			b.tellTerminal(mlog, m, b.text.TerminalDecided(user.chat(), reply, user.DisplayName()))
			if reply == frontend.ReplyAlways {
				b.rememberAlways(ctx, mlog, m)
			}
			done = append(done, m)
		case errors.Is(err, opencode.ErrNotFound):
			mlog.Warn().Err(err).Msg("permission request is no longer pending in opencode; closing it")
			gone = append(gone, m)
		case errors.Is(err, opencode.ErrNotAccepted):
			mlog.Warn().Err(err).Msg("opencode did not accept the permission decision")
			refused = append(refused, m)
		default:
			mlog.Error().Err(err).Msg("could not deliver permission decision to opencode")
			failed = append(failed, m)
		}
	}
	if len(done) > 0 {
		b.cfg.Metrics.answerDelivered(user.at, b.now())
	}
	kept := append(slices.Clone(refused), failed...)
	// When every request closes, the message's closing edit is owed from
	// the last one's deletion: earlier, a crash could leave it without
	// buttons while a request it shows is still open.
	var closed closing
	var owed []pending.Edit
	if len(kept) == 0 {
		o := frontend.Outcome{How: frontend.NoLongerPending}
		if len(done) > 0 {
			o = frontend.Outcome{How: frontend.Decided, Reply: reply, By: user.User, Reason: message}
		}
		closed = b.outcome(b.withGeneration(frontend.Request{Key: key, Members: views(members...)}), o)
		owed = owedEdits(members[0], closed)
	}
	closing := keyLast(slices.Concat(done, gone), key)
	for i, m := range closing {
		toast := i18n.ToastGone
		if slices.Contains(done, m) {
			toast = i18n.ToastAnswered
		}
		var o []pending.Edit
		if i == len(closing)-1 {
			o = owed
		}
		b.deleteEntry(withEntry(b.log, m), m, toast, o...)
	}
	switch {
	case len(kept) == 0 && len(done) > 0:
		b.rememberGroup(log, key, done, i18n.ToastAnswered, owed)
		b.closeMessage(ctx, log, members[0], closed, user.copy)
		return true
	case len(kept) == 0:
		b.rememberGroup(log, key, gone, i18n.ToastGone, owed)
		b.closeMessage(ctx, log, members[0], closed, user.copy)
		return false
	case len(done)+len(gone) > 0:
		b.rerenderPermission(ctx, log, key, kept)
	}
	msg := b.text.TellDecisionLost
	if len(refused) > 0 {
		msg = b.text.TellDecisionRefused
	}
	if len(done)+len(gone) > 0 {
		msg = b.text.StillOpen(len(kept), len(members)) + msg
	}
	b.tell(ctx, log, kept[0], user, msg)
	return false
}

package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

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

// messageOf returns the first of es whose message was sent, or nil.
func messageOf(es []*pending.Entry) *pending.Entry {
	for _, e := range es {
		if e.Place.Message != 0 {
			return e
		}
	}
	return nil
}

// samePermission reports whether two requests ask the same thing: same
// kind, same patterns.
func samePermission(a, b *pending.Permission) bool {
	return a != nil && b != nil && a.Kind == b.Kind && slices.Equal(a.Patterns, b.Patterns)
}

// permissionAsked stores a new permission request, then posts it, or,
// when an identical request of the same session is open, adds it to that
// request's message. A request already held is skipped.
func (b *Bridge) permissionAsked(ctx context.Context, ev opencode.Event) {
	p := ev.PermissionAsked
	e := b.newEntry(pending.KindPermission, ev, p.Surface, p.SessionID, p.ID, p.Tool)
	e.Permission = &pending.Permission{
		Kind:     p.Permission,
		Patterns: slices.Clone(p.Patterns),
		Always:   slices.Clone(p.Always),
		Metadata: p.Metadata,
	}
	log := b.entryLog(e)
	if p.ID == "" {
		log.Warn().Msg("ignoring permission request without an ID")
		return
	}
	if b.closedBefore(log, ev, p.ID) {
		return
	}
	if _, err := b.store.ByRequestID(ev.Server, p.ID); err == nil {
		log.Debug().Bool("listed", ev.Listed).Msg("permission request already held")
		return
	}
	e.UID = b.uidFor(ev.Server, p.ID)
	if key, ok := b.findTwin(e); ok {
		joined, post := b.join(ctx, e, key)
		if post {
			_ = b.post(ctx, e.UID)
		}
		if joined {
			return
		}
	}
	if err := b.store.Create(e); err != nil {
		if errors.Is(err, pending.ErrExists) {
			log.Debug().Bool("listed", ev.Listed).Msg("permission request already held")
			return
		}
		log.Error().Err(err).Msg("could not store permission request; it is not posted")
		return
	}
	log = b.entryLog(e)
	log.Info().Bool("listed", ev.Listed).Str("permission", p.Permission).Strs("patterns", p.Patterns).Msg("permission asked")
	if b.autoApprove(ctx, log, e) {
		return
	}
	_ = b.post(ctx, e.UID)
}

// AutoApprovePolicy says which permission requests hermes-bot allows by
// itself, without asking the group (HERMES_AUTO_APPROVE).
type AutoApprovePolicy string

// The auto-approval policies. Any value but AutoApproveLow asks for
// every request.
const (
	// AutoApproveOff asks for every request.
	AutoApproveOff AutoApprovePolicy = "off"
	// AutoApproveLow allows once, and tells the group, each request the
	// risk model rates low (risk.Assess, judged in the request's
	// directory).
	AutoApproveLow AutoApprovePolicy = "low"
)

// autoApprove allows the just-stored request e once without asking, when
// the policy is low and the risk model rates it low inside e's
// directory, and posts a notice without buttons. It reports whether e is
// settled: false means it must be asked, as when the reply did not go
// through — a request is never lost to auto-approval.
func (b *Bridge) autoApprove(ctx context.Context, log zerolog.Logger, e *pending.Entry) bool {
	if b.cfg.AutoApprove != AutoApproveLow || e.Permission == nil {
		return false
	}
	p := e.Permission
	assessed := risk.Assess(e.Directory, p.Kind, p.Patterns, p.Metadata)
	if assessed.Level != risk.Low {
		return false
	}
	members, unlock, err := b.lockGroup(ctx, e.UID)
	defer unlock()
	if err != nil {
		log.Warn().Err(err).Msg("could not lock permission request to auto-approve it; asking instead")
		return false
	}
	i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == e.UID })
	switch {
	case i < 0:
		return true // answered in opencode meanwhile
	case members[i].Place.Message != 0 || members[i].ExpiredNotified:
		return false // posted meanwhile (a reconnect's resend): the group decides
	}
	e = members[i]
	err = b.opencodeOf(e.Server).Requests(surfaceOf(e)).ReplyPermission(ctx, e.Directory, e.SessionID, e.RequestID, frontend.ReplyOnce, "")
	switch {
	case errors.Is(err, opencode.ErrNotFound):
		log.Info().Err(err).Msg("permission request to auto-approve is no longer pending in opencode; closing it")
		b.deleteEntry(log, e, i18n.ToastGone)
		return true
	case err != nil:
		log.Warn().Err(err).Msg("could not auto-approve permission request; asking instead")
		return false
	}
	log.Info().Str("permission", p.Kind).Strs("patterns", p.Patterns).Strs("reasons", i18n.English.RiskReasons(assessed)).
		Str("reply", frontend.ReplyOnce).Msg("permission auto-approved (low risk)")
	b.deleteEntry(log, e, i18n.ToastAnswered)
	b.addContext(ctx, e)
	if err := b.fe.AutoApproved(ctx, e); err != nil {
		log.Warn().Err(err).Msg("could not post the auto-approval notice; the request was allowed all the same")
	}
	return true
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
	// The message is shared, so is its place (until it is posted, its
	// chat and thread).
	e.Place = pending.Place{Chat: live[0].Place.Chat, Thread: live[0].Place.Thread}
	copyContext(e, live[0])
	if m := messageOf(live); m != nil {
		e.Place = m.Place
	}
	if err := b.store.Create(e); err != nil {
		if !errors.Is(err, pending.ErrExists) {
			b.log.Error().Err(err).Str("requestID", e.RequestID).Msg("could not store permission request; it is not posted")
		}
		return true, false
	}
	log := b.entryLog(e)
	log.Info().Str("sharedWith", key).Int("requests", len(live)+1).Msg("permission asked again; it shares the message of the identical request")
	if e.Place.Message == 0 {
		return true, true
	}
	b.rerenderPermission(ctx, log, key, append(live, e))
	return true, false
}

// postPermission sends the message of the group of request uid, or, when
// the group has one already, records it for uid. The group's requests
// without a message get its ID.
func (b *Bridge) postPermission(ctx context.Context, uid, key string) error {
	members, unlock, err := b.lockGroup(ctx, key)
	defer unlock()
	if err != nil {
		b.log.Error().Err(err).Str("uid", uid).Msg("could not read permission request to post it")
		return fmt.Errorf("post %s: %w", uid, err)
	}
	i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == uid })
	if i < 0 || members[i].Place.Message != 0 || members[i].ExpiredNotified {
		return nil
	}
	e := members[i]
	log := b.entryLog(e)
	var at pending.Place
	sent := false
	if m := messageOf(members); m != nil {
		at = m.Place
	} else {
		b.addContext(ctx, e)
		for _, m := range members {
			if m.SessionTitle == "" && m.ParentSessionID == "" {
				copyContext(m, e)
			}
		}
		at, err = b.fe.Post(ctx, frontend.Request{Key: key, Entries: open(members)})
		if err != nil {
			log.Error().Err(err).Msg("could not post permission request to Telegram; it is sent again at start-up or after a reconnect")
			return fmt.Errorf("post %s: %w", uid, err)
		}
		sent = true
	}
	msgID := at.Message
	var errs []error
	for _, m := range members {
		if m.Place.Message != 0 {
			continue
		}
		ctxFrom := *m
		next, err := b.store.Update(m.UID, func(x *pending.Entry) error {
			if x.Place.Message == 0 {
				x.Place = at
			}
			if x.SessionTitle == "" && x.ParentSessionID == "" {
				copyContext(x, &ctxFrom)
			}
			return nil
		})
		if err != nil {
			mlog := b.entryLog(m)
			mlog.Error().Err(err).Int("messageID", msgID).Msg("could not save the message ID of a permission request")
			errs = append(errs, err)
			continue
		}
		*m = *next
	}
	if sent {
		log.Info().Int("messageID", msgID).Int("requests", len(members)).Msg("permission request posted")
		b.cfg.Metrics.requestPosted(b.now().Sub(e.CreatedAt))
	} else {
		log.Info().Int("messageID", msgID).Msg("permission request shares a message already posted")
		b.rerenderPermission(ctx, log, key, members)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("post %s: %w", uid, err)
	}
	return nil
}

// rerenderPermission shows the open requests of group key in their
// message, keyboard included. The caller holds the group's locks.
func (b *Bridge) rerenderPermission(ctx context.Context, log zerolog.Logger, key string, members []*pending.Entry) {
	live := open(members)
	m := messageOf(live)
	if m == nil {
		return
	}
	b.refresh(ctx, log, m, frontend.Request{Key: key, Entries: live})
}

// stillOpen returns the other requests that share e's message and still
// wait for a decision.
func (b *Bridge) stillOpen(e *pending.Entry) []*pending.Entry {
	members, err := b.group(lockKey(e))
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(open(members), func(m *pending.Entry) bool {
		return m.UID == e.UID || m.Place.Message != e.Place.Message
	})
}

// permissionReplied handles a permission request answered outside
// Telegram. Its message shows the outcome, unless identical requests
// still share it: then it stays open for them. Our own reply's echo finds
// no entry.
func (b *Bridge) permissionReplied(ctx context.Context, server string, r *opencode.PermissionReplied) {
	e, err := b.store.ByRequestID(server, r.RequestID)
	if errors.Is(err, pending.ErrNotFound) {
		b.log.Debug().Str("requestID", r.RequestID).Msg("permission answered in opencode is not held (our own answer, or never seen)")
		return
	}
	if err != nil {
		b.log.Error().Err(err).Str("requestID", r.RequestID).Msg("could not look up permission answered in opencode")
		return
	}
	key := lockKey(e)
	members, unlock, err := b.lockGroup(ctx, key)
	defer unlock()
	if err != nil {
		log := b.entryLog(e)
		log.Warn().Err(err).Msg("gave up waiting to close permission answered in opencode")
		return
	}
	i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == e.UID })
	if i < 0 {
		return // a press answered it while we waited
	}
	e = members[i]
	rest := slices.Delete(slices.Clone(members), i, i+1)
	log := b.entryLog(e)
	log.Info().Str("reply", r.Reply).Int("stillOpen", len(open(rest))).Msg("permission answered in opencode")
	if len(rest) > 0 {
		b.deleteEntry(log, e, i18n.ToastAnsweredElsewhere)
		b.rerenderPermission(ctx, log, key, rest)
		return
	}
	text := b.fe.Outcome(requestOf(e), frontend.Outcome{How: frontend.DecidedElsewhere, Reply: r.Reply})
	owed := owedEdit(e, text)
	b.deleteEntry(log, e, i18n.ToastAnsweredElsewhere, owed...)
	b.rememberGroup(log, key, []*pending.Entry{e}, i18n.ToastAnsweredElsewhere, owed)
	b.closeMessage(ctx, log, e, text, nil)
}

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
	by := answerer{User: p.User, at: p.At}
	if m := messageOf(members); m != nil {
		if pc := staleCopy(p, m.Place.Chat, m.Place.Message); pc != nil {
			// Runs before unlock, deferred earlier: the copy is settled
			// while the requests cannot change.
			by.copy = pc
			defer b.settleCopy(ctx, elog, pc, p.Key, m.Place.Message)
		}
	}
	switch {
	case e.Kind != pending.KindPermission:
		elog.Info().Str("data", p.Data).Msg("refusing button that does not match its request")
		a.toast(i18n.ToastUnknown)
		return
	case p.From.Chat == 0 && e.Place.Chat != 0 && e.Place.Chat != p.Chat:
		elog.Info().Int64("chatID", e.Place.Chat).Msg("refusing press on a request of another chat")
		a.toast(i18n.ToastNotAllowed)
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
		b.askForReason(ctx, elog, p.Key, members, p.User, a)
		return
	}
	elog.Info().Str("reply", reply).Int("requests", len(members)).Msg("permission decision pressed")
	a.toast(i18n.ToastSending)
	b.decide(ctx, elog, p.Key, members, reply, "", by)
}

// askForReason sends the force_reply prompt for the reason of a reject
// and records it on the group's first request.
func (b *Bridge) askForReason(ctx context.Context, log zerolog.Logger, key string, members []*pending.Entry, user frontend.User, a *ack) {
	holder := members[0]
	if i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == key }); i >= 0 {
		holder = members[i]
	}
	b.prompt(ctx, log, holder, 0, true, user, a, "waiting for the reason of a reject")
}

// reasonReceived rejects every request of the group whose prompt the
// text answers, with the text as the reason the agent reads.
func (b *Bridge) reasonReceived(ctx context.Context, log zerolog.Logger, e *pending.Entry, replyTo int, text string, user answerer) {
	key := lockKey(e)
	members, unlock, err := b.lockGroup(ctx, key)
	defer unlock()
	if err != nil {
		log.Warn().Err(err).Msg("gave up waiting to take the reason of a reject")
		return
	}
	i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == e.UID })
	if i < 0 {
		return
	}
	holder := members[i]
	elog := b.entryLog(holder).With().Int64("userID", user.ID).Logger()
	switch {
	case !holder.AwaitingText || (replyTo != 0 && replyTo != holder.Prompt):
		elog.Debug().Msg("ignoring typed reason: request no longer awaits this prompt")
		return
	case slices.ContainsFunc(members, func(m *pending.Entry) bool { return m.ExpiredNotified }):
		elog.Info().Msg("ignoring typed reason: the request expired")
		return
	}
	elog.Info().Int("requests", len(members)).Msg("reason for a reject received")
	b.decide(ctx, elog, key, members, frontend.ReplyReject, text, user)
}

// decide sends reply (and message, the reason of a reject) for every
// request of the group, then shows the outcome. A
// request opencode no longer knows is closed; one refused or not
// delivered stays open, with its buttons, and the person is told. The
// caller holds the group's locks.
func (b *Bridge) decide(ctx context.Context, log zerolog.Logger, key string, members []*pending.Entry, reply, message string, user answerer) {
	var done, gone, refused, failed []*pending.Entry
	for _, m := range members {
		mlog := b.entryLog(m)
		err := b.opencodeOf(m.Server).Requests(surfaceOf(m)).ReplyPermission(ctx, m.Directory, m.SessionID, m.RequestID, reply, message)
		switch {
		case err == nil:
			mlog.Info().Str("reply", reply).Str("by", user.DisplayName()).Bool("reason", message != "").Msg("permission decision delivered to opencode")
			b.tellTerminal(mlog, m, b.text.TerminalDecided(reply, user.DisplayName()))
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
	var text string
	var owed []pending.Edit
	if len(kept) == 0 {
		o := frontend.Outcome{How: frontend.NoLongerPending}
		if len(done) > 0 {
			o = frontend.Outcome{How: frontend.Decided, Reply: reply, By: user.User, Reason: message}
		}
		text = b.fe.Outcome(frontend.Request{Key: key, Entries: members}, o)
		owed = owedEdit(members[0], text)
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
		b.deleteEntry(b.entryLog(m), m, toast, o...)
	}
	switch {
	case len(kept) == 0 && len(done) > 0:
		b.rememberGroup(log, key, done, i18n.ToastAnswered, owed)
		b.closeMessage(ctx, log, members[0], text, user.copy)
		return
	case len(kept) == 0:
		b.rememberGroup(log, key, gone, i18n.ToastGone, owed)
		b.closeMessage(ctx, log, members[0], text, user.copy)
		return
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
	b.tell(ctx, log, kept[0], user.User, msg)
}

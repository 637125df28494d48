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

// Asking: a permission request is stored and posted, joins the message of
// an identical one (group.go), or is allowed without asking; answering it
// is in decide.go.

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
	log := withEntry(b.log, e)
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
	e.Permission.Run = b.readRun(ctx, log, e, p)
	if key, ok := b.findTwin(e); ok {
		joined, post := b.join(ctx, e, key)
		if post {
			_ = b.post(ctx, e.UID)
		}
		if joined {
			return
		}
	}
	b.readContext(ctx, log, e)
	if err := b.store.Create(e); err != nil {
		if errors.Is(err, pending.ErrExists) {
			log.Debug().Bool("listed", ev.Listed).Msg("permission request already held")
			return
		}
		log.Error().Err(err).Msg("could not store permission request; it is not posted")
		return
	}
	log = withEntry(b.log, e)
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
// the policy is low, the risk model rates it low inside e's directory
// with what its tool call runs, and opencode's rules make a person guard
// what the command reads for configuration (untrusted); it posts a notice
// without buttons. It reports whether e is settled: false means it must
// be asked, as when the reply did not go through — a request is never
// lost to auto-approval.
func (b *Bridge) autoApprove(ctx context.Context, log zerolog.Logger, e *pending.Entry) bool {
	if b.cfg.AutoApprove != AutoApproveLow || e.Permission == nil {
		return false
	}
	p := e.Permission
	assessed := frontend.Assess(viewOf(e))
	if assessed.Level != risk.Low {
		if p.Run != nil && risk.Assess(e.Directory, p.Kind, p.Patterns, p.Metadata).Level == risk.Low {
			log.Info().Strs("why", i18n.English.RiskReasons(assessed)).Msg("low-risk command not auto-approved; asking")
		}
		return false
	}
	// The rules checked are those of the original routes; the /api
	// surface keeps its own, saved ones.
	why := ""
	switch {
	case p.Run == nil || !p.Run.Read:
		why = "what its tool call runs could not be read"
	case e.Surface != "":
		why = "it was asked through opencode's /api surface, whose saved permissions hermes-bot does not read"
	default:
		why = b.untrusted(ctx, e)
	}
	if why != "" {
		log.Info().Str("why", why).Msg("low-risk command not auto-approved; asking")
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
	case members[i].Shown() || members[i].ExpiredNotified:
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
	for _, fe := range b.fes {
		if err := fe.AutoApproved(ctx, viewOf(e)); err != nil {
			log.Warn().Err(err).Str("frontend", fe.Name()).Msg("could not post the auto-approval notice; the request was allowed all the same")
		}
	}
	return true
}

// postPermission sends the message of the group of request uid where it
// is owed: where the group has a message already, that message's place
// is recorded for uid; elsewhere the group's message is posted. The
// group's requests owed a message get its place.
func (b *Bridge) postPermission(ctx context.Context, uid, key string) error {
	members, unlock, err := b.lockGroup(ctx, key)
	defer unlock()
	if err != nil {
		b.log.Error().Err(err).Str("uid", uid).Msg("could not read permission request to post it")
		return fmt.Errorf("post %s: %w", uid, err)
	}
	i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == uid })
	if i < 0 || len(b.owing(members[i])) == 0 || members[i].ExpiredNotified {
		return nil
	}
	e := members[i]
	log := withEntry(b.log, e)
	first := messageOf(members) == nil
	places := map[string]pending.Place{}
	var toPost []frontend.Frontend
	for _, fe := range b.owing(e) {
		if at := placeOf(members, fe.Name()); at != "" {
			places[fe.Name()] = at
		} else {
			toPost = append(toPost, fe)
		}
	}
	var sendErr error
	if len(toPost) > 0 {
		b.addContext(ctx, e)
		for _, m := range members {
			if m.SessionTitle == "" && m.ParentSessionID == "" {
				copyContext(m, e)
			}
		}
		var posted map[string]pending.Place
		posted, sendErr = b.postTo(ctx, log, "permission request", b.withGeneration(frontend.Request{Key: key, Members: views(open(members)...)}), toPost)
		for name, at := range posted {
			places[name] = at
		}
	}
	var errs []error
	for _, m := range members {
		if len(b.owing(m)) == 0 {
			continue
		}
		ctxFrom := *m
		next, err := b.store.Update(m.UID, func(x *pending.Entry) error {
			b.place(x, places)
			if x.SessionTitle == "" && x.ParentSessionID == "" {
				copyContext(x, &ctxFrom)
			}
			return nil
		})
		if err != nil {
			mlog := withEntry(b.log, m)
			mlog.Error().Err(err).Msg("could not save the place of a permission request")
			errs = append(errs, err)
			continue
		}
		*m = *next
	}
	switch {
	case len(toPost) > 0 && len(places) > 0:
		log.Info().Interface("places", places).Int("requests", len(members)).Msg("permission request posted")
		if first {
			b.cfg.Metrics.requestPosted(b.now().Sub(e.CreatedAt))
		}
	case len(places) > 0:
		log.Info().Msg("permission request shares a message already posted")
		b.rerenderPermission(ctx, log, key, members)
	}
	if err := errors.Join(append(errs, sendErr)...); err != nil {
		return fmt.Errorf("post %s: %w", uid, err)
	}
	return nil
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
		log := withEntry(b.log, e)
		log.Warn().Err(err).Msg("gave up waiting to close permission answered in opencode")
		return
	}
	i := slices.IndexFunc(members, func(m *pending.Entry) bool { return m.UID == e.UID })
	if i < 0 {
		return // a press answered it while we waited
	}
	e = members[i]
	rest := slices.Delete(slices.Clone(members), i, i+1)
	log := withEntry(b.log, e)
	log.Info().Str("reply", r.Reply).Int("stillOpen", len(open(rest))).Msg("permission answered in opencode")
	if r.Reply == frontend.ReplyAlways {
		b.rememberAlways(ctx, log, e)
	}
	if len(rest) > 0 {
		b.deleteEntry(log, e, i18n.ToastAnsweredElsewhere)
		b.rerenderPermission(ctx, log, key, rest)
		return
	}
	done := b.outcome(b.withGeneration(requestOf(e)), frontend.Outcome{How: frontend.DecidedElsewhere, Reply: r.Reply})
	owed := owedEdits(e, done)
	b.deleteEntry(log, e, i18n.ToastAnsweredElsewhere, owed...)
	b.rememberGroup(log, key, []*pending.Entry{e}, i18n.ToastAnsweredElsewhere, owed)
	b.closeMessage(ctx, log, e, done, nil)
}

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

var _ opencode.Handler = (*Bridge)(nil)

// HandleSnapshot brings the requests held for one directory of one server
// (s.Server) in line with
// what opencode listed there when its event stream (re)connected,
// which has no replay of what happened meanwhile: a listed request not held is
// stored and posted like a question.asked or permission.asked event; a
// held request opencode no longer lists is closed, its message saying it
// was answered or dismissed elsewhere.
//
// A held request is closed only when the list of its kind succeeded
// (s.QuestionsListed, s.PermissionsListed) and it was stored before
// s.Taken, so a failed list or a request newer than the listing is never
// taken for gone. A held question whose request opencode lists under a
// new ID, recognised by its tool call, keeps its message and takes the
// new ID, so a restarted opencode never makes a request appear twice.
// An expired request whose reject is still being retried is left to
// ExpireDue.
//
// It also ends the live status of a session s covers that is no longer
// busy (liveSnapshot).
//
// The watcher calls it once per directory after every connect, before
// that connection's events; it blocks until the directory is done and
// logs what fails.
func (b *Bridge) HandleSnapshot(ctx context.Context, s opencode.Snapshot) {
	log := withServer(b.log, s.Server).Str("directory", s.Directory).Logger()
	b.liveSnapshot(ctx, log, s)
	if s.SessionID != "" {
		b.sessionSnapshot(ctx, log.With().Str("sessionID", s.SessionID).Logger(), s)
		return
	}
	listed := make(map[string]bool, len(s.Questions)+len(s.Permissions))
	for _, q := range s.Questions {
		listed[q.ID] = true
	}
	for _, p := range s.Permissions {
		listed[p.ID] = true
	}
	// Only the held requests opencode does not list can be rekeyed or
	// closed, so only they are read in full: a reconnect with thousands
	// held and still pending decodes next to nothing.
	held, here, err := b.store.CompareListed(s.Server, s.Directory, listed)
	if err != nil {
		log.Error().Err(err).Msg("could not read the stored requests to compare them with what opencode lists; posting what is new, closing nothing")
		held = make(map[string]bool)
	}

	// present holds the UIDs of questions listed under another request ID.
	present := make(map[string]bool)
	for _, q := range s.Questions {
		if held[q.ID] {
			continue
		}
		for _, e := range here {
			if present[e.UID] || listed[e.RequestID] || !sameCall(e, q) {
				continue
			}
			present[e.UID] = true
			if b.rekey(ctx, e.UID, e.RequestID, q.ID) {
				held[q.ID] = true
			}
			break
		}
	}

	// Only what was not held when the store was read goes on, so a
	// request held then and answered since does not come back as new.
	qs := slices.DeleteFunc(slices.Clone(s.Questions), func(q opencode.QuestionRequest) bool { return held[q.ID] })
	ps := slices.DeleteFunc(slices.Clone(s.Permissions), func(p opencode.PermissionRequest) bool { return held[p.ID] })
	qs, ps = b.stillPending(ctx, log, s.Server, s.Directory, qs, ps)
	for _, q := range qs {
		b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionAsked, Server: s.Server, Directory: s.Directory, Listed: true, QuestionAsked: &q})
	}
	for _, p := range ps {
		b.HandleEvent(ctx, opencode.Event{Type: opencode.TypePermissionAsked, Server: s.Server, Directory: s.Directory, Listed: true, PermissionAsked: &p})
	}

	for _, e := range here {
		if !present[e.UID] && gone(e, s, listed) {
			b.closeGone(ctx, e.UID, s, listed)
		}
	}
}

// stillPending keeps the requests of qs and ps that opencode lists now.
// They were listed before the store was read and were not held then; but
// one answered from Telegram between the two was held at the listing and
// deleted before the read, and posting it would show it twice. Its answer
// reached opencode before its entry went, so a list taken after the read
// no longer has it. A failed list keeps them all: a request not posted
// would wait for the next connect.
func (b *Bridge) stillPending(ctx context.Context, log zerolog.Logger, server, dir string, qs []opencode.QuestionRequest, ps []opencode.PermissionRequest) ([]opencode.QuestionRequest, []opencode.PermissionRequest) {
	for _, sf := range opencode.Surfaces {
		of := func(s opencode.Surface) bool { return s == sf }
		if slices.ContainsFunc(qs, func(q opencode.QuestionRequest) bool { return of(q.Surface) }) {
			if now, err := b.opencodeOf(server).Requests(sf).ListQuestions(ctx, dir); err != nil {
				log.Warn().Err(err).Msg("could not check that new questions are still pending; posting them")
			} else {
				qs = slices.DeleteFunc(qs, func(q opencode.QuestionRequest) bool {
					return of(q.Surface) && !slices.ContainsFunc(now, func(x opencode.QuestionRequest) bool { return x.ID == q.ID })
				})
			}
		}
		if slices.ContainsFunc(ps, func(p opencode.PermissionRequest) bool { return of(p.Surface) }) {
			if now, err := b.opencodeOf(server).Requests(sf).ListPermissions(ctx, dir); err != nil {
				log.Warn().Err(err).Msg("could not check that new permission requests are still pending; posting them")
			} else {
				ps = slices.DeleteFunc(ps, func(p opencode.PermissionRequest) bool {
					return of(p.Surface) && !slices.ContainsFunc(now, func(x opencode.PermissionRequest) bool { return x.ID == p.ID })
				})
			}
		}
	}
	return qs, ps
}

// sameCall reports whether question q was raised by the tool call that
// raised e. A question tool call asks once, so this is the same request
// even under another ID. Permissions are never matched so: one tool call
// may ask several permissions in turn.
func sameCall(e *pending.Entry, q opencode.QuestionRequest) bool {
	return e.Kind == pending.KindQuestion && q.Tool != nil && e.CallID != "" && e.CallID == q.Tool.CallID &&
		(e.SessionID == "" || q.SessionID == "" || e.SessionID == q.SessionID)
}

// gone reports whether snapshot s proves held request e is no longer
// pending in opencode.
func gone(e *pending.Entry, s opencode.Snapshot, listed map[string]bool) bool {
	if e.Server != s.Server || listed[e.RequestID] || e.ExpiredNotified || !e.CreatedAt.Before(s.Taken) {
		return false
	}
	if e.Form != nil || s.SessionID != "" {
		// Forms are listed per session, and a session's snapshot proves
		// nothing of other sessions' requests.
		if s.SessionID == "" || e.SessionID != s.SessionID {
			return false
		}
		switch {
		case e.Form != nil:
			return s.FormsListed
		case surfaceOf(e) != opencode.SurfaceAPI:
			return false // OpenCode 2 asks on its /api surface only
		case e.Kind == pending.KindQuestion:
			return s.Listed(opencode.SurfaceAPI, opencode.KindQuestions)
		case e.Kind == pending.KindPermission:
			return s.Listed(opencode.SurfaceAPI, opencode.KindPermissions)
		}
		return false
	}
	if e.Directory != s.Directory {
		return false
	}
	switch e.Kind {
	case pending.KindQuestion:
		return s.Listed(surfaceOf(e), opencode.KindQuestions)
	case pending.KindPermission:
		return s.Listed(surfaceOf(e), opencode.KindPermissions)
	}
	return false
}

// rekey gives question uid the request ID opencode now lists it under. It
// reports whether the entry holds newID afterwards.
func (b *Bridge) rekey(ctx context.Context, uid, oldID, newID string) bool {
	unlock, err := b.locks.lock(ctx, uid)
	if err != nil {
		b.log.Warn().Err(err).Str("uid", uid).Msg("gave up waiting to update the request ID of a question")
		return false
	}
	defer unlock()
	e, err := b.store.Get(uid)
	if err != nil {
		if !errors.Is(err, pending.ErrNotFound) {
			b.log.Error().Err(err).Str("uid", uid).Msg("could not read a question to update its request ID")
		}
		return false
	}
	if e.RequestID != oldID {
		// Answering it resolved a new ID meanwhile.
		return e.RequestID == newID
	}
	next, err := b.store.Update(uid, func(x *pending.Entry) error {
		x.RequestID = newID
		return nil
	})
	if err != nil {
		log := withEntry(b.log, e)
		log.Error().Err(err).Str("newRequestID", newID).Msg("could not save the new request ID of a question")
		return false
	}
	log := withEntry(b.log, next)
	log.Info().Str("oldRequestID", oldID).Msg("opencode lists the question under a new request ID; its message stays")
	return true
}

// closeGone closes request uid, which snapshot s no longer lists: its
// message says so, without buttons, and the entry goes. It reads the
// entry again under its lock, since a press may have answered it, or
// resolved a new ID that s lists, while we waited.
func (b *Bridge) closeGone(ctx context.Context, uid string, s opencode.Snapshot, listed map[string]bool) {
	unlock, err := b.locks.lock(ctx, uid)
	if err != nil {
		b.log.Warn().Err(err).Str("uid", uid).Msg("gave up waiting to close a request opencode no longer lists")
		return
	}
	defer unlock()
	e, err := b.store.Get(uid)
	if err != nil {
		if !errors.Is(err, pending.ErrNotFound) {
			b.log.Error().Err(err).Str("uid", uid).Msg("could not read a request opencode no longer lists")
		}
		return
	}
	if !gone(e, s, listed) {
		return
	}
	log := withEntry(b.log, e)
	log.Info().Str("kind", string(e.Kind)).
		Msg("request no longer pending in opencode (answered or dismissed elsewhere); closed")
	b.closeRequest(ctx, log, e, frontend.Outcome{How: frontend.Gone}, i18n.ToastGone, nil)
}

// sessionSnapshot brings the requests held for one session of an
// OpenCode 2 server in line with what s lists, as HandleSnapshot does a
// directory's: a listed form not held is posted (if a list taken now
// still has it), listed questions and permissions not held are posted,
// and a held request of the session missing from a list of its kind that
// succeeded is closed as gone.
func (b *Bridge) sessionSnapshot(ctx context.Context, log zerolog.Logger, s opencode.Snapshot) {
	listed := make(map[string]bool, len(s.Forms)+len(s.Questions)+len(s.Permissions))
	for _, f := range s.Forms {
		listed[f.ID] = true
	}
	for _, q := range s.Questions {
		listed[q.ID] = true
	}
	for _, p := range s.Permissions {
		listed[p.ID] = true
	}
	var held []*pending.Entry
	all, err := b.store.BySession(s.SessionID)
	if err != nil {
		log.Error().Err(err).Msg("could not read the stored forms of the session to compare them with what opencode lists; posting what is new, closing nothing")
	}
	for _, e := range all {
		if e.Server == s.Server && e.SessionID == s.SessionID {
			held = append(held, e)
		}
	}
	isHeld := func(id string) bool {
		return slices.ContainsFunc(held, func(e *pending.Entry) bool { return e.RequestID == id })
	}
	fresh := slices.DeleteFunc(slices.Clone(s.Forms), func(f opencode.Form) bool { return isHeld(f.ID) })
	if len(fresh) > 0 {
		// One answered from the chat since the listing is no longer listed
		// now; posting it would show it twice.
		if now, err := b.opencodeOf(s.Server).ListSessionForms(ctx, s.SessionID); err != nil {
			log.Warn().Err(err).Msg("could not check that new forms are still pending; posting them")
		} else {
			fresh = slices.DeleteFunc(fresh, func(f opencode.Form) bool {
				return !slices.ContainsFunc(now, func(x opencode.Form) bool { return x.ID == f.ID })
			})
		}
	}
	for _, f := range fresh {
		b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeFormCreated, Server: s.Server, Directory: s.Directory, Listed: true,
			Surface: opencode.SurfaceAPI, Generation: s.Generation, FormAsked: &f})
	}
	for _, q := range s.Questions {
		b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionAsked, Server: s.Server, Directory: s.Directory, Listed: true,
			Surface: opencode.SurfaceAPI, Generation: s.Generation, QuestionAsked: &q})
	}
	for _, p := range s.Permissions {
		b.HandleEvent(ctx, opencode.Event{Type: opencode.TypePermissionAsked, Server: s.Server, Directory: s.Directory, Listed: true,
			Surface: opencode.SurfaceAPI, Generation: s.Generation, PermissionAsked: &p})
	}
	if err != nil {
		return
	}
	for _, e := range held {
		if gone(e, s, listed) {
			b.closeGone(ctx, e.UID, s, listed)
		}
	}
}

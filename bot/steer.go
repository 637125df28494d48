package bot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Steering: people continue, start and stop sessions from the chat (see
// frontend.Steerer). The front-end decides who may; the bridge does it
// and logs each action with its user.

var _ frontend.Core = (*Bridge)(nil)

// steerTimeout bounds each opencode call of a steering action, so a dead
// opencode is reported while the person still looks.
const steerTimeout = 10 * time.Second

// maxFailedSessions bounds the sessions remembered as failed.
const maxFailedSessions = 1000

// steerServers are the names of the servers sessions are steered on, in
// order ("" first).
func (b *Bridge) steerServers() []string {
	return slices.Sorted(maps.Keys(b.cfg.Servers))
}

// steerErr classifies an opencode error for the front-end.
func steerErr(what string, err error) error {
	switch {
	case errors.Is(err, opencode.ErrNotFound):
		return fmt.Errorf("%s: %w: %w", what, frontend.ErrSessionGone, err)
	case err != nil:
		return fmt.Errorf("%s: %w: %w", what, frontend.ErrUnreachable, err)
	}
	return nil
}

func (b *Bridge) steerLog(log zerolog.Logger, ref pending.SessionRef, user frontend.User) zerolog.Logger {
	return withServer(log, ref.Server).Str("sessionID", ref.ID).Str("directory", ref.Directory).
		Str("userID", user.ID).Str("user", user.DisplayName()).Logger()
}

// SessionAt returns the session the message at is about (see
// frontend.Steerer).
func (b *Bridge) SessionAt(_ context.Context, frontend string, at pending.Place) (pending.SessionRef, bool, error) {
	if at == "" {
		return pending.SessionRef{}, false, nil
	}
	open, err := b.store.List()
	if err != nil {
		return pending.SessionRef{}, false, fmt.Errorf("session of message %s: %w", at, err)
	}
	if slices.ContainsFunc(open, func(e *pending.Entry) bool {
		return e.Places[frontend] == at && !e.ExpiredNotified
	}) {
		// A request still waiting is answered with its buttons or its
		// prompt; a reply to it is no new instruction.
		return pending.SessionRef{}, false, nil
	}
	ref, ok, err := b.store.MessageSession(frontend, at)
	if err == nil && !ok {
		// The notice may have been posted but its session not yet
		// remembered.
		b.noticing.Lock()
		b.noticing.Unlock()
		ref, ok, err = b.store.MessageSession(frontend, at)
	}
	if err != nil {
		return pending.SessionRef{}, false, fmt.Errorf("session of message %s: %w", at, err)
	}
	return ref, ok, nil
}

// RememberMessage records that the message at is about ref.
func (b *Bridge) RememberMessage(frontend string, at pending.Place, ref pending.SessionRef) error {
	return b.store.RememberMessage(frontend, at, ref)
}

// ContinueSession sends text to session ref as user's next prompt,
// delivered as how says (see frontend.DeliverAsk).
func (b *Bridge) ContinueSession(ctx context.Context, log zerolog.Logger, ref pending.SessionRef, text string, user frontend.User, how frontend.Delivery) (frontend.Steered, error) {
	log = b.steerLog(log, ref, user)
	oc := b.opencodeOf(ref.Server)
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	// Looked up afresh, not from the cache: a session deleted since must
	// be reported gone, not prompted into nothing.
	s, err := oc.GetSession(ctx, ref.Directory, ref.ID)
	if err != nil {
		err = steerErr("continue session "+ref.ID, err)
		log.Warn().Err(err).Msg("steering: could not continue the session")
		return frontend.Steered{}, err
	}
	res := frontend.Steered{Ref: ref, Title: sessionTitle(s)}
	if how == frontend.DeliverAsk && oc.Generation() == 2 {
		// Only OpenCode 2 can steer a running turn, so only there is
		// there a choice. Not knowing whether it runs, queue: it is
		// what a prompt does anyway.
		busy, err := oc.BusySessions(ctx, ref.Directory)
		if err != nil {
			log.Info().Err(err).Msg("steering: could not tell whether the session is running; the prompt is queued")
		}
		if busy[ref.ID] {
			log.Info().Msg("steering: the session is running a turn; asking whether to queue or steer")
			res.Busy = true
			return res, nil
		}
	}
	send, what := oc.PromptAsync, "queue"
	if how == frontend.DeliverSteer {
		send, what = oc.Steer, "steer"
	}
	if err := send(ctx, ref.Directory, ref.ID, text); err != nil {
		err = steerErr("continue session "+ref.ID, err)
		log.Warn().Err(err).Msg("steering: could not continue the session")
		return frontend.Steered{}, err
	}
	b.failed.Put(ref.ID, false)
	log.Info().Int("chars", len(text)).Str("delivery", what).Msg("steering: prompt sent to the session")
	return res, nil
}

// StartSession starts a session in project p whose first prompt is text.
func (b *Bridge) StartSession(ctx context.Context, log zerolog.Logger, p pending.SessionRef, text string, user frontend.User) (frontend.Steered, error) {
	dir := p.Directory
	log = b.steerLog(log, p, user)
	oc := b.opencodeOf(p.Server)
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	s, err := oc.CreateSession(ctx, dir, "")
	if err != nil {
		err = steerErr("start a session in "+dir, err)
		log.Warn().Err(err).Msg("steering: could not start a session")
		return frontend.Steered{}, err
	}
	ref := pending.SessionRef{Server: p.Server, Directory: dir, ID: s.ID}
	log = log.With().Str("sessionID", s.ID).Logger()
	if err := oc.PromptAsync(ctx, dir, s.ID, text); err != nil {
		err = steerErr("prompt new session "+s.ID, err)
		log.Warn().Err(err).Msg("steering: started a session but could not prompt it")
		return frontend.Steered{Ref: ref}, err
	}
	log.Info().Int("chars", len(text)).Msg("steering: new session started")
	title := oneLine(text)
	if r := []rune(title); len(r) > 40 {
		title = string(r[:40]) + "…"
	}
	return frontend.Steered{Ref: ref, Title: title}, nil
}

// Projects lists, on every server, the project folders opencode knows
// (worktrees and their other checkouts) and those with requests held or
// messages of the last day: opencode lists every folder outside a git
// repository as its one global project ("/"), which is no folder to
// start a session in. A server that cannot be reached is left out; when
// none can, that is the error.
func (b *Bridge) Projects(ctx context.Context) ([]frontend.Project, error) {
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	recent, err := b.store.RecentDirectories()
	if err != nil {
		b.log.Warn().Err(err).Msg("could not read the folders of recent messages; /new offers opencode's projects only")
	}
	var out []frontend.Project
	var errs []error
	reached := 0
	for _, server := range b.steerServers() {
		ps, err := b.opencodeOf(server).ListProjects(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reached++
		var dirs []string
		for _, p := range ps {
			dirs = append(append(dirs, p.Worktree), p.Sandboxes...)
		}
		if held, err := b.store.DirectoriesOf(server); err == nil {
			dirs = append(dirs, held...)
		}
		for _, r := range recent {
			if r.Server == server {
				dirs = append(dirs, r.Directory)
			}
		}
		seen := map[string]bool{}
		for _, dir := range dirs {
			if dir == "" || dir == "/" || seen[dir] {
				continue
			}
			seen[dir] = true
			out = append(out, frontend.Project{Server: server, Directory: dir})
		}
	}
	if reached == 0 {
		if len(errs) == 0 {
			return nil, frontend.ErrNoSteering
		}
		return nil, steerErr("list projects", errors.Join(errs...))
	}
	slices.SortFunc(out, func(a, c frontend.Project) int {
		return strings.Compare(a.Server+"\x00"+filepath.Base(a.Directory)+a.Directory, c.Server+"\x00"+filepath.Base(c.Directory)+c.Directory)
	})
	return out, nil
}

// Sessions lists the recent top-level sessions of every project.
func (b *Bridge) Sessions(ctx context.Context, max int) ([]frontend.SessionInfo, error) {
	projects, err := b.Projects(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	var out []frontend.SessionInfo
	var errs []error
	for _, p := range projects {
		oc := b.opencodeOf(p.Server)
		ss, err := oc.ListSessions(ctx, p.Directory)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		busy, err := oc.BusySessions(ctx, p.Directory)
		if err != nil {
			errs = append(errs, err)
		}
		for _, s := range ss {
			if s.ParentID != "" && s.ParentID != s.ID {
				continue // a subagent's: stopping its parent stops it
			}
			out = append(out, b.sessionInfo(p.Server, p.Directory, s, busy[s.ID]))
		}
	}
	if len(out) == 0 && len(errs) > 0 {
		return nil, steerErr("list sessions", errors.Join(errs...))
	}
	slices.SortStableFunc(out, func(a, c frontend.SessionInfo) int { return c.Updated.Compare(a.Updated) })
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out, nil
}

// sessionInfo is s of dir with its state and latest message.
func (b *Bridge) sessionInfo(server, dir string, s opencode.Session, busy bool) frontend.SessionInfo {
	info := frontend.SessionInfo{Ref: pending.SessionRef{Server: server, Directory: dir, ID: s.ID}, Title: sessionTitle(s), State: frontend.Idle}
	if s.Time.Updated > 0 {
		info.Updated = time.UnixMilli(s.Time.Updated)
	}
	waiting, _ := b.waitingIn(s.ID)
	failed, _ := b.failed.Get(s.ID)
	switch {
	case waiting:
		info.State = frontend.Waiting
	case busy:
		info.State = frontend.Working
	case failed:
		info.State = frontend.Failed
	}
	info.Latest = map[string]pending.Place{}
	// A request still open is the latest message; else the one remembered.
	if es, err := b.store.BySession(s.ID); err == nil {
		for _, e := range es {
			if e.SessionID == s.ID && e.Server == server {
				for name, at := range e.Places {
					if at != "" {
						info.Latest[name] = at
					}
				}
			}
		}
	}
	for _, fe := range b.fes {
		if at, _, ok, err := b.store.LatestMessage(fe.Name(), s.ID); err == nil && ok && info.Latest[fe.Name()] == "" {
			info.Latest[fe.Name()] = at
		}
	}
	return info
}

// FindSession looks session id up: in the project of a message about it
// or of a request of it, else in every project of every server.
func (b *Bridge) FindSession(ctx context.Context, id string) (frontend.SessionInfo, error) {
	var places []pending.SessionRef
	for _, fe := range b.fes {
		if _, ref, ok, err := b.store.LatestMessage(fe.Name(), id); err == nil && ok {
			places = append(places, ref)
			break
		}
	}
	if es, err := b.store.BySession(id); err == nil {
		for _, e := range es {
			places = append(places, pending.SessionRef{Server: e.Server, Directory: e.Directory})
		}
	}
	if len(places) == 0 {
		ps, err := b.Projects(ctx)
		if err != nil {
			return frontend.SessionInfo{}, err
		}
		for _, p := range ps {
			places = append(places, pending.SessionRef{Server: p.Server, Directory: p.Directory})
		}
	}
	ctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	var last error
	tried := map[pending.SessionRef]bool{}
	for _, p := range places {
		p.ID = ""
		if tried[p] {
			continue
		}
		tried[p] = true
		oc := b.opencodeOf(p.Server)
		s, err := oc.GetSession(ctx, p.Directory, id)
		if err != nil {
			last = err
			continue
		}
		dir := p.Directory
		if s.Directory != "" {
			dir = s.Directory // where its calls must name it
		}
		busy, _ := oc.BusySessions(ctx, dir)
		return b.sessionInfo(p.Server, dir, s, busy[id]), nil
	}
	if last == nil {
		last = opencode.ErrNotFound
	}
	return frontend.SessionInfo{}, steerErr("find session "+id, last)
}

// StopSession aborts session ref's turn, then rejects its requests still
// waiting (an aborted session leaves its question listed in opencode) and
// closes their messages.
func (b *Bridge) StopSession(ctx context.Context, log zerolog.Logger, ref pending.SessionRef, user frontend.User) (frontend.StopResult, error) {
	log = b.steerLog(log, ref, user)
	oc := b.opencodeOf(ref.Server)
	octx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	s, err := oc.GetSession(octx, ref.Directory, ref.ID)
	if err == nil {
		err = oc.Abort(octx, ref.Directory, ref.ID)
	}
	if err != nil {
		err = steerErr("stop session "+ref.ID, err)
		log.Warn().Err(err).Msg("steering: could not stop the session")
		return frontend.StopResult{}, err
	}
	// The abort's session.error is not a failure to report.
	b.notices.mark(ref.ID, b.now())
	closed := b.closeSessionRequests(ctx, log, ref, user)
	log.Info().Int("closed", closed).Msg("steering: session stopped")
	return frontend.StopResult{Ref: ref, Title: sessionTitle(s), Closed: closed}, nil
}

// closeSessionRequests rejects in opencode the requests of session (and
// of its subagents) still held and closes their messages as stopped by
// user; it returns how many it closed.
func (b *Bridge) closeSessionRequests(ctx context.Context, log zerolog.Logger, ref pending.SessionRef, user frontend.User) int {
	session := ref.ID
	entries, err := b.store.BySession(session)
	if err != nil {
		log.Error().Err(err).Msg("could not list the stopped session's requests; they expire in time")
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.Server != ref.Server || (e.SessionID != session && e.ParentSessionID != session) {
			continue
		}
		if b.closeStopped(ctx, e.UID, lockKey(e), user) {
			n++
		}
	}
	return n
}

// closeStopped rejects request uid, whose lock is key, and closes it.
func (b *Bridge) closeStopped(ctx context.Context, uid, key string, user frontend.User) bool {
	unlockKey, err := b.locks.lock(ctx, key)
	if err != nil {
		return false
	}
	defer unlockKey()
	if key != uid {
		unlock, err := b.locks.lock(ctx, uid)
		if err != nil {
			return false
		}
		defer unlock()
	}
	e, err := b.store.Get(uid)
	if err != nil {
		return false
	}
	log := withEntry(b.log, e)
	rctx, cancel := context.WithTimeout(ctx, steerTimeout)
	defer cancel()
	req := b.opencodeOf(e.Server).Requests(surfaceOf(e))
	if e.Kind == pending.KindPermission {
		err = req.ReplyPermission(rctx, e.Directory, e.SessionID, e.RequestID, frontend.ReplyReject, "")
	} else if e.Form != nil {
		err = b.opencodeOf(e.Server).CancelForm(rctx, e.SessionID, e.RequestID)
	} else {
		err = req.RejectQuestion(rctx, e.Directory, e.SessionID, e.RequestID)
	}
	if err != nil && !errors.Is(err, opencode.ErrNotFound) {
		// Still pending in opencode: leave it to its buttons or expiry.
		log.Warn().Err(err).Msg("could not reject the stopped session's request; it stays open")
		return false
	}
	log.Info().Str("by", user.DisplayName()).Msg("request closed: its session was stopped")
	b.closeRequest(ctx, log, e, frontend.Outcome{How: frontend.Stopped, By: user}, i18n.ToastDismissed, nil)
	return true
}

// sessionTitle is s's title, or its ID when it has none.
func sessionTitle(s opencode.Session) string {
	if t := oneLine(s.Title); t != "" {
		return t
	}
	return s.ID
}

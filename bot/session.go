package bot

import (
	"context"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

const (
	// sessionTimeout bounds the look-up of a session (and its parent)
	// before posting: a slow opencode delays a message by this at most.
	sessionTimeout = 3 * time.Second
	// sessionRetryAfter is how long a failed look-up is remembered, so a
	// dead opencode does not cost every message the whole timeout.
	sessionRetryAfter = 30 * time.Second
	// maxCachedSessions bounds the cache; the oldest entry goes first.
	maxCachedSessions = 1000
)

type sessionKey struct{ dir, id, server string }

// cachedSession is a session looked up, by directory and ID. A session
// found is kept (its title rarely changes, and a stale title only labels
// a message); a failure is kept for sessionRetryAfter.
type cachedSession struct {
	s opencode.Session
	// failedAt is set when the look-up failed.
	failedAt time.Time
}

// session returns session id of directory dir, from the cache or from
// opencode; ok is false when opencode could not say.
func (b *Bridge) session(ctx context.Context, server, dir, id string) (opencode.Session, bool) {
	k := sessionKey{dir, id, server}
	c, ok := b.sessions.Get(k)
	if ok && (c.failedAt.IsZero() || b.now().Sub(c.failedAt) < sessionRetryAfter) {
		return c.s, c.failedAt.IsZero()
	}
	s, err := b.opencodeOf(server).GetSession(ctx, dir, id)
	if err != nil {
		b.log.Info().Err(err).Str("sessionID", id).Str("directory", dir).
			Msg("could not look up the session; its messages show the session ID instead of its title")
		b.sessions.Put(k, cachedSession{failedAt: b.now()})
		return opencode.Session{}, false
	}
	b.sessions.Put(k, cachedSession{s: s})
	return s, true
}

// addContext fills in e's session title and, for a subagent's session,
// its parent, unless they are known already. It takes sessionTimeout at
// most; what it cannot learn stays empty and the message shows IDs.
//
// A request of OpenCode 2 listed after a connect names no directory: it
// takes its session's, which notices, steering and topics go by.
func (b *Bridge) addContext(ctx context.Context, e *pending.Entry) {
	if e.SessionID == "" || (e.SessionTitle != "" || e.ParentSessionID != "") && e.Directory != "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.sessionTimeout)
	defer cancel()
	s, ok := b.session(ctx, e.Server, e.Directory, e.SessionID)
	if !ok {
		return
	}
	if e.Directory == "" {
		e.Directory = s.Directory
	}
	if e.SessionTitle != "" || e.ParentSessionID != "" {
		return
	}
	e.SessionTitle = s.Title
	if s.ParentID == "" || s.ParentID == s.ID {
		return
	}
	e.ParentSessionID = s.ParentID
	if p, ok := b.session(ctx, e.Server, e.Directory, s.ParentID); ok {
		e.ParentTitle = p.Title
	}
}

// copyContext gives e the session context of another request of the
// same session.
func copyContext(e, from *pending.Entry) {
	e.SessionTitle, e.ParentSessionID, e.ParentTitle = from.SessionTitle, from.ParentSessionID, from.ParentTitle
	if e.Directory == "" {
		e.Directory = from.Directory
	}
}

package bot

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/internal/bounded"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// NotifyOptions says which session notifications the bridge posts. The
// zero value posts none.
type NotifyOptions struct {
	// Idle posts a notice when a session finished (session.idle).
	Idle bool
	// Error posts a notice when a session failed (session.error).
	Error bool
	// SessionGap is the least time between two notices of one session;
	// DefaultNotifySessionGap if zero or less. opencode says a session
	// failed and then that it is idle: the gap keeps that to one notice.
	SessionGap time.Duration
	// PerMinute caps the notices of all sessions in any minute;
	// DefaultNotifyPerMinute if zero or less. Notices over it are dropped
	// and counted, and the next notice posted says how many.
	PerMinute int
}

// Defaults for the zero fields of NotifyOptions.
const (
	DefaultNotifySessionGap = time.Minute
	DefaultNotifyPerMinute  = 10
)

const (
	// excerptTimeout bounds the read of the agent's last message: a slow
	// opencode delays the notice by this at most, then it goes without.
	excerptTimeout = 5 * time.Second
	// maxNotifySessions bounds the sessions whose last notice is
	// remembered; older ones are forgotten first.
	maxNotifySessions = 1000
)

// notifyLimiter coalesces notices: one per session per gap, and at most
// perMinute of all sessions in any minute. Make one with newNotifyLimiter.
type notifyLimiter struct {
	mu sync.Mutex
	// last is when each session's last notice was posted (or held back
	// for a reason that also holds back the next, an abort), for the
	// maxNotifySessions sessions marked last.
	last *bounded.Map[string, time.Time]
	// sent are the times of the notices posted in the last minute.
	sent []time.Time
	// dropped counts the notices refused for the global cap since the
	// last one posted.
	dropped int
}

func newNotifyLimiter() *notifyLimiter {
	return &notifyLimiter{last: bounded.New[string, time.Time](maxNotifySessions)}
}

// verdict is what the limiter says of a notice.
type verdict int

const (
	notifyPost verdict = iota
	notifyCoalesced
	notifyCapped
)

// take decides whether session's notice goes out at now. When it does, it
// counts, and dropped is how many were refused for the cap before it.
func (l *notifyLimiter) take(session string, now time.Time, gap time.Duration, perMinute int) (v verdict, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t, ok := l.last.Get(session); ok && now.Sub(t) < gap && now.Sub(t) >= 0 {
		return notifyCoalesced, 0
	}
	keep := l.sent[:0]
	for _, t := range l.sent {
		if d := now.Sub(t); d < time.Minute && d >= 0 {
			keep = append(keep, t)
		}
	}
	l.sent = keep
	if len(l.sent) >= perMinute {
		l.dropped++
		return notifyCapped, 0
	}
	l.sent = append(l.sent, now)
	l.last.Put(session, now)
	dropped, l.dropped = l.dropped, 0
	return notifyPost, dropped
}

// mark records a notice of session at now without posting one, so the
// next within the gap is coalesced.
func (l *notifyLimiter) mark(session string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last.Put(session, now)
}

// sessionLog is the logger for a session's notices.
func (b *Bridge) sessionLog(dir, session string) zerolog.Logger {
	return b.log.With().Str("sessionID", session).Str("directory", dir).Logger()
}

// sessionIdle posts that a session finished, with the start of the
// agent's last message. It stays silent while a request of the session
// (or of a subagent's session under it) still waits for an answer, and
// for a subagent's own session, whose end is only a step of its parent.
func (b *Bridge) sessionIdle(ctx context.Context, ev opencode.Event) {
	id := ev.SessionIdle.SessionID
	if !b.cfg.Notify.Idle || id == "" {
		return
	}
	log := b.sessionLog(ev.Directory, id)
	waiting, err := b.waitingIn(id)
	if err != nil {
		log.Warn().Err(err).Msg("could not tell whether the session still waits for an answer; no finished notice")
		return
	}
	if waiting {
		log.Debug().Msg("session idle while a request of it is pending; no finished notice")
		return
	}
	s := b.notifySession(ctx, ev.Server, ev.Directory, id)
	if ev.Directory == "" {
		ev.Directory = s.Directory // OpenCode 2's turn events may name none
	}
	if s.ParentID != "" && s.ParentID != s.ID {
		log.Debug().Str("parentSessionID", s.ParentID).Msg("subagent session finished; no notice")
		return
	}
	dropped, ok := b.takeNotice(log, id, "finished")
	if !ok {
		return
	}
	excerpt := b.lastWords(ctx, log, ev.Server, ev.Directory, id)
	b.sendNotice(ctx, log, frontend.Notice{Server: ev.Server, Directory: ev.Directory, SessionID: id, Title: s.Title, Body: excerpt, Dropped: dropped}, "finished")
}

// sessionError posts that a session failed, saying why in words. An
// abort is someone stopping the agent on purpose: it is not reported, and
// the idle that follows it is not a "finished".
func (b *Bridge) sessionError(ctx context.Context, ev opencode.Event) {
	id := ev.SessionError.SessionID
	if id == "" {
		return
	}
	name, why := describeError(b.text, ev.SessionError.Error)
	// Kept whether or not notices are on: /sessions shows it.
	b.failed.Put(id, name != "MessageAbortedError")
	if !(b.cfg.Notify.Error || b.cfg.Notify.Idle) {
		return
	}
	log := b.sessionLog(ev.Directory, id)
	if name == "MessageAbortedError" {
		log.Debug().Msg("session aborted; no notice")
		b.notices.mark(id, b.now())
		return
	}
	if !b.cfg.Notify.Error {
		// The idle that follows is no success either.
		b.notices.mark(id, b.now())
		return
	}
	dropped, ok := b.takeNotice(log, id, "failed")
	if !ok {
		return
	}
	s := b.notifySession(ctx, ev.Server, ev.Directory, id)
	if ev.Directory == "" {
		ev.Directory = s.Directory
	}
	b.sendNotice(ctx, log, frontend.Notice{Failed: true, Server: ev.Server, Directory: ev.Directory, SessionID: id, Title: s.Title, Body: why, Dropped: dropped}, "failed")
}

// takeNotice asks the limiter whether a notice of session goes out now.
func (b *Bridge) takeNotice(log zerolog.Logger, session, what string) (dropped int, ok bool) {
	v, dropped := b.notices.take(session, b.now(), b.cfg.Notify.SessionGap, b.cfg.Notify.PerMinute)
	switch v {
	case notifyCoalesced:
		log.Debug().Str("notice", what).Msg("notice coalesced: the session had one lately")
		return 0, false
	case notifyCapped:
		log.Debug().Str("notice", what).Msg("notice dropped: too many notices this minute")
		return 0, false
	}
	return dropped, true
}

// waitingIn reports whether a request of session, or of a subagent's
// session under it, is held and not yet expired. session is not empty.
// Only that session's requests are read, so each session's end costs as
// little on a store holding thousands of other sessions' requests.
func (b *Bridge) waitingIn(session string) (bool, error) {
	entries, err := b.store.BySession(session)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.Kind != pending.KindQuestion && e.Kind != pending.KindPermission || e.ExpiredNotified {
			continue
		}
		if e.SessionID == session || e.ParentSessionID == session {
			return true, nil
		}
	}
	return false, nil
}

// notifySession looks the session up for its title and parent, within
// sessionTimeout; what cannot be learnt stays empty.
func (b *Bridge) notifySession(ctx context.Context, server, dir, id string) opencode.Session {
	ctx, cancel := context.WithTimeout(ctx, b.sessionTimeout)
	defer cancel()
	s, _ := b.session(ctx, server, dir, id)
	return s
}

// lastWords returns the agent's last message, or "" when it cannot be
// read within excerptTimeout.
func (b *Bridge) lastWords(ctx context.Context, log zerolog.Logger, server, dir, id string) string {
	ctx, cancel := context.WithTimeout(ctx, b.excerptTimeout)
	defer cancel()
	text, err := b.opencodeOf(server).LastAssistantText(ctx, dir, id)
	if err != nil {
		log.Info().Err(err).Msg("could not read the agent's last message; the notice goes without it")
		return ""
	}
	return text
}

// sendNotice posts notice n of a session, where the requests of its
// project go.
func (b *Bridge) sendNotice(ctx context.Context, log zerolog.Logger, n frontend.Notice, what string) {
	// Held until the notice's session is remembered, so a reply that
	// comes at once waits for it (see SessionAt).
	b.noticing.RLock()
	defer b.noticing.RUnlock()
	for _, fe := range b.fes {
		log := log.With().Str("frontend", fe.Name()).Logger()
		at, err := fe.Notify(ctx, n)
		if err != nil {
			log.Warn().Err(err).Str("notice", what).Msg("could not post session notice")
			continue
		}
		log.Info().Str("notice", what).Msg("session notice posted")
		// A reply to the notice goes on with the session.
		if at != "" {
			if err := b.store.RememberMessage(fe.Name(), at, pending.SessionRef{Server: n.Server, Directory: n.Directory, ID: n.SessionID}); err != nil {
				log.Warn().Err(err).Msg("could not remember the notice's session; a reply to it is not taken")
			}
		}
	}
}

// describeError turns the error of session.error into its name and
// readable words: "Name: message", the name alone, or "unknown error";
// never the raw JSON.
func describeError(tx *i18n.Text, raw json.RawMessage) (name, words string) {
	var e struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Data    struct {
			Message string `json:"message"`
		} `json:"data"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &e) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return "", strings.TrimSpace(s)
		}
		return "", tx.UnknownError
	}
	name = oneLine(e.Name)
	msg := strings.TrimSpace(e.Data.Message)
	if msg == "" {
		msg = strings.TrimSpace(e.Message)
	}
	if msg == "" {
		// The opencode errors that carry no message of their own.
		switch name {
		case "MessageOutputLengthError":
			msg = tx.OutputLimit
		case "MessageAbortedError":
			msg = tx.Aborted
		}
	}
	switch {
	case name != "" && msg != "":
		return name, name + ": " + msg
	case name != "":
		return name, name
	case msg != "":
		return "", msg
	}
	return "", tx.UnknownError
}

// oneLine puts s on one line, its runs of white space made one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

package frontend

import (
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Steering is the other direction: a person tells the agent what to do
// next (continue a session, start one) or stops it. It runs code with the
// agent's rights, so a front-end offers it only to the people it was told
// may steer, and says so to everyone else; the life cycle logs every
// action with its user.

// The errors a steering call wraps, so a front-end can say why it did
// not happen.
var (
	// ErrSessionGone: opencode no longer knows the session.
	ErrSessionGone = errors.New("session is gone")
	// ErrUnreachable: opencode could not be reached (or refused us).
	ErrUnreachable = errors.New("opencode is unreachable")
	// ErrNoSteering: the life cycle has no opencode it can steer.
	ErrNoSteering = errors.New("steering is not available")
)

// SessionState is what a session is doing, as /sessions shows it.
type SessionState int

const (
	// Idle: the session waits for a prompt.
	Idle SessionState = iota + 1
	// Working: the session runs a turn.
	Working
	// Waiting: a request of the session waits for a person's answer.
	Waiting
	// Failed: the session's last turn failed.
	Failed
)

// Project is a project opencode knows, where a new session can start.
type Project struct {
	// Server names its opencode server ("" for the only one).
	Server    string
	Directory string
}

// SessionInfo is one session as a list of sessions shows it.
type SessionInfo struct {
	Ref     pending.SessionRef
	Title   string
	State   SessionState
	Updated time.Time
	// Latest is the latest message shown about the session; zero: none.
	Latest pending.Place
}

// Steered is what a prompt that reached a session reached.
type Steered struct {
	Ref   pending.SessionRef
	Title string
}

// StopResult is what stopping a session did.
type StopResult struct {
	Ref   pending.SessionRef
	Title string
	// Closed is how many of its requests were closed.
	Closed int
}

// Steerer is the steering half of Core.
type Steerer interface {
	// SessionAt returns the session the message at is about, for a reply
	// to it: a notice, a request's message once closed, a message handed
	// to RememberMessage. ok is false for a message about no session, and
	// for one whose reply means something else already (a prompt for a
	// typed answer, a request still waiting).
	SessionAt(ctx context.Context, at pending.Place) (ref pending.SessionRef, ok bool, err error)
	// RememberMessage records that the message at is about ref (with no
	// ID: a new session to start in ref.Directory), for SessionAt.
	RememberMessage(at pending.Place, ref pending.SessionRef) error
	// ContinueSession sends text to session ref as user's next prompt.
	ContinueSession(ctx context.Context, log zerolog.Logger, ref pending.SessionRef, text string, user User) (Steered, error)
	// StartSession starts a session in project p (its server and
	// directory; no ID) whose first prompt is text.
	StartSession(ctx context.Context, log zerolog.Logger, p pending.SessionRef, text string, user User) (Steered, error)
	// Projects lists the projects opencode knows.
	Projects(ctx context.Context) ([]Project, error)
	// Sessions lists the recent top-level sessions of every project,
	// most recently updated first, at most max.
	Sessions(ctx context.Context, max int) ([]SessionInfo, error)
	// FindSession looks session id up, wherever its project is.
	FindSession(ctx context.Context, id string) (SessionInfo, error)
	// StopSession aborts session ref's turn and closes its requests
	// still waiting, in opencode and where they are shown.
	StopSession(ctx context.Context, log zerolog.Logger, ref pending.SessionRef, user User) (StopResult, error)
}

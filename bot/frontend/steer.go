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
	// Latest is the latest message shown about the session in each
	// front-end, by name.
	Latest map[string]pending.Place
}

// Delivery is how a prompt reaches a session that is running a turn.
type Delivery int

const (
	// DeliverAsk: a session running a turn on a server that can steer
	// one (OpenCode 2) is not prompted: Steered.Busy says so, and the
	// front-end asks the person, then calls again with DeliverQueue or
	// DeliverSteer. Anywhere else it is DeliverQueue.
	DeliverAsk Delivery = iota
	// DeliverQueue: the prompt runs after the running turn, if any.
	DeliverQueue
	// DeliverSteer: the prompt goes into the running turn, read at its
	// next step (OpenCode 2 only).
	DeliverSteer
)

// Steered is what a prompt that reached a session reached.
type Steered struct {
	Ref   pending.SessionRef
	Title string
	// Busy: nothing was sent, as the session runs a turn and the
	// person is to choose how (DeliverAsk).
	Busy bool
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
	// The message is at at in front-end frontend.
	SessionAt(ctx context.Context, frontend string, at pending.Place) (ref pending.SessionRef, ok bool, err error)
	// RememberMessage records that the message at of front-end frontend
	// is about ref (with no ID: a new session to start in ref.Directory),
	// for SessionAt.
	RememberMessage(frontend string, at pending.Place, ref pending.SessionRef) error
	// ContinueSession sends text to session ref as user's next prompt,
	// delivered as how says.
	ContinueSession(ctx context.Context, log zerolog.Logger, ref pending.SessionRef, text string, user User, how Delivery) (Steered, error)
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

// SavedRules is what "always" answers saved on one opencode server.
type SavedRules struct {
	// Server names it ("" for the only one).
	Server string
	// Generation is its kind: 2 (OpenCode 2) saves rules, listed in
	// Rules; 1 (opencode 1.x) keeps them in memory, where none are
	// listed; 0 was not reached yet.
	Generation int
	Rules      []Rule
	// Err says why the rules could not be listed; nil when they were.
	Err error
}

// Rule is a rule saved for a project by an "always" answer: requests of
// Action on Resource (a pattern) are allowed without asking.
type Rule struct {
	ID, Project, Action, Resource string
}

// RuleKeeper is the half of Core that lists and revokes saved rules.
type RuleKeeper interface {
	// SavedRules returns the saved rules of every server, the servers in
	// a fixed order.
	SavedRules(ctx context.Context) ([]SavedRules, error)
	// RevokeRule deletes rule id of server, as user asked.
	RevokeRule(ctx context.Context, log zerolog.Logger, server, id string, user User) error
}

// Package frontend is the seam between hermes-bot's request life cycle
// (package bot) and the chats that show requests to people (package
// bot/telegram is one; several run at once). Like database/sql/driver, it
// holds only what both sides must agree on: the Frontend interface the
// life cycle drives, and the values that cross it, with the few readings
// of them every chat shares (User.DisplayName, FieldHint).
//
// The life cycle decides what happens to a request and when; a front-end
// decides how it looks (markup, buttons, limits of its chat), where it
// goes (chat, thread) and how typed text is collected, and reports where
// it put a message as a pending.Place, its own encoding, which the life
// cycle and the store keep, by the front-end's Name, without reading.
//
// A request is one model for both opencode generations (see package
// pending): a 1.x question request, or an OpenCode 2 form whose fields
// are its questions. A front-end shows the current field with buttons
// for its type (options, toggles and Submit, Type for a typed answer,
// Skip for an optional field), and a form that is a link to open with
// the link, Submit ("done") and Cancel.
package frontend

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
	"github.com/rs/zerolog"
)

// ErrGone is wrapped by an error of Refresh or Close when the message is
// gone from the chat (someone deleted it): an open request is posted
// again, an outcome for it is dropped.
var ErrGone = errors.New("message is gone")

// ErrRefused is wrapped by an error of Close when the chat refused the
// edit for good (trying again cannot help), so it is no longer owed.
var ErrRefused = errors.New("refused for good")

// Frontend shows requests to people. Showing something that is shown
// already is not an error. Its methods are called concurrently, for
// different requests; the life cycle serialises the calls about one.
// Every request is shown by every front-end; a place is always the one
// the same front-end returned.
type Frontend interface {
	// Name names the front-end ("telegram"): its places and owed edits
	// are kept under it, so it must not change across restarts.
	Name() string
	// Post shows r, open, as a new message, where r's project goes (the
	// front-end's chat, a thread of it), and returns where it put it.
	Post(ctx context.Context, r Request) (pending.Place, error)
	// Refresh shows r, open (its current question and selection), in
	// the message at at.
	Refresh(ctx context.Context, at pending.Place, r Request) error
	// RefreshLater is Refresh without waiting for the chat: it takes r as
	// it is now, hands the edit over and returns. The life cycle uses it
	// for a toggle of a multi-select, which holds the request's lock: the
	// next tap must not wait behind the chat's pacing for that lock. The
	// refreshes of a message land in the order they were made, and none
	// lands after a later Refresh, Close or Moved of the message (a newer
	// edit may take its place instead). done, if not nil, is called once
	// with what Refresh would have returned, never on the caller's
	// goroutine, so it may take the request's lock.
	RefreshLater(at pending.Place, r Request, done func(error))
	// Close makes the message at at show how its request closed, c,
	// without buttons. The life cycle keeps c as owed with the close and
	// hands it over again after a crash.
	Close(ctx context.Context, at pending.Place, c Closing) error
	// Moved makes the stale copy of a request's message at stale (posted
	// twice across a crash) point to the message at current, which shows
	// the request now; closed says it is closed there.
	Moved(ctx context.Context, stale, current pending.Place, closed bool) error
	// Collect asks user for the text r waits for, by the message at at:
	// the answer to question field, or with reason, the reason of a
	// reject. The front-end decides how (Telegram: a reply prompt) and
	// hands what user types to Core.HandleInput, bound to r.Key and field.
	Collect(ctx context.Context, at pending.Place, r Request, field int, reason bool, user User) error
	// Tell answers user with note by the message at at, of request key.
	Tell(ctx context.Context, at pending.Place, key string, user User, note string) error
	// Notify posts n where n's project goes and returns where it put
	// it, so a reply to it can go on with n's session.
	Notify(ctx context.Context, n Notice) (pending.Place, error)
	// AutoApproved posts, where v's project goes, the notice that
	// permission request v was allowed once without asking anyone.
	AutoApproved(ctx context.Context, v *View) error
	// AutoApprovalPaused posts, where a's project goes, the notice that
	// auto-approval stopped in a's directory: always answer a lets the
	// agent change files there without asking.
	AutoApprovalPaused(ctx context.Context, a pending.Always) error
}

// Request is a request as one message shows it: a question, or the
// members of a group of identical permission requests sharing a message.
type Request struct {
	// Key is the UID its buttons carry: the question's, or the group's.
	Key     string
	Members []*View
	// Generation is the kind of opencode its server runs, 0 when not
	// known: on OpenCode 2 (2) "always" saves a rule for the project.
	Generation int
}

// User is a person who answered or is asked, as the front-end knows them.
type User struct {
	// ID is the front-end's ID of them ("42" on Telegram).
	ID string
	// Name is how they are called (first and last name); may be empty.
	Name string
	// Username is their handle, without "@"; may be empty.
	Username string
}

// DisplayName is how u is named to people: the name, else @username,
// else "user <ID>"; on one line.
func (u User) DisplayName() string {
	name := strings.Join(strings.Fields(u.Name), " ")
	switch {
	case name != "":
		return name
	case u.Username != "":
		return "@" + u.Username
	}
	return "user " + u.ID
}

// The replies opencode takes for a permission request, as Outcome.Reply
// holds them.
const (
	ReplyOnce   = "once"
	ReplyAlways = "always"
	ReplyReject = "reject"
)

// Core is what a front-end needs of the request life cycle (package
// bot's Bridge) to hand it what people do.
type Core interface {
	// HandlePress acts on a press; log carries what the front-end knows
	// of it. It calls p.Ack exactly once.
	HandlePress(ctx context.Context, log zerolog.Logger, p Press)
	// HandleInput takes text typed for a request (see Frontend.Collect).
	HandleInput(ctx context.Context, log zerolog.Logger, in Input)
	// Awaits reports whether request key still waits for the text of
	// field (with reason, of a reject's reason), so a front-end can tell
	// which of its prompts are still open.
	Awaits(key string, field int, reason bool) bool
	// Open returns the requests still waiting for an answer, oldest first.
	// With settled, it first lets requests being posted right now get
	// their place (briefly), so one that just appeared is listed with it.
	Open(ctx context.Context, settled bool) ([]*View, error)
	AutoApprover
	Steerer
	RuleKeeper
}

// AutoApproval is the auto-approval policy and where it is paused.
type AutoApproval struct {
	// Policy is "low" when low-risk commands are allowed without asking,
	// "off" otherwise.
	Policy string
	// Paused are the always answers that stop it in their directory,
	// oldest first; recorded whatever the policy.
	Paused []pending.Always
}

// AutoApprover is the half of Core that shows and resumes auto-approval.
type AutoApprover interface {
	// AutoApproval returns the policy and where it is paused.
	AutoApproval(ctx context.Context) (AutoApproval, error)
	// ResumeAutoApproval forgets the always answer recorded for directory
	// dir of server, as user asked, and reports whether one was.
	ResumeAutoApproval(ctx context.Context, log zerolog.Logger, server, dir string, user User) (bool, error)
}

// How says what closed a request.
type How int

const (
	// Answered: By answered it here; Answers holds the answer.
	Answered How = iota + 1
	// AnsweredElsewhere: answered in opencode; Answers holds the answer.
	AnsweredElsewhere
	// Dismissed: dismissed in opencode.
	Dismissed
	// Gone: no longer pending in opencode when listed after a reconnect.
	Gone
	// NoLongerPending: opencode refused an answer as no longer pending.
	NoLongerPending
	// Expired: nobody answered within TTL; Told says what opencode heard.
	Expired
	// Decided: By decided a permission here: Reply, and Reason with a
	// reject.
	Decided
	// DecidedElsewhere: a permission was decided in opencode: Reply.
	DecidedElsewhere
	// Stopped: By stopped the request's session here.
	Stopped
	// Cancelled: By cancelled a form that is a link to open.
	Cancelled
)

// Told is what opencode was told of an expired request.
type Told int

const (
	// ToldDismissed: the question was dismissed.
	ToldDismissed Told = iota
	// ToldRejected: the permission was rejected.
	ToldRejected
	// NotTold: telling opencode failed; it is retried.
	NotTold
)

// Closing is how a request's messages end: the request as it closed and
// its outcome, for each front-end to render. It is kept, as JSON, while
// an edit is owed, so it holds all a front-end may need.
type Closing struct {
	Request Request `json:"request"`
	Outcome Outcome `json:"outcome"`
	// Shown, when set, is what an earlier release rendered for the
	// message and still owed: shown as it is.
	Shown string `json:"-"`
}

// Outcome is how a request closed.
type Outcome struct {
	How How
	// Answers are the answers' labels, a slice per question or field (nil:
	// skipped, not asked, or not known).
	Answers [][]string
	By      User
	// Reply is a permission's reply: "once", "always" or "reject".
	Reply  string
	Reason string
	TTL    time.Duration
	Told   Told
}

// Notice is news of a session: it finished, or failed.
type Notice struct {
	Failed bool
	// Server names the opencode server of the session; "" when there is
	// one unnamed server.
	Server    string
	Directory string
	SessionID string
	Title     string
	// Body is the agent's last words, or the error in words.
	Body string
	// Dropped is how many notices were held back since the last one.
	Dropped int
}

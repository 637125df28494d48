package pending

import (
	"encoding/json"
	"slices"
	"time"
)

// Kind says what an entry asks of the person.
type Kind string

// The kinds of request an entry can hold.
const (
	KindQuestion   Kind = "question"
	KindPermission Kind = "permission"
)

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is one question of a request, as it was asked.
type Question struct {
	Text     string   `json:"text"`
	Header   string   `json:"header,omitempty"`
	Options  []Option `json:"options,omitempty"`
	Multiple bool     `json:"multiple,omitempty"`
	// Custom says whether a typed answer is allowed.
	Custom bool `json:"custom"`
}

// AllowsTyped reports whether q takes a typed answer. A question without
// options does even when Custom is false: otherwise it could not be
// answered at all.
func (q Question) AllowsTyped() bool { return q.Custom || len(q.Options) == 0 }

// Selected lists the labels of q's options that are in selected, in
// option order, each once.
func (q Question) Selected(selected []string) []string {
	var out []string
	for _, o := range q.Options {
		if slices.Contains(selected, o.Label) && !slices.Contains(out, o.Label) {
			out = append(out, o.Label)
		}
	}
	return out
}

// Permission is what a permission request asks to do.
type Permission struct {
	Kind     string          `json:"kind"`
	Patterns []string        `json:"patterns,omitempty"`
	Always   []string        `json:"always,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Run is what the tool call of a shell command was found to run; nil
	// for other kinds, and in entries stored before it was read.
	Run *Run `json:"run,omitempty"`
}

// Run is what the tool call behind a shell command's permission request
// runs, as read from opencode when the request came.
type Run struct {
	// Read says the call's input was read and its command is the
	// request's; the other fields are empty when it is false.
	Read bool `json:"read"`
	// Workdir is the folder the command runs in, absolute.
	Workdir string `json:"workdir,omitempty"`
	// Elsewhere is set when Workdir, links followed, is not the project
	// directory (or either could not be resolved).
	Elsewhere bool `json:"elsewhere,omitempty"`
	// Timeout is how long it may run, in milliseconds; 0 when the call
	// names none.
	Timeout int64 `json:"timeout,omitempty"`
	// Root is opencode's worktree for the call (the git worktree's top,
	// "/" outside one); Agent the agent that called it.
	Root  string `json:"root,omitempty"`
	Agent string `json:"agent,omitempty"`
}

// Entry is one request in flight: what opencode asked, where the front-end
// shows it, and what has been answered so far. Entries are stored as
// JSON, so fields may be added without a migration.
type Entry struct {
	// UID is the short key of the entry; it appears in callback data.
	// Derived from the request (UIDFor), so every copy of its message
	// carries it; random (NewUID) in files written before.
	UID  string `json:"uid"`
	Kind Kind   `json:"kind"`

	Directory string `json:"directory"`
	Project   string `json:"project,omitempty"`
	SessionID string `json:"sessionID"`
	// CallID and ToolMessageID identify the tool call that asked, so the
	// request can be found again if its ID is stale.
	CallID        string `json:"callID,omitempty"`
	ToolMessageID string `json:"toolMessageID,omitempty"`
	// RequestID is opencode's ID for the request (que_… or per_…). It is
	// unique across the entries of one server.
	RequestID string `json:"requestID"`
	// Server names the opencode server that asked: "" when hermes-bot
	// serves one unnamed server (OPENCODE_URL a bare URL), as every entry
	// written before servers had names does. Two servers may use the same
	// request ID, so the store finds a request by server and ID.
	Server string `json:"server,omitempty"`
	// Surface names the way the request was asked, which is the only way
	// it can be listed and answered: "" for opencode's original routes,
	// "api" for its /api surface. The store does not read it.
	Surface string `json:"surface,omitempty"`

	Questions  []Question  `json:"questions,omitempty"`
	Permission *Permission `json:"permission,omitempty"`

	// Place is where the request is shown; its Message is 0 until the
	// message was sent, and its Thread is where every message about the
	// request goes after (0: the chat itself). Indexed: unsent.
	Place Place `json:"place"`

	// Current is the index of the question being answered.
	Current int `json:"current,omitempty"`
	// Answers holds one slice of labels per question; nil until answered.
	Answers [][]string `json:"answers,omitempty"`
	// Selected holds the labels toggled so far for a multi-select question.
	Selected []string `json:"selected,omitempty"`

	// AwaitingText is set while a prompt waits for a typed answer to
	// question AwaitingQuestion, asked of AwaitingUserID.
	AwaitingText     bool  `json:"awaitingText,omitempty"`
	AwaitingQuestion int   `json:"awaitingQuestion,omitempty"`
	AwaitingUserID   int64 `json:"awaitingUserID,omitempty"`
	// Prompt is the message, in Place.Chat, of the prompt waiting for a
	// typed answer; indexed (ByPrompt).
	Prompt int `json:"prompt,omitempty"`

	// SessionTitle is the title of the session that asked, and for a
	// subagent's child session ParentSessionID and ParentTitle name its
	// parent; empty when opencode could not say.
	SessionTitle    string `json:"sessionTitle,omitempty"`
	ParentSessionID string `json:"parentSessionID,omitempty"`
	ParentTitle     string `json:"parentTitle,omitempty"`

	// SharedWith is set on a permission request that shares the message of
	// an identical one asked earlier in the same session: it is the UID of
	// that first request, which the message's buttons carry. It never
	// changes, even after the first request is closed, so every request of
	// the group is found by it.
	SharedWith string `json:"sharedWith,omitempty"`

	// ExpiredNotified is set once the message said the request expired
	// while rejecting it in opencode still fails and is being retried.
	ExpiredNotified bool `json:"expiredNotified,omitempty"`

	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

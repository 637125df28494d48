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
	// Value is what the answer to a form's field carries for the option;
	// "" for a 1.x question, whose answer is the label.
	Value string `json:"value,omitempty"`
}

// The types of a form's field (Question.Type); a 1.x question has none.
const (
	TypeString      = "string"
	TypeNumber      = "number"
	TypeInteger     = "integer"
	TypeBoolean     = "boolean"
	TypeMultiselect = "multiselect"
)

// Question is one question of a request, as it was asked: a question of
// opencode 1.x, or a field of an OpenCode 2 form. The field's attributes
// are absent from a 1.x question, so entries written before forms read
// unchanged.
type Question struct {
	Text     string   `json:"text"`
	Header   string   `json:"header,omitempty"`
	Options  []Option `json:"options,omitempty"`
	Multiple bool     `json:"multiple,omitempty"`
	// Custom says whether a typed answer is allowed.
	Custom bool `json:"custom"`

	// Key names a form's field in its answer; Type is its type ("" for a
	// 1.x question, which is answered with labels).
	Key  string `json:"key,omitempty"`
	Type string `json:"type,omitempty"`
	// Required says the field cannot be skipped.
	Required bool `json:"required,omitempty"`
	// When lists conditions on earlier fields' answers that must all
	// hold for the field to be asked.
	When []Condition `json:"when,omitempty"`
	// Checks of a typed answer: Format (email, uri, date, date-time),
	// Pattern (a JavaScript regular expression) and lengths of a string,
	// bounds of a number, how many options a multiselect takes.
	Format      string   `json:"format,omitempty"`
	Pattern     string   `json:"pattern,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	MinLength   *int     `json:"minLength,omitempty"`
	MaxLength   *int     `json:"maxLength,omitempty"`
	Minimum     *float64 `json:"minimum,omitempty"`
	Maximum     *float64 `json:"maximum,omitempty"`
	MinItems    *int     `json:"minItems,omitempty"`
	MaxItems    *int     `json:"maxItems,omitempty"`
	// Default is the field's default, as JSON of its type.
	Default json.RawMessage `json:"default,omitempty"`
}

// Condition is one condition of a field's When: the answer to field Key
// is (Op "eq") or is not (Op "neq") Value, a JSON value.
type Condition struct {
	Key   string          `json:"key"`
	Op    string          `json:"op"`
	Value json.RawMessage `json:"value"`
}

// IsField reports whether q is a form's field rather than a 1.x question.
func (q Question) IsField() bool { return q.Type != "" }

// Form is what an OpenCode 2 form is besides its fields.
type Form struct {
	// Mode is "form" (fields to fill in) or "url" (a link to open, then
	// Done or Cancel).
	Mode  string `json:"mode"`
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

// FormModeURL is the Mode of a form that is a link to open.
const FormModeURL = "url"

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
	// for other kinds, and when the call could not be read.
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

// ContextLine is one line of what the agent did before it asked: a line
// it wrote (Tool empty), or a tool call with its short argument.
type ContextLine struct {
	Tool string `json:"tool,omitempty"`
	Text string `json:"text,omitempty"`
}

// IsURLForm reports whether e is a form that is a link to open.
func (e *Entry) IsURLForm() bool { return e.Form != nil && e.Form.Mode == FormModeURL }

// Entry is one request in flight: what opencode asked, where the
// front-ends show it, and what has been answered so far. Entries are stored as
// JSON, so fields may be added without a migration.
type Entry struct {
	// UID is the short key of the entry; it appears in callback data.
	// Derived from the request (UIDFor), so every copy of its message
	// carries it; random (NewUID) when that one is taken.
	UID  string `json:"uid"`
	Kind Kind   `json:"kind"`

	Directory string `json:"directory"`
	Project   string `json:"project,omitempty"`
	SessionID string `json:"sessionID"`
	// CallID and ToolMessageID identify the tool call that asked, so the
	// request can be found again if its ID is stale.
	CallID        string `json:"callID,omitempty"`
	ToolMessageID string `json:"toolMessageID,omitempty"`
	// RequestID is opencode's ID for the request (que_…, per_… or frm_…). It is
	// unique across the entries of one server.
	RequestID string `json:"requestID"`
	// Server names the opencode server that asked: "" when hermes-bot
	// serves one unnamed server (OPENCODE_URL a bare URL). Two servers may use the same
	// request ID, so the store finds a request by server and ID.
	Server string `json:"server,omitempty"`
	// Surface names the way the request was asked, which is the only way
	// it can be listed and answered: "" for opencode's original routes,
	// "api" for its /api surface. The store does not read it.
	Surface string `json:"surface,omitempty"`

	Questions  []Question  `json:"questions,omitempty"`
	Permission *Permission `json:"permission,omitempty"`
	// Form is set for an OpenCode 2 form (Kind KindQuestion, RequestID
	// its frm_ ID, Questions its fields); nil for a 1.x question.
	Form *Form `json:"form,omitempty"`
	// Generation is 2 for a request of an OpenCode 2 server, 0 for 1.x.
	Generation int `json:"generation,omitempty"`

	// Places is where the request is shown, by front-end name: an empty
	// Place is a front-end still owed its message (indexed: unsent).
	Places map[string]Place `json:"places,omitempty"`

	// Current is the index of the question being answered.
	Current int `json:"current,omitempty"`
	// Answers holds one slice of labels per question (a form's field:
	// option labels, or the text typed); nil until answered, and for a
	// field skipped or not asked.
	Answers [][]string `json:"answers,omitempty"`
	// Selected holds the labels toggled so far for a multi-select question.
	Selected []string `json:"selected,omitempty"`

	// AwaitingText is set while a front-end collects a typed answer to
	// question AwaitingQuestion (with AwaitingReason, the reason of a
	// reject instead).
	AwaitingText     bool `json:"awaitingText,omitempty"`
	AwaitingQuestion int  `json:"awaitingQuestion,omitempty"`
	AwaitingReason   bool `json:"awaitingReason,omitempty"`

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

	// Context is what the agent wrote and did just before it asked,
	// oldest first, read once when the request came; absent in entries of
	// releases before it.
	Context []ContextLine `json:"context,omitempty"`

	// ExpiredNotified is set once the message said the request expired
	// while rejecting it in opencode still fails and is being retried.
	ExpiredNotified bool `json:"expiredNotified,omitempty"`

	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Shown reports whether some front-end shows e.
func (e *Entry) Shown() bool {
	for _, at := range e.Places {
		if at != "" {
			return true
		}
	}
	return false
}

// unsent reports whether a front-end is still owed e's message.
func (e *Entry) unsent() bool {
	for _, at := range e.Places {
		if at == "" {
			return true
		}
	}
	return len(e.Places) == 0
}

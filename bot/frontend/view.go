package frontend

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Kind says what a request asks of the person.
type Kind string

// The kinds of request.
const (
	KindQuestion   Kind = "question"
	KindPermission Kind = "permission"
)

// View is one request as a front-end shows it: a question request of
// opencode 1.x, an OpenCode 2 form (its questions are its fields), or a
// permission request; what it asks, where it comes from and how far it
// was answered. It is a copy: changing it changes nothing.
type View struct {
	// UID is the request's key (a permission's own, not its group's).
	UID       string
	Kind      Kind
	RequestID string
	// Server names its opencode server ("" for the only one), Directory
	// its project, SessionID its session; SessionTitle and, for a
	// subagent's session, ParentSessionID and ParentTitle, when known.
	Server, Directory, SessionID string
	SessionTitle                 string
	ParentSessionID, ParentTitle string
	// Generation is 2 for a request of an OpenCode 2 server, 0 for 1.x.
	Generation int

	Questions  []Question
	Permission *Permission
	// Form is set for an OpenCode 2 form; nil for a 1.x question.
	Form *Form

	// Current is the question being answered; Answers the answers so far
	// (a slice of labels or the text typed per question; nil: not yet, or
	// skipped); Selected the options toggled of a multi-select.
	Current  int
	Answers  [][]string
	Selected []string
	// Context is what the agent wrote and did just before it asked,
	// oldest first; none when it was not read or is turned off.
	Context []ContextLine
	// Expired says nobody answered in time and opencode is still being told.
	Expired bool
	// Places are where each front-end shows it, by name.
	Places    map[string]pending.Place
	CreatedAt time.Time
	ExpiresAt time.Time
}

// IsURLForm reports whether v is a form that is a link to open.
func (v *View) IsURLForm() bool { return v.Form != nil && v.Form.Mode == FormModeURL }

// ContextLine is one line of what the agent did before it asked: a line
// it wrote (Tool empty), or a tool call with its short argument in Text.
type ContextLine struct {
	Tool, Text string
}

// maxArgument is how many runes of a tool's argument Short keeps, and
// maxPath how long a path may be before only its last part shows.
const (
	maxArgument = 48
	maxPath     = 24
)

// Short is l on one line as a chat shows it: the text, or "🔧 tool arg"
// with a long path cut to its last part ("…/config.json").
func (l ContextLine) Short() string {
	text := strings.Join(strings.Fields(l.Text), " ")
	if l.Tool == "" {
		return text
	}
	i := strings.LastIndex(text, "/")
	if len([]rune(text)) > maxPath && i >= 0 && i < len(text)-1 && !strings.Contains(text, " ") {
		text = "…" + text[i:]
	}
	if arg := []rune(text); len(arg) > maxArgument {
		text = string(arg[:maxArgument-1]) + "…"
	}
	return strings.TrimSpace("🔧 " + strings.Join(strings.Fields(l.Tool), " ") + " " + text)
}

// Question is one question of a request: a question of opencode 1.x, or
// a field of an OpenCode 2 form, with its type and checks.
type Question struct {
	Text     string
	Header   string
	Options  []Option
	Multiple bool
	// Custom says whether a typed answer is allowed.
	Custom bool
	// Key names a form's field; Type is its type ("" for a 1.x question).
	Key, Type string
	Required  bool
	// Checks of a typed answer, as a form's field declares them.
	Format, Pattern, Placeholder string
	MinLength, MaxLength         *int
	Minimum, Maximum             *float64
	MinItems, MaxItems           *int
	// Default is the field's default, as JSON of its type.
	Default json.RawMessage
}

// The types of a form's field (Question.Type).
const (
	TypeString      = "string"
	TypeNumber      = "number"
	TypeInteger     = "integer"
	TypeBoolean     = "boolean"
	TypeMultiselect = "multiselect"
)

// IsField reports whether q is a form's field rather than a 1.x question.
func (q Question) IsField() bool { return q.Type != "" }

// AllowsTyped reports whether q takes a typed answer: when Custom, or
// when it has no options to pick.
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

// Option is one choice of a question; Value is what a form's answer
// carries for it ("" for a 1.x question, answered with the label).
type Option struct {
	Label, Description, Value string
}

// Form is what an OpenCode 2 form is besides its fields: Mode "form"
// (fields to fill in) or FormModeURL (a link to open, then done or
// cancel), with its URL and title.
type Form struct {
	Mode, URL, Title string
}

// FormModeURL is the Mode of a form that is a link to open.
const FormModeURL = "url"

// Permission is what a permission request asks to do: the action (Kind:
// bash, edit, …), its patterns, what "always" would allow, the tool's
// metadata (the command, the diff) as JSON, and what the tool call runs.
type Permission struct {
	Kind     string
	Patterns []string
	Always   []string
	Metadata json.RawMessage
	Run      *Run
}

// Run is what the tool call of a shell command runs, read from opencode:
// Read says it was; Workdir where (Elsewhere: not the project), Timeout
// in milliseconds (0: none), Root opencode's worktree, Agent who called.
type Run struct {
	Read      bool
	Workdir   string
	Elsewhere bool
	Timeout   int64
	Root      string
	Agent     string
}

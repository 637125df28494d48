package opencode

import (
	"encoding/json"
)

// Event types hermes-bot acts on. Every other type on the stream is skipped
// after reading only its type.
const (
	TypeQuestionAsked     = "question.asked"
	TypeQuestionReplied   = "question.replied"
	TypeQuestionRejected  = "question.rejected"
	TypePermissionAsked   = "permission.asked"
	TypePermissionReplied = "permission.replied"
	TypeSessionIdle       = "session.idle"
	TypeSessionError      = "session.error"
	TypeServerConnected   = "server.connected"
	TypeServerHeartbeat   = "server.heartbeat"

	// The request events of the /api surface. They carry the same
	// properties as their legacy counterparts (a v2 permission request
	// is mapped into PermissionRequest), and set Event.Surface to
	// SurfaceAPI. Event.Kind names the legacy counterpart.
	TypeQuestionV2Asked     = "question.v2.asked"
	TypeQuestionV2Replied   = "question.v2.replied"
	TypeQuestionV2Rejected  = "question.v2.rejected"
	TypePermissionV2Asked   = "permission.v2.asked"
	TypePermissionV2Replied = "permission.v2.replied"
	// OpenCode 2's forms (GET /api/event only): Event.FormAsked,
	// FormReplied and FormCancelled. Their Surface is SurfaceAPI.
	TypeFormCreated   = "form.created"
	TypeFormReplied   = "form.replied"
	TypeFormCancelled = "form.cancelled"
)

// Option is one choice offered by a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is one question of a question request.
type Question struct {
	Question string   `json:"question"`
	Header   string   `json:"header,omitempty"`
	Options  []Option `json:"options"`
	// Multiple allows several labels to be chosen.
	Multiple bool `json:"multiple,omitempty"`
	// Custom is nil when the server did not say; only an explicit false
	// forbids a typed answer.
	Custom *bool `json:"custom,omitempty"`
}

// AllowsCustom reports whether a typed answer may be given.
func (q Question) AllowsCustom() bool { return q.Custom == nil || *q.Custom }

// ToolRef names the tool call that raised a request.
type ToolRef struct {
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
}

// QuestionRequest is the properties of question.asked, and one element of
// GET /question; the same shape is question.v2.asked and an element of
// the /api question lists, with Surface set to SurfaceAPI.
type QuestionRequest struct {
	ID        string     `json:"id"`
	SessionID string     `json:"sessionID"`
	Questions []Question `json:"questions"`
	Tool      *ToolRef   `json:"tool,omitempty"`
	// Surface is the surface that raised the request, which is the only
	// one that can answer it. It is not part of the wire shape.
	Surface Surface `json:"-"`
}

// PermissionRequest is the properties of permission.asked, and one element
// of GET /permission.
//
// A request of the /api surface (permission.v2.asked, the /api lists) is
// mapped into it, field for field, as the two mean the same:
//
//	action                     → Permission (the tool: "bash", "edit", …)
//	resources                  → Patterns   (what it acts on: the command, the files)
//	save                       → Always     (what a reply of "always" remembers)
//	metadata                   → Metadata
//	source {type:"tool", messageID, callID} → Tool
//
// with Surface set to SurfaceAPI. Nothing is lost: the schema allows
// only "tool" as source type.
type PermissionRequest struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Permission string          `json:"permission"`
	Patterns   []string        `json:"patterns,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Always     []string        `json:"always,omitempty"`
	Tool       *ToolRef        `json:"tool,omitempty"`
	// Surface is the surface that raised the request; see QuestionRequest.
	Surface Surface `json:"-"`
}

// permissionV2 is the wire shape of a permission request of the /api
// surface.
type permissionV2 struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionID"`
	Action    string          `json:"action"`
	Resources []string        `json:"resources,omitempty"`
	Save      []string        `json:"save,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Source    *toolSource     `json:"source,omitempty"`
}

// toolSource is the tool call an /api permission request comes from.
type toolSource struct {
	Type      string `json:"type"`
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
}

func (w permissionV2) request() PermissionRequest {
	p := PermissionRequest{
		ID: w.ID, SessionID: w.SessionID, Permission: w.Action, Patterns: w.Resources,
		Always: w.Save, Metadata: w.Metadata, Surface: SurfaceAPI,
	}
	if w.Source != nil && (w.Source.MessageID != "" || w.Source.CallID != "") {
		p.Tool = &ToolRef{MessageID: w.Source.MessageID, CallID: w.Source.CallID}
	}
	return p
}

// permissionV2Decoder decodes a permission request of the /api surface
// into the PermissionRequest it points at.
type permissionV2Decoder struct{ dst *PermissionRequest }

func (d *permissionV2Decoder) UnmarshalJSON(b []byte) error {
	var w permissionV2
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d.dst = w.request()
	return nil
}

// V2 returns p in the wire shape of the /api surface, as opencode sends
// it: for test doubles that serve that surface.
func (p PermissionRequest) V2() any {
	w := permissionV2{
		ID: p.ID, SessionID: p.SessionID, Action: p.Permission, Resources: p.Patterns,
		Save: p.Always, Metadata: p.Metadata,
	}
	if w.Resources == nil {
		w.Resources = []string{} // required by the schema
	}
	if p.Tool != nil {
		w.Source = &toolSource{"tool", p.Tool.MessageID, p.Tool.CallID}
	}
	return w
}

// QuestionReplied is the properties of question.replied.
type QuestionReplied struct {
	SessionID string     `json:"sessionID"`
	RequestID string     `json:"requestID"`
	Answers   [][]string `json:"answers"`
}

// QuestionRejected is the properties of question.rejected.
type QuestionRejected struct {
	SessionID string `json:"sessionID"`
	RequestID string `json:"requestID"`
}

// PermissionReplied is the properties of permission.replied.
type PermissionReplied struct {
	SessionID string `json:"sessionID"`
	RequestID string `json:"requestID"`
	Reply     string `json:"reply"`
}

// SessionIdle is the properties of session.idle.
type SessionIdle struct {
	SessionID string `json:"sessionID"`
}

// SessionError is the properties of session.error. Error is kept raw:
// its shape varies by error kind.
type SessionError struct {
	SessionID string          `json:"sessionID"`
	Error     json.RawMessage `json:"error,omitempty"`
}

// Event is one relevant record of GET /global/event, decoded. For the
// request and session types exactly one typed pointer is set, matching
// Kind (question.v2.asked sets QuestionAsked, as question.asked does);
// server.connected and server.heartbeat carry none.
type Event struct {
	// Server names the opencode server the event came from, for a program
	// that watches several; the watcher leaves it empty, as each client
	// knows one server, and its caller sets it.
	Server string
	// Directory is the project directory the event belongs to; empty for
	// server-wide events.
	Directory string
	Project   string
	ID        string
	Type      string
	// Listed is true when the event was synthesised from a list call after
	// a connect rather than received on the stream.
	Listed bool
	// Surface is the surface whose request the event is about: SurfaceAPI
	// for the *.v2.* types, SurfaceLegacy for every other.
	Surface Surface

	QuestionAsked     *QuestionRequest
	QuestionReplied   *QuestionReplied
	QuestionRejected  *QuestionRejected
	PermissionAsked   *PermissionRequest
	PermissionReplied *PermissionReplied
	SessionIdle       *SessionIdle
	SessionError      *SessionError
	FormAsked         *Form
	FormReplied       *FormReplied
	FormCancelled     *FormCancelled
	// A turn's progress, set only with live status on (WithLiveStatus):
	// the tool call being run, the end of a step with its tokens and
	// cost, the session going busy or idle.
	ToolStep     *ToolStep
	StepFinished *StepFinished
	Status       *SessionStatus
	// Generation is 2 for an event of an OpenCode 2 server, 0 for 1.x.
	Generation int
}

// Session is the part of GET /session/{id} hermes-bot uses.
type Session struct {
	ID        string `json:"id"`
	Title     string `json:"title,omitempty"`
	Directory string `json:"directory,omitempty"`
	ParentID  string `json:"parentID,omitempty"`
	// Permission holds the session's own rules, which opencode evaluates
	// after its agent's; nil when it has none.
	Permission Ruleset `json:"permission,omitempty"`
	// Time is when it was created and last updated, in Unix milliseconds.
	Time struct {
		Created int64 `json:"created,omitempty"`
		Updated int64 `json:"updated,omitempty"`
	} `json:"time,omitzero"`
}

// Project is one element of GET /project.
type Project struct {
	ID        string   `json:"id"`
	Worktree  string   `json:"worktree"`
	Sandboxes []string `json:"sandboxes,omitempty"`
}

// Kind returns the legacy type matching ev.Type: "question.asked" for
// both question.asked and question.v2.asked, and so on. Other types are
// returned as they are. A caller that treats both surfaces alike switches
// on Kind and answers through ev.Surface.
func (ev Event) Kind() string {
	if k := kindOf(ev.Type); k != nil && k.legacy != "" {
		return k.legacy
	}
	return ev.Type
}

// Health is GET /global/health.
type Health struct {
	Healthy bool   `json:"healthy"`
	Version string `json:"version"`
}

// QuestionRef is what is known of a question request when answering it:
// the cached request ID, and what identifies it if that ID is gone.
type QuestionRef struct {
	Directory string
	RequestID string
	SessionID string
	CallID    string
	// Surface is the surface that raised the request; its lists are the
	// ones searched.
	Surface Surface
}

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
// GET /question.
type QuestionRequest struct {
	ID        string     `json:"id"`
	SessionID string     `json:"sessionID"`
	Questions []Question `json:"questions"`
	Tool      *ToolRef   `json:"tool,omitempty"`
}

// PermissionRequest is the properties of permission.asked, and one element
// of GET /permission.
type PermissionRequest struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"sessionID"`
	Permission string          `json:"permission"`
	Patterns   []string        `json:"patterns,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
	Always     []string        `json:"always,omitempty"`
	Tool       *ToolRef        `json:"tool,omitempty"`
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
// Type; server.connected and server.heartbeat carry none.
type Event struct {
	// Directory is the project directory the event belongs to; empty for
	// server-wide events.
	Directory string
	Project   string
	ID        string
	Type      string
	// Listed is true when the event was synthesised from a list call after
	// a connect rather than received on the stream.
	Listed bool

	QuestionAsked     *QuestionRequest
	QuestionReplied   *QuestionReplied
	QuestionRejected  *QuestionRejected
	PermissionAsked   *PermissionRequest
	PermissionReplied *PermissionReplied
	SessionIdle       *SessionIdle
	SessionError      *SessionError
}

// Session is the part of GET /session/{id} hermes-bot uses.
type Session struct {
	ID        string `json:"id"`
	Slug      string `json:"slug,omitempty"`
	Title     string `json:"title,omitempty"`
	Directory string `json:"directory,omitempty"`
	ParentID  string `json:"parentID,omitempty"`
}

// Project is one element of GET /project.
type Project struct {
	ID        string   `json:"id"`
	Worktree  string   `json:"worktree"`
	Sandboxes []string `json:"sandboxes,omitempty"`
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
}

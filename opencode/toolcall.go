package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// DefaultBashTimeout is how long opencode's bash tool lets a command run
// when the call names no timeout.
const DefaultBashTimeout int64 = 2 * 60 * 1000 // ms

// ToolCall is one tool call of an assistant message, as
// GET /session/{id}/message/{messageID} shows it, and where the message
// was made.
type ToolCall struct {
	Tool   string
	Status string
	// Input is the call's arguments as the model gave them.
	Input json.RawMessage
	// Agent is the agent whose message it is.
	Agent string
	// Cwd is the directory of opencode's instance; Root its worktree (the
	// git worktree's top, "/" outside a repository), which the patterns
	// of edit permissions are relative to.
	Cwd, Root string
}

// BashInput is the input of a call of the bash tool.
type BashInput struct {
	Command string
	// Workdir is the folder the command runs in as the model named it;
	// "" is the instance directory.
	Workdir string
	// Timeout is in milliseconds; 0 when not given.
	Timeout int64
}

// Bash decodes the input of a bash call. A field of the wrong kind, or a
// negative timeout, is an error: what runs must be known exactly.
func (t ToolCall) Bash() (BashInput, error) {
	var in struct {
		Command *string         `json:"command"`
		Workdir *string         `json:"workdir"`
		Timeout json.RawMessage `json:"timeout"`
	}
	if err := json.Unmarshal(t.Input, &in); err != nil {
		return BashInput{}, fmt.Errorf("bash input: %w", err)
	}
	if in.Command == nil {
		return BashInput{}, fmt.Errorf("bash input: no command")
	}
	b := BashInput{Command: *in.Command}
	if in.Workdir != nil {
		b.Workdir = *in.Workdir
	}
	if in.Timeout != nil && string(in.Timeout) != "null" {
		var f float64
		err := json.Unmarshal(in.Timeout, &f)
		if err != nil || f < 0 || f > 1<<53 {
			return BashInput{}, fmt.Errorf("bash input: timeout %.20q is not a duration in ms", in.Timeout)
		}
		b.Timeout = int64(f)
		if float64(b.Timeout) != f {
			b.Timeout++ // a fraction of a millisecond longer still runs longer
		}
	}
	return b, nil
}

// toolMessage is the part of GET /session/{id}/message/{messageID}
// ToolCall reads.
type toolMessage struct {
	Info struct {
		Agent string `json:"agent"`
		Path  struct {
			Cwd  string `json:"cwd"`
			Root string `json:"root"`
		} `json:"path"`
	} `json:"info"`
	Parts []struct {
		Type   string `json:"type"`
		Tool   string `json:"tool"`
		CallID string `json:"callID"`
		State  struct {
			Status string          `json:"status"`
			Input  json.RawMessage `json:"input"`
		} `json:"state"`
	} `json:"parts"`
}

// ToolCall returns the call ref names, of session sessionID in directory
// dir. A message without that call is ErrNotFound.
func (c *Client) ToolCall(ctx context.Context, dir, sessionID string, ref ToolRef) (ToolCall, error) {
	op := "read tool call " + ref.CallID
	if sessionID == "" || ref.MessageID == "" || ref.CallID == "" {
		return ToolCall{}, fmt.Errorf("%s: session, message and call IDs are needed: %w", op, ErrNotAccepted)
	}
	var m toolMessage
	path := "/session/" + url.PathEscape(sessionID) + "/message/" + url.PathEscape(ref.MessageID)
	if err := c.call(ctx, op, http.MethodGet, path, dirQuery(dir), nil, &m); err != nil {
		return ToolCall{}, err
	}
	for _, p := range m.Parts {
		if p.Type == "tool" && p.CallID == ref.CallID {
			return ToolCall{
				Tool: p.Tool, Status: p.State.Status, Input: p.State.Input,
				Agent: m.Info.Agent, Cwd: m.Info.Path.Cwd, Root: m.Info.Path.Root,
			}, nil
		}
	}
	return ToolCall{}, fmt.Errorf("%s: message %s has no such call: %w", op, ref.MessageID, ErrNotFound)
}

// Agent is one element of GET /agent: an agent and its effective
// permission rules (opencode's defaults, then the user's configuration).
type Agent struct {
	Name       string  `json:"name"`
	Mode       string  `json:"mode,omitempty"`
	Permission Ruleset `json:"permission"`
}

// Agents returns every agent of directory dir.
func (c *Client) Agents(ctx context.Context, dir string) ([]Agent, error) {
	return list[Agent](ctx, c, "list agents", "/agent", dir)
}

package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ContextLine is one line of what the agent did before it asked: a line
// it wrote (Tool empty), or one tool call it made, as Tool and its short
// argument in Text (a command, a path, a pattern; "" when it has none).
type ContextLine struct {
	Tool string
	Text string
}

// ContextOptions says which request the context leads up to and how much
// of it to return.
type ContextOptions struct {
	// MessageID and CallID name the tool call that asked (a request's
	// ToolRef); what came after it is left out, and the call itself. Empty,
	// the context is the session's latest.
	MessageID, CallID string
	// Lines is how many lines to return at most, the newest; ≤ 0 is none.
	Lines int
	// MaxChars caps the characters of all lines together; the oldest line
	// kept is cut at its start ("…") to fit. ≤ 0 is DefaultContextChars.
	MaxChars int
}

const (
	// DefaultContextChars is ContextOptions.MaxChars when unset: a few
	// lines on a phone's screen.
	DefaultContextChars = 600
	// contextMessages is how many of a session's newest messages
	// RecentContext reads: a turn's last steps (one message each).
	contextMessages = 8
	// maxContextBytes bounds the answer RecentContext reads: tool outputs
	// and attached files make messages large.
	maxContextBytes = 8 << 20
	// maxArgument is the length a tool's short argument is cut to.
	maxArgument = 80
)

// errContextTooLarge stops reading an answer past maxContextBytes.
var errContextTooLarge = errors.New("answer too large")

// RecentContext returns the last lines the agent wrote in session
// sessionID of dir before the request opt names, newest last, within the
// current turn (messages after the person's latest prompt): its text,
// cut into lines, blank lines dropped, and one line per tool call.
// Reasoning, synthetic text and step markers are left out. It reads only
// the session's few newest messages, at most 8 MiB of them. A session
// that wrote nothing yet gives none and a nil error.
func (c *Client) RecentContext(ctx context.Context, dir, sessionID string, opt ContextOptions) ([]ContextLine, error) {
	if sessionID == "" {
		return nil, fmt.Errorf("recent context: empty session ID: %w", ErrNotAccepted)
	}
	if opt.Lines <= 0 {
		return nil, nil
	}
	var msgs []contextMessage
	var err error
	if c.Generation() == 2 {
		msgs, err = c.contextMessages2(ctx, sessionID)
	} else {
		msgs, err = c.contextMessages1(ctx, dir, sessionID)
	}
	if err != nil {
		return nil, err
	}
	return clipContext(turnLines(msgs, opt), opt), nil
}

// contextMessage is one message as RecentContext reads it, of either
// generation, oldest first.
type contextMessage struct {
	id    string
	user  bool // the person's prompt: the turn starts after it
	parts []contextPart
}

// contextPart is a text (tool empty) or a tool call.
type contextPart struct {
	text   string
	tool   string
	callID string
	input  toolInput
}

// contextMessages1 reads the newest messages of 1.x's GET
// /session/{id}/message: ?limit=N is honoured and keeps the newest N
// (checked against 1.18.33), listed oldest first.
func (c *Client) contextMessages1(ctx context.Context, dir, sessionID string) ([]contextMessage, error) {
	q := url.Values{"limit": {strconv.Itoa(contextMessages)}}
	maps.Copy(q, dirQuery(dir))
	var wire []struct {
		Info struct {
			ID   string `json:"id"`
			Role string `json:"role"`
		} `json:"info"`
		Parts []struct {
			Type      string `json:"type"`
			Text      string `json:"text"`
			Synthetic bool   `json:"synthetic"`
			Ignored   bool   `json:"ignored"`
			Tool      string `json:"tool"`
			CallID    string `json:"callID"`
			State     struct {
				Input toolInput `json:"input"`
			} `json:"state"`
		} `json:"parts"`
	}
	op := "list messages of session " + sessionID
	err := c.getCapped(ctx, op, "/session/"+url.PathEscape(sessionID)+"/message", q, &wire)
	if err != nil {
		return nil, err
	}
	out := make([]contextMessage, 0, len(wire))
	for _, w := range wire {
		m := contextMessage{id: w.Info.ID, user: w.Info.Role == "user"}
		for _, p := range w.Parts {
			switch {
			case p.Type == "text" && !p.Synthetic && !p.Ignored:
				m.parts = append(m.parts, contextPart{text: p.Text})
			case p.Type == "tool":
				m.parts = append(m.parts, contextPart{tool: p.Tool, callID: p.CallID, input: p.State.Input})
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// contextMessages2 reads OpenCode 2's GET /api/session/{sid}/message,
// newest first (order=desc), and returns them oldest first
// (packages/protocol/src/groups/message.ts@17dce3a,
// packages/schema/src/session-message.ts@0ceb3dd).
func (c *Client) contextMessages2(ctx context.Context, sessionID string) ([]contextMessage, error) {
	q := url.Values{"limit": {strconv.Itoa(contextMessages)}, "order": {"desc"}}
	var page data2[[]struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Content []struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			ID    string `json:"id"`
			Name  string `json:"name"`
			State struct {
				Input toolInput `json:"input"`
			} `json:"state"`
		} `json:"content"`
	}]
	op := "list messages of session " + sessionID
	if err := c.getCapped(ctx, op, sessionPath(sessionID, "message"), q, &page); err != nil {
		return nil, err
	}
	out := make([]contextMessage, 0, len(page.Data))
	for i := len(page.Data) - 1; i >= 0; i-- {
		w := page.Data[i]
		m := contextMessage{id: w.ID, user: w.Type == "user"}
		for _, p := range w.Content {
			switch p.Type {
			case "text":
				m.parts = append(m.parts, contextPart{text: p.Text})
			case "tool":
				// A streaming call's input is still a string: no argument yet.
				m.parts = append(m.parts, contextPart{tool: p.Name, callID: p.ID, input: p.State.Input})
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// getCapped does GET path into out, reading at most maxContextBytes of
// the answer: more is an error wrapping ErrNotAccepted, not a cut answer.
func (c *Client) getCapped(ctx context.Context, op, path string, q url.Values, out any) error {
	tooLarge := false
	err := c.do(ctx, op, http.MethodGet, path, q, nil, func(r io.Reader) error {
		lr := &io.LimitedReader{R: r, N: maxContextBytes + 1}
		err := json.NewDecoder(lr).Decode(out)
		if err != nil && lr.N <= 0 {
			tooLarge = true
			return errContextTooLarge
		}
		return err
	})
	if tooLarge {
		return fmt.Errorf("%s: the answer is larger than %d bytes: %w", op, maxContextBytes, ErrNotAccepted)
	}
	return err
}

// turnLines returns the lines of the messages of the current turn up to
// the call opt names.
func turnLines(msgs []contextMessage, opt ContextOptions) []ContextLine {
	end := len(msgs)
	if opt.MessageID != "" {
		// Message IDs sort by time, as opencode makes them (ascending):
		// this holds when the request's own message is not listed.
		end = 0
		for i, m := range msgs {
			if m.id <= opt.MessageID {
				end = i + 1
			}
		}
	}
	start := 0
	for i := end - 1; i >= 0; i-- {
		if msgs[i].user {
			start = i + 1
			break
		}
	}
	var lines []ContextLine
	for i := start; i < end; i++ {
		for _, p := range msgs[i].parts {
			if opt.CallID != "" && p.callID == opt.CallID {
				return lines // the request's own call, and what follows it
			}
			if p.tool != "" {
				lines = append(lines, ContextLine{Tool: p.tool, Text: p.input.argument()})
				continue
			}
			for l := range strings.SplitSeq(p.text, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					lines = append(lines, ContextLine{Text: l})
				}
			}
		}
	}
	return lines
}

// clipContext keeps the newest opt.Lines lines within opt.MaxChars
// characters, a newline counted between lines.
func clipContext(lines []ContextLine, opt ContextOptions) []ContextLine {
	if len(lines) > opt.Lines {
		lines = lines[len(lines)-opt.Lines:]
	}
	budget := opt.MaxChars
	if budget <= 0 {
		budget = DefaultContextChars
	}
	for i := len(lines) - 1; i >= 0; i-- {
		n := utf8.RuneCountInString(lines[i].Tool) + utf8.RuneCountInString(lines[i].Text) + 1
		if n <= budget {
			budget -= n
			continue
		}
		// Only text is cut: a tool line without its start says nothing.
		if lines[i].Tool == "" && budget > 1 {
			lines[i].Text = "…" + lastRunes(lines[i].Text, budget-2)
			return lines[i:]
		}
		return lines[i+1:]
	}
	return lines
}

// lastRunes returns the last n runes of s.
func lastRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

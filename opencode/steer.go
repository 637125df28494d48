package opencode

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// The calls below let a person steer the agent: start a session, prompt
// it, stop it, and tell the terminal what happened. Each names the
// session's directory, as every opencode call about a session must.

// CreateSession starts a new session in project directory dir. An empty
// title lets opencode name it after its first prompt.
func (c *Client) CreateSession(ctx context.Context, dir, title string) (Session, error) {
	var s Session
	if dir == "" {
		return s, fmt.Errorf("create session: no directory: %w", ErrNotAccepted)
	}
	if c.Generation() == 2 {
		return c.createSession2(ctx, dir, title)
	}
	body := map[string]string{}
	if t := strings.TrimSpace(title); t != "" {
		body["title"] = t
	}
	err := c.call(ctx, "create session", http.MethodPost, "/session", dirQuery(dir), body, &s)
	if err == nil && s.ID == "" {
		err = fmt.Errorf("create session: the answer has no session ID: %w", ErrTransient)
	}
	return s, err
}

// PromptAsync sends text to session id of dir as the person's next
// message; opencode runs the turn in the background. A session running a
// turn gets it after that turn (OpenCode 2's delivery "queue"). A session opencode
// does not know is ErrNotFound.
func (c *Client) PromptAsync(ctx context.Context, dir, id, text string) error {
	if id == "" || strings.TrimSpace(text) == "" {
		return fmt.Errorf("prompt session %q: no session or no text: %w", id, ErrNotAccepted)
	}
	if c.Generation() == 2 {
		return c.prompt2(ctx, id, text, deliverQueue)
	}
	body := map[string]any{"parts": []map[string]string{{"type": "text", "text": text}}}
	return c.call(ctx, "prompt session "+id, http.MethodPost, "/session/"+url.PathEscape(id)+"/prompt_async",
		dirQuery(dir), body, nil)
}

// Abort stops the turn session id of dir is running. opencode answers
// true whether or not it knows the session, so an unknown one is no
// error. A question the session was waiting on stays listed: the caller
// rejects it.
func (c *Client) Abort(ctx context.Context, dir, id string) error {
	if id == "" {
		return fmt.Errorf("abort session: empty session ID: %w", ErrNotAccepted)
	}
	if c.Generation() == 2 {
		return c.interrupt2(ctx, id)
	}
	var ok bool
	if err := c.call(ctx, "abort session "+id, http.MethodPost, "/session/"+url.PathEscape(id)+"/abort",
		dirQuery(dir), nil, &ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("abort session %s: opencode answered false: %w", id, ErrNotAccepted)
	}
	return nil
}

// ToastVariant is how a terminal toast looks.
type ToastVariant string

// The variants opencode accepts.
const (
	ToastInfo    ToastVariant = "info"
	ToastSuccess ToastVariant = "success"
	ToastWarning ToastVariant = "warning"
	ToastError   ToastVariant = "error"
)

// ShowToast shows message as a toast in the terminal UIs attached to dir
// (opencode's TUI); with none attached it does nothing, and says so no
// differently. On OpenCode 2 it does nothing.
func (c *Client) ShowToast(ctx context.Context, dir, message string, variant ToastVariant) error {
	if c.Generation() == 2 {
		return nil // OpenCode 2 has no terminal route known
	}
	body := map[string]string{"message": message, "variant": string(variant)}
	var ok bool
	if err := c.call(ctx, "show toast", http.MethodPost, "/tui/show-toast", dirQuery(dir), body, &ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("show toast: opencode answered false: %w", ErrNotAccepted)
	}
	return nil
}

// ListSessions returns the sessions of directory dir, as opencode lists
// them.
func (c *Client) ListSessions(ctx context.Context, dir string) ([]Session, error) {
	if c.Generation() == 2 {
		return c.listSessions2(ctx, dir)
	}
	var ss []Session
	err := c.call(ctx, "list sessions", http.MethodGet, "/session", dirQuery(dir), nil, &ss)
	return ss, err
}

// BusySessions returns the IDs of the sessions of dir running a turn now;
// every other session is idle. On OpenCode 2 it holds those of every
// directory.
func (c *Client) BusySessions(ctx context.Context, dir string) (map[string]bool, error) {
	if c.Generation() == 2 {
		return c.busySessions2(ctx)
	}
	var status map[string]struct {
		Type string `json:"type"`
	}
	if err := c.call(ctx, "session status", http.MethodGet, "/session/status", dirQuery(dir), nil, &status); err != nil {
		return nil, err
	}
	busy := make(map[string]bool, len(status))
	for id, s := range status {
		busy[id] = s.Type != "idle"
	}
	return busy, nil
}

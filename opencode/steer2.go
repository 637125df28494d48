package opencode

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// OpenCode 2 serves the steering calls under /api only
// (packages/protocol/src/groups/session.ts@01fd0c8). The 1.x methods of
// steer.go dispatch to these once Probe found generation 2; Steer has no
// 1.x counterpart.

// The deliveries of a prompt to a session running a turn.
const (
	deliverQueue = "queue" // after the running turn
	deliverSteer = "steer" // into the running turn
)

// errCannotSteer is Steer's error on opencode 1.x.
var errCannotSteer = fmt.Errorf("opencode 1.x cannot steer a running turn, only queue after it: %w", ErrNotAccepted)

// data2 is the envelope of an OpenCode 2 answer.
type data2[T any] struct {
	Data T `json:"data"`
}

// session2 is the part of OpenCode 2's Session.Info
// (packages/schema/src/session.ts) hermes-bot uses.
type session2 struct {
	ID       string `json:"id"`
	ParentID string `json:"parentID"`
	Title    string `json:"title"`
	Location struct {
		Directory string `json:"directory"`
	} `json:"location"`
	// Times are Unix milliseconds; float64 takes 1.7e12 as well.
	Time struct {
		Created float64 `json:"created"`
		Updated float64 `json:"updated"`
	} `json:"time"`
}

func (s session2) session() Session {
	out := Session{ID: s.ID, Title: s.Title, Directory: s.Location.Directory, ParentID: s.ParentID}
	out.Time.Created, out.Time.Updated = int64(s.Time.Created), int64(s.Time.Updated)
	return out
}

func (c *Client) createSession2(ctx context.Context, dir, title string) (Session, error) {
	body := map[string]any{"location": map[string]string{"directory": dir}}
	if t := strings.TrimSpace(title); t != "" {
		body["title"] = t
	}
	var s data2[session2]
	if err := c.call(ctx, "create session", http.MethodPost, "/api/session", nil, body, &s); err != nil {
		return Session{}, err
	}
	if s.Data.ID == "" {
		return Session{}, fmt.Errorf("create session: the answer has no session ID: %w", ErrTransient)
	}
	return s.Data.session(), nil
}

func (c *Client) getSession2(ctx context.Context, id string) (Session, error) {
	var s data2[session2]
	if err := c.call(ctx, "get session "+id, http.MethodGet, sessionPath(id), nil, nil, &s); err != nil {
		return Session{}, err
	}
	if s.Data.ID == "" {
		return Session{}, fmt.Errorf("get session %s: the answer has no session: %w", id, ErrTransient)
	}
	return s.Data.session(), nil
}

// listSessions2 returns the first page of dir's sessions: the most recent,
// which is what a person picks from.
func (c *Client) listSessions2(ctx context.Context, dir string) ([]Session, error) {
	var page data2[[]session2]
	if err := c.call(ctx, "list sessions", http.MethodGet, "/api/session", dirQuery(dir), nil, &page); err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(page.Data))
	for _, s := range page.Data {
		out = append(out, s.session())
	}
	return out, nil
}

// busySessions2 lists the sessions of every directory running a turn: the
// route is server-wide, and a caller looks its own sessions up in it.
func (c *Client) busySessions2(ctx context.Context) (map[string]bool, error) {
	var active data2[map[string]struct {
		Type string `json:"type"`
	}]
	if err := c.call(ctx, "active sessions", http.MethodGet, "/api/session/active", nil, nil, &active); err != nil {
		return nil, err
	}
	busy := make(map[string]bool, len(active.Data))
	for id, s := range active.Data {
		busy[id] = s.Type != "idle"
	}
	return busy, nil
}

// prompt2 sends text to session id with delivery. The body carries the
// text twice: under prompt (@8c6ff62) and at the top level (@01fd0c8);
// each schema ignores the other's key. The answer, 204 or 200 with data,
// is not needed.
func (c *Client) prompt2(ctx context.Context, id, text, delivery string) error {
	body := map[string]any{"text": text, "prompt": map[string]string{"text": text}, "delivery": delivery}
	return c.call(ctx, "prompt session "+id, http.MethodPost, sessionPath(id, "prompt"), nil, body, nil)
}

// interrupt2 stops session id's turn. The answer is 204 (@8c6ff62) or 200
// {interrupted} (@01fd0c8), false for an idle session: no error either
// way, as 1.x's abort of an idle session is none.
func (c *Client) interrupt2(ctx context.Context, id string) error {
	return c.call(ctx, "interrupt session "+id, http.MethodPost, sessionPath(id, "interrupt"), nil, nil, nil)
}

// Steer sends text into the turn session id of dir is running, as
// OpenCode 2 does with delivery "steer": the agent reads it at its next
// step instead of after the turn. An idle session just starts a turn.
// opencode 1.x cannot; its error wraps ErrNotAccepted.
func (c *Client) Steer(ctx context.Context, dir, id, text string) error {
	if id == "" || strings.TrimSpace(text) == "" {
		return fmt.Errorf("steer session %q: no session or no text: %w", id, ErrNotAccepted)
	}
	if c.Generation() != 2 {
		return fmt.Errorf("steer session %s: %w", id, errCannotSteer)
	}
	return c.prompt2(ctx, id, text, deliverSteer)
}

package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Surface names one of the two ways an opencode 1.x server asks and is
// answered. A request can be listed and answered only through the surface
// that raised it: each answers 404 for the other's request IDs.
type Surface uint8

const (
	// SurfaceLegacy is the original one: events question.asked and
	// permission.asked, routes /question and /permission. It is the zero
	// value, so a request that does not say is a legacy one.
	SurfaceLegacy Surface = iota
	// SurfaceAPI is the /api surface: events question.v2.asked and
	// permission.v2.asked, raised for sessions prompted through
	// POST /api/session/{id}/prompt; routes under /api.
	SurfaceAPI
)

// Surfaces lists every surface, for callers that list or reconcile each.
var Surfaces = [...]Surface{SurfaceLegacy, SurfaceAPI}

func (s Surface) String() string {
	switch s {
	case SurfaceLegacy:
		return "legacy"
	case SurfaceAPI:
		return "api"
	default:
		return fmt.Sprintf("surface(%d)", uint8(s))
	}
}

// Requests lists and answers the pending requests of one surface. Both
// surfaces take the same arguments, so a caller keeps the surface with
// each request and picks the adapter with Client.Requests, never
// branching on the surface itself.
//
// Every method blocks for one call (two for a legacy permission reply to
// an old server) and is safe for concurrent use. Errors are classified as
// for every Client method: an unknown or already answered request, and a
// wrong session, give ErrNotFound.
type Requests interface {
	// Surface is the surface the adapter speaks.
	Surface() Surface
	// ListQuestions returns the questions pending in directory dir ("":
	// the server's own), each with Surface set.
	ListQuestions(ctx context.Context, dir string) ([]QuestionRequest, error)
	// ListPermissions returns the permission requests pending in dir.
	ListPermissions(ctx context.Context, dir string) ([]PermissionRequest, error)
	// ReplyQuestion answers question requestID of session sessionID:
	// answers holds, in question order, the labels (or typed text) chosen.
	ReplyQuestion(ctx context.Context, dir, sessionID, requestID string, answers [][]string) error
	// RejectQuestion dismisses the question; the agent's turn ends.
	RejectQuestion(ctx context.Context, dir, sessionID, requestID string) error
	// ReplyPermission answers permission requestID with reply ("once",
	// "always" or "reject") and, when not empty, message.
	ReplyPermission(ctx context.Context, dir, sessionID, requestID, reply, message string) error
}

// Compile-time checks that both adapters are Requests.
var (
	_ Requests = LegacyRequests{}
	_ Requests = APIRequests{}
)

// Requests returns the adapter for surface s.
func (c *Client) Requests(s Surface) Requests {
	if s == SurfaceAPI {
		return APIRequests{c}
	}
	return LegacyRequests{c}
}

// API returns the adapter of the /api surface, which also lists one
// session's requests.
func (c *Client) API() APIRequests { return APIRequests{c} }

// LegacyRequests is the Requests of the legacy surface: the Client's own
// ListQuestions, ReplyQuestion, … methods. The legacy routes do not need
// the session, except an old server's permission route.
type LegacyRequests struct{ c *Client }

// Surface returns SurfaceLegacy.
func (LegacyRequests) Surface() Surface { return SurfaceLegacy }

// ListQuestions is Client.ListQuestions.
func (l LegacyRequests) ListQuestions(ctx context.Context, dir string) ([]QuestionRequest, error) {
	return l.c.ListQuestions(ctx, dir)
}

// ListPermissions is Client.ListPermissions.
func (l LegacyRequests) ListPermissions(ctx context.Context, dir string) ([]PermissionRequest, error) {
	return l.c.ListPermissions(ctx, dir)
}

// ReplyQuestion is Client.ReplyQuestion; sessionID is not needed.
func (l LegacyRequests) ReplyQuestion(ctx context.Context, dir, _, requestID string, answers [][]string) error {
	return l.c.ReplyQuestion(ctx, dir, requestID, answers)
}

// RejectQuestion is Client.RejectQuestion; sessionID is not needed.
func (l LegacyRequests) RejectQuestion(ctx context.Context, dir, _, requestID string) error {
	return l.c.RejectQuestion(ctx, dir, requestID)
}

// ReplyPermission is Client.ReplyPermission.
func (l LegacyRequests) ReplyPermission(ctx context.Context, dir, sessionID, requestID, reply, message string) error {
	return l.c.ReplyPermission(ctx, dir, sessionID, requestID, reply, message)
}

// APIRequests is the Requests of the /api surface (opencode 1.18 and
// later). The per-directory lists send dir as location[directory] (the
// server's own directory when dir is ""); a directory the server does not
// have answers 500, which is ErrTransient. The routes of one session
// (its lists, every reply) send no directory: the server finds it from
// the session, so a directory that moved or went away cannot misdirect
// an answer. Their dir argument is there to match Requests.
//
// A server without these routes answers them with its web app's HTML
// page: that is an error wrapping ErrNoRoute, never an empty list.
type APIRequests struct{ c *Client }

// Surface returns SurfaceAPI.
func (APIRequests) Surface() Surface { return SurfaceAPI }

// locationQuery is the query naming directory dir on the /api surface.
func locationQuery(dir string) url.Values {
	if dir == "" {
		return nil
	}
	return url.Values{"location[directory]": {dir}}
}

// apiList decodes a list answer of the /api surface: {"data": [...]},
// with a "location" beside it for the per-directory lists.
func apiList[T any](ctx context.Context, c *Client, op, path string, query url.Values) ([]T, error) {
	var out []T
	err := c.do(ctx, op, http.MethodGet, path, query, nil, func(r io.Reader) error {
		var body struct {
			Data *[]T `json:"data"`
		}
		body.Data = &out
		if err := json.NewDecoder(r).Decode(&body); err != nil {
			return err
		}
		if body.Data == nil {
			return fmt.Errorf("answer has no data field")
		}
		return nil
	})
	return out, err
}

func markQuestions(qs []QuestionRequest) []QuestionRequest {
	for i := range qs {
		qs[i].Surface = SurfaceAPI
	}
	return qs
}

func mapPermissions(ws []permissionV2) []PermissionRequest {
	if ws == nil {
		return nil
	}
	ps := make([]PermissionRequest, len(ws))
	for i, w := range ws {
		ps[i] = w.request()
	}
	return ps
}

// sessionPath is the /api path of session sessionID, or of its route
// rest, each part escaped.
func sessionPath(sessionID string, rest ...string) string {
	p := "/api/session/" + url.PathEscape(sessionID)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// ListQuestions returns the questions of the /api surface pending in
// directory dir (GET /api/question/request). No list spans directories.
func (a APIRequests) ListQuestions(ctx context.Context, dir string) ([]QuestionRequest, error) {
	qs, err := apiList[QuestionRequest](ctx, a.c, "list api questions in "+dir, "/api/question/request", locationQuery(dir))
	return markQuestions(qs), err
}

// ListPermissions returns the permission requests of the /api surface
// pending in directory dir (GET /api/permission/request).
func (a APIRequests) ListPermissions(ctx context.Context, dir string) ([]PermissionRequest, error) {
	ws, err := apiList[permissionV2](ctx, a.c, "list api permissions in "+dir, "/api/permission/request", locationQuery(dir))
	return mapPermissions(ws), err
}

// ListSessionQuestions returns the questions pending in session
// sessionID (GET /api/session/{id}/question). An unknown session gives
// ErrNotFound.
func (a APIRequests) ListSessionQuestions(ctx context.Context, _, sessionID string) ([]QuestionRequest, error) {
	op := "list api questions of session " + sessionID
	if sessionID == "" {
		return nil, fmt.Errorf("%s: empty session ID: %w", op, ErrNotAccepted)
	}
	qs, err := apiList[QuestionRequest](ctx, a.c, op, sessionPath(sessionID, "question"), nil)
	return markQuestions(qs), err
}

// ListSessionPermissions returns the permission requests pending in
// session sessionID (GET /api/session/{id}/permission).
func (a APIRequests) ListSessionPermissions(ctx context.Context, _, sessionID string) ([]PermissionRequest, error) {
	op := "list api permissions of session " + sessionID
	if sessionID == "" {
		return nil, fmt.Errorf("%s: empty session ID: %w", op, ErrNotAccepted)
	}
	ws, err := apiList[permissionV2](ctx, a.c, op, sessionPath(sessionID, "permission"), nil)
	return mapPermissions(ws), err
}

// checkIDs rejects a call that cannot name its route.
func checkIDs(op, sessionID, requestID string) error {
	switch {
	case sessionID == "":
		return fmt.Errorf("%s: empty session ID: %w", op, ErrNotAccepted)
	case requestID == "":
		return fmt.Errorf("%s: empty request ID: %w", op, ErrNotAccepted)
	}
	return nil
}

// ReplyQuestion answers question requestID of session sessionID
// (POST /api/session/{sid}/question/{id}/reply, {"answers": [[…], …]}).
// An unknown or answered request, or a wrong session, gives ErrNotFound.
func (a APIRequests) ReplyQuestion(ctx context.Context, _, sessionID, requestID string, answers [][]string) error {
	op := "reply api question " + requestID
	if err := checkIDs(op, sessionID, requestID); err != nil {
		return err
	}
	body := struct {
		Answers [][]string `json:"answers"`
	}{nonNilAnswers(answers)}
	return a.c.call(ctx, op, http.MethodPost, sessionPath(sessionID, "question", requestID, "reply"), nil, body, nil)
}

// RejectQuestion dismisses question requestID of session sessionID
// (POST /api/session/{sid}/question/{id}/reject).
func (a APIRequests) RejectQuestion(ctx context.Context, _, sessionID, requestID string) error {
	op := "reject api question " + requestID
	if err := checkIDs(op, sessionID, requestID); err != nil {
		return err
	}
	return a.c.call(ctx, op, http.MethodPost, sessionPath(sessionID, "question", requestID, "reject"), nil, nil, nil)
}

// ReplyPermission answers permission requestID of session sessionID
// (POST /api/session/{sid}/permission/{id}/reply, {"reply", "message"?}).
func (a APIRequests) ReplyPermission(ctx context.Context, _, sessionID, requestID, reply, message string) error {
	op := "reply api permission " + requestID
	if err := checkIDs(op, sessionID, requestID); err != nil {
		return err
	}
	if reply == "" {
		return fmt.Errorf("%s: empty reply: %w", op, ErrNotAccepted)
	}
	body := struct {
		Reply   string `json:"reply"`
		Message string `json:"message,omitempty"`
	}{reply, message}
	return a.c.call(ctx, op, http.MethodPost, sessionPath(sessionID, "permission", requestID, "reply"), nil, body, nil)
}

// nonNilAnswers copies answers with every nil answer made empty: the
// server wants arrays, never null, and the caller's slice stays as it is.
func nonNilAnswers(answers [][]string) [][]string {
	clean := make([][]string, len(answers))
	for i, a := range answers {
		clean[i] = a
		if a == nil {
			clean[i] = []string{}
		}
	}
	return clean
}

package opencode

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ListQuestions returns the questions pending in directory dir.
func (c *Client) ListQuestions(ctx context.Context, dir string) ([]QuestionRequest, error) {
	return list[QuestionRequest](ctx, c, "list questions in "+dir, "/question", dir)
}

// ReplyQuestion answers question request requestID of directory dir:
// answers holds, in question order, the labels (or typed text) chosen for
// each question. A request already answered or unknown gives ErrNotFound.
func (c *Client) ReplyQuestion(ctx context.Context, dir, requestID string, answers [][]string) error {
	op := "reply question " + requestID
	if requestID == "" {
		return fmt.Errorf("reply question: empty request ID: %w", ErrNotAccepted)
	}
	body := struct {
		Answers [][]string `json:"answers"`
	}{nonNilAnswers(answers)}
	return c.call(ctx, op, http.MethodPost, "/question/"+url.PathEscape(requestID)+"/reply", dirQuery(dir), body, nil)
}

// RejectQuestion dismisses question request requestID of directory dir;
// the agent's turn ends.
func (c *Client) RejectQuestion(ctx context.Context, dir, requestID string) error {
	op := "reject question " + requestID
	if requestID == "" {
		return fmt.Errorf("reject question: empty request ID: %w", ErrNotAccepted)
	}
	return c.call(ctx, op, http.MethodPost, "/question/"+url.PathEscape(requestID)+"/reject", dirQuery(dir), nil, nil)
}

// ListPermissions returns the permission requests pending in directory dir.
func (c *Client) ListPermissions(ctx context.Context, dir string) ([]PermissionRequest, error) {
	return list[PermissionRequest](ctx, c, "list permissions in "+dir, "/permission", dir)
}

// ReplyPermission answers permission request requestID of session
// sessionID in directory dir with reply ("once", "always" or "reject").
// message, when not empty, goes with it; with "reject" the agent reads it
// as feedback and goes on.
//
// A server without POST /permission/{id}/reply is answered through the
// older POST /session/{sessionID}/permissions/{id}, which carries no
// message.
func (c *Client) ReplyPermission(ctx context.Context, dir, sessionID, requestID, reply, message string) error {
	op := "reply permission " + requestID
	if requestID == "" {
		return fmt.Errorf("reply permission: empty request ID: %w", ErrNotAccepted)
	}
	if reply == "" {
		return fmt.Errorf("%s: empty reply: %w", op, ErrNotAccepted)
	}
	body := struct {
		Reply   string `json:"reply"`
		Message string `json:"message,omitempty"`
	}{reply, message}
	err := c.call(ctx, op, http.MethodPost, "/permission/"+url.PathEscape(requestID)+"/reply", dirQuery(dir), body, nil)
	var apiErr *APIError
	if sessionID == "" || !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound ||
		strings.Contains(apiErr.Body, "PermissionNotFoundError") {
		return err
	}
	// A 404 that is not about the permission means the route is missing:
	// an older server.
	legacy := struct {
		Response string `json:"response"`
	}{reply}
	path := "/session/" + url.PathEscape(sessionID) + "/permissions/" + url.PathEscape(requestID)
	return c.call(ctx, op+" (legacy route)", http.MethodPost, path, dirQuery(dir), legacy, nil)
}

// ResolveQuestionID finds the current ID of the question request ref
// describes, before an answer is sent: the ID held may no longer be
// listed though the same tool call still waits. It lists the questions of ref.Directory
// on ref.Surface and takes, in this order: ref.RequestID if it is listed; the request
// raised by tool call ref.CallID; the only pending request of ref.SessionID
// — unless that request names a different tool call than ref does, which
// proves it is another question. While none matches it lists again, up to
// the attempts set by WithResolveRetry, then returns an error wrapping
// ErrNotFound. Transient list failures are retried the same way; if the
// last attempt failed so, the error wraps ErrTransient instead. Other
// failures (401, 4xx) end it at once.
//
// It blocks for up to attempts × interval plus the calls themselves, and
// returns early when ctx is done.
func (c *Client) ResolveQuestionID(ctx context.Context, ref QuestionRef) (string, error) {
	op := fmt.Sprintf("resolve question %s (session %s, call %s)", ref.RequestID, ref.SessionID, ref.CallID)
	var lastErr error
	for attempt := 1; ; attempt++ {
		qs, err := c.Requests(ref.Surface).ListQuestions(ctx, ref.Directory)
		switch {
		case err == nil:
			if id, ok := matchQuestion(qs, ref); ok {
				return id, nil
			}
			lastErr = nil
		case errors.Is(err, ErrTransient):
			lastErr = err
		default:
			return "", fmt.Errorf("%s: %w", op, err)
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s: %w: %w", op, ErrTransient, ctx.Err())
		}
		if attempt >= c.resolveAttempts {
			break
		}
		if !sleep(ctx, c.resolveInterval) {
			return "", fmt.Errorf("%s: %w: %w", op, ErrTransient, ctx.Err())
		}
	}
	if lastErr != nil {
		return "", fmt.Errorf("%s: %w", op, lastErr)
	}
	return "", fmt.Errorf("%s: not pending after %d lists: %w", op, c.resolveAttempts, ErrNotFound)
}

func matchQuestion(qs []QuestionRequest, ref QuestionRef) (string, bool) {
	if ref.RequestID != "" {
		for _, q := range qs {
			if q.ID == ref.RequestID {
				return q.ID, true
			}
		}
	}
	if ref.CallID != "" {
		for _, q := range qs {
			if q.Tool != nil && q.Tool.CallID == ref.CallID && q.ID != "" {
				return q.ID, true
			}
		}
	}
	if ref.SessionID == "" {
		return "", false
	}
	var found string
	n := 0
	for _, q := range qs {
		if q.SessionID == ref.SessionID && q.ID != "" {
			found = q.ID
			n++
			if ref.CallID != "" && q.Tool != nil && q.Tool.CallID != "" && q.Tool.CallID != ref.CallID {
				// Another tool call's question: answering it would answer
				// the wrong thing.
				return "", false
			}
		}
	}
	return found, n == 1
}

package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
)

// These errors classify a failed call to the opencode server. Every error a
// Client method returns wraps exactly one of them, so callers decide with
// errors.Is.
var (
	// ErrNotFound is returned when the server answers 404: the request is
	// unknown or was already answered.
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized is returned when the server answers 401 or 403: the
	// username or password is wrong.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNotAccepted is returned for any other 4xx: the server refused
	// what was sent, and sending it again will not help.
	ErrNotAccepted = errors.New("not accepted")
	// ErrTransient is returned for 5xx answers and network failures: the
	// same call may succeed later.
	ErrTransient = errors.New("transient failure")
)

// These errors say more about a failure. They are never returned alone,
// always with one of the errors above.
var (
	// ErrNoRoute is returned when the server answered a web page rather
	// than JSON, as opencode does for any path under /api it does not
	// know. Under /api it comes with ErrNotAccepted: the route is not
	// served. Elsewhere, where the page is more likely a proxy's, it comes
	// with ErrTransient.
	ErrNoRoute = errors.New("route not served (the server answered a web page, not JSON)")
	// ErrUnsupportedServer is returned, with ErrNotAccepted, by Probe and
	// Watch when the server is not one hermes-bot can work with, such as
	// OpenCode 2. The error is an *UnsupportedServerError.
	ErrUnsupportedServer = errors.New("unsupported opencode server")
)

// APIError is an unsuccessful HTTP answer from the server.
type APIError struct {
	Op     string // e.g. "reply question que_…"
	Status int
	Body   string // at most a few hundred bytes of the answer
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Op, e.Status, e.Body)
}

// Tag returns the "_tag" of a JSON error body, as the /api routes send
// ("QuestionNotFoundError", "SessionNotFoundError", …), or "" when the
// body has none or was cut short.
func (e *APIError) Tag() string {
	var body struct {
		Tag string `json:"_tag"`
	}
	if json.Unmarshal([]byte(e.Body), &body) != nil {
		return ""
	}
	return body.Tag
}

// Unwrap maps the status to one of the sentinel errors. Every 404 is
// ErrNotFound, whatever its tag: a request unknown or already answered
// (QuestionNotFoundError, PermissionNotFoundError) and one named with a
// session that does not exist (SessionNotFoundError) are alike to a
// caller — nothing under that name waits for an answer.
func (e *APIError) Unwrap() error {
	switch {
	case e.Status == 404:
		return ErrNotFound
	case e.Status == 401 || e.Status == 403:
		return ErrUnauthorized
	case e.Status >= 400 && e.Status < 500:
		return ErrNotAccepted
	default:
		return ErrTransient
	}
}

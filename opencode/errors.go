package opencode

import (
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

// APIError is an unsuccessful HTTP answer from the server.
type APIError struct {
	Op     string // e.g. "reply question que_…"
	Status int
	Body   string // at most a few hundred bytes of the answer
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Op, e.Status, e.Body)
}

// Unwrap maps the status to one of the sentinel errors.
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

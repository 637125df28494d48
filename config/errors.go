package config

import (
	"errors"
	"fmt"
)

// These errors are wrapped in a *ValidationError that names the variable.
var (
	// ErrMissing is returned when a required setting is empty.
	ErrMissing = errors.New("is required")
	// ErrInvalid is returned when a setting cannot be parsed or is out of range.
	ErrInvalid = errors.New("is invalid")
)

// ValidationError says which variable is wrong and why. Value is empty for
// secrets, so printing the error never leaks them.
type ValidationError struct {
	Var    string // the environment variable, e.g. TELEGRAM_CHAT_ID
	Value  string // the offending value; empty for secrets
	Reason string // what is wrong, for a person
	Err    error  // ErrMissing or ErrInvalid
	// From is where the value came from: "env-file", "environment",
	// "flag --NAME", or "" (a default, or no value).
	From string
}

func (e *ValidationError) Error() string {
	switch {
	case e.Reason != "" && e.Value != "":
		return fmt.Sprintf("%s %v: %q: %s", e.Var, e.Err, e.Value, e.Reason)
	case e.Reason != "":
		return fmt.Sprintf("%s %v: %s", e.Var, e.Err, e.Reason)
	default:
		return fmt.Sprintf("%s %v", e.Var, e.Err)
	}
}

func (e *ValidationError) Unwrap() error { return e.Err }

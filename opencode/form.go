package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Form is a form of OpenCode 2 (form.created {form}, one element of
// GET /api/session/{sid}/form): fields to fill in, or with Mode "url" a
// link to open.
type Form struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionID"`
	Title     string          `json:"title,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	// Mode is FormModeFields or FormModeURL.
	Mode   string      `json:"mode"`
	Fields []FormField `json:"fields,omitempty"`
	URL    string      `json:"url,omitempty"`
}

// The modes of a Form.
const (
	FormModeFields = "form"
	FormModeURL    = "url"
)

// The types of a FormField.
const (
	FieldString      = "string"
	FieldNumber      = "number"
	FieldInteger     = "integer"
	FieldBoolean     = "boolean"
	FieldMultiselect = "multiselect"
)

// FormField is one field of a Form. Which of the optional attributes
// apply depends on Type; the rest are absent on the wire.
type FormField struct {
	Key         string `json:"key"`
	Type        string `json:"type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// When lists the conditions on earlier fields that must all hold for
	// the field to be asked.
	When FormWhen `json:"when,omitempty"`

	// string: Options (with Custom, a typed answer besides them), or a
	// typed answer checked against Format, MinLength, MaxLength, Pattern.
	Options     []FormOption `json:"options,omitempty"`
	Custom      bool         `json:"custom,omitempty"`
	Format      string       `json:"format,omitempty"`
	MinLength   *int         `json:"minLength,omitempty"`
	MaxLength   *int         `json:"maxLength,omitempty"`
	Pattern     string       `json:"pattern,omitempty"`
	Placeholder string       `json:"placeholder,omitempty"`
	// number and integer.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`
	// multiselect.
	MinItems *int `json:"minItems,omitempty"`
	MaxItems *int `json:"maxItems,omitempty"`
	// Default is the field's default, of its type.
	Default json.RawMessage `json:"default,omitempty"`
}

// FormOption is one choice of a field: Value is what the answer carries,
// Label what people see.
type FormOption struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// FormCondition is one condition of a field's When: the answer to the
// field Key is (Op "eq") or is not (Op "neq") Value.
type FormCondition struct {
	Key   string          `json:"key"`
	Op    string          `json:"op"`
	Value json.RawMessage `json:"value"`
}

// FormWhen is a field's conditions. The definitions hold a list, or in
// an older version one condition; both decode.
type FormWhen []FormCondition

// UnmarshalJSON takes a list of conditions or a single one.
func (w *FormWhen) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*w = nil
		return nil
	case len(b) > 0 && b[0] == '{':
		var c FormCondition
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("form field when: %w", err)
		}
		*w = FormWhen{c}
		return nil
	}
	var cs []FormCondition
	if err := json.Unmarshal(b, &cs); err != nil {
		return fmt.Errorf("form field when: %w", err)
	}
	*w = cs
	return nil
}

// FormAnswer is the answer to a form: per field key, a string, a JSON
// number, a boolean or a list of strings. A field left out is not answered.
type FormAnswer map[string]any

// FormReplied is the data of form.replied.
type FormReplied struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionID"`
	Answer    json.RawMessage `json:"answer,omitempty"`
}

// FormCancelled is the data of form.cancelled.
type FormCancelled struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
}

// FormInvalidError is OpenCode 2 refusing a form's answer
// (FormInvalidAnswerError): Message says why, for people. It wraps
// ErrNotAccepted.
type FormInvalidError struct {
	FormID  string
	Message string
}

func (e *FormInvalidError) Error() string {
	return "form " + e.FormID + ": answer refused: " + e.Message
}

// Unwrap returns ErrNotAccepted.
func (e *FormInvalidError) Unwrap() error { return ErrNotAccepted }

// ListSessionForms returns the forms pending in session sessionID
// (GET /api/session/{sid}/form, {data: [form]}). An unknown session gives
// ErrNotFound.
func (c *Client) ListSessionForms(ctx context.Context, sessionID string) ([]Form, error) {
	op := "list forms of session " + sessionID
	if sessionID == "" {
		return nil, fmt.Errorf("%s: empty session ID: %w", op, ErrNotAccepted)
	}
	return apiList[Form](ctx, c, op, sessionPath(sessionID, "form"), nil)
}

// ReplyForm answers form formID of session sessionID
// (POST /api/session/{sid}/form/{id}/reply, {"answer": {key: value}}).
// An answer the server refuses is a *FormInvalidError; a form unknown or
// settled already (FormAlreadySettledError) gives ErrNotFound, as nothing
// waits for the answer any more.
func (c *Client) ReplyForm(ctx context.Context, sessionID, formID string, answer FormAnswer) error {
	op := "reply form " + formID
	if err := checkIDs(op, sessionID, formID); err != nil {
		return err
	}
	if answer == nil {
		answer = FormAnswer{}
	}
	body := struct {
		Answer FormAnswer `json:"answer"`
	}{answer}
	return formError(formID, c.call(ctx, op, http.MethodPost, sessionPath(sessionID, "form", formID, "reply"), nil, body, nil))
}

// CancelForm cancels form formID of session sessionID: the asker hears
// that nobody answered. It sends DELETE /api/session/{sid}/form/{id}
// (@01fd0c8), and POST …/form/{id}/cancel (@8c6ff62) to a server without
// that route. A form unknown or settled already gives ErrNotFound.
func (c *Client) CancelForm(ctx context.Context, sessionID, formID string) error {
	op := "cancel form " + formID
	if err := checkIDs(op, sessionID, formID); err != nil {
		return err
	}
	err := c.call(ctx, op, http.MethodDelete, sessionPath(sessionID, "form", formID), nil, nil, nil)
	if routeMissing(err) {
		err = c.call(ctx, op, http.MethodPost, sessionPath(sessionID, "form", formID, "cancel"), nil, nil, nil)
	}
	return formError(formID, err)
}

// routeMissing reports whether err says the server has no such route: a
// web page, or a 404 or 405 without a _tag (a tagged 404 is the route's
// own answer).
func routeMissing(err error) bool {
	if errors.Is(err, ErrNoRoute) {
		return true
	}
	var ae *APIError
	return errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusMethodNotAllowed) && ae.Tag() == ""
}

// formError maps the documented failures of a form's routes.
func formError(formID string, err error) error {
	var ae *APIError
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.Tag() {
	case "FormInvalidAnswerError":
		var body struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal([]byte(ae.Body), &body)
		if body.Message == "" {
			body.Message = "the server gave no reason"
		}
		return fmt.Errorf("%w (%w)", &FormInvalidError{FormID: formID, Message: body.Message}, err)
	case "FormAlreadySettledError":
		return fmt.Errorf("%w: %w", err, ErrNotFound)
	}
	return err
}

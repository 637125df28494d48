package opencodetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// Form is a form of OpenCode 2: mode "form" asks for Fields, mode "url"
// sends the user to URL.
type Form struct {
	ID        string         `json:"id"`
	SessionID string         `json:"sessionID"`
	Title     string         `json:"title,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	Mode      string         `json:"mode"`
	URL       string         `json:"url,omitempty"`
	Fields    []FormField    `json:"fields,omitempty"`
}

// FormField is one field of a Form. Type is string, number, integer,
// boolean or multiselect; the other settings apply to the types the
// schema gives them to.
type FormField struct {
	Key         string          `json:"key"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Required    bool            `json:"required,omitempty"`
	When        []FormCondition `json:"when,omitempty"`
	Type        string          `json:"type"`
	Options     []FormOption    `json:"options,omitempty"`
	Custom      bool            `json:"custom,omitempty"`
	Format      string          `json:"format,omitempty"` // email, uri, date or date-time
	MinLength   *int            `json:"minLength,omitempty"`
	MaxLength   *int            `json:"maxLength,omitempty"`
	Pattern     string          `json:"pattern,omitempty"`
	Placeholder string          `json:"placeholder,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	MinItems    *int            `json:"minItems,omitempty"`
	MaxItems    *int            `json:"maxItems,omitempty"`
	Default     any             `json:"default,omitempty"`
}

// FormCondition is one condition of FormField.When, about a field earlier
// in the form: its answer equals (op "eq") or differs from ("neq") Value.
type FormCondition struct {
	Key   string `json:"key"`
	Op    string `json:"op"`
	Value any    `json:"value"`
}

// FormOption is one choice of a string or multiselect field.
type FormOption struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// normalizeForm gives f's values their JSON types (float64 for numbers),
// so conditions compare like with like against a decoded answer.
func normalizeForm(f Form) Form {
	b, err := json.Marshal(f)
	if err != nil {
		panic(fmt.Sprintf("opencodetest: AddForm: %v", err))
	}
	var out Form
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("opencodetest: AddForm: %v", err))
	}
	return out
}

// checkForm refuses a form the schema would not accept.
func checkForm(f Form) error {
	switch f.Mode {
	case "url":
		if f.URL == "" || len(f.Fields) > 0 {
			return errors.New("a url form has a url and no fields")
		}
		return nil
	case "form":
	default:
		return fmt.Errorf("mode %q, want form or url", f.Mode)
	}
	seen := map[string]bool{}
	for _, fd := range f.Fields {
		if fd.Key == "" || seen[fd.Key] {
			return fmt.Errorf("field key %q empty or repeated", fd.Key)
		}
		for _, c := range fd.When {
			if !seen[c.Key] || (c.Op != "eq" && c.Op != "neq") {
				return fmt.Errorf("field %q: condition on %q with op %q: want an earlier field and eq or neq", fd.Key, c.Key, c.Op)
			}
		}
		seen[fd.Key] = true
		switch fd.Type {
		case "string", "number", "integer", "boolean":
		case "multiselect":
			if len(fd.Options) == 0 {
				return fmt.Errorf("field %q: a multiselect without options", fd.Key)
			}
		default:
			return fmt.Errorf("field %q: type %q", fd.Key, fd.Type)
		}
		if _, err := regexp.Compile(fd.Pattern); err != nil {
			return fmt.Errorf("field %q: %w", fd.Key, err)
		}
	}
	return nil
}

// asked reports whether every condition of fd holds for answer.
func asked(fd FormField, answer map[string]any) bool {
	for _, c := range fd.When {
		v, ok := answer[c.Key]
		if equal := ok && reflect.DeepEqual(v, c.Value); equal != (c.Op == "eq") {
			return false
		}
	}
	return true
}

// validateAnswer checks a decoded answer against f. A value for a field
// whose conditions do not hold is refused, like a key no field has.
func validateAnswer(f Form, answer map[string]any) error {
	if f.Mode == "url" {
		if len(answer) > 0 {
			return errors.New("a url form takes an empty answer")
		}
		return nil
	}
	for k := range answer {
		if !slices.ContainsFunc(f.Fields, func(fd FormField) bool { return fd.Key == k }) {
			return fmt.Errorf("no field %q", k)
		}
	}
	for _, fd := range f.Fields {
		v, present := answer[fd.Key]
		switch {
		case !asked(fd, answer):
			if present {
				return fmt.Errorf("field %q is not asked: its conditions do not hold", fd.Key)
			}
		case !present:
			if fd.Required {
				return fmt.Errorf("field %q is required", fd.Key)
			}
		default:
			if err := checkValue(fd, v); err != nil {
				return fmt.Errorf("field %q: %w", fd.Key, err)
			}
		}
	}
	return nil
}

func checkValue(fd FormField, v any) error {
	switch fd.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return errors.New("want a string")
		}
		return checkString(fd, s)
	case "number", "integer":
		n, ok := v.(float64)
		if !ok {
			return errors.New("want a number")
		}
		if fd.Type == "integer" && n != math.Trunc(n) {
			return errors.New("want an integer")
		}
		if fd.Minimum != nil && n < *fd.Minimum || fd.Maximum != nil && n > *fd.Maximum {
			return fmt.Errorf("%v is out of range", n)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return errors.New("want a boolean")
		}
	case "multiselect":
		list, ok := v.([]any)
		if !ok {
			return errors.New("want a list of strings")
		}
		for _, item := range list {
			s, ok := item.(string)
			if !ok {
				return errors.New("want a list of strings")
			}
			if !fd.Custom && !hasOption(fd, s) {
				return fmt.Errorf("%q is not an option", s)
			}
		}
		if fd.MinItems != nil && len(list) < *fd.MinItems || fd.MaxItems != nil && len(list) > *fd.MaxItems {
			return fmt.Errorf("%d items is out of range", len(list))
		}
	}
	return nil
}

func hasOption(fd FormField, s string) bool {
	return slices.ContainsFunc(fd.Options, func(o FormOption) bool { return o.Value == s })
}

func checkString(fd FormField, s string) error {
	if len(fd.Options) > 0 && !fd.Custom && !hasOption(fd, s) {
		return fmt.Errorf("%q is not an option", s)
	}
	n := utf8.RuneCountInString(s)
	if fd.MinLength != nil && n < *fd.MinLength || fd.MaxLength != nil && n > *fd.MaxLength {
		return fmt.Errorf("length %d is out of range", n)
	}
	if fd.Pattern != "" && !regexp.MustCompile(fd.Pattern).MatchString(s) {
		return fmt.Errorf("%q does not match %s", s, fd.Pattern)
	}
	var ok bool
	switch fd.Format {
	case "email":
		local, domain, found := strings.Cut(s, "@")
		ok = found && local != "" && domain != "" && !strings.ContainsAny(s, " \t") && !strings.Contains(domain, "@")
	case "uri":
		u, err := url.Parse(s)
		ok = err == nil && u.Scheme != ""
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		ok = err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		ok = err == nil
	default:
		ok = true
	}
	if !ok {
		return fmt.Errorf("%q is not a valid %s", s, fd.Format)
	}
	return nil
}

// form2 is a form and where it stands.
type form2 struct {
	Form
	state FormState
}

// FormState is the answer of GET …/form/{id}/state under data.
type FormState struct {
	Status string         `json:"status"` // pending, answered or cancelled
	Answer map[string]any `json:"answer,omitempty"`
}

// AddForm makes f pending in session sid and sends form.created. An
// empty ID gets a fresh one, an empty mode is "form". It returns the form
// as stored, and panics on a form the schema refuses (a bug in the test).
func (s *Server) AddForm(sid string, f Form) Form {
	f.SessionID = sid
	if f.Mode == "" {
		f.Mode = "form"
	}
	f = normalizeForm(f)
	if err := checkForm(f); err != nil {
		panic(fmt.Sprintf("opencodetest: AddForm: %v", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.ID == "" {
		f.ID = s.nextIDLocked("frm")
	}
	s.touchLocked(sid, "")
	s.forms = append(s.forms, &form2{Form: f, state: FormState{Status: "pending"}})
	s.sendLocked("", "form.created", map[string]any{"form": f})
	s.hintLocked(sid)
	s.broadcastLocked()
	return f
}

// Forms returns the forms pending in session sid.
func (s *Server) Forms(sid string) []Form {
	return locked(s, func() []Form {
		out := []Form{}
		for _, f := range s.forms {
			if f.SessionID == sid && f.state.Status == "pending" {
				out = append(out, f.Form)
			}
		}
		return out
	})
}

// RefuseNextReply makes the next reply to form id fail with
// FormInvalidAnswerError carrying message, as a server whose own checks
// go further than a client's would.
func (s *Server) RefuseNextReply(id, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse[id] = message
}

// AnswerForm answers pending form id as another client would: its state
// becomes answered and form.replied is sent. Replies does not record it.
func (s *Server) AnswerForm(id string, answer map[string]any) error {
	return s.settleForm(id, FormState{Status: "answered", Answer: answer})
}

// CancelFormElsewhere cancels pending form id as another client would,
// sending form.cancelled.
func (s *Server) CancelFormElsewhere(id string) error {
	return s.settleForm(id, FormState{Status: "cancelled"})
}

func (s *Server) settleForm(id string, st FormState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.forms, func(f *form2) bool { return f.ID == id })
	if i < 0 {
		return fmt.Errorf("opencodetest: no form %s", id)
	}
	if f := s.forms[i]; f.state.Status != "pending" {
		return fmt.Errorf("opencodetest: form %s is %s already", id, f.state.Status)
	}
	s.settleFormLocked(s.forms[i], st)
	return nil
}

func (s *Server) settleFormLocked(f *form2, st FormState) {
	f.state = st
	data, typ := map[string]any{"id": f.ID, "sessionID": f.SessionID}, "form.cancelled"
	if st.Status == "answered" {
		data["answer"], typ = st.Answer, "form.replied"
	}
	s.sendLocked("", typ, data)
	s.hintLocked(f.SessionID)
	s.broadcastLocked()
}

func (s *Server) handleForms(w http.ResponseWriter, r *http.Request) {
	if sid, ok := s.apiSession(w, r); ok {
		fakeWriteJSON(w, http.StatusOK, map[string]any{"data": s.Forms(sid)})
	}
}

// formError writes an error of the form routes: {"_tag", "id", "message"}.
func formError(w http.ResponseWriter, status int, tag, id, message string) {
	fakeWriteJSON(w, status, map[string]string{"_tag": tag, "id": id, "message": message})
}

// formLocked finds the form of a route, answering 404 when the session
// has none with that ID and, when pending, 409 when it is settled.
func (s *Server) formLocked(w http.ResponseWriter, r *http.Request, pending bool) *form2 {
	sid, ok := pathID(w, r, "sid", "ses") // under s.mu: OpenCode 2 knows every session
	if !ok {
		return nil
	}
	id := r.PathValue("id")
	i := slices.IndexFunc(s.forms, func(f *form2) bool { return f.ID == id && f.SessionID == sid })
	switch {
	case i < 0:
		formError(w, http.StatusNotFound, "FormNotFoundError", id, "Form not found: "+id)
	case pending && s.forms[i].state.Status != "pending":
		formError(w, http.StatusConflict, "FormAlreadySettledError", id, "Form already "+s.forms[i].state.Status+": "+id)
	default:
		return s.forms[i]
	}
	return nil
}

func (s *Server) handleFormReply(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.formLocked(w, r, true)
	if f == nil {
		return
	}
	var body struct {
		Answer map[string]any `json:"answer"`
	}
	if err := decode(fakeBody(r), &body, true); err != nil || body.Answer == nil {
		formError(w, http.StatusBadRequest, "FormInvalidAnswerError", f.ID, "Expected {\"answer\": {key: value}}")
		return
	}
	if err := validateAnswer(f.Form, body.Answer); err != nil {
		formError(w, http.StatusBadRequest, "FormInvalidAnswerError", f.ID, err.Error())
		return
	}
	if why, ok := s.refuse[f.ID]; ok {
		delete(s.refuse, f.ID)
		formError(w, http.StatusBadRequest, "FormInvalidAnswerError", f.ID, why)
		return
	}
	s.replies = append(s.replies, Reply{Kind: ReplyForm, SessionID: f.SessionID, RequestID: f.ID, Answer: body.Answer, Surface: opencode.SurfaceAPI})
	s.settleFormLocked(f, FormState{Status: "answered", Answer: body.Answer})
	w.WriteHeader(http.StatusNoContent)
}

// handleFormCancel serves both spellings of a cancel: POST …/cancel and
// DELETE …/form/{id}?message=.
func (s *Server) handleFormCancel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.formLocked(w, r, true); f != nil {
		s.replies = append(s.replies, Reply{Kind: CancelForm, SessionID: f.SessionID, RequestID: f.ID,
			Message: r.URL.Query().Get("message"), Surface: opencode.SurfaceAPI})
		s.settleFormLocked(f, FormState{Status: "cancelled"})
		w.WriteHeader(http.StatusNoContent)
	}
}

func (s *Server) handleFormState(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.formLocked(w, r, false); f != nil {
		fakeWriteJSON(w, http.StatusOK, map[string]any{"data": f.state})
	}
}

package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"net/mail"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// OpenCode 2 asks with forms. A form is held as a question request whose
// questions are its fields (see package pending), so it is posted,
// walked, answered, expired and listed by the paths of 1.x questions;
// what differs is here: mapping a form to its entry, which field comes
// next (when), checking a typed answer, and the typed answer opencode
// takes.

// formCreated posts a new form, as questionAsked posts a question.
func (b *Bridge) formCreated(ctx context.Context, ev opencode.Event) {
	f := ev.FormAsked
	e := b.newEntry(pending.KindQuestion, ev, opencode.SurfaceAPI, f.SessionID, f.ID, nil)
	e.Form = &pending.Form{Mode: f.Mode, URL: f.URL, Title: f.Title}
	e.Generation = ev.Generation
	if e.Generation == 0 {
		e.Generation = 2 // forms are OpenCode 2's only
	}
	for _, fld := range f.Fields {
		e.Questions = append(e.Questions, b.fieldQuestion(fld))
	}
	log := withEntry(b.log, e)
	if f.ID == "" || f.SessionID == "" || (f.Mode != opencode.FormModeURL && len(e.Questions) == 0) {
		log.Warn().Int("fields", len(e.Questions)).Str("mode", f.Mode).Msg("ignoring form without an ID, a session or fields")
		return
	}
	e.Current = nextField(e, nil, 0)
	if e.Current >= len(e.Questions) {
		e.Current = 0
	}
	b.postNew(ctx, log, ev, e, "form")
}

// fieldQuestion is form field f as a question of an entry.
func (b *Bridge) fieldQuestion(f opencode.FormField) pending.Question {
	q := pending.Question{
		Text: f.Description, Header: f.Title, Key: f.Key, Type: f.Type, Required: f.Required,
		Custom: f.Custom, Format: f.Format, Pattern: f.Pattern, Placeholder: f.Placeholder,
		MinLength: f.MinLength, MaxLength: f.MaxLength, Minimum: f.Minimum, Maximum: f.Maximum,
		MinItems: f.MinItems, MaxItems: f.MaxItems, Default: f.Default,
	}
	if q.Header == "" {
		q.Header = f.Key
	}
	for _, c := range f.When {
		q.When = append(q.When, pending.Condition{Key: c.Key, Op: c.Op, Value: c.Value})
	}
	for _, o := range f.Options {
		label := o.Label
		if strings.TrimSpace(label) == "" {
			label = o.Value
		}
		q.Options = append(q.Options, pending.Option{Label: label, Value: o.Value, Description: o.Description})
	}
	switch f.Type {
	case opencode.FieldMultiselect:
		q.Multiple = true
	case opencode.FieldBoolean:
		q.Options = []pending.Option{{Label: b.text.Form.Yes, Value: "true"}, {Label: b.text.Form.No, Value: "false"}}
		q.Custom = false
	case opencode.FieldNumber, opencode.FieldInteger:
		q.Options, q.Custom = nil, false
	}
	return q
}

// nextField is the index of the first question of e from from on that is
// asked given answers: a 1.x question always is, a field when its
// conditions hold. len(e.Questions) when none is left.
func nextField(e *pending.Entry, answers [][]string, from int) int {
	for i := max(from, 0); i < len(e.Questions); i++ {
		if applies(e, answers, i) {
			return i
		}
	}
	return len(e.Questions)
}

// applies reports whether every condition of field i holds given answers.
// A field not answered has no value: eq fails and neq holds.
func applies(e *pending.Entry, answers [][]string, i int) bool {
	for _, c := range e.Questions[i].When {
		j := slices.IndexFunc(e.Questions, func(q pending.Question) bool { return q.Key == c.Key })
		equal := false
		if j >= 0 && j < len(answers) && answers[j] != nil {
			if v, err := fieldValue(e.Questions[j], answers[j]); err == nil {
				equal = equalJSON(v, c.Value)
			}
		}
		switch c.Op {
		case "eq":
			if !equal {
				return false
			}
		case "neq":
			if equal {
				return false
			}
		}
	}
	return true
}

// equalJSON reports whether answer value v equals JSON value want, as JSON
// values: numbers numerically, and a list equal to a value it contains.
func equalJSON(v any, want json.RawMessage) bool {
	raw, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var got, w any
	if json.Unmarshal(raw, &got) != nil || json.Unmarshal(want, &w) != nil {
		return false
	}
	if reflect.DeepEqual(got, w) {
		return true
	}
	if list, ok := got.([]any); ok {
		if _, scalar := w.([]any); !scalar {
			return slices.ContainsFunc(list, func(x any) bool { return reflect.DeepEqual(x, w) })
		}
	}
	return false
}

// fieldValue is the typed value of answer (labels, or the text typed) to
// field q: an option's value, a JSON number, a boolean, a list of strings.
func fieldValue(q pending.Question, answer []string) (any, error) {
	if q.Type == pending.TypeMultiselect {
		out := make([]string, 0, len(answer))
		for _, a := range answer {
			out = append(out, optionValue(q, a))
		}
		return out, nil
	}
	if len(answer) == 0 {
		return nil, fmt.Errorf("field %q: no answer", q.Key)
	}
	v := optionValue(q, answer[0])
	switch q.Type {
	case pending.TypeBoolean:
		t, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("field %q: %q is not a boolean: %w", q.Key, v, err)
		}
		return t, nil
	case pending.TypeNumber, pending.TypeInteger:
		n, ok := parseNumber(v, q.Type == pending.TypeInteger)
		if !ok {
			return nil, fmt.Errorf("field %q: %q is not a %s", q.Key, v, q.Type)
		}
		return n, nil
	}
	return v, nil
}

// optionValue is the value of q's option labelled label, or label itself
// when no option has it (a typed answer).
func optionValue(q pending.Question, label string) string {
	if i := slices.IndexFunc(q.Options, func(o pending.Option) bool { return o.Label == label }); i >= 0 && q.Options[i].Value != "" {
		return q.Options[i].Value
	}
	return label
}

// parseNumber reads a number as a person types it, and reports whether
// it is one (whole, with integer).
func parseNumber(s string, integer bool) (json.Number, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "xXpP_") {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || (integer && f != math.Trunc(f)) {
		return "", false
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), true
}

// formAnswer is the answer opencode takes for form e answered with
// answers: per field asked and answered, its typed value.
func formAnswer(e *pending.Entry, answers [][]string) (opencode.FormAnswer, error) {
	out := opencode.FormAnswer{}
	for i, q := range e.Questions {
		if i >= len(answers) || answers[i] == nil || !applies(e, answers, i) {
			continue
		}
		v, err := fieldValue(q, answers[i])
		if err != nil {
			return nil, fmt.Errorf("answer of form %s: %w", e.RequestID, err)
		}
		out[q.Key] = v
	}
	return out, nil
}

// shownAnswers are the answers of form.replied's answer as e's message
// shows them: option labels, numbers and texts as written. nil when
// there is no answer to show.
func shownAnswers(e *pending.Entry, answer json.RawMessage) [][]string {
	var byKey map[string]json.RawMessage
	if len(answer) == 0 || json.Unmarshal(answer, &byKey) != nil || len(byKey) == 0 {
		return nil
	}
	label := func(q pending.Question, v string) string {
		if i := slices.IndexFunc(q.Options, func(o pending.Option) bool { return o.Value == v }); i >= 0 {
			return q.Options[i].Label
		}
		return v
	}
	out := make([][]string, len(e.Questions))
	for i, q := range e.Questions {
		raw, ok := byKey[q.Key]
		if !ok {
			continue
		}
		var list []string
		var s string
		switch {
		case json.Unmarshal(raw, &list) == nil && list != nil:
			for _, v := range list {
				out[i] = append(out[i], label(q, v))
			}
			if out[i] == nil {
				out[i] = []string{}
			}
		case json.Unmarshal(raw, &s) == nil:
			out[i] = []string{label(q, s)}
		default:
			out[i] = []string{label(q, strings.TrimSpace(string(raw)))}
		}
	}
	return out
}

// checkTyped checks text typed as the answer to field q, as opencode
// would, and returns what is wrong with it ("" if nothing): in tx's
// language, naming the rule. A pattern Go cannot compile is left to
// opencode.
func checkTyped(tx *i18n.Text, q pending.Question, text string) string {
	ft := tx.Form
	switch q.Type {
	case pending.TypeNumber, pending.TypeInteger:
		n, ok := parseNumber(text, q.Type == pending.TypeInteger)
		if !ok {
			if _, isNum := parseNumber(text, false); isNum {
				return ft.NotInteger
			}
			return ft.NotNumber
		}
		f, _ := n.Float64()
		if q.Minimum != nil && f < *q.Minimum {
			return ft.TooSmall(formatNumber(*q.Minimum))
		}
		if q.Maximum != nil && f > *q.Maximum {
			return ft.TooLarge(formatNumber(*q.Maximum))
		}
		return ""
	case pending.TypeString:
	default:
		return ""
	}
	n := utf8.RuneCountInString(text)
	if q.MinLength != nil && n < *q.MinLength {
		return ft.TooShort(*q.MinLength)
	}
	if q.MaxLength != nil && n > *q.MaxLength {
		return ft.TooLong(*q.MaxLength)
	}
	if q.Pattern != "" {
		if re, err := regexp.Compile(q.Pattern); err == nil && !re.MatchString(text) {
			return ft.NoMatch(q.Pattern)
		}
	}
	s := strings.TrimSpace(text)
	switch q.Format {
	case "email":
		if !isEmail(s) {
			return ft.BadEmail
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t\n") {
			return ft.BadURI
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return ft.BadDate
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return ft.BadDateTime
		}
	}
	return ""
}

// isEmail reports whether s is one address: one @ with text on both
// sides, which net/mail reads as nothing more.
func isEmail(s string) bool {
	at := strings.Index(s, "@")
	if at <= 0 || at == len(s)-1 || strings.Count(s, "@") != 1 || strings.ContainsAny(s, " \t\n<>") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s
}

// formatNumber writes a bound as people read it: 10, 2.5.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// checkItems checks how many options are chosen of multiselect q: at
// least MinItems (1 when it is required and says none), at most
// MaxItems. It returns what is wrong ("" if nothing).
func checkItems(tx *i18n.Text, q pending.Question, n int) string {
	least := 0
	if q.MinItems != nil {
		least = *q.MinItems
	}
	if q.Required && least < 1 {
		least = 1
	}
	if n < least {
		return tx.Form.TooFew(least)
	}
	if q.MaxItems != nil && n > *q.MaxItems {
		return tx.Form.TooMany(*q.MaxItems)
	}
	return ""
}

// typedAnswer is the answer text typed makes to e's current question, or
// what is wrong with it. For a multiselect, the text is one more choice
// beside the options selected.
func (b *Bridge) typedAnswer(e *pending.Entry, text string) ([]string, string) {
	q := e.Questions[e.Current]
	if !q.IsField() {
		return []string{text}, ""
	}
	if q.Multiple {
		answer := append(q.Selected(e.Selected), text)
		return answer, checkItems(b.text, q, len(answer))
	}
	return []string{text}, checkTyped(b.text, q, text)
}

// refuseTyped tells user what is wrong with the text they typed and asks
// for it again. The caller holds e's lock.
func (b *Bridge) refuseTyped(ctx context.Context, log zerolog.Logger, e *pending.Entry, user answerer, problem string) {
	log.Info().Int("question", e.Current).Str("problem", problem).Msg("typed answer refused: it breaks a rule of its field")
	b.tell(ctx, log, e, user, html.EscapeString(problem)+" "+b.text.Form.AgainBelow)
	b.prompt(ctx, log, e, e.Current, false, user, &ack{text: b.text}, "asking again for a typed answer")
}

// replyForm sends form e's answer to opencode.
func (b *Bridge) replyForm(ctx context.Context, e *pending.Entry, answers [][]string) error {
	answer := opencode.FormAnswer{}
	if !e.IsURLForm() {
		var err error
		if answer, err = formAnswer(e, answers); err != nil {
			return err
		}
	}
	if err := b.opencodeOf(e.Server).ReplyForm(ctx, e.SessionID, e.RequestID, answer); err != nil {
		return fmt.Errorf("reply form: %w", err)
	}
	return nil
}

// formRefused handles opencode refusing form e's answer: the person is
// told why, and the form is asked again from its first field.
func (b *Bridge) formRefused(ctx context.Context, log zerolog.Logger, e *pending.Entry, user answerer, why string) {
	log.Warn().Str("why", why).Msg("opencode refused the form's answer; asking it again")
	next, err := b.store.Update(e.UID, func(x *pending.Entry) error {
		x.Answers, x.Selected = nil, nil
		x.Current = nextField(x, nil, 0)
		if x.Current >= len(x.Questions) {
			x.Current = 0
		}
		clearAwaiting(x)
		return nil
	})
	b.tell(ctx, log, e, user, b.text.Form.Refused(html.EscapeString(why)))
	if err != nil {
		log.Error().Err(err).Msg("could not clear the refused answers")
		return
	}
	b.refresh(ctx, log, next, requestOf(next))
}

// pressURLForm acts on a press of link form e's buttons: Submit says it
// is done, Cancel cancels it. The caller holds e's lock.
func (b *Bridge) pressURLForm(ctx context.Context, log zerolog.Logger, e *pending.Entry, p frontend.Press, by answerer, a *ack) {
	switch p.Action {
	case frontend.Submit:
		log.Info().Msg("link form marked done")
		a.toast(i18n.ToastSending)
		b.submit(ctx, log, e, nil, by)
	case frontend.Cancel:
		a.toast(i18n.ToastSending)
		b.cancelForm(ctx, log, e, by)
	default:
		log.Info().Str("data", p.Data).Msg("refusing button that does not match its link form")
		a.toast(i18n.ToastUnknown)
	}
}

// cancelForm cancels form e in opencode as by asked, and closes it.
func (b *Bridge) cancelForm(ctx context.Context, log zerolog.Logger, e *pending.Entry, by answerer) {
	err := b.opencodeOf(e.Server).CancelForm(ctx, e.SessionID, e.RequestID)
	switch {
	case err == nil:
		log.Info().Str("by", by.DisplayName()).Msg("form cancelled")
		b.closeRequest(ctx, log, e, frontend.Outcome{How: frontend.Cancelled, By: by.User}, i18n.ToastCancelled, by.copy)
	case errors.Is(err, opencode.ErrNotFound):
		log.Warn().Err(err).Msg("form is no longer pending in opencode; closing it")
		b.closeRequest(ctx, log, e, frontend.Outcome{How: frontend.NoLongerPending}, i18n.ToastGone, by.copy)
	default:
		log.Error().Err(err).Msg("could not cancel the form in opencode")
		b.tell(ctx, log, e, by, b.text.TellAnswerLost)
	}
}

package frontend

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

// FieldHint says, in plain text, what field q takes: its type and
// bounds, whether it may be skipped, an example, its default. "" for a
// 1.x question.
func FieldHint(ft *i18n.Form, q Question) string {
	if !q.IsField() {
		return ""
	}
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch q.Type {
	case TypeNumber, TypeInteger:
		s := ft.Number
		if q.Type == TypeInteger {
			s = ft.Integer
		}
		switch {
		case q.Minimum != nil && q.Maximum != nil:
			s += ft.Range(number(*q.Minimum), number(*q.Maximum))
		case q.Minimum != nil:
			s += ft.AtLeast(number(*q.Minimum))
		case q.Maximum != nil:
			s += ft.AtMost(number(*q.Maximum))
		}
		add(s)
	case TypeString:
		if len(q.Options) > 0 {
			break
		}
		switch q.Format {
		case "email":
			add(ft.Email)
		case "uri":
			add(ft.URI)
		case "date":
			add(ft.Date)
		case "date-time":
			add(ft.DateTime)
		default:
			add(ft.Text)
		}
		if q.MinLength != nil || q.MaxLength != nil {
			add(ft.Length(intOrEmpty(q.MinLength), intOrEmpty(q.MaxLength)))
		}
		if q.Pattern != "" {
			add(ft.Pattern(q.Pattern))
		}
	case TypeMultiselect:
		if q.MinItems != nil || q.MaxItems != nil {
			add(ft.Choose(intOrEmpty(q.MinItems), intOrEmpty(q.MaxItems)))
		}
	}
	if !q.Required {
		add(ft.Optional)
	}
	if p := oneLine(q.Placeholder); p != "" {
		add(ft.Example(p))
	}
	if d := defaultShown(q); d != "" {
		add(ft.Default(d))
	}
	return strings.Join(parts, " · ")
}

// number writes a bound as people read it: 10, 2.5.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func intOrEmpty(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

// defaultShown is field q's default as people read it: option labels
// for option values, the text of a string, the number as written.
func defaultShown(q Question) string {
	if len(q.Default) == 0 || string(q.Default) == "null" {
		return ""
	}
	label := func(v string) string {
		if i := slices.IndexFunc(q.Options, func(o Option) bool { return o.Value == v }); i >= 0 {
			return q.Options[i].Label
		}
		return v
	}
	var s string
	var list []string
	var b bool
	switch {
	case json.Unmarshal(q.Default, &s) == nil:
		return label(s)
	case json.Unmarshal(q.Default, &list) == nil:
		for i, v := range list {
			list[i] = label(v)
		}
		return strings.Join(list, ", ")
	case json.Unmarshal(q.Default, &b) == nil:
		return label(strconv.FormatBool(b))
	}
	return oneLine(string(q.Default))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

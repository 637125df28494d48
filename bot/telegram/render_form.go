package telegram

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

// An OpenCode 2 form is shown as a question request whose questions are
// its fields (see package pending); what only forms have is here: the
// form's title, a field's hint (what it takes), and the message of a form
// that is a link to open.

// formTitle is the line naming e's form under the head, if it has a title.
func formTitle(e *frontend.View) string {
	if e.Form == nil || strings.TrimSpace(e.Form.Title) == "" {
		return ""
	}
	return "\n📝 <b>" + esc(oneLine(e.Form.Title), 200) + "</b>"
}

// fieldHint says, in plain text, what field q takes: its type and
// bounds, whether it may be skipped, an example, its default. "" for a
// 1.x question.
func fieldHint(tx *i18n.Text, q frontend.Question) string {
	if !q.IsField() {
		return ""
	}
	ft := tx.Form
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch q.Type {
	case frontend.TypeNumber, frontend.TypeInteger:
		s := ft.Number
		if q.Type == frontend.TypeInteger {
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
	case frontend.TypeString:
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
	case frontend.TypeMultiselect:
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
func defaultShown(q frontend.Question) string {
	if len(q.Default) == 0 || string(q.Default) == "null" {
		return ""
	}
	label := func(v string) string {
		if i := slices.IndexFunc(q.Options, func(o frontend.Option) bool { return o.Value == v }); i >= 0 {
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

// linkURL is u when a button may open it (http or https), else "":
// Telegram refuses a whole message whose button has any other link.
func linkURL(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || len(u) > 2000 {
		return ""
	}
	return p.String()
}

// renderURLForm renders form e that is a link to open: the link, and
// buttons to open it, say it is done, or cancel it.
func renderURLForm(tx *i18n.Text, e *frontend.View) (string, *models.InlineKeyboardMarkup, error) {
	text := head(tx, "🔗", e) + contextBlock(e) + formTitle(e) + "\n\n" + tx.Form.OpenThenDone
	link := linkURL(e.Form.URL)
	text += "\n<code>" + esc(e.Form.URL, 1500) + "</code>"
	var rows [][]models.InlineKeyboardButton
	if link != "" {
		rows = append(rows, []models.InlineKeyboardButton{{Text: tx.Form.BtnOpen, URL: link}})
	}
	done, err := callbackData{Action: actSubmit, UID: e.UID}.encode()
	if err != nil {
		return "", nil, err
	}
	cancel, err := callbackData{Action: actCancel, UID: e.UID}.encode()
	if err != nil {
		return "", nil, err
	}
	rows = append(rows, []models.InlineKeyboardButton{{Text: tx.Form.BtnDone, CallbackData: done}, {Text: tx.Form.BtnCancel, CallbackData: cancel}})
	return text, &models.InlineKeyboardMarkup{InlineKeyboard: rows}, nil
}

// renderURLFormOutcome renders closed form e that was a link to open.
func renderURLFormOutcome(tx *i18n.Text, e *frontend.View, icon, footer string) string {
	return head(tx, icon, e) + formTitle(e) + "\n<code>" + esc(e.Form.URL, 1500) + "</code>\n\n" + footer
}

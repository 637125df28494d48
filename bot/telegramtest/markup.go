package telegramtest

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Button is one inline keyboard button as the bot sent it.
type Button struct {
	Text         string
	CallbackData string // set on callback buttons
	URL          string // set on link buttons
	Style        string // "success", "danger", "primary" or "" (Bot API 9.4)
}

// ForceReply is the force_reply markup of a message.
type ForceReply struct {
	Selective   bool
	Placeholder string
}

// Limits of inline keyboards. Telegram does not document them; these are the
// values bots run into (tginfo/Telegram-Limits).
const (
	maxButtonsPerRow    = 8
	maxButtons          = 100
	maxCallbackDataSize = 64 // bytes
	maxPlaceholder      = 64 // characters
)

// button is a Button plus, for the kinds the fake does not model (web_app,
// switch_inline_query, …), the field that made it valid, echoed back as sent.
type button struct {
	Button
	otherKind  string
	otherValue json.RawMessage
}

// markup is a parsed reply_markup parameter.
type markup struct {
	present  bool       // the parameter was sent
	inline   [][]button // nil unless an inline keyboard was sent
	isInline bool
	force    *ForceReply
}

// buttonKinds are the fields that give an inline button its action.
var buttonKinds = []string{
	"url", "callback_data", "web_app", "login_url", "switch_inline_query",
	"switch_inline_query_current_chat", "switch_inline_query_chosen_chat",
	"copy_text", "callback_game", "pay",
}

func parseReplyMarkup(raw string, present bool) (markup, *apiError) {
	if !present {
		return markup{}, nil
	}
	if !json.Valid([]byte(raw)) {
		return markup{}, badRequest("can't parse reply keyboard markup JSON object")
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &fields) != nil || fields == nil {
		return markup{}, badRequest("object expected as reply markup")
	}
	m := markup{present: true}
	switch {
	case hasKey(fields, "inline_keyboard"):
		m.isInline = true
		var rows []json.RawMessage
		if err := json.Unmarshal(fields["inline_keyboard"], &rows); err != nil || isNull(fields["inline_keyboard"]) {
			return markup{}, badRequest(`field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays`)
		}
		total := 0
		for _, rawRow := range rows {
			var row []json.RawMessage
			if err := json.Unmarshal(rawRow, &row); err != nil || isNull(rawRow) {
				return markup{}, badRequest(`field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays`)
			}
			if len(row) > maxButtonsPerRow {
				return markup{}, badRequest("reply markup is too long")
			}
			total += len(row)
			if total > maxButtons {
				return markup{}, badRequest("reply markup is too long")
			}
			var parsed []button
			for _, rawButton := range row {
				b, err := parseInlineButton(rawButton)
				if err != nil {
					return markup{}, err
				}
				parsed = append(parsed, b)
			}
			if len(parsed) > 0 {
				m.inline = append(m.inline, parsed)
			}
		}
	case has(fields, "keyboard"), has(fields, "remove_keyboard"), has(fields, "hide_keyboard"):
		// Reply keyboards are accepted and not modelled: hermes-bot never sends them.
	case has(fields, "force_reply"):
		var fr struct {
			ForceReply  bool   `json:"force_reply"`
			Placeholder string `json:"input_field_placeholder"`
			Selective   bool   `json:"selective"`
		}
		if err := json.Unmarshal([]byte(raw), &fr); err != nil {
			return markup{}, badRequest("can't parse reply keyboard markup JSON object")
		}
		if !fr.ForceReply {
			return markup{}, badRequest(`field "force_reply" of the ForceReply must be true`)
		}
		if UTF16Len(fr.Placeholder) > maxPlaceholder {
			return markup{}, badRequest("input field placeholder is too long")
		}
		m.force = &ForceReply{Selective: fr.Selective, Placeholder: fr.Placeholder}
	default:
		return markup{}, badRequest("can't parse reply keyboard markup JSON object")
	}
	return m, nil
}

func parseInlineButton(raw json.RawMessage) (button, *apiError) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return button{}, badRequest("can't parse inline keyboard button: InlineKeyboardButton should be an Object")
	}
	var b button
	if !has(fields, "text") {
		return button{}, badRequest(`can't parse inline keyboard button: Can't find field "text"`)
	}
	if err := json.Unmarshal(fields["text"], &b.Text); err != nil {
		return button{}, badRequest(`can't parse inline keyboard button: Field "text" must be of type String`)
	}
	if strings.TrimSpace(b.Text) == "" {
		return button{}, badRequest("BUTTON_TEXT_INVALID")
	}
	if hasKey(fields, "style") {
		if json.Unmarshal(fields["style"], &b.Style) != nil {
			return button{}, badRequest(`can't parse inline keyboard button: Field "style" must be of type String`)
		}
		switch b.Style {
		case "success", "danger", "primary":
		default:
			return button{}, badRequest("can't parse inline keyboard button: unsupported button style \"" + b.Style + "\"")
		}
	}

	var kinds []string
	for _, k := range buttonKinds {
		if !has(fields, k) {
			continue
		}
		switch k {
		case "pay":
			var pay bool
			if json.Unmarshal(fields[k], &pay) != nil || !pay {
				continue
			}
		case "copy_text":
			// go-telegram/bot sends "copy_text":{"text":""} on every button;
			// Telegram only looks at it when no other action is set.
			var ct struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(fields[k], &ct) != nil || ct.Text == "" {
				continue
			}
		}
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return button{}, badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
	}
	if len(kinds) > 1 {
		// Telegram would silently use the first; a button with two actions is a bug in the bot.
		return button{}, badRequest("can't parse inline keyboard button: a button must have exactly one action, found " + strings.Join(kinds, " and ") + " (telegramtest is stricter than Telegram here)")
	}
	switch kinds[0] {
	case "callback_data":
		if err := json.Unmarshal(fields["callback_data"], &b.CallbackData); err != nil {
			return button{}, badRequest(`can't parse inline keyboard button: Field "callback_data" must be of type String`)
		}
		if n := len(b.CallbackData); n < 1 || n > maxCallbackDataSize {
			return button{}, badRequest("BUTTON_DATA_INVALID")
		}
	case "url":
		if err := json.Unmarshal(fields["url"], &b.URL); err != nil {
			return button{}, badRequest(`can't parse inline keyboard button: Field "url" must be of type String`)
		}
		if apiErr := checkButtonURL(b.URL); apiErr != nil {
			return button{}, apiErr
		}
	default:
		b.otherKind, b.otherValue = kinds[0], fields[kinds[0]]
	}
	return b, nil
}

func checkButtonURL(raw string) *apiError {
	invalid := func(reason string) *apiError {
		return badRequest("inline keyboard button URL '" + raw + "' is invalid: " + reason)
	}
	if strings.TrimSpace(raw) == "" {
		return invalid("URL host is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalid("Wrong HTTP URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https", "tg", "ton":
	default:
		return invalid("Unsupported URL protocol")
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return invalid("URL host is empty")
	}
	return nil
}

func hasKey(fields map[string]json.RawMessage, key string) bool {
	_, ok := fields[key]
	return ok
}

func has(fields map[string]json.RawMessage, key string) bool {
	v, ok := fields[key]
	return ok && !isNull(v)
}

func isNull(v json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// sameKeyboard reports whether two keyboards look the same to a user.
func sameKeyboard(a, b [][]button) bool {
	return slices.EqualFunc(a, b, func(x, y []button) bool {
		return slices.EqualFunc(x, y, func(x, y button) bool {
			return x.Button == y.Button && x.otherKind == y.otherKind && bytes.Equal(x.otherValue, y.otherValue)
		})
	})
}

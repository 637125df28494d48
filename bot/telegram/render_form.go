package telegram

import (
	"net/url"
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

package telegram

import (
	"encoding/json"
	"fmt"

	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// quickPrefix marks a stock reply's button apart from the options.
const quickPrefix = "💬 "

// quickReply is stock reply i of the button cq pressed, "" when there is
// none such, or when the button showed another (the replies changed
// since it was posted): a press answers with what it showed.
func (f *Frontend) quickReply(i int, cq *models.CallbackQuery) string {
	if i < 0 || i >= len(f.cfg.QuickReplies) {
		return ""
	}
	text := f.cfg.QuickReplies[i]
	if m := cq.Message.Message; m != nil && m.ReplyMarkup != nil {
		for _, row := range m.ReplyMarkup.InlineKeyboard {
			for _, b := range row {
				if b.CallbackData == cq.Data && b.Text != quickLabel(text) {
					return ""
				}
			}
		}
	}
	return text
}

// quickLabel is the text of stock reply text's button.
func quickLabel(text string) string {
	return plain(quickPrefix+oneLine(text), maxButtonText+len(quickPrefix))
}

// addQuickReplies adds to kb a button per stock reply, when e's current
// question takes a typed answer, as many as fit the markup's limit. A
// button carries the reply's index: the text may not fit callback data.
func addQuickReplies(kb *models.InlineKeyboardMarkup, e *frontend.View, replies []string) (*models.InlineKeyboardMarkup, error) {
	if kb == nil || len(replies) == 0 || e.Kind != frontend.KindQuestion || e.IsURLForm() ||
		e.Current < 0 || e.Current >= len(e.Questions) || !e.Questions[e.Current].AllowsTyped() {
		return kb, nil
	}
	raw, err := json.Marshal(kb)
	if err != nil {
		return nil, fmt.Errorf("measure keyboard: %w", err)
	}
	size := len(raw)
	for i, text := range replies {
		data, err := callbackData{Action: actQuick, UID: e.UID, Question: e.Current, Option: i}.encode()
		if err != nil {
			return nil, fmt.Errorf("quick reply %d: %w", i, err)
		}
		btn := models.InlineKeyboardButton{Text: quickLabel(text), CallbackData: data}
		b, err := json.Marshal(btn)
		if err != nil {
			return nil, fmt.Errorf("measure button: %w", err)
		}
		if size+len(b)+3 > maxMarkupBytes {
			break
		}
		size += len(b) + 3
		kb.InlineKeyboard = append(kb.InlineKeyboard, []models.InlineKeyboardButton{btn})
	}
	return kb, nil
}

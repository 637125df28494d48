package telegram

import (
	"context"
	"errors"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// SetMessageReaction is a call like any other, its emoji as text.
func (f *callsTG) SetMessageReaction(ctx context.Context, p *tgbot.SetMessageReactionParams) (bool, error) {
	text := ""
	for _, r := range p.Reaction {
		if r.ReactionTypeEmoji != nil {
			text += r.ReactionTypeEmoji.Emoji
		}
	}
	if err := f.do(ctx, outboxCall{Method: "setMessageReaction", ChatID: p.ChatID, MessageID: p.MessageID, Text: text}); err != nil {
		return false, err
	}
	return true, nil
}

// GetFile knows no file.
func (f *callsTG) GetFile(context.Context, *tgbot.GetFileParams) (*models.File, error) {
	return nil, errors.New("calls fake: no files")
}

func (f *callsTG) FileDownloadLink(*models.File) string { return "" }

func (l leakyTelegram) SetMessageReaction(context.Context, *tgbot.SetMessageReactionParams) (bool, error) {
	return false, l.err
}

func (l leakyTelegram) GetFile(context.Context, *tgbot.GetFileParams) (*models.File, error) {
	return nil, l.err
}

func (l leakyTelegram) FileDownloadLink(*models.File) string { return "" }

// SetMessageReaction is counted, never gated: the Outbox passes it through.
func (f *outboxFakeTG) SetMessageReaction(context.Context, *tgbot.SetMessageReactionParams) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reactions++
	return true, nil
}

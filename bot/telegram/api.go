package telegram

import (
	"context"
	"encoding/json"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Telegram is every Bot API method the front-end calls. *bot.Bot of
// github.com/go-telegram/bot satisfies it, and so do the Outbox and
// RedactTelegram's wrapper around either. The front-end finds no method
// by type assertion, so a Telegram lacking one fails to build instead of
// quietly doing less.
type Telegram interface {
	SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error)
	EditMessageText(ctx context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error)
	AnswerCallbackQuery(ctx context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error)
	// SendDocument sends the whole of a text a request's message shows
	// cut, as a file replying to it.
	SendDocument(ctx context.Context, p *tgbot.SendDocumentParams) (*models.Message, error)
	// CreateForumTopic makes a project's topic (Config.TopicPerProject).
	CreateForumTopic(ctx context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error)
	// SetMessageReaction acknowledges a steering message (👀, 👍).
	SetMessageReaction(ctx context.Context, p *tgbot.SetMessageReactionParams) (bool, error)
	// GetFile and FileDownloadLink fetch a file a person sent; the link
	// holds the bot token, so it is never logged.
	GetFile(ctx context.Context, p *tgbot.GetFileParams) (*models.File, error)
	FileDownloadLink(f *models.File) string
}

var _ Telegram = (*tgbot.Bot)(nil)

// Name is the Telegram front-end's name, under which the store keeps its
// places, owed edits and State.
const Name = "telegram"

// place is where a message is in Telegram: its chat, its ID, and the
// forum topic it is in (0: none). Its JSON is the front-end's
// pending.Place, the shape the store of hermes-bot 03d8d17 kept, so those
// places read as Telegram's.
type place struct {
	Chat    int64 `json:"chat"`
	Message int   `json:"message,omitempty"`
	Thread  int   `json:"thread,omitempty"`
}

// encode is p as the life cycle keeps it; "" when p names no message.
func (p place) encode() pending.Place {
	if p.Message == 0 {
		return ""
	}
	raw, _ := json.Marshal(p) // a struct of integers always encodes
	return pending.Place(raw)
}

// placeAt is the place at encodes; zero when it is not Telegram's.
func placeAt(at pending.Place) place {
	var p place
	if json.Unmarshal([]byte(at), &p) != nil {
		return place{}
	}
	return p
}

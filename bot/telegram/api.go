package telegram

import (
	"context"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
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
}

var _ Telegram = (*tgbot.Bot)(nil)

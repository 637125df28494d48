package telegram

import (
	"context"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// Telegram is what the front-end needs of the Bot API. *bot.Bot of
// github.com/go-telegram/bot satisfies it, and so do the Outbox and
// RedactTelegram's wrapper around it.
type Telegram interface {
	SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error)
	EditMessageText(ctx context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error)
	AnswerCallbackQuery(ctx context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error)
}

var _ Telegram = (*tgbot.Bot)(nil)

// ForumTopics is the Bot API's creation of forum topics, for a topic per
// project. *bot.Bot, the Outbox and RedactTelegram's wrapper of either
// have it; a Telegram without it still works, posting to one thread.
type ForumTopics interface {
	CreateForumTopic(ctx context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error)
}

var _ ForumTopics = (*tgbot.Bot)(nil)

// IsNotModified reports Telegram's answer to an edit that changes nothing:
// the message already shows what was asked.
func IsNotModified(err error) bool { return isNotModified(err) }

// IsClientError reports a 4xx that trying again cannot fix.
func IsClientError(err error) bool { return isClientError(err) }

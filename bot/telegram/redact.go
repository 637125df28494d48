package telegram

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// redacted replaces a secret in text.
const redacted = "[REDACTED]"

// Redactor removes secrets (the bot token, the opencode password) from
// text and errors. go-telegram/bot puts the request URL, token included,
// into some of its errors; pass every such error through a Redactor before
// it reaches a log. A nil *Redactor redacts nothing. It is safe for
// concurrent use.
type Redactor struct {
	// forms holds every secret and its URL-escaped forms, longest first so
	// a secret containing another is replaced whole.
	forms []string
}

// NewRedactor returns a Redactor for secrets; empty ones are ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, f := range []string{s, url.PathEscape(s), url.QueryEscape(s)} {
			if !slices.Contains(r.forms, f) {
				r.forms = append(r.forms, f)
			}
		}
	}
	slices.SortFunc(r.forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return r
}

// String returns s with every secret replaced by [REDACTED].
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, f := range r.forms {
		s = strings.ReplaceAll(s, f, redacted)
	}
	return s
}

// Error returns err with every secret removed from its message. When there
// is nothing to remove it returns err itself; otherwise an error whose
// Error is redacted and whose Unwrap returns err, so errors.Is and
// errors.As (for *bot.TooManyRequestsError, say) still work. What
// errors.As extracts is the original: do not print it.
func (r *Redactor) Error(err error) error {
	if err == nil || r == nil {
		return err
	}
	msg := err.Error()
	clean := r.String(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// RedactTelegram wraps tg so that every error it returns passes through r.
func RedactTelegram(tg Telegram, r *Redactor) Telegram {
	return &redactingTelegram{tg: tg, r: r}
}

type redactingTelegram struct {
	tg Telegram
	r  *Redactor
}

var _ Telegram = (*redactingTelegram)(nil)

func (t *redactingTelegram) SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error) {
	m, err := t.tg.SendMessage(ctx, p)
	return m, t.r.Error(err)
}

func (t *redactingTelegram) EditMessageText(ctx context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error) {
	m, err := t.tg.EditMessageText(ctx, p)
	return m, t.r.Error(err)
}

func (t *redactingTelegram) AnswerCallbackQuery(ctx context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error) {
	ok, err := t.tg.AnswerCallbackQuery(ctx, p)
	return ok, t.r.Error(err)
}

func (t *redactingTelegram) SendDocument(ctx context.Context, p *tgbot.SendDocumentParams) (*models.Message, error) {
	m, err := t.tg.SendDocument(ctx, p)
	return m, t.r.Error(err)
}

func (t *redactingTelegram) CreateForumTopic(ctx context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	topic, err := t.tg.CreateForumTopic(ctx, p)
	return topic, t.r.Error(err)
}

func (t *redactingTelegram) SetMessageReaction(ctx context.Context, p *tgbot.SetMessageReactionParams) (bool, error) {
	ok, err := t.tg.SetMessageReaction(ctx, p)
	return ok, t.r.Error(err)
}

func (t *redactingTelegram) GetFile(ctx context.Context, p *tgbot.GetFileParams) (*models.File, error) {
	f, err := t.tg.GetFile(ctx, p)
	return f, t.r.Error(err)
}

// FileDownloadLink passes the link through whole: it must hold the token
// to work. Errors of its download are redacted where it is fetched.
func (t *redactingTelegram) FileDownloadLink(f *models.File) string { return t.tg.FileDownloadLink(f) }

package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

const token = "123456:AAH-secret_Token"

func TestRedactorRemovesTokenFromURLError(t *testing.T) {
	r := NewRedactor(token, "", "hunter2")
	inner := &url.Error{Op: "Post", URL: "https://api.telegram.org/bot" + token + "/sendMessage", Err: errors.New("connection refused")}
	err := r.Error(fmt.Errorf("error do request for method sendMessage, %w", inner))
	if strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "bot[REDACTED]/sendMessage") {
		t.Errorf("Error() = %q", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) || ue != inner {
		t.Error("errors.As lost the *url.Error")
	}
	if got := r.String("password=hunter2 token=" + url.QueryEscape(token)); strings.Contains(got, "hunter2") || strings.Contains(got, "secret") {
		t.Errorf("String = %q", got)
	}
	plainErr := errors.New("nothing secret")
	if r.Error(plainErr) != plainErr || r.Error(nil) != nil {
		t.Error("an error without secrets must come back as itself")
	}
	var nilR *Redactor
	if nilR.String("x"+token) != "x"+token {
		t.Error("a nil Redactor changed text")
	}
}

// leakyTelegram fails every call with token in the error.
type leakyTelegram struct{ err error }

func (l leakyTelegram) SendMessage(context.Context, *tgbot.SendMessageParams) (*models.Message, error) {
	return nil, l.err
}

func (l leakyTelegram) EditMessageText(context.Context, *tgbot.EditMessageTextParams) (*models.Message, error) {
	return nil, l.err
}

func (l leakyTelegram) AnswerCallbackQuery(context.Context, *tgbot.AnswerCallbackQueryParams) (bool, error) {
	return false, l.err
}

func (l leakyTelegram) SendDocument(context.Context, *tgbot.SendDocumentParams) (*models.Message, error) {
	return nil, l.err
}

func (l leakyTelegram) CreateForumTopic(context.Context, *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	return nil, l.err
}

func TestRedactTelegramKeepsErrorTypes(t *testing.T) {
	tooMany := &tgbot.TooManyRequestsError{Message: "too many requests for bot" + token, RetryAfter: 3}
	tg := RedactTelegram(leakyTelegram{err: fmt.Errorf("send: %w", tooMany)}, NewRedactor(token))
	ctx := context.Background()
	_, e1 := tg.SendMessage(ctx, &tgbot.SendMessageParams{})
	_, e2 := tg.EditMessageText(ctx, &tgbot.EditMessageTextParams{})
	_, e3 := tg.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{})
	_, e4 := tg.SendDocument(ctx, &tgbot.SendDocumentParams{})
	_, e5 := tg.CreateForumTopic(ctx, &tgbot.CreateForumTopicParams{})
	_, e6 := tg.SetMessageReaction(ctx, &tgbot.SetMessageReactionParams{})
	_, e7 := tg.GetFile(ctx, &tgbot.GetFileParams{})
	for _, err := range []error{e1, e2, e3, e4, e5, e6, e7} {
		if err == nil || strings.Contains(err.Error(), token) {
			t.Errorf("error = %v", err)
		}
		var tm *tgbot.TooManyRequestsError
		if !errors.As(err, &tm) || tm.RetryAfter != 3 {
			t.Errorf("errors.As(%v) lost *TooManyRequestsError", err)
		}
	}
	bad := RedactTelegram(leakyTelegram{err: fmt.Errorf("%w, chat not found", tgbot.ErrorBadRequest)}, NewRedactor(token))
	if _, err := bad.SendMessage(ctx, &tgbot.SendMessageParams{}); !errors.Is(err, tgbot.ErrorBadRequest) {
		t.Errorf("errors.Is lost ErrorBadRequest: %v", err)
	}
}

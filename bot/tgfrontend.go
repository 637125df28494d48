package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/pending"
)

// tgFrontend shows requests in a Telegram group: it renders them as HTML
// with inline keyboards and makes the Bot API calls. The life cycle
// reaches Telegram only through it (and, for the updates it handles, the
// acknowledgements and command replies in update.go and commands.go).
type tgFrontend struct {
	tg    Telegram
	text  *i18n.Text
	store *pending.Store
	log   zerolog.Logger
	now   func() time.Time

	// thread is the forum topic everything goes to (TELEGRAM_THREAD_ID),
	// or with topicPerProject where a project's topic cannot be had.
	thread          int
	topicPerProject bool
	// topicMu serialises finding or creating a project's forum topic;
	// topicFailed, under it, holds when creating one last failed.
	topicMu     sync.Mutex
	topicFailed map[topicFailKey]time.Time
}

var _ frontend.Frontend = (*tgFrontend)(nil)

// render is r's open message: its text and keyboard.
func (f *tgFrontend) render(r frontend.Request) (string, *models.InlineKeyboardMarkup, error) {
	if len(r.Entries) == 0 {
		return "", nil, errors.New("render: no request")
	}
	if r.Entries[0].Kind == pending.KindPermission {
		return renderPermission(f.text, r.Key, r.Entries)
	}
	return renderQuestion(f.text, r.Entries[0])
}

func (f *tgFrontend) Post(ctx context.Context, chat int64, r frontend.Request) (pending.Place, error) {
	text, kb, err := f.render(r)
	if err != nil {
		return pending.Place{}, fmt.Errorf("post %s: %w", r.Key, err)
	}
	thread := f.threadFor(ctx, f.log.With().Str("uid", r.Key).Logger(), chat, r.Entries[0].Directory)
	msg, err := f.tg.SendMessage(ctx, htmlMessage(chat, thread, text, kb, 0))
	if err != nil {
		return pending.Place{}, fmt.Errorf("post %s: %w", r.Key, err)
	}
	return pending.Place{Chat: chat, Message: msg.ID, Thread: thread}, nil
}

func (f *tgFrontend) Refresh(ctx context.Context, at pending.Place, r frontend.Request) error {
	text, kb, err := f.render(r)
	if err != nil {
		return fmt.Errorf("refresh %s: %w", r.Key, err)
	}
	return f.editMessage(ctx, at, text, kb)
}

// editMessage makes the message at at show text and kb (none: no
// buttons). An edit that changes nothing is done; a message that is gone
// or an edit refused for good say so (frontend.ErrGone, ErrRefused).
func (f *tgFrontend) editMessage(ctx context.Context, at pending.Place, text string, kb *models.InlineKeyboardMarkup) error {
	p := &tgbot.EditMessageTextParams{
		ChatID:             at.Chat,
		MessageID:          at.Message,
		Text:               text,
		ParseMode:          models.ParseModeHTML,
		LinkPreviewOptions: noPreview(),
	}
	if kb != nil {
		p.ReplyMarkup = kb
	}
	_, err := f.tg.EditMessageText(ctx, p)
	switch {
	case err == nil || telegram.IsNotModified(err):
		return nil
	case isMessageGone(err):
		return fmt.Errorf("edit message %d: %w: %w", at.Message, frontend.ErrGone, err)
	case telegram.IsClientError(err) && !errors.Is(err, tgbot.ErrorForbidden):
		// A 403 (the bot is out of the group) may end; any other 4xx
		// will not.
		return fmt.Errorf("edit message %d: %w: %w", at.Message, frontend.ErrRefused, err)
	}
	return fmt.Errorf("edit message %d: %w", at.Message, err)
}

func (f *tgFrontend) Outcome(r frontend.Request, o frontend.Outcome) string {
	if len(r.Entries) == 0 {
		return ""
	}
	icon, footer := f.footer(r.Entries[0], o)
	if r.Entries[0].Kind == pending.KindPermission {
		return renderPermissionOutcome(f.text, r.Entries, icon, footer)
	}
	return renderOutcome(f.text, r.Entries[0], icon, o.Answers, footer)
}

// footer is the icon of outcome o of e's message, and the HTML line that
// says it.
func (f *tgFrontend) footer(e *pending.Entry, o frontend.Outcome) (icon, footer string) {
	tx := f.text
	switch o.How {
	case frontend.Answered:
		return "✅", tx.AnsweredBy(who(o.By))
	case frontend.AnsweredElsewhere:
		return "✅", tx.AnsweredOC
	case frontend.Dismissed:
		return "🚫", tx.DismissedOC
	case frontend.Gone:
		return "✅", tx.GoneFooter
	case frontend.NoLongerPending:
		if e.Kind == pending.KindPermission {
			return "⚠️", "⚠️ " + tx.NoLongerPending
		}
		return "⚠️", tx.NoLongerPending
	case frontend.Expired:
		footer = tx.Expired(human(o.TTL))
		switch o.Told {
		case frontend.NotTold:
			footer += tx.ExpiredNotTold
		case frontend.ToldRejected:
			footer += tx.ExpiredRejected
		default:
			footer += tx.ExpiredDismissed
		}
		return "⌛", footer
	case frontend.Decided:
		return decisionFooter(tx, o.Reply, e, o.By, o.Reason)
	case frontend.DecidedElsewhere:
		return elsewhereFooter(tx, o.Reply)
	}
	return "✅", ""
}

func (f *tgFrontend) Close(ctx context.Context, at pending.Place, content string) error {
	return f.editMessage(ctx, at, content, nil)
}

func (f *tgFrontend) Moved(ctx context.Context, stale, current pending.Place, closed bool) error {
	return f.editMessage(ctx, stale, renderMoved(f.text, stale.Chat, stale.Message, current.Message, closed), nil)
}

func (f *tgFrontend) Prompt(ctx context.Context, e *pending.Entry, qi int, reason bool, user frontend.User) (int, error) {
	var text, placeholder string
	if reason {
		text, placeholder = renderReasonPrompt(f.text, e, user)
	} else {
		text, placeholder = renderPrompt(f.text, e, qi, user)
	}
	msg, err := f.tg.SendMessage(ctx, htmlMessage(e.Place.Chat, e.Place.Thread, text, &models.ForceReply{
		ForceReply:            true,
		InputFieldPlaceholder: placeholder,
		Selective:             true,
	}, e.Place.Message))
	if err != nil {
		return 0, fmt.Errorf("prompt for %s: %w", e.UID, err)
	}
	return msg.ID, nil
}

func (f *tgFrontend) Tell(ctx context.Context, e *pending.Entry, user frontend.User, note string) error {
	if _, err := f.tg.SendMessage(ctx, htmlMessage(e.Place.Chat, e.Place.Thread, mention(user)+": "+note, nil, e.Place.Message)); err != nil {
		return fmt.Errorf("tell about %s: %w", e.UID, err)
	}
	return nil
}

func (f *tgFrontend) Notify(ctx context.Context, chat int64, n frontend.Notice) error {
	icon, what := "✅", f.text.Finished
	if n.Failed {
		icon, what = "❌", f.text.Failed
	}
	text := renderNotice(f.text, icon, n.Directory, n.SessionID, n.Title, what, n.Body, n.Dropped)
	log := f.log.With().Str("sessionID", n.SessionID).Str("directory", n.Directory).Logger()
	if _, err := f.tg.SendMessage(ctx, htmlMessage(chat, f.threadFor(ctx, log, chat, n.Directory), text, nil, 0)); err != nil {
		return fmt.Errorf("notice of session %s: %w", n.SessionID, err)
	}
	return nil
}

func (f *tgFrontend) AutoApproved(ctx context.Context, chat int64, e *pending.Entry) error {
	thread := f.threadFor(ctx, f.log.With().Str("uid", e.UID).Logger(), chat, e.Directory)
	if _, err := f.tg.SendMessage(ctx, htmlMessage(chat, thread, renderAutoApproved(f.text, e), nil, 0)); err != nil {
		return fmt.Errorf("auto-approval notice of %s: %w", e.UID, err)
	}
	return nil
}

// userOf is the person behind a Telegram user.
func userOf(u *models.User) frontend.User {
	if u == nil {
		return frontend.User{}
	}
	return frontend.User{ID: u.ID, Name: strings.TrimSpace(u.FirstName + " " + u.LastName), Username: u.Username}
}

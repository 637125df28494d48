package bot

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/pending"
)

// The Telegram side of what people do: updates are read here, checked
// (the chat, the person), and handed to the life cycle as a
// frontend.Press or a frontend.Text; commands are answered here.

// HandleUpdate acts on one Telegram update: a button press or a typed
// answer. It has go-telegram/bot's handler signature; register it with
// bot.WithDefaultHandler. Its work runs under a context detached from ctx
// (bounded by a timeout), so an answer being sent when polling stops still
// completes.
func (b *Bridge) HandleUpdate(ctx context.Context, _ *tgbot.Bot, upd *models.Update) {
	if upd == nil {
		return
	}
	received := b.now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.handlerTimeout)
	defer cancel()
	switch {
	case upd.CallbackQuery != nil:
		b.handleCallback(ctx, upd.CallbackQuery, received)
	case upd.Message != nil:
		b.handleMessage(ctx, upd.Message, received)
	}
}

// actions maps the callback codec's actions to the life cycle's.
var actions = map[action]frontend.Action{
	actOption:       frontend.Pick,
	actToggle:       frontend.Toggle,
	actSubmit:       frontend.Submit,
	actCustom:       frontend.Type,
	actAllowOnce:    frontend.AllowOnce,
	actAllowAlways:  frontend.AllowAlways,
	actReject:       frontend.Reject,
	actRejectReason: frontend.RejectWithReason,
}

// handleCallback reads a button press and hands it to HandlePress. Every
// path answers the callback query exactly once.
func (b *Bridge) handleCallback(ctx context.Context, cq *models.CallbackQuery, received time.Time) {
	log := b.log.With().Str("callbackID", cq.ID).Int64("userID", cq.From.ID).Logger()
	answer := func(text string) {
		_, err := b.tg.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{
			CallbackQueryID: cq.ID,
			Text:            plain(text, maxToast),
		})
		if err != nil {
			// Usually "query is too old": nothing to do but note it.
			log.Warn().Err(err).Msg("could not answer callback query")
		}
	}
	data, err := decodeCallback(cq.Data)
	if err != nil {
		log.Info().Err(err).Msg("refusing unknown button")
		answer(b.text.Toast(i18n.ToastUnknown))
		return
	}
	p := frontend.Press{Key: data.UID, Action: actions[data.Action], Question: data.Question, Option: data.Option,
		User: userOf(&cq.From), Data: cq.Data, At: received, Ack: answer}
	if m := cq.Message.Message; m != nil {
		p.From = pending.Place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)}
		p.FromCarries = m.ID != 0 && carries(m, data.UID)
	}
	if (p.From.Chat != 0 && p.From.Chat != b.ChatID()) || !b.allowed(cq.From.ID) {
		log.Info().Str("uid", data.UID).Int64("chatID", p.From.Chat).Msg("refusing press from a chat or user not allowed")
		answer(b.text.Toast(i18n.ToastNotAllowed))
		return
	}
	b.HandlePress(ctx, log, p)
}

// carries reports whether m has a button for request uid. Telegram sends
// a pressed message's keyboard with the press; checking it keeps a press
// with tampered data from making another request's message its copy.
func carries(m *models.Message, uid string) bool {
	if m.ReplyMarkup == nil {
		return false
	}
	for _, row := range m.ReplyMarkup.InlineKeyboard {
		for _, btn := range row {
			if d, err := decodeCallback(btn.CallbackData); err == nil && d.UID == uid {
				return true
			}
		}
	}
	return false
}

// handleMessage reads a message of the chat: a migration to a
// supergroup, a command, or text for HandleText. Anything else is not for
// us.
func (b *Bridge) handleMessage(ctx context.Context, m *models.Message, received time.Time) {
	if m.MigrateToChatID != 0 && m.Chat.ID == b.ChatID() {
		old := m.Chat.ID
		b.SetChatID(m.MigrateToChatID)
		if b.cfg.OnChatMigrated != nil {
			b.cfg.OnChatMigrated(old, m.MigrateToChatID)
		}
		return
	}
	if m.From == nil || m.From.IsBot || m.From.ID == b.cfg.BotID {
		return
	}
	log := b.log.With().Int64("chatID", m.Chat.ID).Int("messageID", m.ID).Int64("userID", m.From.ID).Logger()
	if m.Chat.ID != b.ChatID() {
		log.Debug().Msg("ignoring message from another chat")
		return
	}
	text := strings.TrimSpace(m.Text)
	if text == "" {
		return
	}
	if strings.HasPrefix(text, "/") {
		b.handleCommand(ctx, log, m, text)
		return
	}
	t := frontend.Text{
		At:       pending.Place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)},
		Threaded: b.cfg.ThreadID != 0 || b.cfg.TopicPerProject,
		Text:     text,
		User:     userOf(m.From),
		Allowed:  b.allowed(m.From.ID),
		Received: received,
	}
	// In a forum topic every message replies to the topic's first message,
	// so that reply says nothing about which prompt is meant.
	if reply := m.ReplyToMessage; reply != nil && reply.ForumTopicCreated == nil {
		t.ReplyTo = reply.ID
		t.ReplyToBot = reply.From != nil && reply.From.ID == b.cfg.BotID
	}
	b.HandleText(ctx, log, t)
}

// Middlewares returns the middlewares to install with the bridge's
// handler, in order: one that counts running handlers for Wait; one that
// records, after each update, the update ID up to which every update was
// handled, for InitialOffset; and one that recovers a panic, logging it
// with its stack, so the process survives.
func (b *Bridge) Middlewares() []tgbot.Middleware {
	return []tgbot.Middleware{b.trackMiddleware, b.offsetMiddleware, b.recoverMiddleware}
}

func (b *Bridge) trackMiddleware(next tgbot.HandlerFunc) tgbot.HandlerFunc {
	return func(ctx context.Context, bot *tgbot.Bot, upd *models.Update) {
		b.running.add()
		defer b.running.done()
		next(ctx, bot, upd)
	}
}

func (b *Bridge) recoverMiddleware(next tgbot.HandlerFunc) tgbot.HandlerFunc {
	return func(ctx context.Context, bot *tgbot.Bot, upd *models.Update) {
		defer func() {
			if r := recover(); r != nil {
				ev := b.log.Error().Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack())
				if upd != nil {
					ev = ev.Int64("updateID", upd.ID)
				}
				ev.Msg("handler panicked; update dropped")
			}
		}()
		next(ctx, bot, upd)
	}
}

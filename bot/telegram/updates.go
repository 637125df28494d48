package telegram

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
)

// The Telegram side of what people do: updates are read here, checked
// (the chat, the person), and handed to the life cycle as a
// frontend.Press or a frontend.Input; commands are answered here.

// Handler returns the handler of Telegram updates that hands what people
// do to core: a button press, a typed answer, a command. It has
// go-telegram/bot's handler signature; register it for every update, with
// Middlewares. Its work runs under a context detached from the polling
// context (bounded by a timeout), so an answer being sent when polling
// stops still completes.
func (f *Frontend) Handler(core frontend.Core) tgbot.HandlerFunc {
	return func(ctx context.Context, _ *tgbot.Bot, upd *models.Update) {
		f.HandleUpdate(ctx, core, upd)
	}
}

// HandleUpdate acts on one update, as Handler's handler does.
func (f *Frontend) HandleUpdate(ctx context.Context, core frontend.Core, upd *models.Update) {
	if upd == nil {
		return
	}
	received := f.now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.handlerTimeout)
	defer cancel()
	// A message is through the ordering once in the joiner (parts.go).
	defer f.order.through(upd.ID)
	switch {
	case upd.CallbackQuery != nil:
		f.order.through(upd.ID)
		f.handleCallback(ctx, core, upd.CallbackQuery, received)
	case upd.Message != nil:
		f.handleMessage(ctx, core, upd.Message, upd.ID, received)
	}
}

// actions maps the callback codec's actions to the life cycle's.
var actions = map[action]frontend.Action{
	actOption:       frontend.Pick,
	actToggle:       frontend.Toggle,
	actSubmit:       frontend.Submit,
	actCustom:       frontend.Type,
	actSkip:         frontend.Skip,
	actCancel:       frontend.Cancel,
	actQuick:        frontend.Quick,
	actAllowOnce:    frontend.AllowOnce,
	actAllowAlways:  frontend.AllowAlways,
	actReject:       frontend.Reject,
	actRejectReason: frontend.RejectWithReason,
}

// handleCallback reads a button press and hands it to HandlePress. Every
// path answers the callback query exactly once.
func (f *Frontend) handleCallback(ctx context.Context, core frontend.Core, cq *models.CallbackQuery, received time.Time) {
	log := f.log.With().Str("callbackID", cq.ID).Int64("userID", cq.From.ID).Logger()
	answer := func(text string) {
		_, err := f.tg.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{
			CallbackQueryID: cq.ID,
			Text:            plain(text, maxToast),
		})
		if err != nil {
			// Usually "query is too old": nothing to do but note it.
			log.Warn().Err(err).Msg("could not answer callback query")
		}
	}
	if d, ok := decodeSteer(cq.Data); ok {
		f.handleSteerPress(ctx, core, log, cq, d, answer)
		return
	}
	if key, id, ok := decodeRevoke(cq.Data); ok {
		f.handleRevokePress(ctx, core, log, cq, key, id, answer)
		return
	}
	data, err := decodeCallback(cq.Data)
	if err != nil {
		log.Info().Err(err).Msg("refusing unknown button")
		answer(f.text.Toast(i18n.ToastUnknown))
		return
	}
	if data.Action.isResume() {
		f.handleResumePress(ctx, core, log, cq, data.UID, answer)
		return
	}
	p := frontend.Press{Key: data.UID, Action: actions[data.Action], Question: data.Question, Option: data.Option,
		User: userOf(&cq.From), Frontend: Name, Data: cq.Data, At: received, Ack: answer}
	var chat int64
	if m := cq.Message.Message; m != nil {
		chat = m.Chat.ID
		p.From = place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)}.encode()
		p.FromCarries = m.ID != 0 && carries(m, data.UID)
	} else if m := cq.Message.InaccessibleMessage; m != nil {
		chat = m.Chat.ID
	}
	if (chat != 0 && chat != f.ChatID()) || !f.allowed(cq.From.ID) {
		log.Info().Str("uid", data.UID).Int64("chatID", chat).Msg("refusing press from a chat or user not allowed")
		answer(f.text.Toast(i18n.ToastNotAllowed))
		return
	}
	if data.Action == actQuick {
		if p.Text = f.quickReply(data.Option, cq); p.Text == "" {
			log.Info().Str("uid", data.UID).Int("reply", data.Option).Msg("refusing quick reply that is not configured (any more)")
			answer(f.text.Toast(i18n.ToastUnknown))
			return
		}
	}
	core.HandlePress(ctx, log, p)
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
			if d, err := decodeCallback(btn.CallbackData); err == nil && !d.Action.isResume() && d.UID == uid {
				return true
			}
		}
	}
	return false
}

// handleMessage reads a message of the chat: a migration to a
// supergroup, a command, a reply that steers a session, or text for a
// prompt (HandleInput). Anything else is not for us.
func (f *Frontend) handleMessage(ctx context.Context, core frontend.Core, m *models.Message, update int64, received time.Time) {
	if m.MigrateToChatID != 0 && m.Chat.ID == f.ChatID() {
		old := m.Chat.ID
		f.SetChatID(m.MigrateToChatID)
		if f.cfg.OnChatMigrated != nil {
			f.cfg.OnChatMigrated(old, m.MigrateToChatID)
		}
		return
	}
	if m.From == nil || m.From.IsBot || m.From.ID == f.cfg.BotID {
		return
	}
	log := f.log.With().Int64("chatID", m.Chat.ID).Int("messageID", m.ID).Int64("userID", m.From.ID).Logger()
	if m.Chat.ID != f.ChatID() {
		log.Debug().Msg("ignoring message from another chat")
		return
	}
	if strings.TrimSpace(m.Text) == "" {
		f.order.through(update)
		f.fileMessage(ctx, core, log, m)
		return
	}
	text, whole := f.joinParts(ctx, log, m, update, received)
	if !whole {
		return // a later part of a text another update carries
	}
	if strings.HasPrefix(text, "/") {
		f.handleCommand(ctx, core, log, m, text)
		return
	}
	t := typed{At: place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)}, Text: text, User: userOf(m.From)}
	// In a forum topic every message replies to the topic's first message,
	// so that reply says nothing about which prompt is meant.
	if reply := m.ReplyToMessage; reply != nil && reply.ForumTopicCreated == nil {
		t.ReplyTo = place{Chat: m.Chat.ID, Message: reply.ID, Thread: threadOf(reply)}
		t.ReplyToBot = reply.From != nil && reply.From.ID == f.cfg.BotID
	}
	b, ok := f.bound(core, log, m.Chat.ID, t.ReplyTo.Message, t.At.Thread, t.ReplyToBot)
	if !ok && f.steerMessage(ctx, core, log, m, t, nil) {
		return
	}
	if !ok {
		log.Debug().Int("replyTo", t.ReplyTo.Message).Msg("ignoring text that answers no prompt")
		return
	}
	if !f.allowed(m.From.ID) {
		log.Info().Str("uid", b.Key).Msg("ignoring typed answer from a user not allowed to answer")
		return
	}
	f.typedAnswer(ctx, core, log, t, b, received)
}

// typed is text a person typed in the chat: where, and the message it
// replies to (none: zero), which may be the bot's.
type typed struct {
	At, ReplyTo place
	ReplyToBot  bool
	Text        string
	User        frontend.User
}

// Middlewares returns the middlewares to install with the front-end's
// handler, in order: one that counts running handlers for Wait; one that
// records, after each update, the update ID up to which every update was
// handled, for InitialOffset; and one that recovers a panic, logging it
// with its stack, so the process survives.
func (f *Frontend) Middlewares() []tgbot.Middleware {
	return []tgbot.Middleware{f.trackMiddleware, f.offsetMiddleware, f.recoverMiddleware}
}

func (f *Frontend) trackMiddleware(next tgbot.HandlerFunc) tgbot.HandlerFunc {
	return func(ctx context.Context, bot *tgbot.Bot, upd *models.Update) {
		f.running.Add()
		defer f.running.Done()
		next(ctx, bot, upd)
	}
}

func (f *Frontend) recoverMiddleware(next tgbot.HandlerFunc) tgbot.HandlerFunc {
	return func(ctx context.Context, bot *tgbot.Bot, upd *models.Update) {
		defer func() {
			if r := recover(); r != nil {
				ev := f.log.Error().Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack())
				if upd != nil {
					ev = ev.Int64("updateID", upd.ID)
				}
				ev.Msg("handler panicked; update dropped")
			}
		}()
		next(ctx, bot, upd)
	}
}

// Wait blocks until every handler started through Middlewares has
// returned, and the whole texts of requests being sent as files are sent,
// or ctx ends. Call it after polling stopped, before the life
// cycle's own Wait.
func (f *Frontend) Wait(ctx context.Context) error {
	return f.running.Wait(ctx)
}

// typedAnswer hands t, text for the prompt of b, to core, acknowledged
// on the message as steering is (react): 👀 once taken, 👍 once kept
// or accepted by opencode, cleared when not (the core has then told the
// person why, and asks again when a field's check failed). With
// reactions refused nothing more is sent: the request's message shows
// the answer once it is in.
func (f *Frontend) typedAnswer(ctx context.Context, core frontend.Core, log zerolog.Logger, t typed, b binding, received time.Time) {
	f.react(ctx, log, t.At, reactTaken)
	core.HandleInput(ctx, log, frontend.Input{Key: b.Key, Field: b.Field, Reason: b.Reason, Text: t.Text,
		User: t.User, Frontend: Name, Received: received, Done: func(accepted bool) {
			emoji := ""
			if accepted {
				emoji = reactDone
			}
			f.react(ctx, log, t.At, emoji)
		}})
}

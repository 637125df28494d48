package telegram

import (
	"context"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// Telegram keeps updates while hermes-bot is down and hands them over
// when it is back. A press on a request still waiting is still an answer,
// but a steering message written long ago is a prompt nobody is watching
// go out: older than Config.StaleSteer, it waits for a tap on Send, held
// as a busy session's reply is (deliver.go).

// actSendStale sends a held stale message; its argument is the token.
const actSendStale action = "ssend"

// stale reports whether m is older than Config.StaleSteer by Telegram's
// date and the front-end's clock; a message of no date may be any age.
func (f *Frontend) stale(m *models.Message) bool {
	if f.cfg.StaleSteer <= 0 {
		return false
	}
	return m.Date <= 0 || f.now().Sub(time.Unix(int64(m.Date), 0)) > f.cfg.StaleSteer
}

// askStale holds sm and asks, replying to m, whether to send it now.
func (f *Frontend) askStale(ctx context.Context, log zerolog.Logger, m *models.Message, sm heldPrompt) {
	tx := f.text.Steer
	sm.at = f.now()
	age := sm.at.Sub(time.Unix(int64(max(m.Date, 0)), 0))
	token := f.held.put(sm)
	send, err := steerButton(tx.BtnSend, actSendStale, token)
	if err == nil {
		kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{send}}}
		_, err = f.tg.SendMessage(ctx, htmlMessage(m.Chat.ID, threadOf(m), tx.StaleAsk(f.text.Span(age)), kb, m.ID))
	}
	if err != nil {
		// Not sent either way: a stale prompt never goes out unasked.
		f.held.take(token, f.now())
		log.Warn().Err(err).Msg("steering: could not ask whether to send a stale message; it is dropped")
		return
	}
	log.Info().Dur("age", age).Str("sessionID", sm.ref.ID).Msg("steering: a stale message waits for a tap on Send")
}

// handleStalePress sends the stale message Send holds, once. A busy
// session on OpenCode 2 then asks how, in the question's place. The caller
// checked who pressed; it answers the callback.
func (f *Frontend) handleStalePress(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, d steerData, user frontend.User, answer func(string)) {
	tx := f.text.Steer
	p, ok := f.held.take(d.Arg, f.now())
	if !ok {
		answer(tx.ChoiceGone)
		return
	}
	answer(tx.OnIt)
	log.Info().Str("sessionID", p.ref.ID).Msg("steering: stale message sent on a tap")
	f.react(ctx, log, p.msg, reactTaken)
	res, err := f.deliverSteer(ctx, core, log, p, user, frontend.DeliverAsk)
	if err == nil && res.Busy {
		p.at = f.now()
		token := f.held.put(p)
		queue, err1 := steerButton(tx.BtnQueue, actQueue, token)
		steer, err2 := steerButton(tx.BtnSteerNow, actSteerNow, token)
		if err1 == nil && err2 == nil {
			kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{queue, steer}}}
			if eerr := f.editMessage(ctx, place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)}, tx.BusyAsk(esc(res.Title, 80)), kb); eerr == nil {
				return
			}
		}
		f.held.take(token, f.now())
		res, err = f.deliverSteer(ctx, core, log, p, user, frontend.DeliverQueue)
	}
	if err != nil {
		log.Warn().Err(err).Msg("steering: the stale message could not be sent")
		f.react(ctx, log, p.msg, "")
	}
	f.showOutcome(ctx, core, log, m, p, res, err, frontend.DeliverAsk)
}

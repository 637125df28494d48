package telegram

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// A reply to a session running a turn on OpenCode 2 is not sent at once:
// the person chooses, with one tap, to queue it after the turn or to
// steer the turn with it. Until then its text is held here, in memory,
// under a random token its two buttons carry; the first press takes it,
// so it is delivered once. A restart forgets it, and the buttons say so.

// The actions of the two buttons; their argument is the token.
const (
	actQueue    action = "squeue"
	actSteerNow action = "ssteer"
)

const (
	// heldFor is how long a held reply waits for its choice.
	heldFor = time.Hour
	// maxHeld bounds the replies held; the oldest goes first.
	maxHeld = 200
)

// heldPrompt is a reply waiting for its choice.
type heldPrompt struct {
	ref  pending.SessionRef
	text string
	at   time.Time
}

// heldPrompts are the replies waiting for their choice. The zero value is
// ready to use.
type heldPrompts struct {
	mu sync.Mutex
	m  map[string]heldPrompt
}

// put holds p and returns its token.
func (h *heldPrompts) put(p heldPrompt) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails
	token := hex.EncodeToString(b[:])
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]heldPrompt{}
	}
	for k, q := range h.m {
		if p.at.Sub(q.at) > heldFor {
			delete(h.m, k)
		}
	}
	for len(h.m) >= maxHeld {
		oldest := ""
		for k, q := range h.m {
			if oldest == "" || q.at.Before(h.m[oldest].at) {
				oldest = k
			}
		}
		delete(h.m, oldest)
	}
	h.m[token] = p
	return token
}

// take removes and returns the reply held under token, unless it is gone
// or older than heldFor at now.
func (h *heldPrompts) take(token string, now time.Time) (heldPrompt, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.m[token]
	delete(h.m, token)
	return p, ok && now.Sub(p.at) <= heldFor
}

// askDelivery holds text, which user replied with m to session res.Ref,
// and asks how to deliver it. When the question cannot be posted the
// text is queued, as a reply anywhere else is.
func (f *Frontend) askDelivery(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, res frontend.Steered, text string, user frontend.User) {
	tx := f.text.Steer
	token := f.held.put(heldPrompt{ref: res.Ref, text: text, at: f.now()})
	queue, err1 := steerButton(tx.BtnQueue, actQueue, token)
	steer, err2 := steerButton(tx.BtnSteerNow, actSteerNow, token)
	var err error
	if err1 == nil && err2 == nil {
		kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{queue, steer}}}
		if _, err = f.tg.SendMessage(ctx, htmlMessage(m.Chat.ID, threadOf(m), tx.BusyAsk(esc(res.Title, 80)), kb, m.ID)); err == nil {
			return
		}
	}
	log.Warn().Err(err).Msg("steering: could not ask whether to queue or steer; queueing the reply")
	if _, ok := f.held.take(token, f.now()); !ok {
		return // pressed meanwhile, somehow
	}
	res, err = core.ContinueSession(ctx, log, res.Ref, text, user, frontend.DeliverQueue)
	line := f.steerFailure(err)
	if err == nil {
		line = tx.Queued(esc(res.Title, 80))
	}
	f.replyLine(ctx, log, m, line)
}

// handleDeliveryPress delivers the reply a Queue or Steer-now button
// holds, as it says, and shows what happened in the question's place. The
// caller checked who pressed; it answers the callback.
func (f *Frontend) handleDeliveryPress(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, d steerData, user frontend.User, answer func(string)) {
	tx := f.text.Steer
	p, ok := f.held.take(d.Arg, f.now())
	if !ok {
		answer(tx.ChoiceGone)
		return
	}
	answer(tx.OnIt)
	how := frontend.DeliverQueue
	if d.Action == actSteerNow {
		how = frontend.DeliverSteer
	}
	res, err := core.ContinueSession(ctx, log, p.ref, p.text, user, how)
	var text string
	switch {
	case err != nil:
		log.Warn().Err(err).Msg("steering: the chosen delivery failed")
		text = f.steerFailure(err)
	case how == frontend.DeliverSteer:
		text = tx.SteeredInto(esc(res.Title, 80))
	default:
		text = tx.Queued(esc(res.Title, 80))
	}
	at := place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)}
	if eerr := f.editMessage(ctx, at, text, nil); eerr != nil {
		log.Warn().Err(eerr).Msg("steering: could not say how the reply was delivered")
		return
	}
	if err == nil && res.Ref.ID != "" {
		// The confirmation is a message about the session too.
		_ = core.RememberMessage(Name, at.encode(), res.Ref)
	}
}

package telegram

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
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

// heldPrompt is a steering message: a reply to a session's message (with
// no session ID: the first prompt of a session in ref.Directory), held
// while it waits for a choice.
type heldPrompt struct {
	ref  pending.SessionRef
	text string
	at   time.Time
	// files go with text, fetched when sent; msg is the person's message,
	// acknowledged with reactions; replyTo the message it replied to.
	files        []fileRef
	msg, replyTo place
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
	maps.DeleteFunc(h.m, func(_ string, q heldPrompt) bool { return p.at.Sub(q.at) > heldFor })
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

// askDelivery holds sm, which user sent to session res.Ref, and asks how
// to deliver it. When the question cannot be posted it is queued, as a
// reply anywhere else is.
func (f *Frontend) askDelivery(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, res frontend.Steered, sm heldPrompt, user frontend.User) {
	tx := f.text.Steer
	sm.at = f.now()
	token := f.held.put(sm)
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
	res, err = f.deliverSteer(ctx, core, log, sm, user, frontend.DeliverQueue)
	f.ackSteer(ctx, core, log, m, sm, res, err)
}

// takePressed takes the reply held under a pressed button's token and
// answers the press: gone (taken already, or held too long) or on it.
func (f *Frontend) takePressed(token string, answer func(string)) (heldPrompt, bool) {
	p, ok := f.held.take(token, f.now())
	if !ok {
		answer(f.text.Steer.ChoiceGone)
		return p, false
	}
	answer(f.text.Steer.OnIt)
	return p, true
}

// handleDeliveryPress delivers the reply a Queue or Steer-now button
// holds, as it says, and shows what happened in the question's place. The
// caller checked who pressed; it answers the callback.
func (f *Frontend) handleDeliveryPress(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, d steerData, user frontend.User, answer func(string)) {
	p, ok := f.takePressed(d.Arg, answer)
	if !ok {
		return
	}
	how := frontend.DeliverQueue
	if d.Action == actSteerNow {
		how = frontend.DeliverSteer
	}
	res, err := f.deliverSteer(ctx, core, log, p, user, how)
	if err != nil {
		log.Warn().Err(err).Msg("steering: the chosen delivery failed")
	}
	f.showOutcome(ctx, core, log, m, p, res, err, how)
}

// showOutcome shows in the question m what sending p did, and marks p's
// message 👍 when it went.
func (f *Frontend) showOutcome(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, p heldPrompt, res frontend.Steered, err error, how frontend.Delivery) {
	if err == nil && p.msg.Message != 0 {
		f.react(ctx, log, p.msg, reactDone)
	}
	at := place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)}
	if eerr := f.editMessage(ctx, at, f.steerOutcome(p, res, err, how), nil); eerr != nil {
		log.Warn().Err(eerr).Msg("steering: could not say how the reply was delivered")
		return
	}
	if err == nil && res.Ref.ID != "" {
		// The confirmation is a message about the session too.
		_ = core.RememberMessage(Name, at.encode(), res.Ref)
	}
}

// Telegram keeps updates while hermes-bot is down and hands them over
// when it is back. A press on a request still waiting is still an answer,
// but a steering message written long ago is a prompt nobody is watching
// go out: older than Config.StaleSteer, it waits for a tap on Send, held
// as a busy session's reply is.

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
	p, ok := f.takePressed(d.Arg, answer)
	if !ok {
		return
	}
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

// /new with words after it, or as the caption of a photo or a document,
// is the new session's first prompt already: it is held, and the tap on a
// project starts the session with it (no prompt to reply to). The tap is
// the confirmation, so an old /new acts no more by itself than a fresh one.

// actNewWith starts a session in a project with a held prompt; its
// argument is "<token>-<project key>".
const actNewWith action = "snewp"

// holdNewPrompt holds the prompt /new message m carries, if any, and
// returns its token; refusal is why its files cannot go.
func (f *Frontend) holdNewPrompt(log zerolog.Logger, m *models.Message) (token, refusal string) {
	text := m.Text
	if text == "" {
		text = m.Caption
	}
	args := commandArgs(text)
	files := filesOf(m)
	if args == "" && len(files) == 0 {
		return "", ""
	}
	if err := f.checkSizes(files); err != nil {
		log.Info().Err(err).Msg("steering: refusing the files of /new")
		return "", f.fileFailure(err)
	}
	at := place{Chat: m.Chat.ID, Message: m.ID, Thread: threadOf(m)}
	return f.held.put(heldPrompt{text: args, files: files, msg: at, at: f.now()}), ""
}

// handleNewWithPress starts a session in the project pressed with the
// prompt held, once. The caller checked who pressed; it answers the
// callback.
func (f *Frontend) handleNewWithPress(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, d steerData, user frontend.User, answer func(string)) {
	token, key, ok := strings.Cut(d.Arg, "-")
	if !ok {
		answer(f.text.Toast(i18n.ToastUnknown))
		return
	}
	project, ok := f.pressedProject(ctx, core, key, answer)
	if !ok {
		return
	}
	p, ok := f.takePressed(token, answer)
	if !ok {
		return
	}
	p.ref = pending.SessionRef{Server: project.Server, Directory: project.Directory}
	log.Info().Str("server", project.Server).Str("directory", project.Directory).Msg("steering: project chosen for a new session with its prompt")
	f.react(ctx, log, p.msg, reactTaken)
	res, err := f.deliverSteer(ctx, core, log, p, user, frontend.DeliverQueue)
	if err != nil {
		f.react(ctx, log, p.msg, "")
	}
	f.showOutcome(ctx, core, log, m, p, res, err, frontend.DeliverQueue)
}

// commandArgs is what follows a command's first word, trimmed.
func commandArgs(text string) string {
	text = strings.TrimSpace(text)
	i := strings.IndexAny(text, " \t\n")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(text[i:])
}

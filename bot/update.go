package bot

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// ack answers one press at most once; the first text wins.
type ack struct {
	text *i18n.Text
	send func(string)
	done bool
}

// toast answers the press with toast id, in the chat's language.
func (a *ack) toast(id i18n.Toast) { a.answer(a.text.Toast(id)) }

// answer answers the press with text, as it is ("" shows nothing).
func (a *ack) answer(text string) {
	if a.done {
		return
	}
	a.done = true
	if a.send != nil {
		a.send(text)
	}
}

// HandlePress acts on a button press the front-end read and checked (see
// frontend.Press). Every path acknowledges it exactly once: quick
// outcomes with a toast, the opencode call with "Sending…" before it
// starts. log carries what the front-end knows of the press.
func (b *Bridge) HandlePress(ctx context.Context, log zerolog.Logger, p frontend.Press) {
	a := &ack{text: b.text, send: p.Ack}
	// Deferred first, so it runs last: after unlock, and during a panic.
	defer a.answer("")
	if p.Action.IsPermission() {
		b.pressPermission(ctx, log, p, a)
		return
	}
	press := log
	log = log.With().Str("uid", p.Key).Logger()

	lockCtx, cancel := context.WithTimeout(ctx, b.lockWait)
	unlock, err := b.locks.lock(lockCtx, p.Key)
	cancel()
	if err != nil {
		log.Info().Msg("refusing press: another answer to this request is in progress")
		a.toast(i18n.ToastBusy)
		return
	}
	defer unlock()

	e, err := b.store.Get(p.Key)
	if errors.Is(err, pending.ErrNotFound) {
		b.refuseClosed(ctx, log, p, a)
		return
	}
	if err != nil {
		log.Error().Err(err).Msg("could not read request for a press")
		a.toast(i18n.ToastFailed)
		return
	}
	elog := withEntry(press, e)
	b.adopt(elog, p, []*pending.Entry{e})
	by := answerer{User: p.User, in: p.Frontend, at: p.At}
	if pc := staleCopy(p, e.Places[p.Frontend]); pc != nil {
		// Runs before unlock, deferred earlier: the copy is settled while
		// the request cannot change.
		by.copy = pc
		defer b.settleCopy(ctx, elog, pc, e.UID, e.Places[p.Frontend])
	}
	if e.Kind != pending.KindQuestion || (p.Question >= len(e.Questions) && !(e.IsURLForm() && p.Question == 0)) {
		elog.Info().Str("data", p.Data).Msg("refusing button that does not match its request")
		a.toast(i18n.ToastUnknown)
		return
	}
	if e.ExpiredNotified {
		elog.Info().Msg("refusing press on an expired request")
		a.toast(i18n.ToastExpired)
		return
	}
	if p.Question != e.Current {
		elog.Info().Int("question", p.Question).Int("current", e.Current).Msg("refusing stale button")
		a.toast(i18n.ToastStale)
		return
	}
	if e.IsURLForm() {
		b.pressURLForm(ctx, elog, e, p, by, a)
		return
	}
	b.pressQuestion(ctx, elog, e, p, by, a)
}

// pressQuestion acts on p, a press of one of question request e's
// buttons naming its current question. The caller holds e's lock.
func (b *Bridge) pressQuestion(ctx context.Context, elog zerolog.Logger, e *pending.Entry, p frontend.Press, by answerer, a *ack) {
	q := e.Questions[p.Question]
	optionOK := p.Option >= 0 && p.Option < len(q.Options)
	switch p.Action {
	case frontend.Pick:
		if q.Multiple || !optionOK {
			break
		}
		label := q.Options[p.Option].Label
		elog.Info().Int("question", p.Question).Str("label", label).Msg("option pressed")
		b.applyAnswer(ctx, elog, e, []string{label}, by, a)
		return
	case frontend.Toggle:
		if !q.Multiple || !optionOK {
			break
		}
		b.toggle(ctx, elog, e, p.Question, p.Option, a)
		return
	case frontend.Submit:
		if !q.Multiple {
			break
		}
		labels := q.Selected(e.Selected)
		if q.IsField() {
			if problem := checkItems(b.text, q, len(labels)); problem != "" {
				a.answer(problem)
				return
			}
			if labels == nil {
				labels = []string{} // answered with none, not skipped
			}
		} else if len(labels) == 0 {
			a.toast(i18n.ToastSelectFirst)
			return
		}
		elog.Info().Int("question", p.Question).Strs("labels", labels).Msg("selection submitted")
		b.applyAnswer(ctx, elog, e, labels, by, a)
		return
	case frontend.Type:
		if !q.AllowsTyped() {
			break
		}
		b.prompt(ctx, elog, e, e.Current, false, by, a, "waiting for a typed answer")
		return
	case frontend.Quick:
		if !q.AllowsTyped() || p.Text == "" {
			break
		}
		// Checked and answered as the same text typed would be.
		answer, problem := b.typedAnswer(e, p.Text)
		if problem != "" {
			elog.Info().Int("question", p.Question).Str("problem", problem).Msg("quick reply refused: it breaks a rule of its field")
			a.answer(problem)
			return
		}
		elog.Info().Int("question", p.Question).Msg("quick reply pressed")
		b.applyAnswer(ctx, elog, e, answer, by, a)
		return
	case frontend.Skip:
		if !q.IsField() || q.Required {
			break
		}
		elog.Info().Int("question", p.Question).Msg("optional field skipped")
		b.applyAnswer(ctx, elog, e, nil, by, a)
		return
	}
	elog.Info().Str("data", p.Data).Msg("refusing button that does not match its question")
	a.toast(i18n.ToastUnknown)
}

// toggle selects or unselects an option of a multi-select question.
func (b *Bridge) toggle(ctx context.Context, log zerolog.Logger, e *pending.Entry, qi, oi int, a *ack) {
	label := e.Questions[qi].Options[oi].Label
	on := !slices.Contains(e.Selected, label)
	next, err := b.store.Update(e.UID, func(x *pending.Entry) error {
		x.Selected = slices.DeleteFunc(x.Selected, func(s string) bool { return s == label })
		if on {
			x.Selected = append(x.Selected, label)
		}
		return nil
	})
	if err != nil {
		log.Error().Err(err).Msg("could not save selection")
		a.toast(i18n.ToastFailed)
		return
	}
	if on {
		a.answer("☑ " + label)
	} else {
		a.answer("☐ " + label)
	}
	b.refreshLater(log, next)
}

// refreshLater shows e's current question and keyboard in its message
// without waiting for the chat, for a toggle: the tap is acknowledged and
// the lock let go at once, so taps in quick succession are each applied
// rather than refused as busy while an edit waits for the chat's pacing.
// The front-end keeps the edits of a message in order and never lands one
// after the closing edit. A message found gone when the edit is finally
// tried is posted again, under the lock, as refresh does.
func (b *Bridge) refreshLater(log zerolog.Logger, e *pending.Entry) {
	for _, m := range b.shownAt(e.Places) {
		b.running.Add()
		m.fe.RefreshLater(m.at, requestOf(e), func(err error) {
			defer b.running.Done()
			switch {
			case err == nil:
			case errors.Is(err, frontend.ErrGone):
				// Reposting waits for the lock and the chat; done must not
				// hold up whoever calls it (the front-end's queue).
				b.running.Add()
				go func() {
					defer b.running.Done()
					b.repostGone(log, e.UID, m)
				}()
			default:
				log.Warn().Err(err).Str("frontend", m.fe.Name()).Msg("could not edit request message")
			}
		})
	}
}

// repostGone posts question uid again when its message at at was found
// gone after the lock was let go: if it is still open and still shown
// there (a press since may have closed it, or posted it again already).
func (b *Bridge) repostGone(log zerolog.Logger, uid string, m shown) {
	ctx, cancel := context.WithTimeout(context.Background(), handlerTimeout)
	defer cancel()
	unlock, err := b.locks.lock(ctx, uid)
	if err != nil {
		log.Warn().Err(err).Str("frontend", m.fe.Name()).Msg("request message is gone; could not take its lock to post it again")
		return
	}
	defer unlock()
	e, err := b.store.Get(uid)
	switch {
	case errors.Is(err, pending.ErrNotFound):
		return
	case err != nil:
		log.Error().Err(err).Msg("request message is gone; could not read the request to post it again")
		return
	case e.Places[m.fe.Name()] != m.at:
		return
	}
	b.repost(ctx, log, e, m, requestOf(e))
}

// prompt asks who's front-end to collect the text e waits for (the
// answer to question qi, or with reason a reject's reason) from them, and
// records that e waits for it. It answers the press: i18n.ToastTypeAnswer
// once asked.
func (b *Bridge) prompt(ctx context.Context, log zerolog.Logger, e *pending.Entry, qi int, reason bool, who answerer, a *ack, what string) {
	fe := b.frontendNamed(who.in)
	at := e.Places[who.in]
	if fe == nil || at == "" {
		log.Error().Str("frontend", who.in).Msg("cannot ask for a typed answer where the request is not shown")
		a.toast(i18n.ToastPromptFailed)
		return
	}
	if err := fe.Collect(ctx, at, requestOf(e), qi, reason, who.User); err != nil {
		log.Error().Err(err).Str("frontend", who.in).Msg("could not ask for a typed answer")
		a.toast(i18n.ToastPromptFailed)
		return
	}
	// The text takes e's lock, which the caller holds: it comes after this.
	if _, err := b.store.Update(e.UID, func(x *pending.Entry) error {
		x.AwaitingText, x.AwaitingQuestion, x.AwaitingReason = true, qi, reason
		return nil
	}); err != nil {
		log.Error().Err(err).Msg("could not save that a typed answer is awaited")
		a.toast(i18n.ToastPromptFailed)
		return
	}
	a.toast(i18n.ToastTypeAnswer)
	log.Info().Int("question", qi).Str("frontend", who.in).Msg(what)
}

// answerer is who answered, in which front-end, and when the press or
// text that answered reached hermes-bot, for the answer latency.
type answerer struct {
	frontend.User
	in string
	at time.Time
	// copy is the stale copy a press came from, if it did (see
	// pressedCopy).
	copy *pressedCopy
}

// chat is how the front-end a answered in is named to people: its name
// capitalised ("telegram" → "Telegram").
func (a answerer) chat() string {
	if a.in == "" {
		return "the chat"
	}
	return strings.ToUpper(a.in[:1]) + a.in[1:]
}

// Awaits reports whether request key waits for the text of field (with
// reason, of a reject's reason); see frontend.Core.
func (b *Bridge) Awaits(key string, field int, reason bool) bool {
	e, err := b.store.Get(key)
	return err == nil && awaits(e, field, reason)
}

// awaits reports whether e waits for the text of field, or of a reason.
func awaits(e *pending.Entry, field int, reason bool) bool {
	if !e.AwaitingText || e.ExpiredNotified || e.AwaitingReason != reason {
		return false
	}
	return reason || (e.AwaitingQuestion == field && field == e.Current && field < len(e.Questions))
}

// HandleInput takes text a front-end collected for a request (see
// frontend.Input): a typed answer, or the reason of a reject. Text for a
// request no longer waiting for it at that field is dropped. log carries
// what the front-end knows of the message.
func (b *Bridge) HandleInput(ctx context.Context, log zerolog.Logger, in frontend.Input) {
	log = log.With().Str("uid", in.Key).Str("userID", in.User.ID).Logger()
	accepted := false
	if in.Done != nil {
		defer func() { in.Done(accepted) }()
	}
	by := answerer{User: in.User, in: in.Frontend, at: in.Received}
	if in.Reason {
		accepted = b.reasonReceived(ctx, log, in.Key, in.Text, by)
		return
	}
	unlock, err := b.locks.lock(ctx, in.Key)
	if err != nil {
		log.Warn().Err(err).Msg("gave up waiting to take a typed answer")
		return
	}
	defer unlock()
	e, err := b.store.Get(in.Key)
	if err != nil {
		if !errors.Is(err, pending.ErrNotFound) {
			log.Error().Err(err).Msg("could not read the request of a typed answer")
		}
		return
	}
	elog := withEntry(log, e)
	if !awaits(e, in.Field, false) {
		elog.Info().Int("question", in.Field).Int("current", e.Current).Msg("ignoring typed answer: the request no longer awaits it")
		return
	}
	answer, problem := b.typedAnswer(e, in.Text)
	if problem != "" {
		b.refuseTyped(ctx, elog, e, by, problem)
		return
	}
	elog.Info().Int("question", e.Current).Msg("typed answer received")
	accepted = b.applyAnswer(ctx, elog, e, answer, by, nil)
}

// applyAnswer records answer to e's current question (nil: a field
// skipped). Before the last question asked the message moves on to the
// next one, passing over fields whose conditions do not hold; at the
// last, every answer goes to opencode. a is nil for typed answers. It
// reports whether the answer was kept or delivered.
func (b *Bridge) applyAnswer(ctx context.Context, log zerolog.Logger, e *pending.Entry, answer []string, user answerer, a *ack) bool {
	qi := e.Current
	answers := make([][]string, len(e.Questions))
	copy(answers, e.Answers)
	answers[qi] = answer
	if ni := nextField(e, answers, qi+1); ni < len(e.Questions) {
		next, err := b.store.Update(e.UID, func(x *pending.Entry) error {
			x.Answers = answers
			x.Current = ni
			x.Selected = nil
			clearAwaiting(x)
			return nil
		})
		if err != nil {
			log.Error().Err(err).Msg("could not save answer")
			if a != nil {
				a.toast(i18n.ToastFailed)
			}
			return false
		}
		if a != nil {
			a.answer(b.text.SavedNext(b.text.Title(next.Questions[ni].Header, ni)))
		}
		b.refresh(ctx, log, next, requestOf(next))
		return true
	}
	if a != nil {
		a.toast(i18n.ToastSending)
	}
	return b.submit(ctx, log, e, answers, user)
}

func clearAwaiting(e *pending.Entry) {
	e.AwaitingText, e.AwaitingQuestion, e.AwaitingReason = false, 0, false
}

// submit sends the answers of every question to opencode and shows the
// outcome, reporting whether opencode took them. The caller holds e's lock.
func (b *Bridge) submit(ctx context.Context, log zerolog.Logger, e *pending.Entry, answers [][]string, user answerer) bool {
	var err error
	if e.Form != nil {
		err = b.replyForm(ctx, e, answers)
	} else {
		err = b.replyQuestion(ctx, log, e, answers)
	}
	var invalid *opencode.FormInvalidError
	switch {
	case err == nil:
		log.Info().Str("by", user.DisplayName()).Msg("answer delivered to opencode")
		b.tellTerminal(log, e, b.text.TerminalAnswered(user.chat(), user.DisplayName()))
		b.cfg.Metrics.answerDelivered(user.at, b.now())
		o := frontend.Outcome{How: frontend.Answered, Answers: answers, By: user.User}
		b.closeRequest(ctx, log, e, o, i18n.ToastAnswered, user.copy)
		return true
	case errors.Is(err, opencode.ErrNotFound):
		log.Warn().Err(err).Msg("request is no longer pending in opencode; closing it")
		b.closeRequest(ctx, log, e, frontend.Outcome{How: frontend.NoLongerPending}, i18n.ToastGone, user.copy)
	case errors.As(err, &invalid):
		b.formRefused(ctx, log, e, user, invalid.Message)
	case errors.Is(err, opencode.ErrNotAccepted):
		log.Warn().Err(err).Msg("opencode did not accept the answer")
		qi := e.Current
		next, uerr := b.store.Update(e.UID, func(x *pending.Entry) error {
			if qi < len(x.Answers) {
				x.Answers[qi] = nil
			}
			x.Selected = nil
			return nil
		})
		if uerr != nil {
			log.Error().Err(uerr).Msg("could not clear the refused answer")
		} else if len(e.Selected) > 0 {
			b.refresh(ctx, log, next, requestOf(next))
		}
		b.tell(ctx, log, e, user, b.text.TellAnswerRefused)
	default:
		log.Error().Err(err).Msg("could not deliver answer to opencode")
		b.tell(ctx, log, e, user, b.text.TellAnswerLost)
	}
	return false
}

// replyQuestion sends the answers of 1.x question request e, by the
// request ID opencode resolves for it now (saved if it changed).
func (b *Bridge) replyQuestion(ctx context.Context, log zerolog.Logger, e *pending.Entry, answers [][]string) error {
	id, err := b.resolveQuestionID(ctx, e)
	if err == nil {
		if id != e.RequestID {
			log.Info().Str("resolvedID", id).Msg("request ID changed; using the resolved one")
			if _, uerr := b.store.Update(e.UID, func(x *pending.Entry) error {
				x.RequestID = id
				return nil
			}); uerr != nil {
				log.Warn().Err(uerr).Msg("could not save the resolved request ID")
			}
		}
		err = b.opencodeOf(e.Server).Requests(surfaceOf(e)).ReplyQuestion(ctx, e.Directory, e.SessionID, id, answers)
	}
	return err
}

// tell sends a short note to the person, by the request's message in the
// front-end they answered in. msg is HTML.
func (b *Bridge) tell(ctx context.Context, log zerolog.Logger, e *pending.Entry, who answerer, msg string) {
	fe, at := b.frontendNamed(who.in), e.Places[who.in]
	if fe == nil || at == "" {
		log.Warn().Str("frontend", who.in).Msg("cannot tell the person what happened to their answer: the request is not shown there")
		return
	}
	if err := fe.Tell(ctx, at, lockKey(e), who.User, msg); err != nil {
		log.Warn().Err(err).Msg("could not tell the person what happened to their answer")
	}
}

package bot

import (
	"context"
	"errors"
	"slices"
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
	if p.From.Chat == 0 && e.Place.Chat != 0 && e.Place.Chat != p.Chat {
		// The pressed message is inaccessible; the entry says where it is.
		elog.Info().Int64("chatID", e.Place.Chat).Msg("refusing press on a request of another chat")
		a.toast(i18n.ToastNotAllowed)
		return
	}
	b.adopt(elog, p, []*pending.Entry{e})
	by := answerer{User: p.User, at: p.At}
	if pc := staleCopy(p, e.Place.Chat, e.Place.Message); pc != nil {
		// Runs before unlock, deferred earlier: the copy is settled while
		// the request cannot change.
		by.copy = pc
		defer b.settleCopy(ctx, elog, pc, e.UID, e.Place.Message)
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
		b.askForText(ctx, elog, e, p.User, a)
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
	if e.Place.Message == 0 {
		return
	}
	at := e.Place
	b.running.Add()
	b.fe.RefreshLater(at, requestOf(e), func(err error) {
		defer b.running.Done()
		switch {
		case err == nil:
		case errors.Is(err, frontend.ErrGone):
			// Reposting waits for the lock and the chat; done must not hold
			// up whoever calls it (the front-end's queue).
			b.running.Add()
			go func() {
				defer b.running.Done()
				b.repostGone(log, e.UID, at)
			}()
		default:
			log.Warn().Err(err).Int("messageID", at.Message).Msg("could not edit request message")
		}
	})
}

// repostGone posts question uid again when its message at at was found
// gone after the lock was let go: if it is still open and still shown
// there (a press since may have closed it, or posted it again already).
func (b *Bridge) repostGone(log zerolog.Logger, uid string, at pending.Place) {
	ctx, cancel := context.WithTimeout(context.Background(), b.handlerTimeout)
	defer cancel()
	unlock, err := b.locks.lock(ctx, uid)
	if err != nil {
		log.Warn().Err(err).Int("messageID", at.Message).Msg("request message is gone; could not take its lock to post it again")
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
	case e.Place.Chat != at.Chat || e.Place.Message != at.Message:
		return
	}
	b.repost(ctx, log, e, requestOf(e))
}

// rerender shows e's current question and keyboard in its message.
func (b *Bridge) rerender(ctx context.Context, log zerolog.Logger, e *pending.Entry) {
	b.refresh(ctx, log, e, requestOf(e))
}

// askForText sends the force_reply prompt for a typed answer to the
// current question and records it, so a reply to it is the answer.
func (b *Bridge) askForText(ctx context.Context, log zerolog.Logger, e *pending.Entry, user frontend.User, a *ack) {
	b.prompt(ctx, log, e, e.Current, false, user, a, "waiting for a typed answer")
}

// prompt asks user for the text e waits for (the answer to question qi,
// or with reason a reject's reason), replying to e's message, and records
// the prompt on e, so a reply to it is taken as that text. It answers the
// press: i18n.ToastTypeAnswer once recorded.
func (b *Bridge) prompt(ctx context.Context, log zerolog.Logger, e *pending.Entry, qi int, reason bool, user frontend.User, a *ack, what string) {
	b.prompting.RLock()
	defer b.prompting.RUnlock()
	promptID, err := b.fe.Prompt(ctx, e, qi, reason, user)
	if err != nil {
		log.Error().Err(err).Msg("could not send the prompt for a typed answer")
		a.toast(i18n.ToastPromptFailed)
		return
	}
	// Recorded before the toast, so by the time the person sees it a
	// reply to the prompt is matched.
	if _, err := b.store.Update(e.UID, func(x *pending.Entry) error {
		x.AwaitingText = true
		x.AwaitingQuestion = qi
		x.AwaitingUserID = user.ID
		x.Prompt = promptID
		return nil
	}); err != nil {
		log.Error().Err(err).Int("promptMessageID", promptID).Msg("could not save the prompt for a typed answer")
		a.toast(i18n.ToastPromptFailed)
		return
	}
	a.toast(i18n.ToastTypeAnswer)
	log.Info().Int("question", qi).Int("promptMessageID", promptID).Msg(what)
}

// answerer is who answered, and when the press or text that answered
// reached hermes-bot, for the answer latency.
type answerer struct {
	frontend.User
	at time.Time
	// copy is the stale copy a press came from, if it did (see
	// pressedCopy).
	copy *pressedCopy
}

// HandleText takes a typed answer the front-end read (see frontend.Text):
// a reply to a prompt, or, when the text replies to nothing, the answer
// of the only request in the chat awaiting text. Anything else is not for
// us. log carries what the front-end knows of the message.
func (b *Bridge) HandleText(ctx context.Context, log zerolog.Logger, t frontend.Text) {
	var uid string
	if t.ReplyTo != 0 {
		e, err := b.store.ByPrompt(t.At.Chat, t.ReplyTo)
		if errors.Is(err, pending.ErrNotFound) && t.ReplyToBot {
			// The prompt may have been sent but not yet recorded.
			b.prompting.Lock()
			b.prompting.Unlock()
			e, err = b.store.ByPrompt(t.At.Chat, t.ReplyTo)
		}
		if errors.Is(err, pending.ErrNotFound) {
			log.Debug().Int("replyTo", t.ReplyTo).Msg("ignoring reply to a message that is not a prompt")
			return
		}
		if err != nil {
			log.Error().Err(err).Msg("could not look up the prompt a message replies to")
			return
		}
		uid = e.UID
	} else {
		waiting, err := b.store.AwaitingText(t.At.Chat)
		if err != nil {
			log.Error().Err(err).Msg("could not list requests awaiting text")
			return
		}
		if t.Threaded {
			// Requests are posted in threads: text answers a prompt of its
			// own thread only.
			waiting = slices.DeleteFunc(waiting, func(e *pending.Entry) bool { return e.Place.Thread != t.At.Thread })
		}
		if len(waiting) != 1 {
			log.Debug().Int("awaiting", len(waiting)).Msg("ignoring text that replies to nothing: not exactly one request awaits text")
			return
		}
		uid = waiting[0].UID
	}
	log = log.With().Str("uid", uid).Logger()
	if !t.Allowed {
		log.Info().Msg("ignoring typed answer from a user not allowed to answer")
		return
	}
	by := answerer{User: t.User, at: t.Received}
	if e, err := b.store.Get(uid); err == nil && e.Kind == pending.KindPermission {
		b.reasonReceived(ctx, log, e, t.ReplyTo, t.Text, by)
		return
	}

	unlock, err := b.locks.lock(ctx, uid)
	if err != nil {
		log.Warn().Err(err).Msg("gave up waiting to take a typed answer")
		return
	}
	defer unlock()
	e, err := b.store.Get(uid)
	if err != nil {
		if !errors.Is(err, pending.ErrNotFound) {
			log.Error().Err(err).Msg("could not read the request of a typed answer")
		}
		return
	}
	elog := b.entryLog(e).With().Int("messageID", t.At.Message).Int64("userID", t.User.ID).Logger()
	switch {
	case !e.AwaitingText || (t.ReplyTo != 0 && t.ReplyTo != e.Prompt):
		elog.Debug().Msg("ignoring typed answer: request no longer awaits this prompt")
		return
	case e.ExpiredNotified:
		elog.Info().Msg("ignoring typed answer: the request expired")
		return
	case e.AwaitingQuestion != e.Current || e.Current >= len(e.Questions):
		elog.Info().Int("question", e.AwaitingQuestion).Int("current", e.Current).Msg("ignoring typed answer to a question already answered")
		return
	}
	answer, problem := b.typedAnswer(e, t.Text)
	if problem != "" {
		b.refuseTyped(ctx, elog, e, t.User, problem)
		return
	}
	elog.Info().Int("question", e.Current).Msg("typed answer received")
	b.applyAnswer(ctx, elog, e, answer, by, nil)
}

// applyAnswer records answer to e's current question (nil: a field
// skipped). Before the last question asked the message moves on to the
// next one, passing over fields whose conditions do not hold; at the
// last, every answer goes to opencode. a is nil for typed answers.
func (b *Bridge) applyAnswer(ctx context.Context, log zerolog.Logger, e *pending.Entry, answer []string, user answerer, a *ack) {
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
			return
		}
		if a != nil {
			a.answer(b.text.SavedNext(b.text.Title(next.Questions[ni].Header, ni)))
		}
		b.rerender(ctx, log, next)
		return
	}
	if a != nil {
		a.toast(i18n.ToastSending)
	}
	b.submit(ctx, log, e, answers, user)
}

func clearAwaiting(e *pending.Entry) {
	e.AwaitingText = false
	e.AwaitingQuestion = 0
	e.AwaitingUserID = 0
	e.Prompt = 0
}

// submit sends the answers of every question to opencode and shows the
// outcome. The caller holds e's lock.
func (b *Bridge) submit(ctx context.Context, log zerolog.Logger, e *pending.Entry, answers [][]string, user answerer) {
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
		b.tellTerminal(log, e, b.text.TerminalAnswered(user.DisplayName()))
		b.cfg.Metrics.answerDelivered(user.at, b.now())
		text := b.fe.Outcome(requestOf(e), frontend.Outcome{How: frontend.Answered, Answers: answers, By: user.User})
		b.deleteEntry(log, e, i18n.ToastAnswered, owedEdit(e, text)...)
		b.closeMessage(ctx, log, e, text, user.copy)
	case errors.Is(err, opencode.ErrNotFound):
		log.Warn().Err(err).Msg("request is no longer pending in opencode; closing it")
		text := b.fe.Outcome(requestOf(e), frontend.Outcome{How: frontend.NoLongerPending})
		b.deleteEntry(log, e, i18n.ToastGone, owedEdit(e, text)...)
		b.closeMessage(ctx, log, e, text, user.copy)
	case errors.As(err, &invalid):
		b.formRefused(ctx, log, e, user.User, invalid.Message)
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
			b.rerender(ctx, log, next)
		}
		b.tell(ctx, log, e, user.User, b.text.TellAnswerRefused)
	default:
		log.Error().Err(err).Msg("could not deliver answer to opencode")
		b.tell(ctx, log, e, user.User, b.text.TellAnswerLost)
	}
}

// replyQuestion sends the answers of 1.x question request e, by the
// request ID opencode resolves for it now (saved if it changed).
func (b *Bridge) replyQuestion(ctx context.Context, log zerolog.Logger, e *pending.Entry, answers [][]string) error {
	id, err := b.opencodeOf(e.Server).ResolveQuestionID(ctx, opencode.QuestionRef{
		Directory: e.Directory,
		RequestID: e.RequestID,
		SessionID: e.SessionID,
		CallID:    e.CallID,
		Surface:   surfaceOf(e),
	})
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

// tell sends a short note to the person, replying to the request message.
// msg is HTML.
func (b *Bridge) tell(ctx context.Context, log zerolog.Logger, e *pending.Entry, user frontend.User, msg string) {
	if err := b.fe.Tell(ctx, e, user, msg); err != nil {
		log.Warn().Err(err).Msg("could not tell the person what happened to their answer")
	}
}

package telegram

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Steering from the chat: a reply to a message about a session continues
// it, /new starts one, /sessions lists them and /stop (or a ⏹ button)
// stops one after a confirmation tap. Steering runs code with the agent's
// rights, so only the users of Config.AllowedUserIDs may, and with none
// configured it is off.

// The commands of steering.
const (
	cmdNew      = "new"
	cmdSessions = "sessions"
	cmdStop     = "stop"
)

// The actions of steering buttons. Their data is "<action>:<arg>", the
// argument being a session ID or a project's key.
const (
	// actNew asks for the first prompt of a session in a project.
	actNew action = "snew"
	// actContinue asks for the next prompt of a session.
	actContinue action = "scont"
	// actStop asks to confirm stopping a session.
	actStop action = "sstop"
	// actStopYes stops it; actStopNo leaves it.
	actStopYes action = "sstopy"
	actStopNo  action = "sstopn"
)

// maxSessionsListed bounds /sessions: a message of about 100 buttons at
// most, and a list a person reads.
const maxSessionsListed = 10

// maxSteerArg keeps steering data within 64 bytes ("sstopy:" is 7).
const maxSteerArg = 48

// steerData is a decoded steering button.
type steerData struct {
	Action action
	Arg    string
}

func (a action) isSteer() bool {
	switch a {
	case actNew, actContinue, actStop, actStopYes, actStopNo, actQueue, actSteerNow, actSendStale, actNewWith:
		return true
	}
	return false
}

// validSteerArg accepts opencode session IDs (ses_…) and project keys.
func validSteerArg(s string) bool {
	return s != "" && len(s) <= maxSteerArg && strings.Trim(s, alnum+"_-") == ""
}

func (d steerData) encode() (string, error) {
	if !d.Action.isSteer() || !validSteerArg(d.Arg) {
		return "", fmt.Errorf("encode steering button: bad action %q or argument %q", d.Action, d.Arg)
	}
	return string(d.Action) + ":" + d.Arg, nil
}

// decodeSteer parses steering data strictly; ok is false for anything
// else (a request's button, tampering).
func decodeSteer(s string) (steerData, bool) {
	a, arg, found := strings.Cut(s, ":")
	d := steerData{Action: action(a), Arg: arg}
	if !found || len(s) > maxCallbackData || !d.Action.isSteer() || !validSteerArg(arg) {
		return steerData{}, false
	}
	return d, true
}

// projectKey is the short key of project p (its server and directory) in
// a button: a path does not fit 64 bytes.
func projectKey(p frontend.Project) string {
	sum := sha256.Sum256([]byte(p.Server + "\x00" + p.Directory))
	return hex.EncodeToString(sum[:6])
}

// projectLabel names project p on a button: its folder's name, after its
// server's when there are several.
func (f *Frontend) projectLabel(p frontend.Project) string {
	name := projectName(f.text, p.Directory)
	if p.Server != "" {
		name = p.Server + ": " + name
	}
	return name
}

// steering reports whether steering is on: someone is named who may.
func (f *Frontend) steering() bool { return len(f.cfg.AllowedUserIDs) > 0 }

// maySteer reports whether user may steer.
func (f *Frontend) maySteer(userID int64) bool { return f.steering() && f.allowed(userID) }

// steerButton is one inline button of steering.
func steerButton(text string, a action, arg string) (models.InlineKeyboardButton, error) {
	data, err := steerData{Action: a, Arg: arg}.encode()
	return models.InlineKeyboardButton{Text: text, CallbackData: data}, err
}

// noticeKeyboard is the buttons of a session notice: continue it (the
// reply box opens), or nil when steering is off.
func (f *Frontend) noticeKeyboard(n frontend.Notice) *models.InlineKeyboardMarkup {
	if !f.steering() {
		return nil
	}
	btn, err := steerButton(f.text.Steer.BtnContinue, actContinue, n.SessionID)
	if err != nil {
		return nil // a session ID no button can carry; the reply still works
	}
	return &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{btn}}}
}

// steerCommand answers /new, /sessions and /stop; the caller checked the
// chat. It returns the reply and its buttons.
func (f *Frontend) steerCommand(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, name string) (string, models.ReplyMarkup) {
	tx := f.text.Steer
	if !f.steering() {
		return tx.Off, nil
	}
	user := userOf(m.From)
	switch name {
	case cmdNew:
		log.Info().Str("user", user.DisplayName()).Msg("steering: /new")
		ps, err := core.Projects(ctx)
		if err != nil {
			log.Warn().Err(err).Msg("steering: could not list projects for /new")
			return f.steerFailure(err), nil
		}
		if len(ps) == 0 {
			return tx.NoProjects, nil
		}
		token, refusal := f.holdNewPrompt(log, m)
		if refusal != "" {
			return refusal, nil
		}
		var rows [][]models.InlineKeyboardButton
		for _, p := range ps {
			a, arg := actNew, projectKey(p)
			if token != "" {
				a, arg = actNewWith, token+"-"+arg
			}
			btn, err := steerButton(f.projectLabel(p), a, arg)
			if err != nil {
				continue
			}
			rows = append(rows, []models.InlineKeyboardButton{btn})
		}
		return tx.ChooseProject, &models.InlineKeyboardMarkup{InlineKeyboard: rows}
	case cmdSessions:
		log.Info().Str("user", user.DisplayName()).Msg("steering: /sessions")
		ss, err := core.Sessions(ctx, maxSessionsListed)
		if err != nil {
			log.Warn().Err(err).Msg("steering: could not list sessions")
			return f.steerFailure(err), nil
		}
		return f.renderSessions(ss)
	case cmdStop:
		ref, ok := f.repliedSession(ctx, core, m)
		if !ok {
			return tx.StopHow, nil
		}
		log.Info().Str("user", user.DisplayName()).Str("sessionID", ref.ID).Msg("steering: /stop asks to confirm")
		return f.stopConfirm(ctx, core, ref.ID)
	}
	return "", nil
}

// repliedSession is the session of the message m replies to: the one it
// is about, or the one of the request still waiting there, since /stop
// and /file may name a session by its question.
func (f *Frontend) repliedSession(ctx context.Context, core frontend.Core, m *models.Message) (pending.SessionRef, bool) {
	if m.ReplyToMessage == nil {
		return pending.SessionRef{}, false
	}
	at := place{Chat: m.Chat.ID, Message: m.ReplyToMessage.ID, Thread: threadOf(m.ReplyToMessage)}.encode()
	if ref, ok, err := core.SessionAt(ctx, Name, at); err == nil && ok {
		return ref, true
	}
	open, err := core.Open(ctx, false)
	if err != nil {
		return pending.SessionRef{}, false
	}
	for _, e := range open {
		if e.Places[Name] == at && e.SessionID != "" {
			return pending.SessionRef{Directory: e.Directory, ID: e.SessionID}, true
		}
	}
	return pending.SessionRef{}, false
}

// stopConfirm is the question before stopping session id, with its two
// buttons.
func (f *Frontend) stopConfirm(ctx context.Context, core frontend.Core, id string) (string, models.ReplyMarkup) {
	tx := f.text.Steer
	title := id
	if info, err := core.FindSession(ctx, id); err == nil && info.Title != "" {
		title = info.Title
	}
	yes, err1 := steerButton(tx.BtnStopConfirm, actStopYes, id)
	no, err2 := steerButton(tx.BtnCancel, actStopNo, id)
	if err1 != nil || err2 != nil {
		return tx.StopHow, nil
	}
	return tx.StopConfirm(esc(title, 80)), &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{yes, no}}}
}

// steerFailure says in one line why a steering action did not happen.
func (f *Frontend) steerFailure(err error) string {
	if errors.Is(err, frontend.ErrSessionGone) {
		return f.text.Steer.Gone
	}
	return f.text.Steer.Unreachable
}

// renderSessions is the reply to /sessions: one line per session with its
// state and a link to its latest message, and a ⏹ button per session
// that is not idle.
func (f *Frontend) renderSessions(ss []frontend.SessionInfo) (string, models.ReplyMarkup) {
	tx := f.text.Steer
	if len(ss) == 0 {
		return tx.NoSessions, nil
	}
	var b strings.Builder
	b.WriteString(tx.SessionsHead + "\n")
	var rows [][]models.InlineKeyboardButton
	for i, s := range ss {
		state := map[frontend.SessionState]string{frontend.Working: "⏳ " + tx.Working, frontend.Waiting: "❓ " + tx.Waiting,
			frontend.Idle: "💤 " + tx.Idle, frontend.Failed: "❌ " + tx.Failed}[s.State]
		project := f.projectLabel(frontend.Project{Server: s.Ref.Server, Directory: s.Ref.Directory})
		fmt.Fprintf(&b, "\n%d. <b>%s</b> · <i>%s</i> — %s", i+1, esc(project, 40), esc(s.Title, 60), state)
		if latest := placeAt(s.Latest[Name]); latest.Message != 0 {
			if link := messageLink(latest.Chat, latest.Message); link != "" {
				b.WriteString(` · <a href="` + link + `">` + tx.Latest + "</a>")
			}
		}
		if btn, err := steerButton(fmt.Sprintf("%s %d. %s", tx.BtnStop, i+1, plain(s.Title, 24)), actStop, s.Ref.ID); err == nil {
			rows = append(rows, []models.InlineKeyboardButton{btn})
		}
	}
	return b.String(), &models.InlineKeyboardMarkup{InlineKeyboard: rows}
}

// handleSteerPress acts on a steering button; it answers the callback.
func (f *Frontend) handleSteerPress(ctx context.Context, core frontend.Core, log zerolog.Logger, cq *models.CallbackQuery, d steerData, answer func(string)) {
	tx := f.text.Steer
	m := cq.Message.Message
	if !f.maySteer(cq.From.ID) || m == nil || m.Chat.ID != f.ChatID() {
		log.Info().Str("data", cq.Data).Msg("steering: refusing a button from a user or chat not allowed to steer")
		answer(tx.NotAllowed)
		return
	}
	user := userOf(&cq.From)
	log = log.With().Str("user", user.DisplayName()).Str("data", cq.Data).Logger()
	switch d.Action {
	case actQueue, actSteerNow:
		f.handleDeliveryPress(ctx, core, log, m, d, user, answer)
	case actSendStale:
		f.handleStalePress(ctx, core, log, m, d, user, answer)
	case actNewWith:
		f.handleNewWithPress(ctx, core, log, m, d, user, answer)
	case actNew:
		p, ok := f.pressedProject(ctx, core, d.Arg, answer)
		if !ok {
			return
		}
		answer("")
		log.Info().Str("server", p.Server).Str("directory", p.Directory).Msg("steering: project chosen for a new session")
		f.askSteerText(ctx, core, log, m, tx.NewPrompt(esc(f.projectLabel(p), 64)), tx.NewPlaceholder,
			pending.SessionRef{Server: p.Server, Directory: p.Directory})
	case actContinue:
		info, err := core.FindSession(ctx, d.Arg)
		if err != nil {
			answer(plain(f.steerFailure(err), maxToast))
			return
		}
		answer("")
		f.askSteerText(ctx, core, log, m, tx.ContinuePrompt(esc(info.Title, 80)), tx.ContinuePlaceholder, info.Ref)
	case actStop:
		answer("")
		text, kb := f.stopConfirm(ctx, core, d.Arg)
		if _, err := f.tg.SendMessage(ctx, htmlMessage(m.Chat.ID, threadOf(m), text, kb, m.ID)); err != nil {
			log.Warn().Err(err).Msg("steering: could not ask to confirm the stop")
		}
	case actStopNo:
		answer("")
		if err := f.editMessage(ctx, place{Chat: m.Chat.ID, Message: m.ID}, tx.StopCancelled, nil); err != nil {
			log.Debug().Err(err).Msg("could not close the stop confirmation")
		}
	case actStopYes:
		answer(tx.OnIt)
		info, err := core.FindSession(ctx, d.Arg)
		var res frontend.StopResult
		if err == nil {
			res, err = core.StopSession(ctx, log, info.Ref, user)
		}
		text := tx.StoppedBy(esc(res.Title, 80), who(user), res.Closed)
		if err != nil {
			log.Warn().Err(err).Msg("steering: stop failed")
			text = f.steerFailure(err)
		}
		if err := f.editMessage(ctx, place{Chat: m.Chat.ID, Message: m.ID}, text, nil); err != nil {
			log.Warn().Err(err).Msg("steering: could not say the stop's outcome")
		}
	}
}

// pressedProject is the project of key, a button's; when opencode lists
// none such, or cannot be asked, it answers the press saying so.
func (f *Frontend) pressedProject(ctx context.Context, core frontend.Core, key string, answer func(string)) (frontend.Project, bool) {
	ps, err := core.Projects(ctx)
	if err != nil {
		answer(plain(f.steerFailure(err), maxToast))
		return frontend.Project{}, false
	}
	for _, p := range ps {
		if projectKey(p) == key {
			return p, true
		}
	}
	answer(f.text.Toast(i18n.ToastGone)) // a project opencode no longer lists
	return frontend.Project{}, false
}

// askSteerText sends a prompt replying to m that opens the reply box, and
// remembers it is about ref, so the reply steers it.
func (f *Frontend) askSteerText(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, text, placeholder string, ref pending.SessionRef) {
	f.asking.RLock()
	defer f.asking.RUnlock()
	msg, err := f.tg.SendMessage(ctx, htmlMessage(m.Chat.ID, threadOf(m), text, &models.ForceReply{
		ForceReply: true, InputFieldPlaceholder: placeholder,
	}, m.ID))
	if err != nil {
		log.Warn().Err(err).Msg("steering: could not ask for the prompt")
		return
	}
	if err := core.RememberMessage(Name, place{Chat: m.Chat.ID, Message: msg.ID, Thread: threadOf(m)}.encode(), ref); err != nil {
		log.Error().Err(err).Msg("steering: could not remember what the prompt is for; a reply to it is not taken")
	}
}

// steerMessage handles text replying to a message about a session, with
// its files if any (a photo or a document with its caption): it goes to
// that session (or starts one), acknowledged with reactions on it
// (react). It reports whether the text was steering; otherwise it may
// answer a request (HandleInput).
func (f *Frontend) steerMessage(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, t typed, files []fileRef) bool {
	if t.ReplyTo.Message == 0 || !t.ReplyToBot {
		return false
	}
	ref, ok, err := core.SessionAt(ctx, Name, t.ReplyTo.encode())
	if err != nil {
		log.Error().Err(err).Msg("steering: could not look up the session of the message replied to")
		return false
	}
	if !ok {
		// The prompt replied to may have been sent but not yet
		// remembered (askSteerText).
		f.asking.Lock()
		f.asking.Unlock()
		if ref, ok, err = core.SessionAt(ctx, Name, t.ReplyTo.encode()); err != nil || !ok {
			return false
		}
	}
	if !f.maySteer(m.From.ID) {
		log.Info().Str("sessionID", ref.ID).Msg("steering: ignoring a reply from a user not allowed to steer")
		if !f.steering() {
			f.replyLine(ctx, log, m, f.text.Steer.Off)
		}
		return true
	}
	sm := heldPrompt{ref: ref, text: t.Text, files: files, msg: t.At, replyTo: t.ReplyTo}
	if err := f.checkSizes(files); err != nil {
		log.Info().Err(err).Msg("steering: refusing the files of a reply")
		f.replyLine(ctx, log, m, f.fileFailure(err))
		return true
	}
	if f.stale(m) {
		f.askStale(ctx, log, m, sm)
		return true
	}
	f.react(ctx, log, sm.msg, reactTaken)
	res, err := f.deliverSteer(ctx, core, log, sm, t.User, frontend.DeliverAsk)
	if err == nil && res.Busy {
		f.askDelivery(ctx, core, log, m, res, sm, t.User)
		return true
	}
	f.ackSteer(ctx, core, log, m, sm, res, err)
	return true
}

// deliverSteer sends sm as user's prompt, delivered as how says: text
// continues or starts a session; files (fetched now) go with it, queued.
func (f *Frontend) deliverSteer(ctx context.Context, core frontend.Core, log zerolog.Logger, sm heldPrompt, user frontend.User, how frontend.Delivery) (frontend.Steered, error) {
	var res frontend.Steered
	var err error
	switch {
	case len(sm.files) > 0:
		var files []frontend.File
		if files, err = f.fetchFiles(ctx, sm.files); err != nil {
			log.Warn().Err(err).Msg("steering: could not fetch the files of a reply")
			return frontend.Steered{}, err
		}
		res, err = core.PromptFiles(ctx, log, sm.ref, frontend.FilePrompt{Text: sm.text, Files: files, MaxBytes: f.cfg.MaxUpload}, user)
	case sm.ref.ID == "":
		res, err = core.StartSession(ctx, log, sm.ref, sm.text, user)
	default:
		res, err = core.ContinueSession(ctx, log, sm.ref, sm.text, user, how)
	}
	if err == nil && sm.ref.ID == "" && res.Ref.ID != "" && sm.replyTo.Message != 0 {
		// Later replies to the prompt go on with the new session.
		if rerr := core.RememberMessage(Name, sm.replyTo.encode(), res.Ref); rerr != nil {
			log.Warn().Err(rerr).Msg("steering: could not remember the new session")
		}
	}
	return res, err
}

// ackSteer acknowledges a steering message sent or not: 👍 on it when
// opencode took it (the old one-line reply when reactions fail), else a
// reply saying why.
func (f *Frontend) ackSteer(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, sm heldPrompt, res frontend.Steered, err error) {
	if err != nil {
		f.react(ctx, log, sm.msg, "")
		f.replyLine(ctx, log, m, f.steerOutcome(sm, res, err, frontend.DeliverAsk))
		return
	}
	if f.react(ctx, log, sm.msg, reactDone) {
		return
	}
	if at := f.replyLine(ctx, log, m, f.steerOutcome(sm, res, nil, frontend.DeliverAsk)); at.Message != 0 && res.Ref.ID != "" {
		// The confirmation is a message about the session too.
		_ = core.RememberMessage(Name, at.encode(), res.Ref)
	}
}

// steerOutcome says in one line what sending sm did: err's reason, or
// where it went (how: DeliverAsk for a plain send).
func (f *Frontend) steerOutcome(sm heldPrompt, res frontend.Steered, err error, how frontend.Delivery) string {
	tx := f.text.Steer
	switch {
	case err != nil:
		if line := f.fileFailure(err); line != "" {
			return line
		}
		return f.steerFailure(err)
	case sm.ref.ID == "":
		return tx.Started(esc(f.projectLabel(frontend.Project{Server: sm.ref.Server, Directory: sm.ref.Directory}), 64), esc(res.Title, 80))
	case how == frontend.DeliverSteer:
		return tx.SteeredInto(esc(res.Title, 80))
	case how == frontend.DeliverQueue:
		return tx.Queued(esc(res.Title, 80))
	}
	return tx.SentTo(esc(res.Title, 80))
}

// replyLine answers m with one line and returns where it went.
func (f *Frontend) replyLine(ctx context.Context, log zerolog.Logger, m *models.Message, line string) place {
	msg, err := f.tg.SendMessage(ctx, htmlMessage(m.Chat.ID, threadOf(m), line, nil, m.ID))
	if err != nil {
		log.Warn().Err(err).Msg("steering: could not answer")
		return place{}
	}
	return place{Chat: m.Chat.ID, Message: msg.ID, Thread: threadOf(m)}
}

// A steering message or a typed answer is acknowledged on itself, not with a message of
// its own: 👀 once taken, 👍 once opencode accepted it. Only a failure
// gets a reply, saying why. Both emoji are among Telegram's reactions.
const (
	reactTaken = "👀"
	reactDone  = "👍"
)

// react sets the bot's reaction on the message at ("" clears it) and
// reports whether Telegram took it. Reactions may be off in the group:
// the first refusal is logged as a warning, the later ones for debugging.
func (f *Frontend) react(ctx context.Context, log zerolog.Logger, at place, emoji string) bool {
	p := &tgbot.SetMessageReactionParams{ChatID: at.Chat, MessageID: at.Message}
	if emoji != "" {
		p.Reaction = []models.ReactionType{{Type: models.ReactionTypeTypeEmoji,
			ReactionTypeEmoji: &models.ReactionTypeEmoji{Type: models.ReactionTypeTypeEmoji, Emoji: emoji}}}
	}
	if _, err := f.tg.SetMessageReaction(ctx, p); err != nil {
		ev := log.Debug()
		if f.reactFailed.CompareAndSwap(false, true) {
			ev = log.Warn()
		}
		ev.Err(err).Str("reaction", emoji).Msg("could not react to a message (reactions off in the group?)")
		return false
	}
	return true
}

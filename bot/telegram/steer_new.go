package telegram

import (
	"context"
	"strings"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/pending"
)

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
	ps, err := core.Projects(ctx)
	if err != nil {
		answer(plain(f.steerFailure(err), maxToast))
		return
	}
	var project *frontend.Project
	for i := range ps {
		if projectKey(ps[i]) == key {
			project = &ps[i]
		}
	}
	if project == nil {
		answer(f.text.Toast(i18n.ToastGone)) // a project opencode no longer lists
		return
	}
	p, ok := f.held.take(token, f.now())
	if !ok {
		answer(f.text.Steer.ChoiceGone)
		return
	}
	answer(f.text.Steer.OnIt)
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

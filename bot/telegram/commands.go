package telegram

import (
	"context"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// The commands the front-end answers in its chat, as registered with
// setMyCommands.
const (
	cmdPending = "pending"
	cmdStatus  = "status"
	cmdHelp    = "help"
)

// OpencodeStatus tells /status how the opencode event stream is doing.
// *opencode.Client satisfies it.
type OpencodeStatus interface {
	State() opencode.WatchState
}

var _ OpencodeStatus = (*opencode.Client)(nil)

// ServerStatus is an opencode server, as /status reports it; Name is ""
// for the server of a bare OPENCODE_URL. A nil Status is reported
// unknown.
type ServerStatus struct {
	Name   string
	Status OpencodeStatus
}

// Commands returns the commands to register with setMyCommands, so
// Telegram clients offer them in the chat, described in language lang
// (Config.Lang).
func Commands(lang string) []models.BotCommand {
	tx := i18n.For(lang)
	return []models.BotCommand{
		{Command: cmdPending, Description: tx.CmdPending},
		{Command: cmdStatus, Description: tx.CmdStatus},
		{Command: cmdAutoApprove, Description: tx.Pause.CmdAutoApprove},
		{Command: cmdRules, Description: tx.Rules.CmdRules},
		{Command: cmdHelp, Description: tx.CmdHelp},
		{Command: cmdNew, Description: tx.Steer.CmdNew},
		{Command: cmdSessions, Description: tx.Steer.CmdSessions},
		{Command: cmdStop, Description: tx.Steer.CmdStop},
		{Command: cmdFile, Description: tx.Steer.CmdFile},
	}
}

// parseCommand returns the name of the bot command text starts with, in
// lower case, and whether it is one for this bot. "/cmd@name" is for this
// bot only when name is its username (go-telegram's MatchTypeCommand
// gets this wrong: it ignores the mention); without a mention, a command is for
// every bot in the chat. Arguments are ignored.
func parseCommand(text, botUsername string) (string, bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", false
	}
	word := text[1:]
	if i := strings.IndexAny(word, " \t\n"); i >= 0 {
		word = word[:i]
	}
	name, to, addressed := strings.Cut(word, "@")
	if addressed && (botUsername == "" || !strings.EqualFold(to, strings.TrimPrefix(botUsername, "@"))) {
		return "", false
	}
	if name == "" {
		return "", false
	}
	return strings.ToLower(name), true
}

// handleCommand answers a command typed in the front-end's chat. A command
// of another bot, an unknown one, or one from a user not allowed to
// answer gets no reply: anyone in a group can type a command, and a reply
// to each would spam the chat and tell an outsider what is waiting.
func (f *Frontend) handleCommand(ctx context.Context, core frontend.Core, log zerolog.Logger, m *models.Message, text string) {
	name, ok := parseCommand(text, f.cfg.BotUsername)
	if !ok {
		log.Debug().Msg("ignoring a command addressed to another bot")
		return
	}
	log = log.With().Str("command", name).Logger()
	// Before any work: an outsider's /pending must not even wait for the
	// store.
	if !f.allowed(m.From.ID) {
		log.Debug().Msg("ignoring a command from a user not allowed to answer")
		return
	}
	var reply string
	var markup models.ReplyMarkup
	switch name {
	case cmdNew, cmdSessions, cmdStop:
		reply, markup = f.steerCommand(ctx, core, log, m, name)
	case cmdFile:
		log.Info().Msg("command received")
		f.fileCommand(ctx, core, log, m, text)
		return
	case cmdPending:
		reply = f.renderPendingList(ctx, core)
	case cmdStatus:
		reply = f.renderStatus(ctx, core)
	case cmdAutoApprove:
		reply, markup = f.autoApproveCommand(ctx, core, log)
	case cmdRules:
		reply, markup = f.rulesCommand(ctx, core, log)
	case cmdHelp:
		reply = f.text.Help
	default:
		log.Debug().Msg("ignoring unknown command")
		return
	}
	log.Info().Msg("command received")
	if _, err := f.tg.SendMessage(ctx, htmlMessage(m.Chat.ID, threadOf(m), reply, markup, m.ID)); err != nil {
		log.Warn().Err(err).Msg("could not answer the command")
	}
}

// renderPendingList is the reply to /pending: one block per open request,
// cut to one message with a count of those left out.
func (f *Frontend) renderPendingList(ctx context.Context, core frontend.Core) string {
	open, err := core.Open(ctx, true)
	if err != nil {
		f.log.Error().Err(err).Msg("could not list open requests for /pending")
		return f.text.StoreUnreadable
	}
	if len(open) == 0 {
		return f.text.NothingPending
	}
	now := f.now()
	top := f.text.WaitingN(len(open)) + "\n"
	blocks := make([]string, len(open))
	for i, e := range open {
		blocks[i] = "\n" + pendingLine(f.text, e, now)
	}
	more := func(n int) string { return "\n" + f.text.MoreN(n) }
	return top + joinFit(blocks, maxMessageLen-u16len(top), more)
}

// pendingLine describes one open request in at most about 400 units: what
// it is (linked to its message), where it comes from, how old it is.
func pendingLine(tx *i18n.Text, e *frontend.View, now time.Time) string {
	icon, kind, what := "❓", tx.KindQuestion, ""
	if e.Kind == frontend.KindPermission {
		icon, kind = "🔐", tx.KindPermission
		if p := e.Permission; p != nil {
			what = oneLine(p.Kind)
			if d := permissionDetail(p); d.command != "" {
				what += ": " + oneLine(d.command)
			} else if len(p.Patterns) > 0 {
				what += ": " + oneLine(strings.Join(p.Patterns, ", "))
			}
		}
	} else if e.Form != nil && e.Form.Mode == frontend.FormModeURL {
		what = oneLine(e.Form.Title + " " + e.Form.URL)
	} else if e.Current < len(e.Questions) {
		what = title(tx, e, e.Current) + ": " + oneLine(e.Questions[e.Current].Text)
	}
	label := "<b>" + kind + "</b>"
	at := placeAt(e.Places[Name])
	switch link := messageLink(at.Chat, at.Message); {
	case link != "":
		label = `<a href="` + link + `">` + label + "</a>"
	case at.Message != 0:
		label += tx.MessageN(at.Message)
	default:
		label += tx.NotPostedYet
	}
	s := icon + " " + label + " · " + serverTag(e.Server) + "<b>" + esc(projectName(tx, e.Directory), 64) + "</b>"
	if t := oneLine(e.SessionTitle); t != "" {
		s += " · <i>" + esc(t, 80) + "</i>"
	} else {
		s += " · " + tx.Session + "<code>" + esc(shortSession(e.SessionID), 24) + "</code>"
	}
	if what != "" {
		s += "\n" + esc(what, 160)
	}
	s += "\n<i>" + tx.Asked(tx.Since(now.Sub(e.CreatedAt)))
	if left := e.ExpiresAt.Sub(now); left > 0 {
		s += tx.ExpiresIn(tx.Span(left))
	} else {
		s += tx.ExpiringNow
	}
	return s + "</i>\n"
}

// renderStatus is the reply to /status.
func (f *Frontend) renderStatus(ctx context.Context, core frontend.Core) string {
	now := f.now()
	var s strings.Builder
	s.WriteString("🤖 <b>hermes-bot</b>")
	if v := f.cfg.Version; v != "" {
		s.WriteString(" " + esc(v, 64))
	}
	s.WriteString(f.text.Up(f.text.Span(now.Sub(f.started))) + "\n")

	for _, sv := range f.cfg.Servers {
		label := "opencode: "
		if sv.Name != "" {
			label = "opencode <code>" + esc(sv.Name, 24) + "</code>: "
		}
		f.writeOpencodeStatus(&s, label, sv.Status, now)
	}

	open, err := core.Open(ctx, false)
	if err != nil {
		f.log.Error().Err(err).Msg("could not count open requests for /status")
		s.WriteString(f.text.WaitingUnknown)
	} else {
		s.WriteString(f.text.WaitingCount(len(open)))
		if len(open) > 0 {
			s.WriteString(f.text.PendingLists)
		}
	}
	return s.String()
}

// writeOpencodeStatus writes to s the line of /status, starting with
// label, that says how one opencode server's event stream is doing, and
// its last error while it is down.
func (f *Frontend) writeOpencodeStatus(s *strings.Builder, label string, status OpencodeStatus, now time.Time) {
	s.WriteString(label)
	if status == nil {
		s.WriteString(f.text.StateUnknown + "\n")
		return
	}
	st := status.State()
	switch {
	case st.Connected:
		s.WriteString(f.text.Connected)
		if !st.Since.IsZero() {
			s.WriteString(f.text.ConnectedFor(f.text.Span(now.Sub(st.Since))))
		}
	case st.Since.IsZero():
		s.WriteString(f.text.NotConnectedYet)
	default:
		s.WriteString(f.text.NotConnectedFor(f.text.Span(now.Sub(st.Since))))
	}
	if st.Version != "" {
		s.WriteString(f.text.Version(esc(st.Version, 64), st.Generation))
	}
	s.WriteString("\n")
	if st.LastError != "" && !st.Connected {
		s.WriteString(f.text.LastError(esc(f.text.ErrorWords(st.LastError), 200), f.text.Since(now.Sub(st.LastErrorAt))) + "\n")
	}
}

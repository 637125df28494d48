package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// OpencodeStatus tells /status how the opencode event stream is doing.
// *opencode.Client satisfies it.
type OpencodeStatus interface {
	State() opencode.WatchState
}

var _ OpencodeStatus = (*opencode.Client)(nil)

// The commands the bridge answers in its chat, as registered with
// setMyCommands.
const (
	cmdPending = "pending"
	cmdStatus  = "status"
	cmdHelp    = "help"
)

// Commands returns the commands to register with setMyCommands, so
// Telegram clients offer them in the chat, described in language lang
// (Config.Lang).
func Commands(lang string) []models.BotCommand {
	tx := i18n.For(lang)
	return []models.BotCommand{
		{Command: cmdPending, Description: tx.CmdPending},
		{Command: cmdStatus, Description: tx.CmdStatus},
		{Command: cmdHelp, Description: tx.CmdHelp},
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

// handleCommand answers a command typed in the bridge's chat. A command
// of another bot, an unknown one, or one from a user not allowed to
// answer gets no reply: anyone in a group can type a command, and a reply
// to each would spam the chat and tell an outsider what is waiting.
func (b *Bridge) handleCommand(ctx context.Context, log zerolog.Logger, m *models.Message, text string) {
	name, ok := parseCommand(text, b.cfg.BotUsername)
	if !ok {
		log.Debug().Msg("ignoring a command addressed to another bot")
		return
	}
	log = log.With().Str("command", name).Logger()
	// Before any work: an outsider's /pending must not even wait for the
	// store.
	if !b.allowed(m.From.ID) {
		log.Debug().Msg("ignoring a command from a user not allowed to answer")
		return
	}
	var reply string
	switch name {
	case cmdPending:
		reply = b.renderPendingList(ctx)
	case cmdStatus:
		reply = b.renderStatus(ctx)
	case cmdHelp:
		reply = b.text.Help
	default:
		log.Debug().Msg("ignoring unknown command")
		return
	}
	log.Info().Msg("command received")
	if _, err := b.tg.SendMessage(ctx, htmlMessage(m.Chat.ID, threadOf(m), reply, nil, m.ID)); err != nil {
		log.Warn().Err(err).Msg("could not answer the command")
	}
}

// openRequests returns the requests still waiting for an answer, oldest
// first. One whose expiry was announced (its reject is being retried)
// cannot be answered any more and is left out. A question is stored only
// once its message is sent, so it first lets the questions being sent
// right now be stored (up to lockWait): one that just appeared in the chat
// is counted.
func (b *Bridge) openRequests(ctx context.Context) ([]*pending.Entry, error) {
	wctx, cancel := context.WithTimeout(ctx, b.lockWait)
	_ = b.posting.wait(wctx) // still sending (Telegram slow): not listed yet
	cancel()
	all, err := b.store.List()
	if err != nil {
		return nil, fmt.Errorf("list open requests: %w", err)
	}
	open := slices.DeleteFunc(all, func(e *pending.Entry) bool {
		return e.ExpiredNotified || (e.Kind != pending.KindQuestion && e.Kind != pending.KindPermission)
	})
	slices.SortStableFunc(open, func(x, y *pending.Entry) int { return x.CreatedAt.Compare(y.CreatedAt) })
	return open, nil
}

// awaitPosting lets requests whose message is being sent right now (a
// post holds the request's lock from sending until its message ID is
// saved) finish, up to lockWait in all, and reads them again, so a
// request that just appeared in the chat is listed with its link rather
// than as not posted.
func (b *Bridge) awaitPosting(ctx context.Context, open []*pending.Entry) {
	ctx, cancel := context.WithTimeout(ctx, b.lockWait)
	defer cancel()
	for i, e := range open {
		if e.Place.Message != 0 {
			continue
		}
		key := e.UID
		if e.Kind == pending.KindPermission {
			key = lockKey(e)
		}
		unlock, err := b.locks.lock(ctx, key)
		if err != nil {
			return // still sending (Telegram slow or down): listed as not posted
		}
		unlock()
		if fresh, err := b.store.Get(e.UID); err == nil {
			open[i] = fresh
		}
	}
}

// renderPendingList is the reply to /pending: one block per open request,
// cut to one message with a count of those left out.
func (b *Bridge) renderPendingList(ctx context.Context) string {
	open, err := b.openRequests(ctx)
	if err != nil {
		b.log.Error().Err(err).Msg("could not list open requests for /pending")
		return b.text.StoreUnreadable
	}
	b.awaitPosting(ctx, open)
	if len(open) == 0 {
		return b.text.NothingPending
	}
	now := b.now()
	top := b.text.WaitingN(len(open)) + "\n"
	blocks := make([]string, len(open))
	for i, e := range open {
		blocks[i] = "\n" + pendingLine(b.text, e, now)
	}
	more := func(n int) string { return "\n" + b.text.MoreN(n) }
	return top + joinFit(blocks, maxMessageLen-u16len(top), more)
}

// pendingLine describes one open request in at most about 400 units: what
// it is (linked to its message), where it comes from, how old it is.
func pendingLine(tx *i18n.Text, e *pending.Entry, now time.Time) string {
	icon, kind, what := "❓", tx.KindQuestion, ""
	if e.Kind == pending.KindPermission {
		icon, kind = "🔐", tx.KindPermission
		if p := e.Permission; p != nil {
			what = oneLine(p.Kind)
			if d := permissionDetail(p); d.command != "" {
				what += ": " + oneLine(d.command)
			} else if len(p.Patterns) > 0 {
				what += ": " + oneLine(strings.Join(p.Patterns, ", "))
			}
		}
	} else if e.Current < len(e.Questions) {
		what = title(tx, e, e.Current) + ": " + oneLine(e.Questions[e.Current].Text)
	}
	label := "<b>" + kind + "</b>"
	switch link := messageLink(e.Place.Chat, e.Place.Message); {
	case link != "":
		label = `<a href="` + link + `">` + label + "</a>"
	case e.Place.Message != 0:
		label += tx.MessageN(e.Place.Message)
	default:
		label += tx.NotPostedYet
	}
	s := icon + " " + label + " · <b>" + esc(projectName(tx, e.Directory), 64) + "</b>"
	if t := oneLine(e.SessionTitle); t != "" {
		s += " · <i>" + esc(t, 80) + "</i>"
	} else {
		s += " · " + tx.Session + "<code>" + esc(shortSession(e.SessionID), 24) + "</code>"
	}
	if what != "" {
		s += "\n" + esc(what, 160)
	}
	s += "\n<i>" + tx.Asked(ago(tx, now.Sub(e.CreatedAt)))
	if left := e.ExpiresAt.Sub(now); left > 0 {
		s += tx.ExpiresIn(span(tx, left))
	} else {
		s += tx.ExpiringNow
	}
	return s + "</i>\n"
}

// renderStatus is the reply to /status.
func (b *Bridge) renderStatus(ctx context.Context) string {
	now := b.now()
	var s strings.Builder
	s.WriteString("🤖 <b>hermes-bot</b>")
	if v := b.cfg.Version; v != "" {
		s.WriteString(" " + esc(v, 64))
	}
	s.WriteString(b.text.Up(span(b.text, now.Sub(b.started))) + "\n")

	s.WriteString("opencode: ")
	if b.cfg.Status == nil {
		s.WriteString(b.text.StateUnknown + "\n")
	} else {
		st := b.cfg.Status.State()
		switch {
		case st.Connected:
			s.WriteString(b.text.Connected)
			if !st.Since.IsZero() {
				s.WriteString(b.text.ConnectedFor(span(b.text, now.Sub(st.Since))))
			}
		case st.Since.IsZero():
			s.WriteString(b.text.NotConnectedYet)
		default:
			s.WriteString(b.text.NotConnectedFor(span(b.text, now.Sub(st.Since))))
		}
		if st.Version != "" {
			s.WriteString(b.text.Version(esc(st.Version, 64)))
		}
		s.WriteString("\n")
		if st.LastError != "" && !st.Connected {
			s.WriteString(b.text.LastError(esc(errorWords(b.text, st.LastError), 200), ago(b.text, now.Sub(st.LastErrorAt))) + "\n")
		}
	}

	open, err := b.openRequests(ctx)
	if err != nil {
		b.log.Error().Err(err).Msg("could not count open requests for /status")
		s.WriteString(b.text.WaitingUnknown)
	} else {
		s.WriteString(b.text.WaitingCount(len(open)))
		if len(open) > 0 {
			s.WriteString(b.text.PendingLists)
		}
	}
	return s.String()
}

// errorWords says what a failure class of opencode.WatchState means.
func errorWords(tx *i18n.Text, class string) string {
	switch class {
	case "unauthorized":
		return tx.ErrUnauthorized
	case "transient":
		return tx.ErrTransient
	case "silent":
		return tx.ErrSilent
	case "not_found":
		return tx.ErrNotFound
	case "not_accepted":
		return tx.ErrNotAccepted
	case "unsupported":
		return tx.ErrUnsupported
	default:
		return tx.ErrUnexpected
	}
}

// ago says how long ago something happened, d being the time since.
func ago(tx *i18n.Text, d time.Duration) string {
	if d < time.Minute {
		return tx.JustNow
	}
	return tx.Ago(span(tx, d))
}

// span says d in the two largest units that matter: "3 min", "2 h 5 min",
// "4 d 1 h".
func span(tx *i18n.Text, d time.Duration) string {
	switch {
	case d < time.Minute:
		return tx.UnderMinute
	case d < time.Hour:
		return tx.Minutes(int(d / time.Minute))
	case d < 24*time.Hour:
		return tx.Hours(int(d/time.Hour), int(d%time.Hour/time.Minute))
	default:
		return tx.Days(int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
	}
}

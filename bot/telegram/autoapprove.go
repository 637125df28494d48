package telegram

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/pending"
)

// An "Always allow" on an edit pauses auto-approval in its directory
// (opencode then lets the agent change files there unasked); the group is
// told once, and /autoapprove lists the pauses, each with a Resume button.

const cmdAutoApprove = "autoapprove"

// maxPausedListed bounds /autoapprove's list: a line is at most about 200
// units, so the message keeps well within Telegram's limit.
const maxPausedListed = 12

// pauseKey is the short key of the pause of dir on server in a button.
func pauseKey(server, dir string) string {
	sum := sha256.Sum256([]byte("pause\x00" + server + "\x00" + dir))
	return hex.EncodeToString(sum[:pauseKeyLen/2])
}

// pauseLabel names the project of a pause: its folder's name, after its
// server's when servers are named.
func (f *Frontend) pauseLabel(a pending.Always) string {
	return f.projectLabel(frontend.Project{Server: a.Server, Directory: a.Directory})
}

// AutoApprovalPaused posts, where a's project goes, that auto-approval is
// paused there and how to resume it.
func (f *Frontend) AutoApprovalPaused(ctx context.Context, a pending.Always) error {
	chat := f.ChatID()
	thread := f.threadFor(ctx, f.log.With().Str("directory", a.Directory).Logger(), chat, a.Directory)
	text := f.text.Pause.Notice(esc(f.pauseLabel(a), 90), esc(oneLine(a.Kind), 40))
	if _, err := f.tg.SendMessage(ctx, htmlMessage(chat, thread, text, nil, 0)); err != nil {
		return fmt.Errorf("notice of auto-approval paused in %s: %w", a.Directory, err)
	}
	return nil
}

// autoApproveCommand is the reply to /autoapprove and its buttons.
func (f *Frontend) autoApproveCommand(ctx context.Context, core frontend.Core, log zerolog.Logger) (string, models.ReplyMarkup) {
	st, err := core.AutoApproval(ctx)
	if err != nil {
		log.Error().Err(err).Msg("could not read where auto-approval is paused for /autoapprove")
		return f.text.Pause.Unreadable, nil
	}
	text, kb := f.renderAutoApproval(st, "")
	return text, replyMarkup(kb)
}

// renderAutoApproval says the policy and lists the pauses, each with a
// Resume button; note, if any, comes first (who resumed one).
func (f *Frontend) renderAutoApproval(st frontend.AutoApproval, note string) (string, *models.InlineKeyboardMarkup) {
	tx := f.text.Pause
	var b strings.Builder
	if note != "" {
		b.WriteString(note + "\n\n")
	}
	if st.Policy == "low" {
		b.WriteString(tx.PolicyLow)
	} else {
		b.WriteString(tx.PolicyOff)
	}
	if len(st.Paused) == 0 {
		b.WriteString("\n" + tx.NothingPaused)
		return b.String(), nil
	}
	b.WriteString("\n\n" + tx.Head)
	now := f.now()
	var rows [][]models.InlineKeyboardButton
	for i, a := range st.Paused {
		if i == maxPausedListed {
			b.WriteString("\n" + f.text.MoreN(len(st.Paused)-i))
			break
		}
		fmt.Fprintf(&b, "\n%d. %s", i+1, tx.Line(esc(f.pauseLabel(a), 90), esc(oneLine(a.Kind), 40)))
		if !a.At.IsZero() {
			// A clock set back says now.
			b.WriteString(" · " + f.text.Since(max(now.Sub(a.At), 0)))
		}
		data, err := callbackData{Action: actResume, UID: pauseKey(a.Server, a.Directory)}.encode()
		if err != nil {
			continue // cannot happen: pauseKey makes valid keys
		}
		label := fmt.Sprintf("%s %d. %s", tx.BtnResume, i+1, plain(f.pauseLabel(a), 24))
		rows = append(rows, []models.InlineKeyboardButton{{Text: label, CallbackData: data}})
	}
	b.WriteString("\n" + tx.HowToResume)
	return b.String(), &models.InlineKeyboardMarkup{InlineKeyboard: rows}
}

// handleResumePress acts on a Resume button: it forgets the pause its key
// names and shows the list as it is now. It answers the callback.
func (f *Frontend) handleResumePress(ctx context.Context, core frontend.Core, log zerolog.Logger, cq *models.CallbackQuery, key string, answer func(string)) {
	m := cq.Message.Message
	if !f.allowed(cq.From.ID) || m == nil || m.Chat.ID != f.ChatID() {
		log.Info().Str("data", cq.Data).Msg("refusing a Resume from a chat or user not allowed")
		answer(f.text.Toast(i18n.ToastNotAllowed))
		return
	}
	user := userOf(&cq.From)
	log = log.With().Str("user", user.DisplayName()).Str("data", cq.Data).Logger()
	st, err := core.AutoApproval(ctx)
	if err != nil {
		log.Error().Err(err).Msg("could not read where auto-approval is paused to resume it")
		answer(f.text.Toast(i18n.ToastFailed))
		return
	}
	note, toast := "", f.text.Pause.NotPaused
	for _, a := range st.Paused {
		if pauseKey(a.Server, a.Directory) != key {
			continue
		}
		had, err := core.ResumeAutoApproval(ctx, log, a.Server, a.Directory, user)
		if err != nil {
			log.Error().Err(err).Msg("could not resume auto-approval")
			answer(f.text.Toast(i18n.ToastFailed))
			return
		}
		if had {
			note, toast = f.text.Pause.ResumedBy(esc(f.pauseLabel(a), 90), who(user)), ""
		}
		break
	}
	answer(toast)
	if st, err = core.AutoApproval(ctx); err != nil {
		log.Warn().Err(err).Msg("could not read where auto-approval is paused after a Resume; its message stays as it was")
		return
	}
	text, kb := f.renderAutoApproval(st, note)
	if err := f.editMessage(ctx, place{Chat: m.Chat.ID, Message: m.ID}, text, kb); err != nil {
		log.Warn().Err(err).Msg("could not show the Resume in its message")
	}
}

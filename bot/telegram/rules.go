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
)

// On OpenCode 2 an "Always allow" saves a rule for the project, kept
// across restarts: its button and its closed message say so, and /rules
// lists the rules of every server, each with a Revoke button.

const cmdRules = "rules"

// actRevoke is a Revoke button's action. Its data is
// "rrev:<server key>:<rule ID>": the key names the server (serverKey),
// the ID is OpenCode's, checked against a fresh list at the press.
const actRevoke = "rrev"

const (
	// serverKeyLen is the length of a server's key, in hex digits.
	serverKeyLen = 8
	// maxRuleID is the longest rule ID a button carries: with it, Revoke
	// data is 62 bytes, within 64.
	maxRuleID = maxSteerArg
	// maxRulesListed bounds /rules' buttons; its text is cut to fit
	// before that when lines are long.
	maxRulesListed = 20
)

// serverKey is the short key of server in a button.
func serverKey(server string) string {
	sum := sha256.Sum256([]byte("server\x00" + server))
	return hex.EncodeToString(sum[:serverKeyLen/2])
}

// encodeRevoke is the data of the Revoke button of rule id of server; ok
// is false for an ID no button can carry.
func encodeRevoke(server, id string) (string, bool) {
	if len(id) > maxRuleID || !validSteerArg(id) {
		return "", false
	}
	return actRevoke + ":" + serverKey(server) + ":" + id, true
}

// decodeRevoke parses Revoke data strictly.
func decodeRevoke(s string) (key, id string, ok bool) {
	parts := strings.Split(s, ":")
	if len(s) > maxCallbackData || len(parts) != 3 || parts[0] != actRevoke {
		return "", "", false
	}
	key, id = parts[1], parts[2]
	if len(key) != serverKeyLen || strings.Trim(key, "0123456789abcdef") != "" || len(id) > maxRuleID || !validSteerArg(id) {
		return "", "", false
	}
	return key, id, true
}

// serverLabel names a server in /rules.
func serverLabel(server string) string {
	if server == "" {
		return "opencode"
	}
	return server
}

// rulesCommand is the reply to /rules and its buttons.
func (f *Frontend) rulesCommand(ctx context.Context, core frontend.Core, log zerolog.Logger) (string, models.ReplyMarkup) {
	rs, err := core.SavedRules(ctx)
	if err != nil {
		log.Error().Err(err).Msg("could not list the saved rules for /rules")
		return f.steerFailure(err), nil
	}
	text, kb := f.renderRules(rs, "")
	return text, replyMarkup(kb)
}

// renderRules lists the rules of every server, each with a Revoke
// button; note, if any, comes first (who revoked one).
func (f *Frontend) renderRules(rs []frontend.SavedRules, note string) (string, *models.InlineKeyboardMarkup) {
	tx := f.text.Rules
	if len(rs) == 0 {
		return tx.NoServers, nil
	}
	var b strings.Builder
	if note != "" {
		b.WriteString(note + "\n\n")
	}
	b.WriteString(tx.Head)
	// Room for the last server's line and the count of rules left out.
	budget := maxMessageLen - 300
	var rows [][]models.InlineKeyboardButton
	n, left := 0, 0
	for _, s := range rs {
		label := "<b>" + esc(serverLabel(s.Server), 40) + "</b>"
		switch {
		case s.Generation == 1:
			b.WriteString("\n\n" + label + ": " + tx.Memory)
			continue
		case s.Generation != 2:
			b.WriteString("\n\n" + label + ": " + tx.NotReached)
			continue
		case s.Err != nil:
			b.WriteString("\n\n" + label + ": " + tx.Unlisted)
			continue
		case len(s.Rules) == 0:
			b.WriteString("\n\n" + label + ": " + tx.None)
			continue
		}
		b.WriteString("\n\n" + label + ":")
		for _, r := range s.Rules {
			line := fmt.Sprintf("\n%d. %s", n+1, tx.Line(esc(oneLine(r.Action), 30), esc(oneLine(r.Resource), 100), esc(r.Project, 30)))
			if n == maxRulesListed || u16len(b.String())+u16len(line) > budget {
				left++
				continue
			}
			data, ok := encodeRevoke(s.Server, r.ID)
			if !ok {
				left++ // an ID no button can carry: not listed, as it cannot be revoked here
				continue
			}
			n++
			b.WriteString(line)
			text := fmt.Sprintf("%s %d. %s %s", tx.BtnRevoke, n, plain(r.Action, 12), plain(r.Resource, 24))
			rows = append(rows, []models.InlineKeyboardButton{{Text: text, CallbackData: data}})
		}
	}
	if left > 0 {
		b.WriteString("\n" + f.text.MoreN(left))
	}
	if len(rows) == 0 {
		return b.String(), nil
	}
	return b.String(), &models.InlineKeyboardMarkup{InlineKeyboard: rows}
}

// handleRevokePress acts on a Revoke button: it revokes the rule it
// names, if a fresh list still holds it, and shows the list as it is now.
// It answers the callback.
func (f *Frontend) handleRevokePress(ctx context.Context, core frontend.Core, log zerolog.Logger, cq *models.CallbackQuery, key, id string, answer func(string)) {
	m := cq.Message.Message
	if !f.allowed(cq.From.ID) || m == nil || m.Chat.ID != f.ChatID() {
		log.Info().Str("data", cq.Data).Msg("refusing a Revoke from a chat or user not allowed")
		answer(f.text.Toast(i18n.ToastNotAllowed))
		return
	}
	user := userOf(&cq.From)
	log = log.With().Str("user", user.DisplayName()).Str("data", cq.Data).Logger()
	f.revokeMu.Lock()
	defer f.revokeMu.Unlock()
	rs, err := core.SavedRules(ctx)
	if err != nil {
		log.Error().Err(err).Msg("could not list the saved rules to revoke one")
		answer(f.text.Toast(i18n.ToastFailed))
		return
	}
	note, toast := "", f.text.Rules.NotSaved
	for _, s := range rs {
		if s.Generation != 2 || serverKey(s.Server) != key {
			continue
		}
		for _, r := range s.Rules {
			if r.ID != id {
				continue
			}
			if err := core.RevokeRule(ctx, log, s.Server, r.ID, user); err != nil {
				answer(plain(f.steerFailure(err), maxToast))
				return
			}
			note, toast = f.text.Rules.RevokedBy(esc(oneLine(r.Action), 30), esc(oneLine(r.Resource), 100), who(user)), ""
		}
	}
	answer(toast)
	if note != "" {
		if rs, err = core.SavedRules(ctx); err != nil {
			log.Warn().Err(err).Msg("could not list the saved rules after a Revoke; its message stays as it was")
			return
		}
	}
	text, kb := f.renderRules(rs, note)
	if err := f.editMessage(ctx, place{Chat: m.Chat.ID, Message: m.ID}, text, kb); err != nil {
		log.Warn().Err(err).Msg("could not show the Revoke in its message")
	}
}

// savesRule makes the open message of an OpenCode 2 permission request,
// text with keyboard kb, say that Always saves a rule for the project.
func (f *Frontend) savesRule(text string, kb *models.InlineKeyboardMarkup) string {
	if kb != nil {
		for _, row := range kb.InlineKeyboard {
			for i := range row {
				if d, err := decodeCallback(row[i].CallbackData); err == nil && d.Action == actAllowAlways {
					row[i].Text = f.text.Rules.BtnAlways
				}
			}
		}
	}
	if line := "\n" + f.text.Rules.SavesRule; u16len(text)+u16len(line) <= maxMessageLen {
		text += line
	}
	return text
}

// ruleFooter is footer, of outcome o of r's message, saying how to revoke
// the rule an always answer saved on OpenCode 2.
func (f *Frontend) ruleFooter(r frontend.Request, o frontend.Outcome, footer string) string {
	if r.Generation == 2 && o.Reply == frontend.ReplyAlways && (o.How == frontend.Decided || o.How == frontend.DecidedElsewhere) {
		return footer + "\n" + f.text.Rules.Saved
	}
	return footer
}

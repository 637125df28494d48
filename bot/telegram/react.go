package telegram

import (
	"context"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
)

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

package bot

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// contextTimeout bounds the read of what the agent did before a request:
// a slow opencode delays the request's message by this at most.
const contextTimeout = 2 * time.Second

// readContext gives new request e the last lines the agent wrote before
// asking (Config.ContextLines), read once: they are stored with e, so a
// restart or a repost shows them without asking opencode again. A
// failure is logged and e goes without them.
func (b *Bridge) readContext(ctx context.Context, log zerolog.Logger, e *pending.Entry) {
	if b.cfg.ContextLines <= 0 || e.SessionID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, contextTimeout)
	defer cancel()
	lines, err := b.opencodeOf(e.Server).RecentContext(ctx, e.Directory, e.SessionID, opencode.ContextOptions{
		MessageID: e.ToolMessageID, CallID: e.CallID, Lines: b.cfg.ContextLines})
	if err != nil {
		log.Info().Err(err).Msg("could not read what the agent did before asking; the request shows without it")
		return
	}
	e.Context = nil
	for _, l := range lines {
		e.Context = append(e.Context, pending.ContextLine{Tool: l.Tool, Text: l.Text})
	}
}

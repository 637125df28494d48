package telegram

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// typedAnswer hands t, text for the prompt of b, to core, acknowledged
// on the message as steering is (react.go): 👀 once taken, 👍 once kept
// or accepted by opencode, cleared when not (the core has then told the
// person why, and asks again when a field's check failed). With
// reactions refused nothing more is sent: the request's message shows
// the answer once it is in.
func (f *Frontend) typedAnswer(ctx context.Context, core frontend.Core, log zerolog.Logger, t typed, b binding, received time.Time) {
	f.react(ctx, log, t.At, reactTaken)
	core.HandleInput(ctx, log, frontend.Input{Key: b.Key, Field: b.Field, Reason: b.Reason, Text: t.Text,
		User: t.User, Frontend: Name, Received: received, Done: func(accepted bool) {
			emoji := ""
			if accepted {
				emoji = reactDone
			}
			f.react(ctx, log, t.At, emoji)
		}})
}

package telegram

import (
	"testing"

	tgbot "github.com/go-telegram/bot"
)

// A reaction acknowledges a message at once: it waits neither behind the
// chat's queued sends nor for its pacing.
func TestOutboxReactionNotQueued(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{PerMinute: 1, Burst: 1})
	ctx := outboxCtx(t)
	gate := tg.gate(-1)
	blocked := r.goSend(t, ctx, -1, "stuck")
	waitEntered(t, tg)
	ok, err := r.o.SetMessageReaction(ctx, &tgbot.SetMessageReactionParams{ChatID: int64(-1), MessageID: 5})
	if !ok || err != nil {
		t.Fatalf("reaction: %v, %v", ok, err)
	}
	select {
	case res := <-blocked:
		t.Fatalf("send finished before the gate opened: %+v", res)
	default:
	}
	tg.mu.Lock()
	n := tg.reactions
	tg.mu.Unlock()
	if n != 1 {
		t.Errorf("%d reactions reached Telegram, want 1", n)
	}
	close(gate)
	waitResult(t, blocked)
}

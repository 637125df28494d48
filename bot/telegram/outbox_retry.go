// What the Outbox does with Telegram's answer to a started call:
// pacing, a 429's hold, retries with backoff, following a migrated chat,
// and the 403 logged.

package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
)

// forbiddenLogEvery bounds the "bot is not a member" log line to one per
// chat per period: every queued request meets the same 403, and one line
// says all there is to say.
const forbiddenLogEvery = time.Minute

// run makes the call, retrying as Telegram's answer says.
func (o *Outbox) run(j *job, q *chatQueue, chat chatKey, call func(context.Context, any) (any, error)) (any, error) {
	ctx := j.ctx
	migrated := false
	failures := 0
	for try := 0; ; try++ {
		// The dispatcher waited for the first try's turn.
		if try > 0 {
			if err := o.awaitTurn(ctx, q); err != nil {
				return nil, fmt.Errorf("telegram %s to chat %s: waiting for the rate limit: %w", j.method, chat, err)
			}
		}
		res, err := call(ctx, chat.value())
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("telegram %s to chat %s: %w: %w", j.method, chat, context.Cause(ctx), err)
		}
		var tooMany *tgbot.TooManyRequestsError
		var migrate *tgbot.MigrateError
		switch {
		case errors.As(err, &tooMany):
			wait := max(time.Duration(tooMany.RetryAfter)*time.Second, time.Second)
			o.hold(q, wait)
			o.count(Counter.RateLimited)
			o.log.Warn().Str("chat", chat.String()).Str("method", j.method).Dur("retryAfter", wait).
				Msg("telegram rate limit hit (429): holding this chat's queue, then retrying")
			if serr := o.sleep(ctx, wait); serr != nil {
				return nil, fmt.Errorf("telegram %s to chat %s: %w (while waiting after: %w)", j.method, chat, serr, err)
			}
			continue
		case errors.As(err, &migrate):
			to := int64(migrate.MigrateToChatID)
			if migrated || chat.name != "" || to == 0 || to == chat.id {
				return nil, fmt.Errorf("telegram %s to chat %s: %w", j.method, chat, err)
			}
			migrated = true
			o.migrate(chat.id, to)
			chat = chatKey{id: to}
			continue
		case isNotModified(err):
			return nil, nil
		case errors.Is(err, tgbot.ErrorForbidden):
			o.logRefused(chat, err)
			return nil, fmt.Errorf("telegram %s to chat %s: %w", j.method, chat, err)
		case isClientError(err):
			return nil, fmt.Errorf("telegram %s to chat %s: %w", j.method, chat, err)
		}
		// A 5xx, a network error, or an answer that is not the Bot API's
		// JSON (a proxy's error page): Telegram or the way there may be
		// back in a moment.
		if failures >= o.opts.MaxRetries {
			return nil, fmt.Errorf("telegram %s to chat %s: gave up after %d attempts: %w", j.method, chat, failures+1, err)
		}
		wait := o.backoff(failures)
		failures++
		o.count(Counter.Retried)
		o.log.Warn().Err(err).Str("chat", chat.String()).Str("method", j.method).
			Int("attempt", failures).Dur("retryIn", wait).Msg("telegram call failed; retrying")
		if serr := o.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("telegram %s to chat %s: %w (while waiting to retry after: %w)", j.method, chat, serr, err)
		}
	}
}

// hold keeps q's calls from starting for d from now, or longer if another
// 429 said so.
func (o *Outbox) hold(q *chatQueue, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if till := o.now().Add(d); till.After(q.heldTill) {
		q.heldTill = till
	}
}

// awaitTurn waits before a retry until q's 429 hold has passed, then for
// q's next token.
func (o *Outbox) awaitTurn(ctx context.Context, q *chatQueue) error {
	for {
		o.mu.Lock()
		wait := q.heldTill.Sub(o.now())
		o.mu.Unlock()
		if wait <= 0 {
			return o.pace(ctx, q)
		}
		if err := o.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// pace waits for q's next token. The reservation is made on o.now and
// waited out with o.sleep, so tests see every wait without sleeping.
func (o *Outbox) pace(ctx context.Context, q *chatQueue) error {
	if q.limiter == nil {
		return nil
	}
	now := o.now()
	r := q.limiter.ReserveN(now, 1)
	if !r.OK() {
		return errors.New("rate limiter refused a single call")
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if err := o.sleep(ctx, d); err != nil {
		r.CancelAt(o.now())
		return err
	}
	return nil
}

// backoff is the wait before retry n+1: BaseBackoff doubled n times, at
// most MaxBackoff.
func (o *Outbox) backoff(n int) time.Duration {
	d := o.opts.BaseBackoff
	for range n {
		if d >= o.opts.MaxBackoff/2 {
			return o.opts.MaxBackoff
		}
		d *= 2
	}
	return min(d, o.opts.MaxBackoff)
}

// migrate records that chat old is now chat to, points the old chat's
// queue (and the calls waiting in it) at the new ID, and tells OnMigrate
// once per old ID.
func (o *Outbox) migrate(old, to int64) {
	o.mu.Lock()
	o.migrated[old] = to
	for k, v := range o.migrated {
		if v == old {
			o.migrated[k] = to
		}
	}
	oldKey, newKey := chatKey{id: old}, chatKey{id: to}
	if oq := o.queues[oldKey]; oq != nil && !o.closed {
		if nq, ok := o.queues[newKey]; !ok {
			// The same queue serves both IDs, so calls queued before and
			// after the migration keep their order and share one pace.
			o.queues[newKey] = oq
		} else if nq != oq {
			for _, j := range oq.jobs {
				j.chat = newKey
			}
			nq.jobs = append(nq.jobs, oq.jobs...)
			oq.jobs = nil
			o.kickLocked(nq)
		}
	}
	notify := !o.notified[old]
	o.notified[old] = true
	o.mu.Unlock()
	if !notify {
		return
	}
	o.log.Warn().Int64("oldChatID", old).Int64("newChatID", to).
		Msgf("telegram chat %d was upgraded to a supergroup with ID %d: sending there from now on; update TELEGRAM_CHAT_ID to %d", old, to, to)
	if o.opts.OnMigrate != nil {
		o.opts.OnMigrate(old, to)
	}
}

// logRefused logs a 403 for the chat, at most once per forbiddenLogEvery.
func (o *Outbox) logRefused(chat chatKey, err error) {
	now := o.now()
	o.mu.Lock()
	last, seen := o.refused[chat]
	due := !seen || now.Sub(last) >= forbiddenLogEvery
	if due {
		o.refused[chat] = now
	}
	o.mu.Unlock()
	if due {
		o.log.Error().Err(err).Str("chat", chat.String()).
			Msgf("bot is not a member of chat %s: add it back; requests stay pending", chat)
	}
}

// count calls f on the Outbox's Counter, if it has one.
func (o *Outbox) count(f func(Counter)) {
	if o.opts.Metrics != nil {
		f(o.opts.Metrics)
	}
}

// isNotModified reports Telegram's refusal of an edit that changes
// nothing, which means the message already shows what was asked.
func isNotModified(err error) bool {
	return errors.Is(err, tgbot.ErrorBadRequest) && strings.Contains(err.Error(), "message is not modified")
}

// isClientError reports a 4xx that trying again cannot fix.
func isClientError(err error) bool {
	for _, target := range []error{tgbot.ErrorBadRequest, tgbot.ErrorUnauthorized, tgbot.ErrorForbidden, tgbot.ErrorNotFound, tgbot.ErrorConflict} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// sleepCtx waits d, or until ctx ends and returns its cause.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

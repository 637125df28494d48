package bot

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// ExpireDue closes every question request whose TTL has run out (DESIGN.md
// step 6): it is rejected in opencode, its message says it expired, and
// its entry is deleted. A failed reject only warns: the entry goes anyway.
// Call it now and then (say every minute). It returns the failures to list
// or read the store; per-request problems are logged.
func (b *Bridge) ExpireDue(ctx context.Context) error {
	due, err := b.store.Expired(b.now())
	if err != nil {
		return fmt.Errorf("expire due requests: %w", err)
	}
	var errs []error
	for _, e := range due {
		if e.Kind != pending.KindQuestion {
			continue
		}
		if err := b.expire(ctx, e.UID); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("expire due requests: %w", err)
	}
	return nil
}

func (b *Bridge) expire(ctx context.Context, uid string) error {
	unlock, err := b.locks.lock(ctx, uid)
	if err != nil {
		return fmt.Errorf("expire %s: %w", uid, err)
	}
	defer unlock()
	e, err := b.store.Get(uid)
	if errors.Is(err, pending.ErrNotFound) {
		return nil // answered while we waited
	}
	if err != nil {
		return fmt.Errorf("expire %s: %w", uid, err)
	}
	if e.ExpiresAt.IsZero() || e.ExpiresAt.After(b.now()) {
		return nil
	}
	log := b.entryLog(e)
	id, err := b.oc.ResolveQuestionID(ctx, opencode.QuestionRef{
		Directory: e.Directory,
		RequestID: e.RequestID,
		SessionID: e.SessionID,
		CallID:    e.CallID,
	})
	if err == nil {
		err = b.oc.RejectQuestion(ctx, e.Directory, id)
	}
	switch {
	case err == nil:
		log.Info().Msg("request expired; rejected in opencode")
	case errors.Is(err, opencode.ErrNotFound):
		log.Info().Msg("request expired; it was no longer pending in opencode")
	default:
		log.Warn().Err(err).Msg("request expired but could not be rejected in opencode")
	}
	b.deleteEntry(log, uid, toastExpired)
	b.edit(ctx, log, e, renderOutcome(e, "⌛", nil,
		"Expired: nobody answered within "+b.cfg.TTL.String()+"."), nil)
	return nil
}

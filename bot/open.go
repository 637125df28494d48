package bot

import (
	"context"
	"fmt"
	"slices"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Open returns the requests still waiting for an answer, oldest first,
// for a front-end's list of them (/pending, /status). With settled it
// lets the requests being posted right now get their place first, up to
// lockWait, so one that just appeared in the chat is listed with it.
func (b *Bridge) Open(ctx context.Context, settled bool) ([]*frontend.View, error) {
	open, err := b.openRequests(ctx)
	if err != nil {
		return nil, err
	}
	if settled {
		b.awaitPosting(ctx, open)
	}
	return views(open...), nil
}

// openRequests returns the requests still waiting for an answer, oldest
// first. One whose expiry was announced (its reject is being retried)
// cannot be answered any more and is left out. A question is stored only
// once its message is sent, so it first lets the questions being sent
// right now be stored (up to lockWait): one that just appeared in the chat
// is counted.
func (b *Bridge) openRequests(ctx context.Context) ([]*pending.Entry, error) {
	wctx, cancel := context.WithTimeout(ctx, b.lockWait)
	_ = b.posting.Wait(wctx) // still sending (Telegram slow): not listed yet
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
		if len(b.owing(e)) == 0 {
			continue
		}
		unlock, err := b.locks.lock(ctx, lockKey(e))
		if err != nil {
			return // still sending (Telegram slow or down): listed as not posted
		}
		unlock()
		if fresh, err := b.store.Get(e.UID); err == nil {
			open[i] = fresh
		}
	}
}

// The Outbox, its options and its life from NewOutbox to Close. Its
// Telegram methods are in outbox_methods.go, its queues in
// outbox_queue.go, what it does with Telegram's answers in
// outbox_retry.go.

package telegram

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// ErrOutboxClosed is returned by the Outbox's queued methods once Close
// has been called, and to callers whose call was still queued or running
// when Close ran; EditMessageTextLater hands it to its done.
var ErrOutboxClosed = errors.New("telegram outbox is closed")

// Defaults for the zero fields of OutboxOptions.
const (
	DefaultOutboxBurst       = 3
	DefaultOutboxMaxRetries  = 3
	DefaultOutboxBaseBackoff = 500 * time.Millisecond
	DefaultOutboxMaxBackoff  = 30 * time.Second

	// DefaultOutboxMaxInFlight is 8. With pacing off (a local Bot API
	// server, or HERMES_TELEGRAM_RATE=0) a burst of calls waits for round
	// trips, not for Telegram: 8 at once post 100 questions in 13 round
	// trips instead of 100, 0.7–4 s instead of 5–30 s at the 50–300 ms
	// api.telegram.org is from most places. A larger bound would shorten
	// such rare bursts further, but each call in flight holds a connection,
	// and all of them come back 429 together when Telegram starts refusing.
	// With Telegram's group pacing (PerMinute 20, Burst 3) the token
	// bucket, not this bound, is what limits a chat.
	DefaultOutboxMaxInFlight = 8
)

// OutboxOptions configures an Outbox. The zero value means: no proactive
// pacing, bursts of DefaultOutboxBurst, DefaultOutboxMaxInFlight calls of a
// chat at once, DefaultOutboxMaxRetries retries backing off from
// DefaultOutboxBaseBackoff to DefaultOutboxMaxBackoff.
type OutboxOptions struct {
	// PerMinute is how many calls a minute each chat may take, Telegram's
	// limit being about 20 a minute in a group (HERMES_TELEGRAM_RATE). 0
	// turns proactive pacing off, for a local Bot API server, tests and
	// benchmarks; a 429 is obeyed either way.
	PerMinute int
	// Burst is how many calls a chat may take at once before pacing
	// spaces them; DefaultOutboxBurst if zero or less.
	Burst int
	// MaxInFlight is how many of a chat's calls may run at once;
	// DefaultOutboxMaxInFlight if zero or less. 1 runs them one at a time
	// in the order they were called.
	MaxInFlight int
	// MaxRetries is how many times a call failing with a 5xx or a network
	// error is tried again; DefaultOutboxMaxRetries if zero, none if
	// negative. 429s do not count: they are retried as long as the caller
	// waits, since Telegram says exactly when to come back.
	MaxRetries int
	// BaseBackoff is the wait before the first retry, doubled for each
	// next one up to MaxBackoff; the defaults if zero or less.
	BaseBackoff, MaxBackoff time.Duration
	// OnMigrate is called once per chat that Telegram reports upgraded to
	// a supergroup, before the call is retried at newChatID; persist the
	// new ID there (State.MoveChat). It runs in the
	// migrated call, holding one of the chat's MaxInFlight slots, so it must
	// not call the Outbox itself (that may wait for itself): start a
	// goroutine for that.
	OnMigrate func(oldChatID, newChatID int64)
	// Metrics, if set, counts 429s and retries.
	Metrics Counter
}

// Counter counts what the Outbox meets; *bot.Metrics is one.
type Counter interface {
	RateLimited()
	Retried()
}

// Outbox is a Telegram that starts each chat's calls in order, under
// Telegram's rate limits, retrying what Telegram or the network failed for
// a moment. Make one with NewOutbox and Close it at shutdown, after the
// last caller has returned.
//
// Sends, edits and topic creations to one chat form a queue, started in
// the order they were called and run up to MaxInFlight at once, with one
// exception: a call about a message (an edit of one message ID) does not
// start while an earlier call about the same message runs; it keeps its
// place, and later calls about other messages start past it. So the calls
// about one message reach Telegram one at a time in the order they were
// called; other calls start in that order but run side by side and may
// finish in any. A caller that needs one call done before another waits
// for the first to return, as every caller does but
// EditMessageTextLater's: each blocks until its own call is done, or its
// ctx ends (then the call is dropped if it has not started and cancelled
// if it has, unless an EditMessageTextLater shares it), and gets the real
// result. EditMessageTextLater hands its edit over instead: it returns at
// once and the edit's result goes to a callback. With MaxInFlight 1 a
// chat's calls go out one at a time in the order they were called. Chats
// do not wait for each other.
//
// Each chat is paced by a token bucket (PerMinute, Burst): every call
// started, and every retry, takes a token. A 429 holds the whole chat: no
// call of it starts, and no retry is sent, until its retry_after has
// passed; then the call that got it is retried. Calls already at Telegram
// finish normally. A 5xx or network error is retried with exponential
// backoff; other 4xx errors are returned at once. Every error returned
// wraps the one the wrapped Telegram returned, so errors.Is and errors.As
// work on it. A send retried after a network error that struck once
// Telegram had the request (a lost answer) is posted twice: the Bot API
// has no idempotency key. The call runs under a context of the Outbox's,
// ended when the last caller waiting for it leaves: values of the caller's
// ctx do not reach it.
//
// Edits of one message still queued (not started) collapse to the newest:
// it alone is sent, in the newest caller's place in the queue, and every
// caller gets its result (the same *models.Message: do not modify it).
// EditMessageText and EditMessageTextLater collapse with each other, so an
// edit handed over with Later cannot land after a newer one.
//
// An edit that Telegram refuses with "message is not modified" succeeds:
// the caller gets a nil *models.Message and a nil error, so callers of
// the edit methods must accept a nil message.
//
// A chat upgraded to a supergroup (*bot.MigrateError) is followed: OnMigrate
// is called and one Warn line logged, the call retried once at the new ID,
// and every later call addressed to the old ID goes to the new one for the
// life of the Outbox. FollowMigration does the same when the front-end sees
// the service message first.
//
// A 403 (the bot was removed from the group) is returned, and logged at
// Error at most once a minute per chat.
//
// AnswerCallbackQuery passes straight through: a callback answer must
// never wait behind sends.
//
// Wrap the Redactor's Telegram, not the other way round:
//
//	out := NewOutbox(RedactTelegram(tg, redactor), opts, log)
//
// so that the errors the Outbox logs are already free of the bot token.
//
// All methods are safe for concurrent use. Each chat with calls queued has
// one goroutine starting them, which ends when none is queued, and each
// running call has its own; Close cancels what is queued and running and
// waits for those goroutines.
type Outbox struct {
	// tg is the Telegram the calls go to. It is a field, not embedded, so
	// that a method added to Telegram does not pass through unqueued: the
	// Outbox must say how it runs each one.
	tg   Telegram
	opts OutboxOptions
	log  zerolog.Logger

	// ctx ends at Close, with ErrOutboxClosed as its cause; every call's
	// context derives from it.
	ctx    context.Context
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	queues   map[chatKey]*chatQueue
	migrated map[int64]int64       // old chat ID → new
	notified map[int64]bool        // old chat IDs OnMigrate was called for
	refused  map[chatKey]time.Time // when the last 403 was logged

	// Tests replace these before the first call.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	// enqueued, when set, is called under the lock after a call joins a
	// queue, so tests know the order calls were queued in.
	enqueued func(method string, chat chatKey)
}

var _ Telegram = (*Outbox)(nil)

// NewOutbox returns an Outbox sending through tg. It starts no goroutine
// until the first call.
func NewOutbox(tg Telegram, opts OutboxOptions, log zerolog.Logger) *Outbox {
	if opts.Burst <= 0 {
		opts.Burst = DefaultOutboxBurst
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultOutboxMaxRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.BaseBackoff <= 0 {
		opts.BaseBackoff = DefaultOutboxBaseBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultOutboxMaxBackoff
	}
	opts.MaxBackoff = max(opts.MaxBackoff, opts.BaseBackoff)
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultOutboxMaxInFlight
	}
	opts.PerMinute = max(opts.PerMinute, 0)
	ctx, cancel := context.WithCancelCause(context.Background())
	return &Outbox{
		tg:       tg,
		opts:     opts,
		log:      log,
		ctx:      ctx,
		cancel:   cancel,
		queues:   make(map[chatKey]*chatQueue),
		migrated: make(map[int64]int64),
		notified: make(map[int64]bool),
		refused:  make(map[chatKey]time.Time),
		now:      time.Now,
		sleep:    sleepCtx,
	}
}

// FollowMigration tells the Outbox that chat oldChatID is now
// newChatID, as the service message with migrate_to_chat_id says, before
// a send has failed on it: it does what a *bot.MigrateError does (calls
// OnMigrate the first time, logs, sends later calls for the old ID to the
// new one), without a failed call. Zero or equal IDs are ignored.
func (o *Outbox) FollowMigration(oldChatID, newChatID int64) {
	if oldChatID == 0 || newChatID == 0 || oldChatID == newChatID {
		return
	}
	o.migrate(oldChatID, newChatID)
}

// Close fails every queued call with ErrOutboxClosed, cancels the running
// ones (and any wait for a 429, a backoff or pacing), and blocks until the
// chats' goroutines have returned. The done callbacks of
// EditMessageTextLater's queued edits run on Close's goroutine, those of
// its running ones on theirs: either way before Close returns. Later calls
// fail with ErrOutboxClosed. Calling it again only waits.
func (o *Outbox) Close() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		o.wg.Wait()
		return
	}
	o.closed = true
	var dropped []*job
	for _, q := range o.queues {
		dropped = append(dropped, q.jobs...)
		q.jobs = nil
	}
	o.mu.Unlock()
	o.cancel(ErrOutboxClosed)
	for _, j := range dropped {
		j.finish(nil, fmt.Errorf("telegram %s to chat %s: %w", j.method, j.chat, ErrOutboxClosed))
	}
	o.wg.Wait()
}

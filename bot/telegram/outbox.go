package telegram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
	"golang.org/x/time/rate"
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

// SendMessage queues the send behind the chat's earlier calls and blocks
// until it is done or ctx ends. p is not modified.
func (o *Outbox) SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error) {
	if p == nil {
		return nil, errors.New("telegram sendMessage: no parameters")
	}
	q := *p
	return queued(o, ctx, "sendMessage", q.ChatID, 0, false, func(ctx context.Context, chat any) (*models.Message, error) {
		q.ChatID = chat
		return o.tg.SendMessage(ctx, &q)
	})
}

// SendDocument queues the upload as SendMessage queues a send, and
// blocks until it is done or ctx ends. An uploaded file
// (*models.InputFileUpload) is read here, once, so that a retry sends it
// whole again. p is not modified.
func (o *Outbox) SendDocument(ctx context.Context, p *tgbot.SendDocumentParams) (*models.Message, error) {
	if p == nil {
		return nil, errors.New("telegram sendDocument: no parameters")
	}
	q := *p
	var upload *models.InputFileUpload
	var data []byte
	if u, ok := q.Document.(*models.InputFileUpload); ok && u != nil && u.Data != nil {
		b, err := io.ReadAll(u.Data)
		if err != nil {
			return nil, fmt.Errorf("telegram sendDocument: read %s: %w", u.Filename, err)
		}
		upload, data = u, b
	}
	return queued(o, ctx, "sendDocument", q.ChatID, 0, false, func(ctx context.Context, chat any) (*models.Message, error) {
		c := q
		c.ChatID = chat
		if upload != nil {
			c.Document = &models.InputFileUpload{Filename: upload.Filename, Data: bytes.NewReader(data)}
		}
		return o.tg.SendDocument(ctx, &c)
	})
}

// EditMessageText queues the edit behind the chat's earlier calls about
// the same message, where it replaces any queued edit of that message, and
// blocks until it is done or ctx ends. "Message is not modified" gives
// (nil, nil). An edit of an inline message (no ChatID) passes straight
// through. p is not modified.
func (o *Outbox) EditMessageText(ctx context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error) {
	if p == nil {
		return nil, errors.New("telegram editMessageText: no parameters")
	}
	q := *p
	return queued(o, ctx, "editMessageText", q.ChatID, q.MessageID, true, func(ctx context.Context, chat any) (*models.Message, error) {
		q.ChatID = chat
		return o.tg.EditMessageText(ctx, &q)
	})
}

// EditMessageTextLater queues the edit as EditMessageText does and
// returns at once, for a caller that must not wait for pacing, a 429 or
// retries (one holding a lock the next tap needs, say). The edit joins the
// same queue: the calls about its message still reach Telegram one at a
// time in the order they were made, and while queued it replaces, or is
// replaced by, a newer edit of the message by either method, everyone
// waiting for either getting the result of the one sent. No caller can
// cancel it: it is retried like any call, and stays queued until it has
// run or the Outbox closes, even if every caller of EditMessageText that
// shares it stops waiting.
//
// done, if not nil, is called exactly once with what EditMessageText
// would have returned ((nil, nil) for "message is not modified"), never on
// the caller's goroutine, so it may take locks the caller holds: on the
// goroutine that ran the edit, or on Close's for an edit Close dropped.
// Its error wraps ErrOutboxClosed if the Outbox closed before the edit was
// done, or was closed already. Close returns only after the done calls of
// the edits it ends, so done must not call Close, nor take a lock held
// around Close. An edit of an inline message (no ChatID) is sent at once,
// unqueued, as EditMessageText sends it. p is not modified.
func (o *Outbox) EditMessageTextLater(p *tgbot.EditMessageTextParams, done func(*models.Message, error)) {
	notify := func(res any, err error) {
		if done != nil {
			m, _ := res.(*models.Message) // nil for "message is not modified"
			done(m, err)
		}
	}
	if p == nil {
		go notify(nil, errors.New("telegram editMessageText: no parameters"))
		return
	}
	q := *p
	call := func(ctx context.Context, chat any) (any, error) {
		q.ChatID = chat
		return o.tg.EditMessageText(ctx, &q)
	}
	key, ok := chatKeyOf(q.ChatID)
	if !ok {
		o.detach(func(ctx context.Context) { notify(call(ctx, q.ChatID)) },
			func() { notify(nil, fmt.Errorf("telegram editMessageText: %w", ErrOutboxClosed)) })
		return
	}
	_, err := o.enqueue("editMessageText", key, q.MessageID, true, call, func(j *job) {
		j.handed = true
		if done != nil {
			j.dones = append(j.dones, notify)
		}
	})
	if err != nil {
		go notify(nil, err)
	}
}

// detach runs f under the Outbox's ctx on a goroutine Close waits for, or
// closed on a goroutine of its own if the Outbox is closed: Close may have
// returned already, and its WaitGroup must not be added to after.
func (o *Outbox) detach(f func(ctx context.Context), closed func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		go closed()
		return
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		f(o.ctx)
	}()
}

// CreateForumTopic queues the creation behind the chat's earlier calls,
// under the same pacing as a message. p is not modified.
func (o *Outbox) CreateForumTopic(ctx context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	if p == nil {
		return nil, errors.New("telegram createForumTopic: no parameters")
	}
	q := *p
	return queued(o, ctx, "createForumTopic", q.ChatID, 0, false, func(ctx context.Context, chat any) (*models.ForumTopic, error) {
		q.ChatID = chat
		return o.tg.CreateForumTopic(ctx, &q)
	})
}

// AnswerCallbackQuery passes straight through, never queued: Telegram
// shows a spinner until it is answered, and gives up on it after seconds.
func (o *Outbox) AnswerCallbackQuery(ctx context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error) {
	return o.tg.AnswerCallbackQuery(ctx, p)
}

// SetMessageReaction passes straight through: a reaction posts no message,
// so the group's message pacing does not count it, and it is the quick
// acknowledgement of a message that must not wait behind queued posts.
// One handler sets a message's reactions in turn, so their order holds.
func (o *Outbox) SetMessageReaction(ctx context.Context, p *tgbot.SetMessageReactionParams) (bool, error) {
	return o.tg.SetMessageReaction(ctx, p)
}

// GetFile passes straight through: it posts nothing in the chat.
func (o *Outbox) GetFile(ctx context.Context, p *tgbot.GetFileParams) (*models.File, error) {
	return o.tg.GetFile(ctx, p)
}

// FileDownloadLink is the wrapped Telegram's.
func (o *Outbox) FileDownloadLink(f *models.File) string { return o.tg.FileDownloadLink(f) }

// chatKey names a queue: a chat's numeric ID, or its @username.
type chatKey struct {
	id   int64
	name string
}

// chatKeyOf reads a Bot API chat_id; ok is false for anything that names
// no chat (nil, as for inline messages).
func chatKeyOf(v any) (chatKey, bool) {
	switch c := v.(type) {
	case int64:
		return chatKey{id: c}, c != 0
	case int:
		return chatKey{id: int64(c)}, c != 0
	case int32:
		return chatKey{id: int64(c)}, c != 0
	case string:
		if id, err := strconv.ParseInt(c, 10, 64); err == nil {
			return chatKey{id: id}, id != 0
		}
		return chatKey{name: c}, c != ""
	}
	return chatKey{}, false
}

// value is the key as a chat_id parameter.
func (k chatKey) value() any {
	if k.name != "" {
		return k.name
	}
	return k.id
}

func (k chatKey) String() string {
	if k.name != "" {
		return k.name
	}
	return strconv.FormatInt(k.id, 10)
}

// chatQueue is one chat's calls not yet started, in the order they were
// called, and what the running ones hold. A dispatcher goroutine starts
// them while running is set. Guarded by Outbox.mu, but for limiter.
type chatQueue struct {
	jobs     []*job
	running  bool
	wake     chan struct{} // buffered 1: a call finished or was queued
	inFlight int           // calls started and not finished
	busy     map[int]bool  // messages a running call is about
	heldTill time.Time     // no call starts, no retry is sent, before this (429)
	paid     bool          // the dispatcher holds the token of the next start
	limiter  *rate.Limiter // nil without pacing; safe for concurrent use
}

// job is one queued call, and every caller waiting for it: coalesced edits
// share one job. A job EditMessageTextLater joined is handed over: it is
// no caller's to drop or cancel.
type job struct {
	method   string
	msg      int  // the message the call is about; 0 for none
	coalesce bool // an edit: while queued, a newer one by method of msg replaces it
	done     chan struct{}

	// ctx ends when the Outbox closes or every caller has left.
	ctx    context.Context
	cancel context.CancelCauseFunc

	// Guarded by Outbox.mu.
	chat    chatKey
	call    func(ctx context.Context, chat any) (any, error)
	waiters int                // callers blocked in queued
	handed  bool               // EditMessageTextLater joined it
	dones   []func(any, error) // EditMessageTextLater's callbacks
	started bool

	// Written once, before done is closed.
	res any
	err error
}

// finish hands the result to the job's waiting callers, then to its done
// callbacks. It runs once the job has left its queue, when no caller can
// join it any more.
func (j *job) finish(res any, err error) {
	j.res, j.err = res, err
	close(j.done)
	j.cancel(context.Canceled)
	for _, done := range j.dones {
		done(res, err)
	}
}

// errCallerLeft is the cause of a job's ctx when every caller left.
var errCallerLeft = errors.New("every caller stopped waiting")

// queued runs call on the chat's queue; it is how a Telegram method
// becomes a queued one. msgID is the message the call is about, so calls
// about it run one at a time, in order; 0 for none. coalesce says the call
// is an edit, which a newer queued one of the same message and method
// replaces. call gets the chat_id to use, which differs from chatID once
// the chat has migrated.
func queued[T any](o *Outbox, ctx context.Context, method string, chatID any, msgID int, coalesce bool, call func(ctx context.Context, chat any) (T, error)) (T, error) {
	var zero T
	key, ok := chatKeyOf(chatID)
	if !ok {
		return call(ctx, chatID)
	}
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("telegram %s to chat %s: %w", method, key, err)
	}
	j, err := o.enqueue(method, key, msgID, coalesce, func(ctx context.Context, chat any) (any, error) {
		return call(ctx, chat)
	}, func(j *job) { j.waiters++ })
	if err != nil {
		return zero, err
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		o.leave(j)
		return zero, fmt.Errorf("telegram %s to chat %s: %w", method, key, ctx.Err())
	}
	if j.err != nil {
		return zero, j.err
	}
	res, _ := j.res.(T) // nil for "message is not modified"
	return res, nil
}

// enqueue adds a call to its chat's queue, or merges it into the queued
// edit of the same message, and makes sure the queue is served. join,
// called under the lock, makes the caller one of the job's waiters or
// hands the job over.
func (o *Outbox) enqueue(method string, key chatKey, msgID int, coalesce bool, call func(context.Context, any) (any, error), join func(*job)) (*job, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, fmt.Errorf("telegram %s to chat %s: %w", method, key, ErrOutboxClosed)
	}
	key = o.resolveLocked(key)
	q := o.queueLocked(key)
	var j *job
	if coalesce && msgID != 0 {
		i := slices.IndexFunc(q.jobs, func(old *job) bool { return old.coalesce && old.method == method && old.msg == msgID })
		if i >= 0 {
			// The newest edit sets the whole message, so it supersedes the
			// queued one, and takes the newest caller's place: it must not
			// start before what that caller queued ahead of it.
			j = q.jobs[i]
			q.jobs = slices.Delete(q.jobs, i, i+1)
			j.call = call
		}
	}
	if j == nil {
		jctx, cancel := context.WithCancelCause(o.ctx)
		j = &job{method: method, msg: msgID, coalesce: coalesce, done: make(chan struct{}), ctx: jctx, cancel: cancel,
			chat: key, call: call}
	}
	join(j)
	q.jobs = append(q.jobs, j)
	if o.enqueued != nil {
		o.enqueued(method, key)
	}
	o.kickLocked(q)
	return j, nil
}

// leave is called by a caller that stops waiting. The last caller to
// leave a job drops it from its queue, or cancels it if it is running,
// unless it was handed over: then it runs as if the callers that left had
// used EditMessageTextLater, sending the newest of the coalesced edits,
// whoever made it, since that is what the message should show.
func (o *Outbox) leave(j *job) {
	o.mu.Lock()
	defer o.mu.Unlock()
	j.waiters--
	if j.waiters > 0 || j.handed {
		return
	}
	if !j.started {
		if q := o.queues[j.chat]; q != nil {
			q.jobs = slices.DeleteFunc(q.jobs, func(x *job) bool { return x == j })
		}
	}
	j.cancel(errCallerLeft)
}

// resolveLocked follows a migration of the chat.
func (o *Outbox) resolveLocked(k chatKey) chatKey {
	if k.name != "" {
		return k
	}
	if id, ok := o.migrated[k.id]; ok {
		return chatKey{id: id}
	}
	return k
}

func (o *Outbox) queueLocked(k chatKey) *chatQueue {
	q := o.queues[k]
	if q == nil {
		q = &chatQueue{wake: make(chan struct{}, 1), busy: make(map[int]bool)}
		if o.opts.PerMinute > 0 {
			q.limiter = rate.NewLimiter(rate.Limit(float64(o.opts.PerMinute)/60), o.opts.Burst)
		}
		o.queues[k] = q
	}
	return q
}

// kickLocked has q's queued calls looked at: it wakes q's dispatcher, or
// starts one. Close empties every queue, so it starts none after Close and
// wg.Add cannot race Close's Wait.
func (o *Outbox) kickLocked(q *chatQueue) {
	if q.running {
		select {
		case q.wake <- struct{}{}:
		default: // already woken
		}
		return
	}
	if len(q.jobs) == 0 {
		return
	}
	q.running = true
	o.wg.Add(1)
	go o.dispatch(q)
}

// dispatch starts q's calls, each in its own goroutine, until none is
// queued. It sleeps only while a call that could start waits for the
// chat's 429 hold or a token, and otherwise waits to be woken.
func (o *Outbox) dispatch(q *chatQueue) {
	defer o.wg.Done()
	for {
		o.mu.Lock()
		if len(q.jobs) == 0 {
			q.running, q.paid = false, false
			o.mu.Unlock()
			return
		}
		i := -1
		if q.inFlight < o.opts.MaxInFlight {
			i = slices.IndexFunc(q.jobs, func(j *job) bool { return j.msg == 0 || !q.busy[j.msg] })
		}
		if i < 0 {
			// The token, if paid, stays spent: less than the bucket allows,
			// never more.
			q.paid = false
			o.mu.Unlock()
			select {
			case <-q.wake:
				continue
			case <-o.ctx.Done():
				return // Close failed every queued call
			}
		}
		now := o.now()
		wait := q.heldTill.Sub(now)
		if wait <= 0 && q.limiter != nil && !q.paid {
			// Paid for whichever call is first when it is due: an edit
			// queued meanwhile may still replace the one waiting.
			q.paid = true
			wait = q.limiter.ReserveN(now, 1).DelayFrom(now)
		}
		if wait > 0 {
			o.mu.Unlock()
			if o.sleep(o.ctx, wait) != nil {
				return
			}
			continue
		}
		j := q.jobs[i]
		q.jobs = slices.Delete(q.jobs, i, i+1)
		q.paid = false
		q.inFlight++
		if j.msg != 0 {
			q.busy[j.msg] = true
		}
		j.started = true
		chat, call := o.resolveLocked(j.chat), j.call
		o.wg.Add(1)
		go o.work(q, j, chat, call)
		o.mu.Unlock()
	}
}

// work runs one started call, then frees its slot and its message.
func (o *Outbox) work(q *chatQueue, j *job, chat chatKey, call func(context.Context, any) (any, error)) {
	defer o.wg.Done()
	res, err := o.run(j, q, chat, call)
	o.mu.Lock()
	q.inFlight--
	delete(q.busy, j.msg)
	o.kickLocked(q)
	o.mu.Unlock()
	j.finish(res, err)
}

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

// The Outbox's queues: a job per call (or per coalesced edits), a queue
// per chat, and the dispatcher that starts a chat's jobs in order,
// keeping the calls about one message one at a time.

package telegram

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"golang.org/x/time/rate"
)

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

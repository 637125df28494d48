package telegram

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// outboxCall is one call the fake received.
type outboxCall struct {
	Method    string
	ChatID    any
	MessageID int
	Text      string
}

// outboxFakeTG is an in-memory Telegram for the Outbox's tests. Calls for
// a chat with a gate wait on it (a receive: send one value to let one call
// through, close it to let all through) or for their ctx.
type outboxFakeTG struct {
	callsTG
	mu      sync.Mutex
	calls   []outboxCall
	errs    map[string][]error // by method, returned by successive calls
	gates   map[int64]chan struct{}
	entered chan outboxCall // when set, every gated call announces itself
	// cancelled and hold, when set, make a gated call whose ctx ended
	// announce it, then wait for hold before returning.
	cancelled, hold chan struct{}
	answers         int
	reactions       int
}

func newOutboxFake() *outboxFakeTG {
	f := &outboxFakeTG{errs: make(map[string][]error), gates: make(map[int64]chan struct{})}
	f.callsTG = callsTG{do: f.record, nextID: 100}
	return f
}

// callsTG is a Telegram that hands every call the Outbox queues, as an
// outboxCall, to do, and answers as Telegram would when do returns nil;
// the fakes below differ in what do does. New messages get IDs from
// nextID up.
type callsTG struct {
	do func(ctx context.Context, c outboxCall) error

	mu     sync.Mutex
	nextID int
}

func (f *callsTG) SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error) {
	if err := f.do(ctx, outboxCall{Method: "sendMessage", ChatID: p.ChatID, Text: p.Text}); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	id, _ := chatKeyOf(p.ChatID)
	return &models.Message{ID: f.nextID, Chat: models.Chat{ID: id.id}, Text: p.Text}, nil
}

func (f *callsTG) EditMessageText(ctx context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error) {
	if err := f.do(ctx, outboxCall{Method: "editMessageText", ChatID: p.ChatID, MessageID: p.MessageID, Text: p.Text}); err != nil {
		return nil, err
	}
	id, _ := chatKeyOf(p.ChatID)
	return &models.Message{ID: p.MessageID, Chat: models.Chat{ID: id.id}, Text: p.Text}, nil
}

// SendDocument takes the caption as the call's text.
func (f *callsTG) SendDocument(ctx context.Context, p *tgbot.SendDocumentParams) (*models.Message, error) {
	if err := f.do(ctx, outboxCall{Method: "sendDocument", ChatID: p.ChatID, Text: p.Caption}); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	id, _ := chatKeyOf(p.ChatID)
	return &models.Message{ID: f.nextID, Chat: models.Chat{ID: id.id}, Caption: p.Caption}, nil
}

// CreateForumTopic takes the topic's name as the call's text.
func (f *callsTG) CreateForumTopic(ctx context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	if err := f.do(ctx, outboxCall{Method: "createForumTopic", ChatID: p.ChatID, Text: p.Name}); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	return &models.ForumTopic{MessageThreadID: f.nextID, Name: p.Name}, nil
}

func (f *callsTG) AnswerCallbackQuery(context.Context, *tgbot.AnswerCallbackQueryParams) (bool, error) {
	return true, nil
}

func (f *outboxFakeTG) failNext(method string, errs ...error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs[method] = append(f.errs[method], errs...)
}

// gate makes calls to chat wait; it returns the gate.
func (f *outboxFakeTG) gate(chat int64) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := make(chan struct{})
	f.gates[chat] = g
	f.entered = make(chan outboxCall, 16)
	return g
}

func (f *outboxFakeTG) record(ctx context.Context, c outboxCall) error {
	f.mu.Lock()
	id, _ := chatKeyOf(c.ChatID)
	g, entered := f.gates[id.id], f.entered
	f.mu.Unlock()
	if g != nil {
		entered <- c
		select {
		case <-g:
		case <-ctx.Done():
			f.mu.Lock()
			cancelled, hold := f.cancelled, f.hold
			f.mu.Unlock()
			if cancelled != nil {
				close(cancelled)
				<-hold
			}
			return fmt.Errorf("fake %s: %w", c.Method, ctx.Err())
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	if q := f.errs[c.Method]; len(q) > 0 {
		f.errs[c.Method] = q[1:]
		return q[0]
	}
	return nil
}

func (f *outboxFakeTG) Calls() []outboxCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func (f *outboxFakeTG) AnswerCallbackQuery(ctx context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers++
	return true, nil
}

// outboxClock is a fake clock that only sleeping moves; it records every
// sleep asked for.
type outboxClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
	// blocked, when set, makes sleep announce itself there and wait for
	// release (if set) or ctx instead of returning; only sleeps of
	// blockOnly, if set.
	blocked   chan time.Duration
	release   chan struct{}
	blockOnly time.Duration
}

func (c *outboxClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *outboxClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *outboxClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	until := c.t.Add(d)
	blocked, release := c.blocked, c.release
	if c.blockOnly != 0 && d != c.blockOnly {
		blocked = nil
	}
	c.mu.Unlock()
	if blocked != nil {
		blocked <- d
		select {
		case <-release: // never, if nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	// Sleepers side by side wake at the same time, not one after another.
	c.mu.Lock()
	defer c.mu.Unlock()
	if until.After(c.t) {
		c.t = until
	}
	return nil
}

func (c *outboxClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

type outboxRig struct {
	o        *Outbox
	clock    *outboxClock
	logs     *testlog.Buffer
	enqueued chan string // method of each call as it joins a queue
}

// newOutboxRig makes an Outbox over tg with a fake clock and sleep, checks
// for leaked goroutines when the test ends, and closes the Outbox.
func newOutboxRig(t *testing.T, tg Telegram, opts OutboxOptions) *outboxRig {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	r := &outboxRig{
		clock:    &outboxClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)},
		logs:     &testlog.Buffer{},
		enqueued: make(chan string, 256),
	}
	r.o = NewOutbox(tg, opts, zerolog.New(r.logs))
	r.o.now, r.o.sleep = r.clock.now, r.clock.sleep
	r.o.enqueued = func(method string, _ chatKey) {
		select { // it runs under the Outbox's lock: never block
		case r.enqueued <- method:
		default:
		}
	}
	t.Cleanup(func() {
		r.o.Close()
		goleak.VerifyNone(t, ignore)
	})
	return r
}

func outboxCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// result is what one caller got.
type outboxResult struct {
	msg *models.Message
	err error
}

// goSend starts a SendMessage and waits until it has joined its queue.
func (r *outboxRig) goSend(t *testing.T, ctx context.Context, chat int64, text string) <-chan outboxResult {
	t.Helper()
	out := make(chan outboxResult, 1)
	go func() {
		m, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: chat, Text: text})
		out <- outboxResult{m, err}
	}()
	r.waitEnqueued(t)
	return out
}

// goEdit starts an EditMessageText and waits until it has joined its queue.
func (r *outboxRig) goEdit(t *testing.T, ctx context.Context, chat int64, msgID int, text string) <-chan outboxResult {
	t.Helper()
	out := make(chan outboxResult, 1)
	go func() {
		m, err := r.o.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: chat, MessageID: msgID, Text: text})
		out <- outboxResult{m, err}
	}()
	r.waitEnqueued(t)
	return out
}

func (r *outboxRig) waitEnqueued(t *testing.T) {
	t.Helper()
	select {
	case <-r.enqueued:
	case <-time.After(10 * time.Second):
		t.Fatal("call never joined its queue")
	}
}

func waitResult(t *testing.T, ch <-chan outboxResult) outboxResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("call never returned")
		return outboxResult{}
	}
}

func waitEntered(t *testing.T, f *outboxFakeTG) outboxCall {
	t.Helper()
	f.mu.Lock()
	entered := f.entered
	f.mu.Unlock()
	select {
	case c := <-entered:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no call reached Telegram")
		return outboxCall{}
	}
}

func texts(calls []outboxCall) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Method+":"+c.Text)
	}
	return out
}

func TestOutboxKeepsOrderPerChat(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{MaxInFlight: 1}) // one at a time: the calls queue behind the first
	ctx := outboxCtx(t)
	gate := tg.gate(-1)

	results := []<-chan outboxResult{r.goSend(t, ctx, -1, "s0")}
	waitEntered(t, tg) // s0 is at Telegram; the rest queue behind it
	results = append(results,
		r.goEdit(t, ctx, -1, 7, "e1"),
		r.goSend(t, ctx, -1, "s2"),
		r.goEdit(t, ctx, -1, 8, "e3"),
		r.goSend(t, ctx, -1, "s4"),
	)
	close(gate)
	for i, ch := range results {
		if res := waitResult(t, ch); res.err != nil || res.msg == nil {
			t.Fatalf("call %d: %+v", i, res)
		}
	}
	want := []string{"sendMessage:s0", "editMessageText:e1", "sendMessage:s2", "editMessageText:e3", "sendMessage:s4"}
	if got := texts(tg.Calls()); !slices.Equal(got, want) {
		t.Fatalf("calls reached Telegram as %q, want %q", got, want)
	}
}

func TestOutboxChatsAreIndependent(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{})
	ctx := outboxCtx(t)
	gate := tg.gate(-1)

	blocked := r.goSend(t, ctx, -1, "stuck")
	waitEntered(t, tg)
	m, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-2), Text: "free"})
	if err != nil || m.Text != "free" || m.Chat.ID != -2 {
		t.Fatalf("send to another chat while the first is blocked: %+v, %v", m, err)
	}
	select {
	case res := <-blocked:
		t.Fatalf("blocked send returned early: %+v", res)
	default:
	}
	close(gate)
	if res := waitResult(t, blocked); res.err != nil {
		t.Fatal(res.err)
	}
}

func TestOutboxPacesEachChat(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{PerMinute: 60, Burst: 2})
	ctx := outboxCtx(t)
	for i := range 5 {
		if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-1), Text: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// 60 a minute is one a second: two go at once, each further one waits.
	want := []time.Duration{time.Second, time.Second, time.Second}
	if got := r.clock.Sleeps(); !slices.Equal(got, want) {
		t.Fatalf("pacing waits %v, want %v", got, want)
	}
	// Another chat has its own bucket: its first sends do not wait.
	for i := range 2 {
		if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: "-2", Text: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.clock.Sleeps(); !slices.Equal(got, want) {
		t.Fatalf("a fresh chat waited: %v", got)
	}
	if n := len(tg.Calls()); n != 7 {
		t.Fatalf("%d calls reached Telegram, want 7", n)
	}
}

func TestOutboxNoPacingWhenRateIsZero(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{PerMinute: 0})
	ctx := outboxCtx(t)
	for i := range 50 {
		if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-1), Text: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.clock.Sleeps(); len(got) != 0 {
		t.Fatalf("waited %v with pacing off", got)
	}
}

func TestOutboxObeys429RetryAfter(t *testing.T) {
	tg := newOutboxFake()
	// Wrapped as RedactTelegram and callers do: errors.As must still find it.
	tg.failNext("sendMessage", fmt.Errorf("wrapped: %w", &tgbot.TooManyRequestsError{Message: "too many requests", RetryAfter: 7}))
	r := newOutboxRig(t, tg, OutboxOptions{PerMinute: 0})
	m, err := r.o.SendMessage(outboxCtx(t), &tgbot.SendMessageParams{ChatID: int64(-1), Text: "hi"})
	if err != nil || m == nil || m.Text != "hi" {
		t.Fatalf("send after a 429: %+v, %v", m, err)
	}
	if got := r.clock.Sleeps(); !slices.Equal(got, []time.Duration{7 * time.Second}) {
		t.Fatalf("waits %v, want the 7 s of retry_after", got)
	}
	if n := len(tg.Calls()); n != 2 {
		t.Fatalf("%d calls, want 2 (the 429 and its retry)", n)
	}
	if !strings.Contains(r.logs.String(), "429") {
		t.Fatalf("429 not logged: %s", r.logs)
	}
}

func TestOutbox429WaitEndsWithCallerContext(t *testing.T) {
	tg := newOutboxFake()
	tg.failNext("sendMessage", &tgbot.TooManyRequestsError{RetryAfter: 3600})
	r := newOutboxRig(t, tg, OutboxOptions{})
	r.clock.blocked = make(chan time.Duration, 1)
	ctx, cancel := context.WithCancel(outboxCtx(t))
	res := r.goSend(t, ctx, -1, "hi")
	// Wait until the queue is holding for the 429, then give up.
	select {
	case d := <-r.clock.blocked:
		if d != time.Hour {
			t.Fatalf("holding for %v, want retry_after's hour", d)
		}
	case <-ctx.Done():
		t.Fatal("the queue never waited for the 429")
	}
	cancel()
	got := waitResult(t, res)
	if !errors.Is(got.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", got.err)
	}
	r.o.Close() // waits for the chat's goroutine: no retry may follow
	if n := len(tg.Calls()); n != 1 {
		t.Fatalf("%d calls after the caller left, want 1", n)
	}
}

func TestOutboxRetries5xxWithBackoff(t *testing.T) {
	tg := newOutboxFake()
	e500 := errors.New("error response from telegram for method sendMessage, 500 Internal Server Error")
	tg.failNext("sendMessage", e500, e500)
	r := newOutboxRig(t, tg, OutboxOptions{BaseBackoff: time.Second, MaxBackoff: time.Minute})
	m, err := r.o.SendMessage(outboxCtx(t), &tgbot.SendMessageParams{ChatID: int64(-1), Text: "hi"})
	if err != nil || m == nil {
		t.Fatalf("send after two 500s: %+v, %v", m, err)
	}
	if got, want := r.clock.Sleeps(), []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(got, want) {
		t.Fatalf("backoff %v, want %v", got, want)
	}
}

func TestOutboxGivesUpAfterMaxRetries(t *testing.T) {
	tg := newOutboxFake()
	netErr := errors.New("error do request for method sendMessage, dial tcp: connection refused")
	tg.failNext("sendMessage", netErr, netErr, netErr, netErr, netErr)
	r := newOutboxRig(t, tg, OutboxOptions{MaxRetries: 3, BaseBackoff: time.Second, MaxBackoff: 3 * time.Second})
	_, err := r.o.SendMessage(outboxCtx(t), &tgbot.SendMessageParams{ChatID: int64(-1), Text: "hi"})
	if !errors.Is(err, netErr) || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Fatalf("err = %v, want the network error after 4 attempts", err)
	}
	if got, want := r.clock.Sleeps(), []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(got, want) {
		t.Fatalf("backoff %v, want %v", got, want)
	}
	if n := len(tg.Calls()); n != 4 {
		t.Fatalf("%d calls, want 4", n)
	}
}

func TestOutbox4xxNotRetried(t *testing.T) {
	for _, sentinel := range []error{tgbot.ErrorBadRequest, tgbot.ErrorUnauthorized, tgbot.ErrorNotFound, tgbot.ErrorConflict} {
		t.Run(sentinel.Error(), func(t *testing.T) {
			tg := newOutboxFake()
			tg.failNext("sendMessage", fmt.Errorf("%w, chat not found", sentinel))
			r := newOutboxRig(t, tg, OutboxOptions{})
			_, err := r.o.SendMessage(outboxCtx(t), &tgbot.SendMessageParams{ChatID: int64(-1), Text: "hi"})
			if !errors.Is(err, sentinel) {
				t.Fatalf("err = %v, want %v", err, sentinel)
			}
			if n, s := len(tg.Calls()), r.clock.Sleeps(); n != 1 || len(s) != 0 {
				t.Fatalf("%d calls, waits %v: a 4xx was retried", n, s)
			}
		})
	}
}

func TestOutboxCoalescesQueuedEdits(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{MaxInFlight: 1}) // one at a time: the calls queue behind the first
	ctx := outboxCtx(t)
	gate := tg.gate(-1)

	first := r.goSend(t, ctx, -1, "busy")
	waitEntered(t, tg)
	edits := []<-chan outboxResult{
		r.goEdit(t, ctx, -1, 5, "v1"),
		r.goEdit(t, ctx, -1, 5, "v2"),
	}
	other := r.goEdit(t, ctx, -1, 6, "other message")
	edits = append(edits, r.goEdit(t, ctx, -1, 5, "v3"))
	close(gate)
	if res := waitResult(t, first); res.err != nil {
		t.Fatal(res.err)
	}
	var got []*models.Message
	for _, ch := range edits {
		res := waitResult(t, ch)
		if res.err != nil {
			t.Fatal(res.err)
		}
		got = append(got, res.msg)
	}
	if res := waitResult(t, other); res.err != nil || res.msg.Text != "other message" {
		t.Fatalf("edit of another message: %+v", res)
	}
	for i, m := range got {
		if m == nil || m.Text != "v3" || m != got[0] {
			t.Fatalf("caller %d got %+v, want the newest edit's result", i, m)
		}
	}
	// The newest edit of message 5 took the place of the last call.
	want := []string{"sendMessage:busy", "editMessageText:other message", "editMessageText:v3"}
	if calls := texts(tg.Calls()); !slices.Equal(calls, want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}

func TestOutboxCallerLeavingDropsQueuedCall(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{MaxInFlight: 1}) // one at a time: the call queues behind the first
	ctx := outboxCtx(t)
	gate := tg.gate(-1)
	first := r.goSend(t, ctx, -1, "busy")
	waitEntered(t, tg)
	leaving, leave := context.WithCancel(ctx)
	left := r.goSend(t, leaving, -1, "never")
	leave()
	if res := waitResult(t, left); !errors.Is(res.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", res.err)
	}
	close(gate)
	if res := waitResult(t, first); res.err != nil {
		t.Fatal(res.err)
	}
	r.o.Close()
	if got := texts(tg.Calls()); !slices.Equal(got, []string{"sendMessage:busy"}) {
		t.Fatalf("calls %q: the abandoned send went out", got)
	}
}

func TestOutboxNotModifiedIsSuccess(t *testing.T) {
	tg := newOutboxFake()
	tg.failNext("editMessageText",
		fmt.Errorf("%w, Bad Request: message is not modified: specified new message content and reply markup are exactly the same", tgbot.ErrorBadRequest),
		fmt.Errorf("%w, Bad Request: message is not modified", tgbot.ErrorBadRequest))
	r := newOutboxRig(t, tg, OutboxOptions{})
	ctx := outboxCtx(t)
	m, err := r.o.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: int64(-1), MessageID: 3, Text: "same"})
	if err != nil || m != nil {
		t.Fatalf("not modified: %+v, %v; want nil, nil", m, err)
	}
	if res := r.editLater(t, -1, 3, "same again").wait(t); res.err != nil || res.msg != nil {
		t.Fatalf("handed-over edit not modified: done got %+v, %v; want nil, nil", res.msg, res.err)
	}
	if n := len(tg.Calls()); n != 2 {
		t.Fatalf("%d calls, want 2", n)
	}
}

func TestOutboxFollowsMigration(t *testing.T) {
	tg := newOutboxFake()
	tg.failNext("sendMessage", &tgbot.MigrateError{Message: "bad request: group chat was upgraded to a supergroup chat", MigrateToChatID: -100999})
	type mig struct{ old, new int64 }
	var migrations []mig
	var mu sync.Mutex
	r := newOutboxRig(t, tg, OutboxOptions{OnMigrate: func(o, n int64) {
		mu.Lock()
		defer mu.Unlock()
		migrations = append(migrations, mig{o, n})
	}})
	ctx := outboxCtx(t)
	m, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-5), Text: "first"})
	if err != nil || m.Chat.ID != -100999 {
		t.Fatalf("send to a migrated group: %+v, %v", m, err)
	}
	if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-5), Text: "later"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.o.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: "-5", MessageID: 9, Text: "edit"}); err != nil {
		t.Fatal(err)
	}
	var chats []any
	for _, c := range tg.Calls() {
		chats = append(chats, c.ChatID)
	}
	if want := []any{int64(-5), int64(-100999), int64(-100999), int64(-100999)}; !slices.Equal(chats, want) {
		t.Fatalf("calls went to chats %v, want %v", chats, want)
	}
	mu.Lock()
	if !slices.Equal(migrations, []mig{{-5, -100999}}) {
		t.Fatalf("OnMigrate calls %v, want one for -5 → -100999", migrations)
	}
	mu.Unlock()
	logs := r.logs.String()
	if strings.Count(logs, "upgraded to a supergroup") != 1 || !strings.Contains(logs, "-100999") || !strings.Contains(logs, `"oldChatID":-5`) {
		t.Fatalf("want one migration line naming both IDs, got:\n%s", logs)
	}
}

func TestOutboxMigrationKeepsQueuedOrder(t *testing.T) {
	tg := newOutboxFake()
	tg.failNext("sendMessage", &tgbot.MigrateError{MigrateToChatID: -100999})
	r := newOutboxRig(t, tg, OutboxOptions{MaxInFlight: 1}) // one at a time: the calls queue behind the first
	ctx := outboxCtx(t)
	gate := tg.gate(-5)
	results := []<-chan outboxResult{r.goSend(t, ctx, -5, "a")}
	waitEntered(t, tg)
	results = append(results, r.goSend(t, ctx, -5, "b"), r.goEdit(t, ctx, -5, 3, "c"))
	close(gate)
	for i, ch := range results {
		if res := waitResult(t, ch); res.err != nil {
			t.Fatalf("call %d: %v", i, res.err)
		}
	}
	var got []string
	for _, c := range tg.Calls() {
		got = append(got, fmt.Sprintf("%s@%v", c.Text, c.ChatID))
	}
	if want := []string{"a@-5", "a@-100999", "b@-100999", "c@-100999"}; !slices.Equal(got, want) {
		t.Fatalf("calls %q, want %q", got, want)
	}
	// Calls to either ID now share one queue.
	r.o.mu.Lock()
	same := r.o.queues[chatKey{id: -5}] == r.o.queues[chatKey{id: -100999}]
	r.o.mu.Unlock()
	if !same {
		t.Fatal("old and new chat IDs have different queues")
	}
}

func TestOutboxFollowMigrationBeforeAnyFailure(t *testing.T) {
	tg := newOutboxFake()
	calls := 0
	r := newOutboxRig(t, tg, OutboxOptions{OnMigrate: func(o, n int64) { calls++ }})
	r.o.FollowMigration(-5, -100999)
	r.o.FollowMigration(-5, -100999) // the service message seen twice
	r.o.FollowMigration(-5, -5)
	m, err := r.o.SendMessage(outboxCtx(t), &tgbot.SendMessageParams{ChatID: int64(-5), Text: "x"})
	if err != nil || m.Chat.ID != -100999 {
		t.Fatalf("send after FollowMigration: %+v, %v", m, err)
	}
	if calls != 1 {
		t.Fatalf("OnMigrate called %d times, want 1", calls)
	}
	if got := tg.Calls(); len(got) != 1 || got[0].ChatID != int64(-100999) {
		t.Fatalf("calls %+v, want one to the new chat", got)
	}
}

func TestOutboxMigrationRetriedOnce(t *testing.T) {
	tg := newOutboxFake()
	tg.failNext("sendMessage",
		&tgbot.MigrateError{MigrateToChatID: -100999},
		&tgbot.MigrateError{MigrateToChatID: -100888})
	r := newOutboxRig(t, tg, OutboxOptions{})
	_, err := r.o.SendMessage(outboxCtx(t), &tgbot.SendMessageParams{ChatID: int64(-5), Text: "x"})
	var me *tgbot.MigrateError
	if !errors.As(err, &me) || me.MigrateToChatID != -100888 {
		t.Fatalf("err = %v, want the second MigrateError", err)
	}
	if n := len(tg.Calls()); n != 2 {
		t.Fatalf("%d calls, want 2", n)
	}
}

func TestOutboxForbiddenLoggedOncePerMinute(t *testing.T) {
	tg := newOutboxFake()
	kicked := fmt.Errorf("%w, Forbidden: bot was kicked from the group chat", tgbot.ErrorForbidden)
	tg.failNext("sendMessage", kicked, kicked, kicked, kicked)
	r := newOutboxRig(t, tg, OutboxOptions{})
	ctx := outboxCtx(t)
	send := func() {
		t.Helper()
		if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-7), Text: "x"}); !errors.Is(err, tgbot.ErrorForbidden) {
			t.Fatalf("err = %v, want ErrorForbidden", err)
		}
	}
	send()
	send()
	send()
	const line = "bot is not a member of chat -7: add it back; requests stay pending"
	if n := strings.Count(r.logs.String(), line); n != 1 {
		t.Fatalf("%d lines %q after three 403s in a minute, want 1:\n%s", n, line, r.logs)
	}
	r.clock.advance(forbiddenLogEvery)
	send()
	if n := strings.Count(r.logs.String(), line); n != 2 {
		t.Fatalf("%d lines a minute later, want 2", n)
	}
	if n, s := len(tg.Calls()), r.clock.Sleeps(); n != 4 || len(s) != 0 {
		t.Fatalf("%d calls, waits %v: a 403 was retried", n, s)
	}
}

func TestOutboxCallbackAnswerNotQueued(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{PerMinute: 1, Burst: 1})
	ctx := outboxCtx(t)
	gate := tg.gate(-1)
	blocked := r.goSend(t, ctx, -1, "stuck")
	waitEntered(t, tg)
	ok, err := r.o.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{CallbackQueryID: "cb"})
	if !ok || err != nil {
		t.Fatalf("answer: %v, %v", ok, err)
	}
	select {
	case res := <-blocked:
		t.Fatalf("send finished before the gate opened: %+v", res)
	default:
	}
	close(gate)
	waitResult(t, blocked)
}

func TestOutboxCloseWithCallsInFlight(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{})
	ctx := outboxCtx(t)
	tg.gate(-1) // never opened: only Close ends the call
	running := r.goSend(t, ctx, -1, "running")
	waitEntered(t, tg)
	queuedRes := r.goSend(t, ctx, -1, "queued")
	r.o.Close()
	for name, ch := range map[string]<-chan outboxResult{"running": running, "queued": queuedRes} {
		if res := waitResult(t, ch); !errors.Is(res.err, ErrOutboxClosed) {
			t.Fatalf("%s call: err = %v, want ErrOutboxClosed", name, res.err)
		}
	}
	if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-1), Text: "late"}); !errors.Is(err, ErrOutboxClosed) {
		t.Fatalf("send after Close: %v", err)
	}
	r.o.Close() // again: no panic, no wait
	if got := texts(tg.Calls()); len(got) != 0 {
		t.Fatalf("calls completed despite Close: %q", got)
	}
}

func TestOutboxCloseWaitsForRunningCall(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{})
	tg.gate(-1)
	tg.cancelled, tg.hold = make(chan struct{}), make(chan struct{})
	running := r.goSend(t, outboxCtx(t), -1, "running")
	waitEntered(t, tg)
	closed := make(chan struct{})
	go func() {
		r.o.Close()
		close(closed)
	}()
	<-tg.cancelled // Close cancelled the call, which has not returned yet
	select {
	case <-closed:
		close(tg.hold)
		t.Fatal("Close returned while a call was still running")
	default:
	}
	close(tg.hold)
	<-closed
	if res := waitResult(t, running); !errors.Is(res.err, ErrOutboxClosed) {
		t.Fatalf("err = %v, want ErrOutboxClosed", res.err)
	}
}

func TestOutboxPassesThroughInlineEdits(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{})
	if _, err := r.o.EditMessageText(outboxCtx(t), &tgbot.EditMessageTextParams{InlineMessageID: "i1", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if n := len(tg.Calls()); n != 1 {
		t.Fatalf("%d calls, want 1", n)
	}
	if _, err := r.o.SendMessage(outboxCtx(t), nil); err == nil {
		t.Fatal("nil params accepted")
	}
}

func TestOutboxEditWaitsForHandedOverEdit(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{})
	ctx := outboxCtx(t)
	gate := tg.gate(-1)
	handed := r.editLater(t, -1, 4, "handed over")
	waitEntered(t, tg)
	edit := r.goEdit(t, ctx, -1, 4, "last words")
	// Calls start in the order queued, so the send queued after the edit
	// reaching Telegram first means the edit was held back.
	past := r.goSend(t, ctx, -1, "past")
	if c := waitEntered(t, tg); c.Text != "past" {
		t.Fatalf("%s %q reached Telegram while an edit of its message ran", c.Method, c.Text)
	}
	close(gate)
	mustSucceed(t, "edit", edit)
	mustSucceed(t, "send", past)
	if res := handed.wait(t); res.err != nil {
		t.Fatal(res.err)
	}
	got := texts(tg.Calls())
	i, j := slices.Index(got, "editMessageText:handed over"), slices.Index(got, "editMessageText:last words")
	if i < 0 || j < i {
		t.Fatalf("calls %q: the edit went before the handed-over one it was queued behind", got)
	}
}

func TestOutboxBackoffCapped(t *testing.T) {
	o := NewOutbox(newOutboxFake(), OutboxOptions{BaseBackoff: time.Second, MaxBackoff: 5 * time.Second}, zerolog.Nop())
	defer o.Close()
	var got []time.Duration
	for n := range 70 {
		got = append(got, o.backoff(n))
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second}; !slices.Equal(got[:4], want) {
		t.Fatalf("backoff %v, want %v", got[:4], want)
	}
	if got[69] != 5*time.Second {
		t.Fatalf("backoff(69) = %v: it overflowed past MaxBackoff", got[69])
	}
}

func TestOutboxSleepCtxEndsWithCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrOutboxClosed)
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, ErrOutboxClosed) {
		t.Fatalf("sleep on a closed context: %v", err)
	}
	if err := sleepCtx(context.Background(), time.Nanosecond); err != nil {
		t.Fatal(err)
	}
}

// TestOutboxAgainstTelegram drives a real go-telegram/bot client through
// the Outbox against the strict fake Bot API: 429, 500, migration, "not
// modified" and 403 as Telegram sends them.
func TestOutboxAgainstTelegram(t *testing.T) {
	const (
		oldChat = int64(-5)
		newChat = int64(-1001234567)
	)
	srv := telegramtest.NewServer("123:abc")
	defer srv.Close()
	if err := srv.AddChat(oldChat, telegramtest.ChatGroup); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddChat(newChat, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	tb, err := tgbot.New("123:abc", tgbot.WithServerURL(srv.URL), tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(2*time.Second, &http.Client{Timeout: 5 * time.Second, Transport: transport}))
	if err != nil {
		t.Fatal(err)
	}
	var migrated [][2]int64
	r := newOutboxRig(t, RedactTelegram(tb, NewRedactor("123:abc")), OutboxOptions{
		PerMinute:   0,
		BaseBackoff: time.Second,
		OnMigrate:   func(o, n int64) { migrated = append(migrated, [2]int64{o, n}) },
	})
	ctx := outboxCtx(t)
	send := func(text string) *models.Message {
		t.Helper()
		m, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: oldChat, Text: text})
		if err != nil {
			t.Fatalf("send %q: %v", text, err)
		}
		return m
	}

	srv.FailNext("sendMessage", telegramtest.Fault{Code: 429, RetryAfter: 1})
	m := send("after 429")
	srv.FailNext("sendMessage", telegramtest.Fault{Code: 500})
	send("after 500")
	if got, want := r.clock.Sleeps(), []time.Duration{time.Second, time.Second}; !slices.Equal(got, want) {
		t.Fatalf("waits %v, want %v (retry_after 1 s, then the first backoff)", got, want)
	}

	// An edit to the text it already has: Telegram says "not modified".
	got, err := r.o.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: oldChat, MessageID: m.ID, Text: "after 429"})
	if err != nil || got != nil {
		t.Fatalf("unchanged edit: %+v, %v; want nil, nil", got, err)
	}

	srv.FailNext("sendMessage", telegramtest.Fault{Code: 400, MigrateToChatID: newChat})
	moved := send("after migration")
	later := send("later")
	if moved.Chat.ID != newChat || later.Chat.ID != newChat {
		t.Fatalf("after migration messages went to %d and %d, want %d", moved.Chat.ID, later.Chat.ID, newChat)
	}
	if len(srv.Messages(newChat)) != 2 || len(srv.Messages(oldChat)) != 2 {
		t.Fatalf("old chat has %d messages, new chat %d; want 2 and 2", len(srv.Messages(oldChat)), len(srv.Messages(newChat)))
	}
	if len(migrated) != 1 || migrated[0] != [2]int64{oldChat, newChat} {
		t.Fatalf("OnMigrate calls %v", migrated)
	}

	srv.FailNext("sendMessage", telegramtest.Fault{Code: 403, Description: "Forbidden: bot was kicked from the supergroup chat"})
	if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: newChat, Text: "kicked"}); !errors.Is(err, tgbot.ErrorForbidden) {
		t.Fatalf("err = %v, want ErrorForbidden", err)
	}
	if !strings.Contains(r.logs.String(), "bot is not a member of chat -1001234567") {
		t.Fatalf("403 not logged:\n%s", r.logs)
	}
	if n := len(srv.RequestsFor("sendMessage")); n != 8 {
		t.Fatalf("%d sendMessage requests, want 8 (2+2 tries, migration+retry, later, 403)", n)
	}
	if strings.Contains(r.logs.String(), "123:abc") {
		t.Fatalf("the token is in the logs:\n%s", r.logs)
	}
	r.o.Close()
	transport.CloseIdleConnections()
}

// heldCall is a call heldTG holds at Telegram until the test answers it.
type heldCall struct {
	outboxCall
	answer chan error // nil lets the call succeed; an error fails it
}

// heldTG is a Telegram whose every call waits at Telegram until the test
// answers it. It counts the calls it holds at once, overall and about
// each message.
type heldTG struct {
	callsTG
	started chan heldCall

	mu         sync.Mutex
	calls      []outboxCall // answered with success
	running    int
	maxRunning int
	aboutMsg   map[int]int
	overlaps   []string // calls that ran while another about their message did
}

func newHeldTG() *heldTG {
	f := &heldTG{started: make(chan heldCall, 64), aboutMsg: make(map[int]int)}
	f.callsTG = callsTG{do: f.hold}
	return f
}

func (f *heldTG) hold(ctx context.Context, c outboxCall) error {
	f.mu.Lock()
	f.running++
	f.maxRunning = max(f.maxRunning, f.running)
	if c.MessageID != 0 {
		if f.aboutMsg[c.MessageID]++; f.aboutMsg[c.MessageID] > 1 {
			f.overlaps = append(f.overlaps, c.Method+":"+c.Text)
		}
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.running--
		f.aboutMsg[c.MessageID]--
	}()
	h := heldCall{c, make(chan error, 1)}
	f.started <- h
	select {
	case err := <-h.answer:
		if err == nil {
			f.mu.Lock()
			f.calls = append(f.calls, c)
			f.mu.Unlock()
		}
		return err
	case <-ctx.Done():
		return fmt.Errorf("held %s: %w", c.Method, ctx.Err())
	}
}

// next returns the next call to reach Telegram.
func (f *heldTG) next(t *testing.T) heldCall {
	t.Helper()
	select {
	case c := <-f.started:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no call reached Telegram")
		return heldCall{}
	}
}

// none fails if a call has reached Telegram that next has not returned.
// Call it only when nothing could be about to start.
func (f *heldTG) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-f.started:
		t.Fatalf("%s %q reached Telegram", c.Method, c.Text)
	default:
	}
}

func (f *heldTG) stats() (maxRunning int, overlaps []string, calls []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxRunning, slices.Clone(f.overlaps), texts(f.calls)
}

// goDo starts call and waits until it has joined its queue.
func (r *outboxRig) goDo(t *testing.T, call func() (*models.Message, error)) <-chan outboxResult {
	t.Helper()
	out := make(chan outboxResult, 1)
	go func() {
		m, err := call()
		out <- outboxResult{m, err}
	}()
	r.waitEnqueued(t)
	return out
}

func mustSucceed(t *testing.T, name string, ch <-chan outboxResult) *models.Message {
	t.Helper()
	res := waitResult(t, ch)
	if res.err != nil {
		t.Fatalf("%s: %v", name, res.err)
	}
	return res.msg
}

func TestOutboxRunsUpToMaxInFlightAtOnce(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	const n = DefaultOutboxMaxInFlight
	var results []<-chan outboxResult
	for i := range n + 1 {
		results = append(results, r.goSend(t, ctx, -1, fmt.Sprint(i)))
	}
	// The first n are at Telegram together, none of them answered.
	held := make(map[string]heldCall)
	for range n {
		c := f.next(t)
		held[c.Text] = c
	}
	for i := range n {
		if _, ok := held[fmt.Sprint(i)]; !ok {
			t.Fatalf("calls at Telegram %v: send %d is not, the first %d should be", slices.Collect(maps.Keys(held)), i, n)
		}
	}
	// The last waits for a slot.
	r.o.mu.Lock()
	q := r.o.queues[chatKey{id: -1}]
	inFlight, queued := q.inFlight, len(q.jobs)
	r.o.mu.Unlock()
	if inFlight != n || queued != 1 {
		t.Fatalf("%d calls running and %d queued, want %d and 1", inFlight, queued, n)
	}
	held["3"].answer <- nil
	if m := mustSucceed(t, "send 3", results[3]); m.Text != "3" {
		t.Fatalf("send 3 got %+v", m)
	}
	delete(held, "3")
	results = slices.Delete(results, 3, 4)
	last := f.next(t)
	if last.Text != fmt.Sprint(n) {
		t.Fatalf("%q started when a slot freed, want the one waiting, %d", last.Text, n)
	}
	last.answer <- nil
	for _, c := range held {
		c.answer <- nil
	}
	for _, ch := range results {
		if m := mustSucceed(t, "send", ch); m.Text == "3" {
			t.Fatalf("got the result of send 3 twice")
		}
	}
	if most, _, _ := f.stats(); most != n {
		t.Fatalf("at most %d calls at Telegram at once, want %d", most, n)
	}
}

func TestOutboxMaxInFlightOneKeepsStrictOrder(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{MaxInFlight: 1})
	ctx := outboxCtx(t)
	results := []<-chan outboxResult{
		r.goSend(t, ctx, -1, "s0"),
		r.goEdit(t, ctx, -1, 7, "e1"),
		r.goSend(t, ctx, -1, "s2"),
		r.goEdit(t, ctx, -1, 8, "e3"),
		r.goSend(t, ctx, -1, "s4"),
	}
	// Each call reaches Telegram only once the one before it is answered.
	for _, want := range []string{"s0", "e1", "s2", "e3", "s4"} {
		c := f.next(t)
		if c.Text != want {
			t.Fatalf("%q reached Telegram, want %q", c.Text, want)
		}
		c.answer <- nil
	}
	for i, ch := range results {
		mustSucceed(t, fmt.Sprint("call ", i), ch)
	}
	if most, _, _ := f.stats(); most != 1 {
		t.Fatalf("%d calls at Telegram at once with MaxInFlight 1", most)
	}
}

func TestOutboxCallsAboutOneMessageRunInOrder(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	pass := func(want string) {
		t.Helper()
		c := f.next(t)
		if got := c.Method + ":" + c.Text; got != want {
			t.Fatalf("%q reached Telegram, want %q", got, want)
		}
		c.answer <- nil
	}
	first := r.goEdit(t, ctx, -1, 5, "a")
	a := f.next(t)
	second := r.goEdit(t, ctx, -1, 5, "b")
	// A send queued after "b" goes past it, while "a" is held.
	past := r.goSend(t, ctx, -1, "past")
	pass("sendMessage:past")
	mustSucceed(t, "send past the edit", past)
	a.answer <- nil
	mustSucceed(t, "edit a", first)
	b := f.next(t)
	if got := b.Method + ":" + b.Text; got != "editMessageText:b" {
		t.Fatalf("%q reached Telegram, want editMessageText:b", got)
	}
	third := r.goEdit(t, ctx, -1, 5, "c")
	// A file replying to the message is no call about it: it goes past
	// "c", while "b" is held.
	doc := r.goDo(t, func() (*models.Message, error) {
		return r.o.SendDocument(ctx, &tgbot.SendDocumentParams{ChatID: int64(-1), Caption: "whole text",
			Document:        &models.InputFileUpload{Filename: "changes.diff", Data: strings.NewReader("+x")},
			ReplyParameters: &models.ReplyParameters{MessageID: 5}})
	})
	pass("sendDocument:whole text")
	mustSucceed(t, "file past the edit", doc)
	b.answer <- nil
	mustSucceed(t, "edit b", second)
	pass("editMessageText:c")
	mustSucceed(t, "edit c", third)
	_, overlaps, calls := f.stats()
	if len(overlaps) != 0 {
		t.Fatalf("calls ran beside another about their message: %q", overlaps)
	}
	want := []string{"sendMessage:past", "editMessageText:a", "sendDocument:whole text", "editMessageText:b", "editMessageText:c"}
	if !slices.Equal(calls, want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}

func TestOutboxCoalescesEditsWaitingForTheirMessage(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	running := r.goEdit(t, ctx, -1, 5, "running")
	held := f.next(t)
	edits := []<-chan outboxResult{r.goEdit(t, ctx, -1, 5, "v1"), r.goEdit(t, ctx, -1, 5, "v2")}
	other := r.goEdit(t, ctx, -1, 6, "other message")
	if c := f.next(t); c.Text != "other message" {
		t.Fatalf("%q reached Telegram, want the edit of the other message", c.Text)
	} else {
		c.answer <- nil
	}
	mustSucceed(t, "edit of another message", other)
	edits = append(edits, r.goEdit(t, ctx, -1, 5, "v3"))
	held.answer <- nil
	mustSucceed(t, "running edit", running)
	if c := f.next(t); c.Text != "v3" {
		t.Fatalf("%q reached Telegram, want only the newest edit, v3", c.Text)
	} else {
		c.answer <- nil
	}
	var got []*models.Message
	for i, ch := range edits {
		got = append(got, mustSucceed(t, fmt.Sprint("edit ", i), ch))
	}
	for i, m := range got {
		if m == nil || m.Text != "v3" || m != got[0] {
			t.Fatalf("caller %d got %+v, want the newest edit's result", i, m)
		}
	}
	r.o.Close()
	f.none(t)
	want := []string{"editMessageText:other message", "editMessageText:running", "editMessageText:v3"}
	if _, _, calls := f.stats(); !slices.Equal(calls, want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}

func TestOutbox429HoldsTheWholeChat(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	r.clock.blocked, r.clock.release = make(chan time.Duration, 4), make(chan struct{})
	ctx := outboxCtx(t)
	results := map[string]<-chan outboxResult{"a": r.goSend(t, ctx, -1, "a"), "b": r.goSend(t, ctx, -1, "b")}
	held := make(map[string]heldCall)
	for range 2 {
		c := f.next(t)
		held[c.Text] = c
	}
	held["b"].answer <- &tgbot.TooManyRequestsError{Message: "too many requests", RetryAfter: 5}
	waitSleep := func(why string) {
		t.Helper()
		select {
		case d := <-r.clock.blocked:
			if d != 5*time.Second {
				t.Fatalf("%s: waiting %v, want retry_after's 5 s", why, d)
			}
		case <-ctx.Done():
			t.Fatalf("%s: never waited", why)
		}
	}
	waitSleep("the call that got the 429")
	results["c"] = r.goSend(t, ctx, -1, "c")
	waitSleep("the chat's next call")
	f.none(t)
	// The call already at Telegram finishes during the hold.
	held["a"].answer <- nil
	mustSucceed(t, "a", results["a"])
	f.none(t)
	close(r.clock.release)
	started := make(map[string]bool)
	for range 2 {
		c := f.next(t)
		started[c.Text] = true
		c.answer <- nil
	}
	if !started["b"] || !started["c"] {
		t.Fatalf("after the hold %v reached Telegram, want the retry of b and c", started)
	}
	mustSucceed(t, "b", results["b"])
	mustSucceed(t, "c", results["c"])
	if got := r.clock.Sleeps(); !slices.Equal(got, []time.Duration{5 * time.Second, 5 * time.Second}) {
		t.Fatalf("waits %v, want the 5 s of retry_after twice (the retry, the chat)", got)
	}
	if !strings.Contains(r.logs.String(), "429") {
		t.Fatalf("429 not logged: %s", r.logs)
	}
}

func TestOutboxCloseCancelsCallsInFlight(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{MaxInFlight: 2})
	ctx := outboxCtx(t)
	results := []<-chan outboxResult{r.goSend(t, ctx, -1, "s0"), r.goSend(t, ctx, -1, "s1")}
	f.next(t)
	f.next(t)
	results = append(results, r.goSend(t, ctx, -1, "queued"))
	r.o.Close() // returns only once the running calls have
	for i, ch := range results {
		if res := waitResult(t, ch); !errors.Is(res.err, ErrOutboxClosed) {
			t.Fatalf("call %d: err = %v, want ErrOutboxClosed", i, res.err)
		}
	}
	f.none(t)
	if most, _, calls := f.stats(); most != 2 || len(calls) != 0 {
		t.Fatalf("%d calls at once, %q completed; want 2 and none", most, calls)
	}
}

func TestOutboxCallerLeavingDropsCallWaitingForItsMessage(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	running := r.goEdit(t, ctx, -1, 5, "running")
	held := f.next(t)
	leaving, leave := context.WithCancel(ctx)
	left := r.goEdit(t, leaving, -1, 5, "never")
	leave()
	if res := waitResult(t, left); !errors.Is(res.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", res.err)
	}
	held.answer <- nil
	mustSucceed(t, "running edit", running)
	r.o.Close()
	f.none(t)
}

func TestOutboxRetryWaitsFor429Hold(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{BaseBackoff: time.Second})
	r.clock.blocked, r.clock.release, r.clock.blockOnly = make(chan time.Duration, 1), make(chan struct{}), 5*time.Second
	ctx := outboxCtx(t)
	results := map[string]<-chan outboxResult{"a": r.goSend(t, ctx, -1, "a"), "b": r.goSend(t, ctx, -1, "b")}
	held := make(map[string]heldCall)
	for range 2 {
		c := f.next(t)
		held[c.Text] = c
	}
	held["b"].answer <- &tgbot.TooManyRequestsError{RetryAfter: 5}
	<-r.clock.blocked // b waits out its retry_after
	held["a"].answer <- errors.New("error response from telegram for method sendMessage, 502 Bad Gateway")
	// a's retry, due after a second's backoff, waits for the rest of the hold.
	retry := f.next(t)
	if retry.Text != "a" {
		t.Fatalf("%q reached Telegram, want the retry of a", retry.Text)
	}
	if got, want := r.clock.Sleeps(), []time.Duration{5 * time.Second, time.Second, 4 * time.Second}; !slices.Equal(got, want) {
		t.Fatalf("waits %v, want %v (b's retry_after, a's backoff, the rest of the hold)", got, want)
	}
	retry.answer <- nil
	close(r.clock.release)
	f.next(t).answer <- nil
	mustSucceed(t, "a", results["a"])
	mustSucceed(t, "b", results["b"])
}

func TestOutboxPacesCallsInFlight(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{PerMinute: 60, Burst: 2})
	r.clock.blocked, r.clock.release = make(chan time.Duration, 1), make(chan struct{})
	ctx := outboxCtx(t)
	var results []<-chan outboxResult
	for i := range 5 {
		results = append(results, r.goSend(t, ctx, -1, fmt.Sprint(i)))
	}
	// Two start at once; then, none of them answered, one a second, each
	// taking its own token though all wait together.
	held := []heldCall{f.next(t), f.next(t)}
	for _, want := range []string{"2", "3", "4"} {
		select {
		case d := <-r.clock.blocked:
			if d != time.Second {
				t.Fatalf("waiting %v for a token, want 1 s", d)
			}
		case <-ctx.Done():
			t.Fatalf("send %s did not wait for a token", want)
		}
		f.none(t)
		r.clock.release <- struct{}{}
		c := f.next(t)
		if c.Text != want {
			t.Fatalf("%q reached Telegram, want %q", c.Text, want)
		}
		held = append(held, c)
	}
	for _, c := range held {
		c.answer <- nil
	}
	for i, ch := range results {
		mustSucceed(t, fmt.Sprint("send ", i), ch)
	}
	if got, want := r.clock.Sleeps(), []time.Duration{time.Second, time.Second, time.Second}; !slices.Equal(got, want) {
		t.Fatalf("pacing waits %v, want %v", got, want)
	}
	if most, _, _ := f.stats(); most != 5 {
		t.Fatalf("%d calls at Telegram at once, want all 5", most)
	}
}

// counted is a Counter that counts.
type counted struct{ limited, retried atomic.Int32 }

func (c *counted) RateLimited() { c.limited.Add(1) }
func (c *counted) Retried()     { c.retried.Add(1) }

func TestOutboxCountsRateLimitsAndRetries(t *testing.T) {
	m := &counted{}
	tg := newOutboxFake()
	tg.failNext("sendMessage", &tgbot.TooManyRequestsError{Message: "too many requests", RetryAfter: 2})
	tg.failNext("sendMessage", errors.New("connection reset by peer"))
	r := newOutboxRig(t, tg, OutboxOptions{Metrics: m})
	if _, err := r.o.SendMessage(outboxCtx(t), &tgbot.SendMessageParams{ChatID: int64(-1), Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if l, n := m.limited.Load(), m.retried.Load(); l != 1 || n != 1 {
		t.Fatalf("429s %d, retries %d, want 1 and 1", l, n)
	}
}

// laterDone records what EditMessageTextLater hands one edit's done.
type laterDone struct {
	calls atomic.Int32
	got   chan outboxResult
}

func (d *laterDone) done(m *models.Message, err error) {
	d.calls.Add(1)
	d.got <- outboxResult{m, err}
}

// wait returns what done got.
func (d *laterDone) wait(t *testing.T) outboxResult {
	t.Helper()
	return waitResult(t, d.got)
}

// notYet fails if done has been called.
func (d *laterDone) notYet(t *testing.T, name string) {
	t.Helper()
	if n := d.calls.Load(); n != 0 {
		t.Fatalf("%s: done called %d times before its edit was answered", name, n)
	}
}

// once fails unless done was called exactly once. Call it after Close,
// when no call of it can be on the way.
func (d *laterDone) once(t *testing.T, name string) {
	t.Helper()
	if n := d.calls.Load(); n != 1 {
		t.Fatalf("%s: done called %d times, want once", name, n)
	}
}

// returns fails unless f returns while the test waits.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		f()
	}()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never returned", what)
	}
}

// editLater calls EditMessageTextLater, which must return at once, and
// waits until the edit has joined its queue.
func (r *outboxRig) editLater(t *testing.T, chat int64, msgID int, text string) *laterDone {
	t.Helper()
	d := &laterDone{got: make(chan outboxResult, 2)}
	returns(t, "EditMessageTextLater", func() {
		r.o.EditMessageTextLater(&tgbot.EditMessageTextParams{ChatID: chat, MessageID: msgID, Text: text}, d.done)
	})
	r.waitEnqueued(t)
	return d
}

func TestOutboxEditLaterReturnsWhilePacingHoldsIt(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{PerMinute: 60, Burst: 1})
	r.clock.blocked, r.clock.release = make(chan time.Duration, 1), make(chan struct{})
	ctx := outboxCtx(t)
	if _, err := r.o.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: int64(-1), Text: "question"}); err != nil {
		t.Fatal(err) // it took the chat's only token
	}
	d := r.editLater(t, -1, 101, "option ticked")
	// The edit waits a second for a token, and Later has returned.
	select {
	case w := <-r.clock.blocked:
		if w != time.Second {
			t.Fatalf("waiting %v for a token, want 1 s", w)
		}
	case <-ctx.Done():
		t.Fatal("the edit never waited for a token")
	}
	if got := texts(tg.Calls()); !slices.Equal(got, []string{"sendMessage:question"}) {
		t.Fatalf("calls %q while the edit waits for its token", got)
	}
	d.notYet(t, "paced edit")
	close(r.clock.release)
	res := d.wait(t)
	if res.err != nil || res.msg == nil || res.msg.ID != 101 || res.msg.Text != "option ticked" {
		t.Fatalf("done got %+v, want the edited message", res)
	}
	r.o.Close()
	d.once(t, "paced edit")
	if got, want := texts(tg.Calls()), []string{"sendMessage:question", "editMessageText:option ticked"}; !slices.Equal(got, want) {
		t.Fatalf("calls %q, want %q", got, want)
	}
}

func TestOutboxEditLaterKeepsQueueOrder(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{MaxInFlight: 1}) // one at a time: the calls queue behind the first
	ctx := outboxCtx(t)
	results := map[string]<-chan outboxResult{"s0": r.goSend(t, ctx, -1, "s0")}
	first := f.next(t)
	l1 := r.editLater(t, -1, 5, "l1")
	results["s2"] = r.goSend(t, ctx, -1, "s2")
	results["e3"] = r.goEdit(t, ctx, -1, 6, "e3")
	returns(t, "EditMessageTextLater without done", func() {
		r.o.EditMessageTextLater(&tgbot.EditMessageTextParams{ChatID: int64(-1), MessageID: 7, Text: "l4"}, nil)
	})
	r.waitEnqueued(t)
	results["s5"] = r.goSend(t, ctx, -1, "s5")
	first.answer <- nil
	for _, want := range []string{"l1", "s2", "e3", "l4", "s5"} {
		c := f.next(t)
		if c.Text != want {
			t.Fatalf("%q reached Telegram, want %q", c.Text, want)
		}
		if want == "l1" {
			l1.notYet(t, "l1")
		}
		c.answer <- nil
	}
	for name, ch := range results {
		mustSucceed(t, name, ch)
	}
	if res := l1.wait(t); res.err != nil || res.msg == nil || res.msg.Text != "l1" {
		t.Fatalf("l1's done got %+v", res)
	}
	r.o.Close()
	l1.once(t, "l1")
	f.none(t)
	if most, _, calls := f.stats(); most != 1 || len(calls) != 6 {
		t.Fatalf("%d calls at once, %q completed; want 1 and 6", most, calls)
	}
}

func TestOutboxEditLaterKeepsItsMessageOrder(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	pass := func(want string) {
		t.Helper()
		c := f.next(t)
		if got := c.Method + ":" + c.Text; got != want {
			t.Fatalf("%q reached Telegram, want %q", got, want)
		}
		c.answer <- nil
	}
	first := r.goEdit(t, ctx, -1, 5, "a")
	a := f.next(t)
	b := r.editLater(t, -1, 5, "b")
	// A send queued after "b" goes past it while "a" is held.
	past := r.goSend(t, ctx, -1, "past")
	pass("sendMessage:past")
	mustSucceed(t, "send past the edits", past)
	b.notYet(t, "b")
	a.answer <- nil
	mustSucceed(t, "edit a", first)
	held := f.next(t)
	if got := held.Method + ":" + held.Text; got != "editMessageText:b" {
		t.Fatalf("%q reached Telegram, want editMessageText:b", got)
	}
	// An edit waited for, made while "b" runs, goes after it.
	last := r.goEdit(t, ctx, -1, 5, "c")
	past = r.goSend(t, ctx, -1, "past again")
	pass("sendMessage:past again")
	mustSucceed(t, "send past the edit", past)
	b.notYet(t, "b")
	held.answer <- nil
	if res := b.wait(t); res.err != nil || res.msg.Text != "b" {
		t.Fatalf("b's done got %+v", res)
	}
	pass("editMessageText:c")
	mustSucceed(t, "edit c", last)
	r.o.Close()
	b.once(t, "b")
	if _, overlaps, _ := f.stats(); len(overlaps) != 0 {
		t.Fatalf("calls ran beside another about their message: %q", overlaps)
	}
}

func TestOutboxEditLaterCoalesces(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	running := r.goEdit(t, ctx, -1, 5, "running")
	held := f.next(t)
	taps := []*laterDone{r.editLater(t, -1, 5, "v1"), r.editLater(t, -1, 5, "v2")}
	other := r.goEdit(t, ctx, -1, 6, "other message")
	if c := f.next(t); c.Text != "other message" {
		t.Fatalf("%q reached Telegram, want the edit of the other message", c.Text)
	} else {
		c.answer <- nil
	}
	mustSucceed(t, "edit of another message", other)
	taps = append(taps, r.editLater(t, -1, 5, "v3"))
	held.answer <- nil
	mustSucceed(t, "running edit", running)
	c := f.next(t)
	if c.Text != "v3" {
		t.Fatalf("%q reached Telegram, want only the newest edit, v3", c.Text)
	}
	for i, d := range taps {
		d.notYet(t, fmt.Sprint("tap ", i))
	}
	c.answer <- nil
	var got []*models.Message
	for i, d := range taps {
		res := d.wait(t)
		if res.err != nil {
			t.Fatalf("tap %d: %v", i, res.err)
		}
		got = append(got, res.msg)
	}
	for i, m := range got {
		if m == nil || m.Text != "v3" || m != got[0] {
			t.Fatalf("tap %d got %+v, want the newest edit's result", i, m)
		}
	}
	r.o.Close()
	for i, d := range taps {
		d.once(t, fmt.Sprint("tap ", i))
	}
	f.none(t)
	want := []string{"editMessageText:other message", "editMessageText:running", "editMessageText:v3"}
	if _, _, calls := f.stats(); !slices.Equal(calls, want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
}

func TestOutboxClosingEditSupersedesEditLater(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	running := r.goEdit(t, ctx, -1, 5, "running")
	held := f.next(t)
	refresh := r.editLater(t, -1, 5, "refresh")
	closing := r.goEdit(t, ctx, -1, 5, "closed")
	held.answer <- nil
	mustSucceed(t, "running edit", running)
	if c := f.next(t); c.Text != "closed" {
		t.Fatalf("%q reached Telegram, want the closing edit", c.Text)
	} else {
		c.answer <- nil
	}
	m := mustSucceed(t, "closing edit", closing)
	if m == nil || m.Text != "closed" {
		t.Fatalf("closing edit got %+v", m)
	}
	if res := refresh.wait(t); res.err != nil || res.msg != m {
		t.Fatalf("the superseded refresh's done got %+v, want the closing edit's result %p", res, m)
	}
	r.o.Close()
	refresh.once(t, "refresh")
	f.none(t)
	if _, _, calls := f.stats(); !slices.Equal(calls, []string{"editMessageText:running", "editMessageText:closed"}) {
		t.Fatalf("calls %q: the refresh was sent", calls)
	}
}

func TestOutboxEditLaterSupersedesQueuedEdit(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	running := r.goEdit(t, ctx, -1, 5, "running")
	held := f.next(t)
	older := r.goEdit(t, ctx, -1, 5, "older")
	newer := r.editLater(t, -1, 5, "newer")
	held.answer <- nil
	mustSucceed(t, "running edit", running)
	if c := f.next(t); c.Text != "newer" {
		t.Fatalf("%q reached Telegram, want the newer edit", c.Text)
	} else {
		c.answer <- nil
	}
	m := mustSucceed(t, "older edit", older)
	if m == nil || m.Text != "newer" {
		t.Fatalf("the superseded caller got %+v, want the newer edit's result", m)
	}
	if res := newer.wait(t); res.err != nil || res.msg != m {
		t.Fatalf("newer's done got %+v, want %p", res, m)
	}
	r.o.Close()
	newer.once(t, "newer")
	f.none(t)
}

func TestOutboxEditLaterOutlivesCallersThatLeave(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{})
	ctx := outboxCtx(t)
	running := r.goEdit(t, ctx, -1, 5, "running")
	held := f.next(t)
	refresh := r.editLater(t, -1, 5, "refresh")
	leaving, leave := context.WithCancel(ctx)
	left := r.goEdit(t, leaving, -1, 5, "newest")
	leave()
	if res := waitResult(t, left); !errors.Is(res.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", res.err)
	}
	held.answer <- nil
	mustSucceed(t, "running edit", running)
	// The edit the refresh was handed over in still goes, with the newest
	// text, though its blocking caller left.
	if c := f.next(t); c.Text != "newest" {
		t.Fatalf("%q reached Telegram, want the newest edit", c.Text)
	} else {
		c.answer <- nil
	}
	if res := refresh.wait(t); res.err != nil || res.msg == nil || res.msg.Text != "newest" {
		t.Fatalf("refresh's done got %+v, want the newest edit's result", res)
	}
	r.o.Close()
	refresh.once(t, "refresh")
	f.none(t)
}

func TestOutboxEditLaterRetries(t *testing.T) {
	tg := newOutboxFake()
	tg.failNext("editMessageText",
		&tgbot.TooManyRequestsError{Message: "too many requests", RetryAfter: 3},
		errors.New("error response from telegram for method editMessageText, 502 Bad Gateway"))
	r := newOutboxRig(t, tg, OutboxOptions{BaseBackoff: time.Second})
	d := r.editLater(t, -1, 5, "x")
	if res := d.wait(t); res.err != nil || res.msg == nil || res.msg.Text != "x" {
		t.Fatalf("done got %+v after a 429 and a 502", res)
	}
	if got, want := r.clock.Sleeps(), []time.Duration{3 * time.Second, time.Second}; !slices.Equal(got, want) {
		t.Fatalf("waits %v, want %v (retry_after, then the first backoff)", got, want)
	}
	if n := len(tg.Calls()); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	r.o.Close()
	d.once(t, "edit")
}

func TestOutboxCloseEndsEditLater(t *testing.T) {
	f := newHeldTG()
	r := newOutboxRig(t, f, OutboxOptions{MaxInFlight: 1}) // one at a time: the others queue behind the first
	runningEdit := r.editLater(t, -1, 5, "running")
	f.next(t)
	queued := r.editLater(t, -1, 6, "queued")
	returns(t, "EditMessageTextLater without done", func() {
		r.o.EditMessageTextLater(&tgbot.EditMessageTextParams{ChatID: int64(-1), MessageID: 7, Text: "no done"}, nil)
	})
	r.waitEnqueued(t)
	r.o.Close() // returns once the done calls have
	for name, d := range map[string]*laterDone{"running": runningEdit, "queued": queued} {
		d.once(t, name)
		if res := d.wait(t); !errors.Is(res.err, ErrOutboxClosed) || res.msg != nil {
			t.Fatalf("%s edit's done got %+v, want ErrOutboxClosed", name, res)
		}
	}
	f.none(t)

	// Once closed, done still runs on a goroutine of its own: here the
	// caller holds a lock done takes.
	var mu sync.Mutex
	late := &laterDone{got: make(chan outboxResult, 2)}
	returns(t, "EditMessageTextLater after Close", func() {
		mu.Lock()
		defer mu.Unlock()
		r.o.EditMessageTextLater(&tgbot.EditMessageTextParams{ChatID: int64(-1), MessageID: 5, Text: "late"}, func(m *models.Message, err error) {
			mu.Lock()
			defer mu.Unlock()
			late.done(m, err)
		})
	})
	if res := late.wait(t); !errors.Is(res.err, ErrOutboxClosed) {
		t.Fatalf("done of an edit after Close got %+v, want ErrOutboxClosed", res)
	}
	r.o.EditMessageTextLater(&tgbot.EditMessageTextParams{ChatID: int64(-1), MessageID: 5}, nil) // no done: nothing to call
	late.once(t, "edit after Close")
	if _, _, calls := f.stats(); len(calls) != 0 {
		t.Fatalf("calls %q completed despite Close", calls)
	}
}

func TestOutboxEditLaterInlineAndNil(t *testing.T) {
	tg := newOutboxFake()
	r := newOutboxRig(t, tg, OutboxOptions{})
	inline := &laterDone{got: make(chan outboxResult, 2)}
	r.o.EditMessageTextLater(&tgbot.EditMessageTextParams{InlineMessageID: "i1", Text: "x"}, inline.done)
	if res := inline.wait(t); res.err != nil || res.msg == nil || res.msg.Text != "x" {
		t.Fatalf("inline edit's done got %+v", res)
	}
	none := &laterDone{got: make(chan outboxResult, 2)}
	r.o.EditMessageTextLater(nil, none.done)
	if res := none.wait(t); res.err == nil {
		t.Fatal("nil params accepted")
	}
	r.o.Close()
	inline.once(t, "inline edit")
	none.once(t, "nil params")
	if got := texts(tg.Calls()); !slices.Equal(got, []string{"editMessageText:x"}) {
		t.Fatalf("calls %q, want the inline edit", got)
	}
}

// BenchmarkOutboxEditLater hands b.N edits of 16 messages to an Outbox
// with pacing off over an instant Telegram and waits for every done; the
// edits of one message coalesce while an earlier one runs:
//
//	go test -run '^$' -bench OutboxEditLater ./bot/telegram
func BenchmarkOutboxEditLater(b *testing.B) {
	tg := &callsTG{do: func(context.Context, outboxCall) error { return nil }}
	o := NewOutbox(tg, OutboxOptions{}, zerolog.Nop())
	defer o.Close()
	var wg sync.WaitGroup
	var failed atomic.Int32
	done := func(_ *models.Message, err error) {
		if err != nil {
			failed.Add(1)
		}
		wg.Done()
	}
	b.ReportAllocs()
	// b.N, not b.Loop: the wait for the last done is part of the time.
	for i := range b.N {
		wg.Add(1)
		o.EditMessageTextLater(&tgbot.EditMessageTextParams{ChatID: int64(-1), MessageID: 1 + i%16, Text: fmt.Sprint(i)}, done)
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		b.Fatalf("%d edits failed", n)
	}
}

package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// fakeReader answers a fakeOpencode's LastAssistantText as scripted.
type fakeReader struct {
	mu    sync.Mutex
	texts map[string]string
	err   error
	// block makes LastAssistantText wait for its context to end.
	block bool
	calls []string
}

func (f *fakeReader) LastAssistantText(ctx context.Context, dir, sessionID string) (string, error) {
	f.mu.Lock()
	f.calls = append(f.calls, sessionID)
	text, err, block := f.texts[sessionID], f.err, f.block
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return "", fmt.Errorf("list messages: %w", ctx.Err())
	}
	if err != nil {
		return "", fmt.Errorf("list messages: %w", err)
	}
	return text, nil
}

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newNotifyHarness is a harness posting the notices of opts, with a
// reader and a hand-moved clock.
func newNotifyHarness(t *testing.T, opts NotifyOptions) (*harness, *fakeReader, *testClock) {
	t.Helper()
	r := &fakeReader{texts: map[string]string{}}
	h := newHarness(t, harnessConfig{Notify: opts})
	h.oc.reader = r
	clock := &testClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	h.b.now = clock.now
	h.oc.sessions = map[string]opencode.Session{
		testSession: {ID: testSession, Title: "Fix the login bug"},
		"ses_child": {ID: "ses_child", Title: "explore", ParentID: testSession},
	}
	return h, r, clock
}

func idleEvent(session string) opencode.Event {
	return opencode.Event{Directory: "/home/user/projects/demo", Type: opencode.TypeSessionIdle,
		SessionIdle: &opencode.SessionIdle{SessionID: session}}
}

func errorEvent(session, raw string) opencode.Event {
	return opencode.Event{Directory: "/home/user/projects/demo", Type: opencode.TypeSessionError,
		SessionError: &opencode.SessionError{SessionID: session, Error: json.RawMessage(raw)}}
}

func (h *harness) sentTexts() []string {
	var out []string
	for _, m := range h.tg.Sent() {
		out = append(out, m.P.Text)
	}
	return out
}

func TestNotifyFinished(t *testing.T) {
	h, r, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
	r.texts[testSession] = "Done: <b>all</b> tests pass & the login works."
	h.b.HandleEvent(context.Background(), idleEvent(testSession))

	sent := h.tg.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want 1: %q", len(sent), h.sentTexts())
	}
	m := sent[0]
	if m.P.ChatID != testChat || m.P.ParseMode != "HTML" {
		t.Errorf("sent to %v with parse mode %q", m.P.ChatID, m.P.ParseMode)
	}
	for _, want := range []string{"✅ <b>demo</b>", "<i>Fix the login bug</i>", "finished",
		"<blockquote>Done: &lt;b&gt;all&lt;/b&gt; tests pass &amp; the login works.</blockquote>"} {
		if !strings.Contains(m.P.Text, want) {
			t.Errorf("notice %q lacks %q", m.P.Text, want)
		}
	}
}

func TestNotifyFinishedExcerptIsCut(t *testing.T) {
	h, r, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
	// Emoji are two UTF-16 units each, and "<" grows when escaped: the
	// cut must count both and never split an entity.
	r.texts[testSession] = strings.Repeat("😀<", 400)
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	text := h.lastSent().P.Text
	_, quote, ok := strings.Cut(text, "<blockquote>")
	quote, _, ok2 := strings.Cut(quote, "</blockquote>")
	if !ok || !ok2 {
		t.Fatalf("no excerpt in %q", text)
	}
	const maxExcerpt = 300 // the front-end's bound on a quoted excerpt
	if n := telegramtest.UTF16Len(quote); n > maxExcerpt {
		t.Errorf("excerpt is %d units, want at most %d", n, maxExcerpt)
	}
	if !strings.HasSuffix(quote, "…") || !strings.HasSuffix(strings.TrimSuffix(quote, "…"), "&lt;") && !strings.HasSuffix(strings.TrimSuffix(quote, "…"), "😀") {
		t.Errorf("excerpt cut badly: ends %q", quote[max(0, len(quote)-20):])
	}
}

func TestNotifyFinishedWithoutExcerpt(t *testing.T) {
	for name, r := range map[string]*fakeReader{
		"fails":   {err: opencode.ErrTransient},
		"hangs":   {block: true},
		"no text": {},
	} {
		t.Run(name, func(t *testing.T) {
			h, _, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
			h.oc.reader = r
			h.b.excerptTimeout = 20 * time.Millisecond
			h.b.HandleEvent(context.Background(), idleEvent(testSession))
			text := h.lastSent().P.Text
			if !strings.Contains(text, "finished") || strings.Contains(text, "blockquote") {
				t.Errorf("notice = %q, want a finished notice without excerpt", text)
			}
		})
	}
}

func TestNotifyKindsOptIn(t *testing.T) {
	h, _, _ := newNotifyHarness(t, NotifyOptions{})
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	h.b.HandleEvent(context.Background(), errorEvent("ses_other", `{"name":"UnknownError","data":{"message":"boom"}}`))
	if got := h.sentTexts(); len(got) != 0 {
		t.Errorf("notifications off, but sent %q", got)
	}

	h, _, _ = newNotifyHarness(t, NotifyOptions{Error: true})
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := h.sentTexts(); len(got) != 0 {
		t.Errorf("only errors on, but an idle sent %q", got)
	}
	h.b.HandleEvent(context.Background(), errorEvent("ses_other", `{"name":"UnknownError","data":{"message":"boom"}}`))
	if got := h.sentTexts(); len(got) != 1 || !strings.Contains(got[0], "UnknownError: boom") {
		t.Errorf("errors on: sent %q", got)
	}

	h, _, _ = newNotifyHarness(t, NotifyOptions{Idle: true})
	h.b.HandleEvent(context.Background(), errorEvent(testSession, `{"name":"UnknownError","data":{"message":"boom"}}`))
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := h.sentTexts(); len(got) != 0 {
		t.Errorf("only idle on: a failed session was reported as %q", got)
	}
}

func TestNotifyNotWhileRequestWaits(t *testing.T) {
	h, _, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
	e := h.ask("que_1", opencode.Question{Question: "Which database?", Options: []opencode.Option{{Label: "Postgres"}}})
	before := len(h.tg.Sent())
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if n := len(h.tg.Sent()); n != before {
		t.Fatalf("finished notice while question %s waits: %q", e.RequestID, h.sentTexts()[before:])
	}

	// A subagent's request keeps its parent from finishing too.
	h2, _, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
	ev := askedEvent("que_9", opencode.Question{Question: "Go on?", Options: []opencode.Option{{Label: "Yes"}}})
	ev.QuestionAsked.SessionID = "ses_child"
	h2.b.HandleEvent(context.Background(), ev)
	before2 := len(h2.tg.Sent())
	h2.b.HandleEvent(context.Background(), idleEvent(testSession))
	if n := len(h2.tg.Sent()); n != before2 {
		t.Errorf("finished notice while a subagent's question waits: %q", h2.sentTexts()[before2:])
	}

	// Answered in opencode: the session may finish now.
	h.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypeQuestionReplied,
		QuestionReplied: &opencode.QuestionReplied{SessionID: testSession, RequestID: "que_1", Answers: [][]string{{"Postgres"}}}})
	h.gone(e.UID)
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if text := h.lastSent().P.Text; !strings.Contains(text, "finished") {
		t.Errorf("after the answer, last message = %q, want a finished notice", text)
	}
}

func TestNotifyNotHeldBackByOtherSessions(t *testing.T) {
	h, _, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
	ev := askedEvent("que_1", opencode.Question{Question: "Which database?", Options: []opencode.Option{{Label: "Postgres"}}})
	ev.QuestionAsked.SessionID = "ses_other"
	h.b.HandleEvent(context.Background(), ev)
	before := len(h.tg.Sent())
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if sent := h.sentTexts(); len(sent) != before+1 || !strings.Contains(sent[before], "finished") {
		t.Errorf("a question of another session held back the finished notice: %q", sent[before:])
	}
}

func TestNotifySubagentSessionSilent(t *testing.T) {
	h, r, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
	h.b.HandleEvent(context.Background(), idleEvent("ses_child"))
	if got := h.sentTexts(); len(got) != 0 {
		t.Errorf("subagent session finishing sent %q", got)
	}
	if len(r.calls) != 0 {
		t.Errorf("read messages of a subagent session: %v", r.calls)
	}
}

func TestNotifyError(t *testing.T) {
	h, _, _ := newNotifyHarness(t, NotifyOptions{Idle: true, Error: true})
	h.b.HandleEvent(context.Background(), errorEvent(testSession,
		`{"name":"ProviderAuthError","data":{"providerID":"anthropic","message":"API key is invalid <sk-…>"}}`))
	// opencode says idle right after an error: that is not a success.
	h.b.HandleEvent(context.Background(), idleEvent(testSession))

	got := h.sentTexts()
	if len(got) != 1 {
		t.Fatalf("sent %q, want one failed notice", got)
	}
	for _, want := range []string{"❌ <b>demo</b>", "failed", "<blockquote>ProviderAuthError: API key is invalid &lt;sk-…&gt;</blockquote>"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("notice %q lacks %q", got[0], want)
		}
	}
	if strings.Contains(got[0], "{") || strings.Contains(got[0], "providerID") {
		t.Errorf("notice shows raw JSON: %q", got[0])
	}
}

func TestNotifyAbortIsSilent(t *testing.T) {
	h, _, _ := newNotifyHarness(t, NotifyOptions{Idle: true, Error: true})
	h.b.HandleEvent(context.Background(), errorEvent(testSession, `{"name":"MessageAbortedError","data":{"message":"Aborted"}}`))
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := h.sentTexts(); len(got) != 0 {
		t.Errorf("aborted session sent %q", got)
	}
}

func TestDescribeError(t *testing.T) {
	for raw, want := range map[string]string{
		`{"name":"ProviderAuthError","data":{"providerID":"x","message":"bad key"}}`:              "ProviderAuthError: bad key",
		`{"name":"APIError","data":{"message":"Overloaded","statusCode":529,"isRetryable":true}}`: "APIError: Overloaded",
		`{"name":"MessageOutputLengthError","data":{}}`:                                           "MessageOutputLengthError: the reply hit the model's output limit",
		`{"name":"SomethingNew"}`:               "SomethingNew",
		`{"data":{"message":"only a message"}}`: "only a message",
		`{"message":"top-level message"}`:       "top-level message",
		`"a plain string"`:                      "a plain string",
		`{"weird":[1,2,3]}`:                     "unknown error",
		`[1,2]`:                                 "unknown error",
		`42`:                                    "unknown error",
		``:                                      "unknown error",
		`{not json`:                             "unknown error",
		`{"name":{"nested":true}}`:              "unknown error",
	} {
		if _, got := describeError(&i18n.English, json.RawMessage(raw)); got != want {
			t.Errorf("describeError(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestNotifyCoalescedPerSession(t *testing.T) {
	h, _, clock := newNotifyHarness(t, NotifyOptions{Idle: true, SessionGap: time.Minute})
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	clock.advance(30 * time.Second)
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if n := len(h.tg.Sent()); n != 1 {
		t.Fatalf("two idles within the gap sent %d notices", n)
	}
	clock.advance(31 * time.Second)
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if n := len(h.tg.Sent()); n != 2 {
		t.Errorf("an idle after the gap sent %d notices in all, want 2", n)
	}
}

func TestNotifyGlobalCap(t *testing.T) {
	h, _, clock := newNotifyHarness(t, NotifyOptions{Error: true, PerMinute: 2})
	for i := range 5 {
		h.b.HandleEvent(context.Background(), errorEvent(fmt.Sprintf("ses_%d", i), `{"name":"UnknownError","data":{"message":"boom"}}`))
	}
	if n := len(h.tg.Sent()); n != 2 {
		t.Fatalf("5 errors with a cap of 2 a minute sent %d notices", n)
	}
	if strings.Contains(h.lastSent().P.Text, "skipped") {
		t.Errorf("a notice within the cap owns up to skipped ones: %q", h.lastSent().P.Text)
	}
	clock.advance(61 * time.Second)
	h.b.HandleEvent(context.Background(), errorEvent("ses_late", `{"name":"UnknownError","data":{"message":"late"}}`))
	text := h.lastSent().P.Text
	if !strings.Contains(text, "UnknownError: late") || !strings.Contains(text, "3 other notices were skipped") {
		t.Errorf("first notice after the cap = %q, want it to count 3 skipped", text)
	}
	clock.advance(time.Second)
	h.b.HandleEvent(context.Background(), errorEvent("ses_later", `{"name":"UnknownError","data":{"message":"later"}}`))
	if text := h.lastSent().P.Text; strings.Contains(text, "skipped") {
		t.Errorf("skipped notices counted twice: %q", text)
	}
}

func TestNotifySendFailureIsLogged(t *testing.T) {
	h, _, _ := newNotifyHarness(t, NotifyOptions{Idle: true})
	h.tg.mu.Lock()
	h.tg.sendErrs = []error{errors.New("telegram down")}
	h.tg.mu.Unlock()
	h.b.HandleEvent(context.Background(), idleEvent(testSession))
	if !strings.Contains(h.logs.String(), "could not post session notice") {
		t.Errorf("send failure not logged:\n%s", h.logs.String())
	}
}

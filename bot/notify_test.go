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

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
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

// notifier is a core posting the notices of opts, with a reader, a
// hand-moved clock and the bridge's log.
type notifier struct {
	*core
	logs *testlog.Buffer
}

func newNotifier(t *testing.T, opts NotifyOptions) (*notifier, *fakeReader, *testClock) {
	t.Helper()
	r := &fakeReader{texts: map[string]string{}}
	c := newCore(t, Config{Notify: opts})
	n := &notifier{core: c, logs: &testlog.Buffer{}}
	c.b.log = zerolog.New(n.logs)
	c.oc.reader = r
	clock := &testClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	c.b.now = clock.now
	c.oc.sessions = map[string]opencode.Session{
		testSession: {ID: testSession, Title: "Fix the login bug"},
		"ses_child": {ID: "ses_child", Title: "explore", ParentID: testSession},
	}
	return n, r, clock
}

func idleEvent(session string) opencode.Event {
	return opencode.Event{Directory: "/home/user/projects/demo", Type: opencode.TypeSessionIdle,
		SessionIdle: &opencode.SessionIdle{SessionID: session}}
}

func errorEvent(session, raw string) opencode.Event {
	return opencode.Event{Directory: "/home/user/projects/demo", Type: opencode.TypeSessionError,
		SessionError: &opencode.SessionError{SessionID: session, Error: json.RawMessage(raw)}}
}

// notices are the notices posted, each as "finished" or "failed", its
// session, title, body and how many were skipped before it.
func (n *notifier) notices() []string {
	var out []string
	for _, x := range n.fe.Notices() {
		what := "finished"
		if x.Failed {
			what = "failed"
		}
		out = append(out, fmt.Sprintf("%s %s %q %q dropped=%d", what, x.SessionID, x.Title, x.Body, x.Dropped))
	}
	return out
}

func TestNotifyFinished(t *testing.T) {
	n, r, _ := newNotifier(t, NotifyOptions{Idle: true})
	r.texts[testSession] = "Done: <b>all</b> tests pass & the login works."
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	got := n.fe.Notices()
	want := frontend.Notice{Directory: "/home/user/projects/demo", SessionID: testSession, Title: "Fix the login bug",
		Body: "Done: <b>all</b> tests pass & the login works."}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("notices %+v, want %+v", got, want)
	}
}

func TestNotifyFinishedWithoutExcerpt(t *testing.T) {
	for name, r := range map[string]*fakeReader{
		"fails":   {err: opencode.ErrTransient},
		"hangs":   {block: true},
		"no text": {},
	} {
		t.Run(name, func(t *testing.T) {
			n, _, _ := newNotifier(t, NotifyOptions{Idle: true})
			n.oc.reader = r
			n.b.excerptTimeout = 20 * time.Millisecond
			n.b.HandleEvent(context.Background(), idleEvent(testSession))
			if got := n.fe.Notices(); len(got) != 1 || got[0].Failed || got[0].Body != "" {
				t.Errorf("notices %+v, want a finished notice without excerpt", got)
			}
		})
	}
}

func TestNotifyKindsOptIn(t *testing.T) {
	n, _, _ := newNotifier(t, NotifyOptions{})
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	n.b.HandleEvent(context.Background(), errorEvent("ses_other", `{"name":"UnknownError","data":{"message":"boom"}}`))
	if got := n.notices(); len(got) != 0 {
		t.Errorf("notifications off, but sent %q", got)
	}

	n, _, _ = newNotifier(t, NotifyOptions{Error: true})
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := n.notices(); len(got) != 0 {
		t.Errorf("only errors on, but an idle sent %q", got)
	}
	n.b.HandleEvent(context.Background(), errorEvent("ses_other", `{"name":"UnknownError","data":{"message":"boom"}}`))
	if got := n.notices(); len(got) != 1 || !strings.Contains(got[0], "UnknownError: boom") {
		t.Errorf("errors on: sent %q", got)
	}

	n, _, _ = newNotifier(t, NotifyOptions{Idle: true})
	n.b.HandleEvent(context.Background(), errorEvent(testSession, `{"name":"UnknownError","data":{"message":"boom"}}`))
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := n.notices(); len(got) != 0 {
		t.Errorf("only idle on: a failed session was reported as %q", got)
	}
}

func TestNotifyNotWhileRequestWaits(t *testing.T) {
	n, _, _ := newNotifier(t, NotifyOptions{Idle: true})
	n.ask("que_1", opencode.Question{Question: "Which database?", Options: []opencode.Option{{Label: "Postgres"}}})
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := n.notices(); len(got) != 0 {
		t.Fatalf("finished notice while question que_1 waits: %q", got)
	}

	// A subagent's request keeps its parent from finishing too.
	n2, _, _ := newNotifier(t, NotifyOptions{Idle: true})
	ev := askedEvent("que_9", opencode.Question{Question: "Go on?", Options: []opencode.Option{{Label: "Yes"}}})
	ev.QuestionAsked.SessionID = "ses_child"
	n2.b.HandleEvent(context.Background(), ev)
	n2.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := n2.notices(); len(got) != 0 {
		t.Errorf("finished notice while a subagent's question waits: %q", got)
	}

	// Answered in opencode: the session may finish now.
	n.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypeQuestionReplied,
		QuestionReplied: &opencode.QuestionReplied{SessionID: testSession, RequestID: "que_1", Answers: [][]string{{"Postgres"}}}})
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := n.notices(); len(got) != 1 || !strings.HasPrefix(got[0], "finished "+testSession) {
		t.Errorf("after the answer, notices %q, want a finished notice", got)
	}
}

func TestNotifyNotHeldBackByOtherSessions(t *testing.T) {
	n, _, _ := newNotifier(t, NotifyOptions{Idle: true})
	ev := askedEvent("que_1", opencode.Question{Question: "Which database?", Options: []opencode.Option{{Label: "Postgres"}}})
	ev.QuestionAsked.SessionID = "ses_other"
	n.b.HandleEvent(context.Background(), ev)
	before := len(n.fe.Notices())
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if sent := n.notices(); len(sent) != before+1 || !strings.Contains(sent[before], "finished") {
		t.Errorf("a question of another session held back the finished notice: %q", sent[before:])
	}
}

func TestNotifySubagentSessionSilent(t *testing.T) {
	n, r, _ := newNotifier(t, NotifyOptions{Idle: true})
	n.b.HandleEvent(context.Background(), idleEvent("ses_child"))
	if got := n.notices(); len(got) != 0 {
		t.Errorf("subagent session finishing sent %q", got)
	}
	if len(r.calls) != 0 {
		t.Errorf("read messages of a subagent session: %v", r.calls)
	}
}

func TestNotifyError(t *testing.T) {
	n, _, _ := newNotifier(t, NotifyOptions{Idle: true, Error: true})
	n.b.HandleEvent(context.Background(), errorEvent(testSession,
		`{"name":"ProviderAuthError","data":{"providerID":"anthropic","message":"API key is invalid <sk-…>"}}`))
	// opencode says idle right after an error: that is not a success.
	n.b.HandleEvent(context.Background(), idleEvent(testSession))

	got := n.notices()
	if len(got) != 1 {
		t.Fatalf("sent %q, want one failed notice", got)
	}
	if want := `failed ` + testSession + ` "Fix the login bug" "ProviderAuthError: API key is invalid <sk-…>" dropped=0`; got[0] != want {
		t.Errorf("notice %q, want %q", got[0], want)
	}
	if strings.Contains(got[0], "{") || strings.Contains(got[0], "providerID") {
		t.Errorf("notice shows raw JSON: %q", got[0])
	}
}

func TestNotifyAbortIsSilent(t *testing.T) {
	n, _, _ := newNotifier(t, NotifyOptions{Idle: true, Error: true})
	n.b.HandleEvent(context.Background(), errorEvent(testSession, `{"name":"MessageAbortedError","data":{"message":"Aborted"}}`))
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := n.notices(); len(got) != 0 {
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
	n, _, clock := newNotifier(t, NotifyOptions{Idle: true, SessionGap: time.Minute})
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	clock.advance(30 * time.Second)
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := len(n.fe.Notices()); got != 1 {
		t.Fatalf("two idles within the gap sent %d notices", got)
	}
	clock.advance(31 * time.Second)
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if got := len(n.fe.Notices()); got != 2 {
		t.Errorf("an idle after the gap sent %d notices in all, want 2", got)
	}
}

func TestNotifyGlobalCap(t *testing.T) {
	n, _, clock := newNotifier(t, NotifyOptions{Error: true, PerMinute: 2})
	for i := range 5 {
		n.b.HandleEvent(context.Background(), errorEvent(fmt.Sprintf("ses_%d", i), `{"name":"UnknownError","data":{"message":"boom"}}`))
	}
	last := func() frontend.Notice { ns := n.fe.Notices(); return ns[len(ns)-1] }
	if got := n.fe.Notices(); len(got) != 2 {
		t.Fatalf("5 errors with a cap of 2 a minute sent %d notices", len(got))
	}
	if d := last().Dropped; d != 0 {
		t.Errorf("a notice within the cap owns up to %d skipped ones", d)
	}
	clock.advance(61 * time.Second)
	n.b.HandleEvent(context.Background(), errorEvent("ses_late", `{"name":"UnknownError","data":{"message":"late"}}`))
	if l := last(); l.Body != "UnknownError: late" || l.Dropped != 3 {
		t.Errorf("first notice after the cap = %+v, want it to count 3 skipped", l)
	}
	clock.advance(time.Second)
	n.b.HandleEvent(context.Background(), errorEvent("ses_later", `{"name":"UnknownError","data":{"message":"later"}}`))
	if l := last(); l.Dropped != 0 {
		t.Errorf("skipped notices counted twice: %+v", l)
	}
}

func TestNotifySendFailureIsLogged(t *testing.T) {
	n, _, _ := newNotifier(t, NotifyOptions{Idle: true})
	n.fe.Fail("Notify", errors.New("chat down"))
	n.b.HandleEvent(context.Background(), idleEvent(testSession))
	if !strings.Contains(n.logs.String(), "could not post session notice") {
		t.Errorf("send failure not logged:\n%s", n.logs.String())
	}
}

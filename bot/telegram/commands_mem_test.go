package telegram_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

const testBotName = "hermes_test_bot"

type fixedStatus opencode.WatchState

func (s fixedStatus) State() opencode.WatchState { return opencode.WatchState(s) }

// command hands the front-end text from user in chat and returns the
// replies sent for it, checking they reply to it in HTML.
func (r *memRig) command(chat int64, user models.User, text string) []*tgbot.SendMessageParams {
	r.t.Helper()
	before := len(r.tg.Sent())
	m := &models.Message{Chat: models.Chat{ID: chat, Type: "supergroup"}, Text: text}
	r.message(user, m)
	sent := r.tg.Sent()[before:]
	for _, s := range sent {
		if s.ReplyParameters == nil || s.ReplyParameters.MessageID != m.ID {
			r.t.Errorf("command reply does not reply to the command: %+v", s.ReplyParameters)
		}
		if s.ParseMode != models.ParseModeHTML {
			r.t.Errorf("command reply parse mode %q", s.ParseMode)
		}
	}
	return sent
}

// oneReply is the text of the single reply to a command.
func (r *memRig) oneReply(chat int64, user models.User, text string) string {
	r.t.Helper()
	sent := r.command(chat, user, text)
	if len(sent) != 1 {
		r.t.Fatalf("%q: %d replies, want 1", text, len(sent))
	}
	return sent[0].Text
}

// asked makes e asked at, waiting ttl.
func (r *memRig) asked(e *pending.Entry, at time.Time, ttl time.Duration) {
	r.t.Helper()
	if _, err := r.store.Update(e.UID, func(e *pending.Entry) error {
		e.CreatedAt, e.ExpiresAt = at, at.Add(ttl)
		return nil
	}); err != nil {
		r.t.Fatal(err)
	}
}

func statusConfig(st telegram.OpencodeStatus) telegram.Config {
	return telegram.Config{Servers: []telegram.ServerStatus{{Status: st}}}
}

func TestMemCommandPendingEmpty(t *testing.T) {
	r := newMemRig(t, telegram.Config{BotUsername: testBotName})
	if got := r.oneReply(memChat, alice, "/pending"); got != i18n.English.NothingPending {
		t.Fatalf("reply = %q, want %q", got, i18n.English.NothingPending)
	}
}

func TestMemCommandPendingListsRequests(t *testing.T) {
	const super int64 = -1001234567890
	r := newMemRig(t, telegram.Config{ChatID: super, BotUsername: testBotName, AllowedUserIDs: []int64{alice.ID}})
	const session = "ses_dd4235358ffeK4sOj0rQeppn49"
	r.oc.sessions = map[string]opencode.Session{session: {ID: session, Title: "Release <prep>"}}
	q := r.ask(question("que_1"), "que_1")
	p := r.ask(permissionAsked("per_1", "rm -rf build && echo <done>"), "per_1")
	r.asked(q, r.now, 30*time.Minute)
	r.asked(p, r.now.Add(5*time.Minute), 30*time.Minute)
	r.now = r.now.Add(7 * time.Minute)

	got := r.oneReply(super, alice, "/pending@"+testBotName)
	for _, want := range []string{
		"Waiting for you: 2",
		fmt.Sprintf(`<a href="https://t.me/c/1234567890/%d"><b>Question</b></a>`, telegram.MessageAt(q.Places[telegram.Name])),
		fmt.Sprintf(`<a href="https://t.me/c/1234567890/%d"><b>Permission</b></a>`, telegram.MessageAt(p.Places[telegram.Name])),
		"<b>demo</b>", "<i>Release &lt;prep&gt;</i>",
		"Database: Which database should I use? &lt;b&gt;&amp;&lt;/b&gt;",
		"bash: rm -rf build &amp;&amp; echo &lt;done&gt;",
		"asked 7 min ago, expires in 23 min",
		"asked 2 min ago, expires in 28 min",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/pending lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "Question") > strings.Index(got, "Permission") {
		t.Errorf("requests not listed oldest first:\n%s", got)
	}
}

func TestMemCommandPendingBasicGroupHasNoLink(t *testing.T) {
	const basic int64 = -4242 // a basic group's ID lacks the -100 prefix
	r := newMemRig(t, telegram.Config{ChatID: basic})
	e := r.ask(question("que_1"), "que_1")
	got := r.oneReply(basic, alice, "/pending")
	if strings.Contains(got, "<a ") || !strings.Contains(got, fmt.Sprintf("(message #%d)", telegram.MessageAt(e.Places[telegram.Name]))) {
		t.Fatalf("basic group /pending should name the message without a link:\n%s", got)
	}
}

func TestMemCommandPendingCutsLongList(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	const n = 60
	for i := range n {
		ev := question(fmt.Sprintf("que_%02d", i))
		ev.QuestionAsked.Questions[0].Question = strings.Repeat("a very long question & ", 20)
		r.ask(ev, ev.QuestionAsked.ID)
	}
	got := r.oneReply(memChat, alice, "/pending")
	if n := telegramtest.UTF16Len(got); n > 4096 {
		t.Fatalf("reply is %d units long", n)
	}
	if _, _, err := telegramtest.ParseHTML(got); err != nil {
		t.Fatalf("reply is not valid HTML: %v", err)
	}
	shown := strings.Count(got, "<b>Question</b>")
	if shown == 0 || shown == n {
		t.Fatalf("%d of %d requests shown; want a cut list", shown, n)
	}
	if want := fmt.Sprintf("… and %d more", n-shown); !strings.HasSuffix(got, want) {
		t.Fatalf("reply does not end with %q:\n…%s", want, got[len(got)-100:])
	}
	if !strings.Contains(got, fmt.Sprintf("Waiting for you: %d", n)) {
		t.Errorf("reply does not count every request")
	}
}

func TestMemCommandStatus(t *testing.T) {
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cfg := statusConfig(fixedStatus{Connected: true, Since: clock.Add(-90 * time.Minute), Version: "1.18.33"})
	cfg.Version, cfg.StartedAt = "v0.3.0", clock.Add(-26*time.Hour)
	r := newMemRig(t, cfg)
	r.now = clock
	r.ask(question("que_1"), "que_1")
	got := r.oneReply(memChat, alice, "/status")
	for _, want := range []string{"hermes-bot</b> v0.3.0", "up 1 d 2 h", "✅ connected for 1 h 30 min", "version 1.18.33", "Waiting for you: 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("/status lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "error") {
		t.Errorf("/status of a healthy connection mentions an error:\n%s", got)
	}
}

func TestMemCommandStatusDisconnected(t *testing.T) {
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	st := fixedStatus{Since: clock.Add(-3 * time.Minute), Version: "1.18.33", LastError: "unauthorized", LastErrorAt: clock.Add(-time.Minute)}
	r := newMemRig(t, statusConfig(st))
	r.now = clock
	got := r.oneReply(memChat, alice, "/status")
	for _, want := range []string{"❌ not connected for 3 min", "refused the username or password", "1 min ago", "Waiting for you: 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("/status lacks %q:\n%s", want, got)
		}
	}
	r = newMemRig(t, statusConfig(fixedStatus{}))
	if got := r.oneReply(memChat, alice, "/status"); !strings.Contains(got, "not connected yet") {
		t.Errorf("/status before any connect:\n%s", got)
	}
	// A server hermes-bot cannot speak to is named, not "unexpected".
	st.LastError = "unsupported"
	r = newMemRig(t, statusConfig(st))
	r.now = clock
	if got := r.oneReply(memChat, alice, "/status"); !strings.Contains(got, "OpenCode 2") {
		t.Errorf("/status with an OpenCode 2 server:\n%s", got)
	}
}

func TestMemCommandHelp(t *testing.T) {
	r := newMemRig(t, telegram.Config{BotUsername: testBotName})
	got := r.oneReply(memChat, alice, "/help")
	for _, want := range []string{"/pending", "/status", i18n.English.BtnAllowOnce, i18n.English.BtnRejectReason, "Type an answer"} {
		if !strings.Contains(got, want) {
			t.Errorf("/help lacks %q", want)
		}
	}
}

func TestMemCommandsIgnored(t *testing.T) {
	r := newMemRig(t, telegram.Config{BotUsername: testBotName, AllowedUserIDs: []int64{alice.ID}})
	r.ask(question("que_1"), "que_1")
	for _, tc := range []struct {
		name string
		chat int64
		user models.User
		text string
	}{
		{"another bot's command", memChat, alice, "/pending@other_bot"},
		{"unknown command", memChat, alice, "/deploy"},
		{"user not allowed", memChat, mallory, "/pending"},
		{"user not allowed, addressed", memChat, mallory, "/status@" + testBotName},
		{"another chat", -100999, alice, "/pending"},
	} {
		if sent := r.command(tc.chat, tc.user, tc.text); len(sent) != 0 {
			t.Errorf("%s: %q got a reply: %q", tc.name, tc.text, sent[0].Text)
		}
	}
	if got := r.oneReply(memChat, alice, "/pending"); !strings.Contains(got, "Waiting for you: 1") {
		t.Errorf("allowed user's /pending: %q", got)
	}
}

// A command is never taken as the typed answer a request waits for.
func TestMemCommandIsNotATypedAnswer(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	r.press(alice, frontend.Type, e, 0, 0)
	awaiting := func() bool {
		e, err := r.store.Get(e.UID)
		return err == nil && e.AwaitingText
	}
	if !awaiting() {
		t.Fatal("no typed answer awaited")
	}
	r.oneReply(memChat, alice, "/status")
	if got := r.oc.Answers(); len(got) != 0 {
		t.Fatalf("a command was sent to opencode as an answer: %v", got)
	}
	if !awaiting() {
		t.Fatal("the request stopped awaiting its typed answer")
	}
}

func TestMemCommandPendingUnsent(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	r.tg.sendErr = fmt.Errorf("telegram down")
	e := r.ask(question("que_1"), "que_1")
	if e.Places[telegram.Name] != "" {
		t.Fatalf("question posted despite the failure")
	}
	if got := r.oneReply(memChat, alice, "/pending"); !strings.Contains(got, "<b>Question</b> (not posted yet)") {
		t.Fatalf("unsent request not shown as such:\n%s", got)
	}
}

// A question is stored once its message is sent: /pending typed the
// moment the message shows still lists it.
func TestMemPendingListsQuestionBeingStored(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	done := make(chan struct{})
	r.tg.onSend = func(id int) {
		if id != 101 {
			return
		}
		go func() {
			defer close(done)
			r.message(alice, &models.Message{Text: "/pending"})
		}()
	}
	r.ask(question("que_fresh"), "que_fresh")
	<-done
	sent := r.tg.Sent()
	if got := sent[len(sent)-1].Text; !strings.Contains(got, i18n.English.WaitingN(1)) || !strings.Contains(got, "Which database should I use?") {
		t.Errorf("/pending while the question was being stored replied:\n%s", got)
	}
}

// countingStatus counts how often /status reads the opencode state.
type countingStatus struct{ calls *atomic.Int32 }

func (c countingStatus) State() opencode.WatchState {
	c.calls.Add(1)
	return opencode.WatchState{Connected: true}
}

// A command from a user not allowed to answer is refused before any work:
// a stranger's /status does not even read opencode's state.
func TestMemCommandsRefusedBeforeWork(t *testing.T) {
	var calls atomic.Int32
	cfg := statusConfig(countingStatus{&calls})
	cfg.BotUsername, cfg.AllowedUserIDs = testBotName, []int64{alice.ID}
	r := newMemRig(t, cfg)
	for _, cmd := range []string{"/status", "/pending", "/status@" + testBotName} {
		if sent := r.command(memChat, mallory, cmd); len(sent) != 0 {
			t.Errorf("%s from a stranger got a reply: %q", cmd, sent[0].Text)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("a stranger's /status read opencode's state %d times", n)
	}
	if got := r.oneReply(memChat, alice, "/status"); !strings.Contains(got, "connected") || calls.Load() != 1 {
		t.Errorf("alice's /status: %q after %d reads", got, calls.Load())
	}
}

package bot

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/opencode"
)

const testBotName = "hermes_test_bot"

type fixedStatus opencode.WatchState

func (s fixedStatus) State() opencode.WatchState { return opencode.WatchState(s) }

// command sends text from user in chat and returns the replies the bridge
// sent for it.
func (h *harness) command(chat int64, user models.User, text string) []sentMessage {
	h.t.Helper()
	before := len(h.tg.Sent())
	h.seq++
	m := &models.Message{
		ID:   1000 + h.seq,
		Date: 1700000000,
		Chat: models.Chat{ID: chat, Type: "supergroup"},
		From: &user,
		Text: text,
	}
	h.update(context.Background(), &models.Update{ID: int64(h.seq), Message: m})
	sent := h.tg.Sent()[before:]
	for _, s := range sent {
		if s.P.ReplyParameters == nil || s.P.ReplyParameters.MessageID != m.ID {
			h.t.Errorf("command reply does not reply to the command: %+v", s.P.ReplyParameters)
		}
		if s.P.ParseMode != models.ParseModeHTML {
			h.t.Errorf("command reply parse mode %q", s.P.ParseMode)
		}
	}
	return sent
}

// oneReply is the text of the single reply to a command.
func (h *harness) oneReply(chat int64, user models.User, text string) string {
	h.t.Helper()
	sent := h.command(chat, user, text)
	if len(sent) != 1 {
		h.t.Fatalf("%q: %d replies, want 1", text, len(sent))
	}
	return sent[0].P.Text
}

func TestCommandPendingEmpty(t *testing.T) {
	h := newHarness(t, harnessConfig{BotUsername: testBotName})
	if got := h.oneReply(testChat, alice, "/pending"); got != i18n.English.NothingPending {
		t.Fatalf("reply = %q, want %q", got, i18n.English.NothingPending)
	}
}

func TestCommandPendingListsRequests(t *testing.T) {
	const super int64 = -1001234567890
	h := newHarness(t, harnessConfig{ChatID: super, BotUsername: testBotName, AllowedUserIDs: []int64{alice.ID}, TTL: 30 * time.Minute})
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	h.b.now = func() time.Time { return clock }
	h.oc.sessions = map[string]opencode.Session{testSession: {ID: testSession, Title: "Release <prep>"}}
	q := h.ask("que_1", dbQuestion())
	clock = clock.Add(5 * time.Minute)
	p := h.askPerm(permEvent("per_1", "rm -rf build && echo <done>"))
	clock = clock.Add(2 * time.Minute)

	got := h.oneReply(super, alice, "/pending@"+testBotName)
	for _, want := range []string{
		"Waiting for you: 2",
		fmt.Sprintf(`<a href="https://t.me/c/1234567890/%d"><b>Question</b></a>`, msgID(q)),
		fmt.Sprintf(`<a href="https://t.me/c/1234567890/%d"><b>Permission</b></a>`, msgID(p)),
		"<b>demo</b>", "<i>Release &lt;prep&gt;</i>",
		"Database: Which database should I use?",
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

func TestCommandPendingBasicGroupHasNoLink(t *testing.T) {
	const basic int64 = -4242 // a basic group's ID lacks the -100 prefix
	h := newHarness(t, harnessConfig{ChatID: basic})
	e := h.ask("que_1", dbQuestion())
	got := h.oneReply(basic, alice, "/pending")
	if strings.Contains(got, "<a ") || !strings.Contains(got, fmt.Sprintf("(message #%d)", msgID(e))) {
		t.Fatalf("basic group /pending should name the message without a link:\n%s", got)
	}
}

func TestCommandPendingCutsLongList(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	long := dbQuestion()
	long.Question = strings.Repeat("a very long question & ", 20)
	const n = 60
	for i := range n {
		h.ask(fmt.Sprintf("que_%02d", i), long)
	}
	got := h.oneReply(testChat, alice, "/pending")
	if n := telegramtest.UTF16Len(got); n > 4096 {
		t.Fatalf("reply is %d units long", n)
	}
	if err := checkMessageText(got); err != nil {
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

func TestCommandStatus(t *testing.T) {
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	st := fixedStatus{Connected: true, Since: clock.Add(-90 * time.Minute), Version: "1.18.33"}
	h := newHarness(t, harnessConfig{Version: "v0.3.0", Status: st, StartedAt: clock.Add(-26 * time.Hour)})
	h.b.now = func() time.Time { return clock }
	h.ask("que_1", dbQuestion())

	got := h.oneReply(testChat, alice, "/status")
	for _, want := range []string{"hermes-bot</b> v0.3.0", "up 1 d 2 h", "✅ connected for 1 h 30 min", "version 1.18.33", "Waiting for you: 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("/status lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "error") {
		t.Errorf("/status of a healthy connection mentions an error:\n%s", got)
	}
}

func TestCommandStatusDisconnected(t *testing.T) {
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	st := fixedStatus{Since: clock.Add(-3 * time.Minute), Version: "1.18.33", LastError: "unauthorized", LastErrorAt: clock.Add(-time.Minute)}
	h := newHarness(t, harnessConfig{Status: st})
	h.b.now = func() time.Time { return clock }
	got := h.oneReply(testChat, alice, "/status")
	for _, want := range []string{"❌ not connected for 3 min", "refused the username or password", "1 min ago", "Waiting for you: 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("/status lacks %q:\n%s", want, got)
		}
	}

	h = newHarness(t, harnessConfig{Status: fixedStatus{}})
	if got := h.oneReply(testChat, alice, "/status"); !strings.Contains(got, "not connected yet") {
		t.Errorf("/status before any connect:\n%s", got)
	}

	// A server hermes-bot cannot speak to is named, not "unexpected".
	st.LastError = "unsupported"
	h = newHarness(t, harnessConfig{Status: st})
	h.b.now = func() time.Time { return clock }
	if got := h.oneReply(testChat, alice, "/status"); !strings.Contains(got, "OpenCode 2") {
		t.Errorf("/status with an OpenCode 2 server:\n%s", got)
	}
}

func TestCommandHelp(t *testing.T) {
	h := newHarness(t, harnessConfig{BotUsername: testBotName})
	got := h.oneReply(testChat, alice, "/help")
	for _, want := range []string{"/pending", "/status", i18n.English.BtnAllowOnce, i18n.English.BtnRejectReason, "Type an answer"} {
		if !strings.Contains(got, want) {
			t.Errorf("/help lacks %q", want)
		}
	}
}

func TestCommandsIgnored(t *testing.T) {
	h := newHarness(t, harnessConfig{BotUsername: testBotName, AllowedUserIDs: []int64{alice.ID}})
	h.ask("que_1", dbQuestion())
	for _, tc := range []struct {
		name string
		chat int64
		user models.User
		text string
	}{
		{"another bot's command", testChat, alice, "/pending@other_bot"},
		{"unknown command", testChat, alice, "/deploy"},
		{"user not allowed", testChat, mallory, "/pending"},
		{"user not allowed, addressed", testChat, mallory, "/status@" + testBotName},
		{"another chat", -100999, alice, "/pending"},
	} {
		if sent := h.command(tc.chat, tc.user, tc.text); len(sent) != 0 {
			t.Errorf("%s: %q got a reply: %q", tc.name, tc.text, sent[0].P.Text)
		}
	}
	if got := h.oneReply(testChat, alice, "/pending"); !strings.Contains(got, "Waiting for you: 1") {
		t.Errorf("allowed user's /pending: %q", got)
	}
}

// A command is never taken as the typed answer a request waits for.
func TestCommandIsNotATypedAnswer(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.press(alice, data(t, frontend.Type, e.UID, 0, 0), e)
	if !h.entry(e.UID).AwaitingText {
		t.Fatal("no typed answer awaited")
	}
	h.oneReply(testChat, alice, "/status")
	if got := h.oc.Replies(); len(got) != 0 {
		t.Fatalf("a command was sent to opencode as an answer: %v", got)
	}
	if !h.entry(e.UID).AwaitingText {
		t.Fatal("the request stopped awaiting its typed answer")
	}
}

func TestCommandPendingUnsent(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.tg.sendErrs = []error{fmt.Errorf("telegram down")}
	e := h.ask("que_1", dbQuestion())
	if msgID(e) != 0 {
		t.Fatalf("question posted despite the failure")
	}
	if got := h.oneReply(testChat, alice, "/pending"); !strings.Contains(got, "<b>Question</b> (not posted yet)") {
		t.Fatalf("unsent request not shown as such:\n%s", got)
	}
}

// A question is stored once its message is sent: /pending typed the
// moment the message shows still lists it.
func TestPendingListsQuestionBeingStored(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.b.lockWait = 10 * time.Second
	done := make(chan struct{})
	h.tg.onSend = func(p *tgbot.SendMessageParams, id int) {
		if id != 1 {
			return
		}
		go func() {
			defer close(done)
			h.text(alice, "/pending", 0)
		}()
	}
	h.ask("que_fresh", dbQuestion())
	<-done
	reply := h.lastSent()
	if !strings.Contains(reply.P.Text, h.b.text.WaitingN(1)) || !strings.Contains(reply.P.Text, "Which database should I use?") {
		t.Errorf("/pending while the question was being stored replied:\n%s", reply.P.Text)
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
func TestCommandsRefusedBeforeWork(t *testing.T) {
	var calls atomic.Int32
	h := newHarness(t, harnessConfig{BotUsername: testBotName, AllowedUserIDs: []int64{alice.ID}, Status: countingStatus{&calls}})
	for _, cmd := range []string{"/status", "/pending", "/status@" + testBotName} {
		if sent := h.command(testChat, mallory, cmd); len(sent) != 0 {
			t.Errorf("%s from a stranger got a reply: %q", cmd, sent[0].P.Text)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("a stranger's /status read opencode's state %d times", n)
	}
	if got := h.oneReply(testChat, alice, "/status"); !strings.Contains(got, "connected") || calls.Load() != 1 {
		t.Errorf("alice's /status: %q after %d reads", got, calls.Load())
	}
}

package telegram_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// How the front-end reads updates: who may answer, which messages are
// typed answers, and what its middlewares do with a handler that panics.

// memPermission is a bash permission request per_1 running cmd.
func memPermission(id, cmd string) opencode.Event {
	ev := permissionAsked(id, cmd)
	ev.PermissionAsked.Tool = &opencode.ToolRef{MessageID: "msg_1", CallID: "call_" + id}
	return ev
}

// toastOf is the single answer of callback query id.
func (r *memRig) toastOf(id string) string {
	r.t.Helper()
	got := r.tg.AnswersFor(id)
	if len(got) != 1 {
		r.t.Fatalf("callback %s answered %d times", id, len(got))
	}
	return got[0]
}

// pressAs presses a's button of e as user, in the rig's chat.
func (r *memRig) pressAs(user models.User, a frontend.Action, e *pending.Entry, qi, oi int) string {
	r.t.Helper()
	return r.pressData(r.cfg.ChatID, user, buttonData(r.t, a, e.UID, qi, oi), msgOf(e))
}

func TestMemTypedAnswerPromptAndTrim(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	if got := r.toastOf(r.pressAs(alice, frontend.Type, e, 0, 0)); got != toast(i18n.ToastTypeAnswer) {
		t.Errorf("toast = %q", got)
	}
	p := r.prompt()
	sent := r.tg.Sent()[p-101]
	fr := sent.ReplyMarkup.(*models.ForceReply)
	if !fr.ForceReply || !fr.Selective || fr.InputFieldPlaceholder == "" {
		t.Errorf("prompt markup = %#v, want selective force_reply with a placeholder", fr)
	}
	if rp := sent.ReplyParameters; rp == nil || rp.MessageID != msgOf(e) {
		t.Errorf("prompt replies to %+v, want the request message", rp)
	}
	r.reply(alice, "  MariaDB, please  ", p)
	if a := r.oc.Answers(); len(a) != 1 || !reflect.DeepEqual(a[0].Answers, [][]string{{"MariaDB, please"}}) {
		t.Fatalf("answers = %+v, want the text trimmed", a)
	}

	// A reason is trimmed too.
	pe := r.ask(memPermission("per_1", "npm publish"), "per_1")
	r.pressAs(bobby, frontend.RejectWithReason, pe, 0, 0)
	r.reply(bobby, "  not before the review <3  ", r.prompt())
	if got := r.oc.Perms(); len(got) != 1 || got[0] != [3]string{"per_1", "reject", "not before the review <3"} {
		t.Fatalf("permission replies = %q", got)
	}
}

// Plain text, not a reply, answers the one request awaiting text, and
// only when there is exactly one.
func TestMemPlainTextFallback(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e1 := r.ask(question("que_1"), "que_1")
	e2 := r.ask(question("que_2"), "que_2")
	plain := func(user models.User, text string) { r.message(user, &models.Message{Text: text}) }
	plain(alice, "nobody waits for this")
	if n := len(r.oc.Answers()); n != 0 {
		t.Fatalf("text with nobody awaiting answered %d times", n)
	}
	r.pressAs(alice, frontend.Type, e1, 0, 0)
	r.pressAs(bobby, frontend.Type, e2, 0, 0)
	plain(alice, "ambiguous")
	if n := len(r.oc.Answers()); n != 0 {
		t.Fatalf("text with two requests awaiting answered %d times", n)
	}
	// Answering e2 by reply leaves exactly one awaiting text.
	r.reply(bobby, "for two", r.prompt())
	plain(alice, "for one")
	a := r.oc.Answers()
	if len(a) != 2 || a[0].RequestID != "que_2" || a[1].RequestID != "que_1" || a[1].Answers[0][0] != "for one" {
		t.Fatalf("answers = %+v", a)
	}

	// A reason is taken the same way.
	p := r.ask(memPermission("per_1", "make deploy"), "per_1")
	r.pressAs(alice, frontend.RejectWithReason, p, 0, 0)
	plain(alice, "use staging")
	if got := r.oc.Perms(); len(got) != 1 || got[0] != [3]string{"per_1", "reject", "use staging"} {
		t.Fatalf("permission replies = %q", got)
	}
}

func TestMemIgnoredMessages(t *testing.T) {
	r := newMemRig(t, telegram.Config{BotID: 123})
	e := r.ask(question("que_1"), "que_1")
	r.pressAs(alice, frontend.Type, e, 0, 0)
	p := r.prompt()
	r.reply(alice, "/start", p)                              // a command
	r.reply(alice, "reply to the question itself", msgOf(e)) // not the prompt
	r.reply(models.User{ID: 123, IsBot: true}, "from the bot", p)
	other := models.Chat{ID: -999, Type: "supergroup"}
	r.message(alice, &models.Message{Chat: other, Text: "elsewhere", ReplyToMessage: &models.Message{ID: p, Date: 1, Chat: other}})
	if n := len(r.oc.Answers()); n != 0 {
		t.Fatalf("ignored messages answered %d times", n)
	}
	if !r.entry(e.UID).AwaitingText {
		t.Fatal("entry no longer awaits text")
	}
}

// In a forum, a message in a topic replies to the topic's first message:
// that is no reply, and the plain-text fallback takes it.
func TestMemForumTopicRootIsNotAReply(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	r.pressAs(alice, frontend.Type, e, 0, 0)
	r.message(alice, &models.Message{Chat: models.Chat{ID: memChat, IsForum: true}, Text: "in a topic",
		IsTopicMessage: true, MessageThreadID: 7,
		ReplyToMessage: &models.Message{ID: 7, Date: 1, Chat: models.Chat{ID: memChat}, ForumTopicCreated: &models.ForumTopicCreated{Name: "t"}}})
	if a := r.oc.Answers(); len(a) != 1 || a[0].Answers[0][0] != "in a topic" {
		t.Fatalf("answers = %+v, want the topic message taken by the fallback", a)
	}
}

// Someone not allowed, or a press from another chat, changes nothing, and
// cannot answer a prompt someone allowed asked for.
func TestMemNotAllowed(t *testing.T) {
	r := newMemRig(t, telegram.Config{AllowedUserIDs: []int64{alice.ID}})
	e := r.ask(question("que_1"), "que_1")
	p := r.ask(memPermission("per_1", "make"), "per_1")
	before := r.entry(e.UID)
	notAllowed := toast(i18n.ToastNotAllowed)
	for _, a := range []frontend.Action{frontend.Pick, frontend.Type} {
		if got := r.toastOf(r.pressAs(mallory, a, e, 0, 0)); got != notAllowed {
			t.Errorf("%s by Mallory: toast %q", a, got)
		}
	}
	for _, a := range []frontend.Action{frontend.AllowOnce, frontend.AllowAlways, frontend.Reject, frontend.RejectWithReason} {
		if got := r.toastOf(r.pressAs(mallory, a, p, 0, 0)); got != notAllowed {
			t.Errorf("%s by Mallory: toast %q", a, got)
		}
	}
	for _, d := range []string{buttonData(t, frontend.Pick, e.UID, 0, 0), buttonData(t, frontend.AllowOnce, p.UID, 0, 0)} {
		if got := r.toastOf(r.pressData(-999, alice, d, msgOf(e))); got != notAllowed {
			t.Errorf("press %q from another chat: toast %q", d, got)
		}
	}
	if n, m := len(r.tg.Sent()), len(r.tg.EditsOf(msgOf(e)))+len(r.tg.EditsOf(msgOf(p))); n != 2 || m != 0 {
		t.Errorf("%d messages sent and %d edits, want only the two requests", n, m)
	}
	if after := r.entry(e.UID); !reflect.DeepEqual(before, after) {
		t.Errorf("entry changed:\n%+v\n%+v", before, after)
	}
	// A prompt asked by Alice cannot be answered by Mallory.
	r.pressAs(alice, frontend.Type, e, 0, 0)
	prompt := r.prompt()
	r.reply(mallory, "sneaky", prompt)
	r.message(mallory, &models.Message{Text: "sneaky"})
	if n, m := len(r.oc.Answers()), len(r.oc.Perms()); n != 0 || m != 0 {
		t.Fatalf("users not allowed reached opencode %d+%d times", n, m)
	}
	r.reply(alice, "fine", prompt)
	if n := len(r.oc.Answers()); n != 1 {
		t.Fatalf("allowed user's answer reached opencode %d times", n)
	}
}

// A press on a message Telegram no longer shows to the bot is still acted
// on, in the request's chat.
func TestMemInaccessibleMessagePress(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	r.fe.HandleUpdate(context.Background(), r.br, &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "old", From: alice, Data: buttonData(t, frontend.Pick, e.UID, 0, 0),
		Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeInaccessibleMessage,
			InaccessibleMessage: &models.InaccessibleMessage{Chat: models.Chat{ID: memChat}, MessageID: msgOf(e)}}}})
	if got := r.toastOf("old"); got != toast(i18n.ToastSending) {
		t.Errorf("toast = %q", got)
	}
	if n := len(r.oc.Answers()); n != 1 {
		t.Fatalf("press on an inaccessible message answered %d times, want 1", n)
	}
}

// ctxOpencode fails an answer made with a context that ended.
type ctxOpencode struct{ *callsOpencode }

func (o ctxOpencode) Requests(sf opencode.Surface) opencode.Requests {
	return ctxRequests{o.callsOpencode.Requests(sf)}
}

type ctxRequests struct{ opencode.Requests }

func (r ctxRequests) ReplyQuestion(ctx context.Context, dir, session, requestID string, answers [][]string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("reply question %s: %w: %w", requestID, opencode.ErrTransient, err)
	}
	return r.Requests.ReplyQuestion(ctx, dir, session, requestID, answers)
}

// An update handled as polling stops still finishes with a live context.
func TestMemUpdateSurvivesShutdownContext(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	br := bot.NewBridge(bot.Config{Servers: map[string]bot.Opencode{"": ctxOpencode{r.oc}}}, r.store, []frontend.Frontend{r.fe}, zerolog.New(r.logs))
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // polling stopped
	r.fe.HandleUpdate(ctx, br, &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "late", From: alice, Data: buttonData(t, frontend.Pick, e.UID, 0, 0),
		Message: models.MaybeInaccessibleMessage{Message: &models.Message{ID: msgOf(e), Date: 1, Chat: models.Chat{ID: memChat}}}}})
	if err := br.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a := r.oc.Answers(); len(a) != 1 {
		t.Fatalf("answers = %+v, want one made with a live context", a)
	}
	if _, err := r.store.Get(e.UID); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("request still held after its answer: %v", err)
	}
}

func TestMemMiddlewaresRecoverAndWait(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	r.chain(func(context.Context, *tgbot.Bot, *models.Update) { panic("boom") })(context.Background(), nil, &models.Update{ID: 42})
	logs := r.logs.String()
	if !strings.Contains(logs, "boom") || !strings.Contains(logs, "updates_mem_test.go") || !strings.Contains(logs, `"updateID":42`) {
		t.Errorf("panic log lacks the panic, its stack or the update:\n%s", logs)
	}
	if err := r.fe.Wait(context.Background()); err != nil {
		t.Fatalf("Wait after a panicked handler: %v", err)
	}

	release, entered := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.chain(func(context.Context, *tgbot.Bot, *models.Update) {
			close(entered)
			<-release
		})(context.Background(), nil, &models.Update{})
	}()
	<-entered
	short, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.fe.Wait(short); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a running handler and an ended context = %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- r.fe.Wait(context.Background()) }()
	close(release)
	if err := <-waited; err != nil {
		t.Errorf("Wait = %v", err)
	}
	wg.Wait()
}

type panicky struct{ bot.Opencode }

func (panicky) ResolveQuestionID(context.Context, opencode.QuestionRef) (string, error) {
	panic("resolver exploded")
}

// A press whose handling panics is still answered: the person is not
// left with a spinning button.
func TestMemPanicInCallbackStillAnswers(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	br := bot.NewBridge(bot.Config{Servers: map[string]bot.Opencode{"": panicky{r.oc}}}, r.store, []frontend.Frontend{r.fe}, zerolog.New(r.logs))
	r.chain(r.fe.Handler(br))(context.Background(), nil, &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "p", From: alice, Data: buttonData(t, frontend.Pick, e.UID, 0, 0),
		Message: models.MaybeInaccessibleMessage{Message: &models.Message{ID: msgOf(e), Date: 1, Chat: models.Chat{ID: memChat}}}}})
	if got := r.tg.AnswersFor("p"); len(got) != 1 {
		t.Fatalf("answered %d times", len(got))
	}
	if !strings.Contains(r.logs.String(), "resolver exploded") {
		t.Errorf("the panic was not logged:\n%s", r.logs.String())
	}
}

// A note to a person names them and replies to the request's message.
func TestMemNoteMentionsThePerson(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	r.oc.mu.Lock()
	r.oc.refuse = fmt.Errorf("down: %w", opencode.ErrTransient)
	r.oc.mu.Unlock()
	r.pressAs(alice, frontend.Pick, e, 0, 0)
	note, _ := r.lastSent()
	if !strings.Contains(note.Text, "Could not reach opencode") || !strings.Contains(note.Text, "tg://user?id=11") {
		t.Errorf("note to the person = %q", note.Text)
	}
	if rp := note.ReplyParameters; rp == nil || rp.MessageID != msgOf(e) {
		t.Errorf("note replies to %+v, want the request message", rp)
	}
}

// Buttons whose data the front-end cannot read, or whose request is gone,
// are answered with why, and reach nobody.
func TestMemBadCallbackDataTold(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	for d, want := range map[string]i18n.Toast{
		"":                       i18n.ToastUnknown,
		"ans:1:y":                i18n.ToastUnknown,
		"qopt:" + e.UID:          i18n.ToastUnknown,
		strings.Repeat("x", 65):  i18n.ToastUnknown,
		"qopt:" + e.UID + ":0:9": i18n.ToastUnknown,
		"qopt:zzzzzzzz:0:0":      i18n.ToastGone,
	} {
		if got := r.toastOf(r.pressData(memChat, alice, d, msgOf(e))); got != toast(want) {
			t.Errorf("%q: toast %q, want %q", d, got, toast(want))
		}
	}
	if n := len(r.oc.Answers()); n != 0 {
		t.Fatalf("bad buttons reached opencode %d times", n)
	}
}

// blockOpencode holds each answer until release is closed, after saying
// on started that one came.
type blockOpencode struct {
	*callsOpencode
	started, release chan struct{}
}

func (o blockOpencode) Requests(sf opencode.Surface) opencode.Requests {
	return blockRequests{o.callsOpencode.Requests(sf), o}
}

type blockRequests struct {
	opencode.Requests
	o blockOpencode
}

func (r blockRequests) ReplyQuestion(ctx context.Context, dir, session, requestID string, answers [][]string) error {
	r.o.started <- struct{}{}
	<-r.o.release
	return r.Requests.ReplyQuestion(ctx, dir, session, requestID, answers)
}

// A press is answered before opencode is, so the button stops spinning
// however long opencode takes.
func TestMemPressAnsweredBeforeOpencode(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	oc := blockOpencode{r.oc, make(chan struct{}, 1), make(chan struct{})}
	br := bot.NewBridge(bot.Config{Servers: map[string]bot.Opencode{"": oc}}, r.store, []frontend.Frontend{r.fe}, zerolog.New(r.logs))
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.fe.HandleUpdate(context.Background(), br, &models.Update{CallbackQuery: &models.CallbackQuery{
			ID: "first", From: alice, Data: buttonData(t, frontend.Pick, e.UID, 0, 0),
			Message: models.MaybeInaccessibleMessage{Message: &models.Message{ID: msgOf(e), Date: 1, Chat: models.Chat{ID: memChat}}}}})
	}()
	<-oc.started
	if got := r.tg.AnswersFor("first"); len(got) != 1 || got[0] != toast(i18n.ToastSending) {
		t.Errorf("toasts while opencode is called = %q, want Sending", got)
	}
	close(oc.release)
	<-done
	if n := len(r.oc.Answers()); n != 1 {
		t.Fatalf("%d answers, want 1", n)
	}
}

// A prompt Telegram does not take fails the press, which says so.
func TestMemPromptSendFailure(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	e := r.ask(question("que_1"), "que_1")
	r.tg.mu.Lock()
	r.tg.sendErr = errors.New("429")
	r.tg.mu.Unlock()
	if got := r.toastOf(r.pressAs(alice, frontend.Type, e, 0, 0)); got != toast(i18n.ToastPromptFailed) {
		t.Errorf("toast = %q, want %q", got, toast(i18n.ToastPromptFailed))
	}
	if r.entry(e.UID).AwaitingText {
		t.Error("the request awaits text nobody was asked for")
	}
}

// The notice of an approval without a person goes to the chat, without
// buttons.
func TestMemAutoApprovedNoticeInChat(t *testing.T) {
	r := newMemRig(t, telegram.Config{})
	meta := []byte(`{"command":"ls -la"}`)
	v := &frontend.View{UID: "pK3dE6gH", Kind: frontend.KindPermission, RequestID: "per_1", Directory: "/home/user/projects/demo",
		SessionID: "ses_1", Permission: &frontend.Permission{Kind: "bash", Patterns: []string{"ls -la"}, Metadata: meta}}
	if err := r.fe.AutoApproved(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	sent := r.tg.Sent()
	if len(sent) != 1 || sent[0].ChatID != memChat || sent[0].ReplyMarkup != nil || !strings.Contains(sent[0].Text, "Auto-approved") {
		t.Fatalf("sent %+v, want one notice to the chat without buttons", sent)
	}
}

// Someone not allowed is told so in the chat's language.
func TestMemNotAllowedInChinese(t *testing.T) {
	r := newMemRig(t, telegram.Config{Lang: "zh", AllowedUserIDs: []int64{alice.ID}})
	e := r.ask(question("que_1"), "que_1")
	if got := r.toastOf(r.pressAs(mallory, frontend.Pick, e, 0, 0)); got != i18n.Chinese.Toast(i18n.ToastNotAllowed) {
		t.Errorf("toast = %q, want %q", got, i18n.Chinese.Toast(i18n.ToastNotAllowed))
	}
}

package bot

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

func TestAskedPostsOneMessageWithButtons(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())

	sent := h.tg.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want 1", len(sent))
	}
	m := sent[0]
	if m.P.ChatID != testChat || m.P.ParseMode != models.ParseModeHTML {
		t.Errorf("sent to %v with parse mode %q", m.P.ChatID, m.P.ParseMode)
	}
	for _, want := range []string{"<b>demo</b>", "Qeppn49", "<b>Database</b>", "Which database should I use?", "Postgres", "relational", "SQLite", "embedded"} {
		if !strings.Contains(m.P.Text, want) {
			t.Errorf("message lacks %q:\n%s", want, m.P.Text)
		}
	}
	want := [][2]string{
		{"Postgres", data(t, frontend.Pick, e.UID, 0, 0)},
		{"SQLite", data(t, frontend.Pick, e.UID, 0, 1)},
		{"✏️ Type an answer", data(t, frontend.Type, e.UID, 0, 0)},
	}
	if got := buttons(t, m.P.ReplyMarkup); !reflect.DeepEqual(got, want) {
		t.Errorf("buttons = %q, want %q", got, want)
	}
	if msgID(e) != m.ID {
		t.Errorf("entry message ID = %d, want %d", msgID(e), m.ID)
	}
	if e.Kind != pending.KindQuestion || e.CallID != "call_que_1" || e.ToolMessageID != "msg_1" ||
		e.Directory != "/home/user/projects/demo" || tgOf(e).Chat != testChat || !e.Questions[0].Custom {
		t.Errorf("entry = %+v", e)
	}
	if d := e.ExpiresAt.Sub(e.CreatedAt); d != DefaultTTL {
		t.Errorf("expires %v after creation, want %v", d, DefaultTTL)
	}
	if !strings.Contains(h.logs.String(), `"uid":"`+e.UID+`"`) {
		t.Errorf("log lines lack the uid field:\n%s", h.logs.String())
	}
}

func TestAskedTwiceIsPostedOnce(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.ask("que_1", dbQuestion())
	ev := askedEvent("que_1", dbQuestion())
	ev.Listed = true
	h.b.HandleEvent(context.Background(), ev)
	h.b.HandleEvent(context.Background(), ev)
	if n := len(h.tg.Sent()); n != 1 {
		t.Fatalf("sent %d messages for one request, want 1", n)
	}
}

func TestCustomFalseHasNoTypeButton(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q := dbQuestion()
	no := false
	q.Custom = &no
	h.ask("que_1", q)
	for _, b := range buttons(t, h.lastSent().P.ReplyMarkup) {
		if strings.HasPrefix(b[1], "qcustom:") {
			t.Errorf("custom:false question has a typed-answer button %q", b)
		}
	}
}

func TestSendFailureLeavesEntryForSendUnsent(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.tg.sendErrs = []error{errors.New("network down")}
	h.b.HandleEvent(context.Background(), askedEvent("que_1", dbQuestion()))
	e, err := h.store.ByRequestID("", "que_1")
	if err != nil {
		t.Fatal(err)
	}
	if msgID(e) != 0 || len(h.tg.Sent()) != 0 {
		t.Fatalf("message ID %d after a failed send", msgID(e))
	}
	if err := h.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(h.tg.Sent()); n != 1 {
		t.Fatalf("sent %d messages, want 1", n)
	}
	if got := msgID(h.entry(e.UID)); got != h.lastSent().ID {
		t.Errorf("message ID = %d, want %d", got, h.lastSent().ID)
	}
}

func TestSendUnsentReportsFailure(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.tg.sendErrs = []error{errors.New("down"), errors.New("still down")}
	h.b.HandleEvent(context.Background(), askedEvent("que_1", dbQuestion()))
	if err := h.b.SendUnsent(context.Background()); err == nil {
		t.Fatal("SendUnsent succeeded though sending failed")
	}
}

func TestPressOptionAnswers(t *testing.T) {
	h := newHarness(t, harnessConfig{AllowedUserIDs: []int64{alice.ID}})
	e := h.ask("que_1", dbQuestion())

	id := h.press(alice, data(t, frontend.Pick, e.UID, 0, 1), e)

	if got := h.toast(id); got != i18n.ToastSending {
		t.Errorf("toast = %q, want %q", got, i18n.ToastSending)
	}
	want := []replyCall{{Dir: "/home/user/projects/demo", RequestID: "que_1", Answers: [][]string{{"SQLite"}}}}
	if got := h.oc.Replies(); !reflect.DeepEqual(got, want) {
		t.Fatalf("replies = %+v, want %+v", got, want)
	}
	if got := h.oc.resolves; len(got) != 1 || got[0] != (opencode.QuestionRef{Directory: e.Directory, RequestID: "que_1", SessionID: e.SessionID, CallID: "call_que_1"}) {
		t.Errorf("resolves = %+v", got)
	}
	ed := h.lastEdit()
	if ed.MessageID != msgID(e) || ed.ReplyMarkup != nil {
		t.Errorf("edit of message %d keeps markup %v", ed.MessageID, ed.ReplyMarkup)
	}
	for _, want := range []string{"→ <b>SQLite</b>", "Answered by Alice (@alice)", "Which database"} {
		if !strings.Contains(ed.Text, want) {
			t.Errorf("edited message lacks %q:\n%s", want, ed.Text)
		}
	}
	h.gone(e.UID)
}

func TestResolvedIDIsUsed(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.oc.resolveID = "que_new"
	e := h.ask("que_old", dbQuestion())
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	if got := h.oc.Replies(); len(got) != 1 || got[0].RequestID != "que_new" {
		t.Fatalf("replies = %+v, want one to que_new", got)
	}
}

func TestCustomAnswerByReply(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())

	id := h.press(alice, data(t, frontend.Type, e.UID, 0, 0), e)
	if got := h.toast(id); got != i18n.ToastTypeAnswer {
		t.Errorf("toast = %q", got)
	}
	prompt := h.lastSent()
	fr, ok := prompt.P.ReplyMarkup.(*models.ForceReply)
	if !ok || !fr.ForceReply || !fr.Selective || fr.InputFieldPlaceholder == "" {
		t.Fatalf("prompt markup = %#v, want selective force_reply with a placeholder", prompt.P.ReplyMarkup)
	}
	if !strings.Contains(prompt.P.Text, `<a href="tg://user?id=11">Alice</a>`) || !strings.Contains(prompt.P.Text, "Which database should I use?") {
		t.Errorf("prompt text = %s", prompt.P.Text)
	}
	if rp := prompt.P.ReplyParameters; rp == nil || rp.MessageID != msgID(e) {
		t.Errorf("prompt replies to %+v, want the request message", rp)
	}
	got := h.entry(e.UID)
	if !got.AwaitingText || got.AwaitingQuestion != 0 || h.promptOf(e.UID) != prompt.ID {
		t.Fatalf("entry after custom press = %+v", got)
	}
	if len(h.oc.Replies()) != 0 {
		t.Fatal("a custom press alone answered")
	}

	h.text(alice, "  MariaDB, please  ", prompt.ID)

	want := [][]string{{"MariaDB, please"}}
	if r := h.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, want) {
		t.Fatalf("replies = %+v, want %v", r, want)
	}
	if ed := h.lastEdit(); !strings.Contains(ed.Text, "MariaDB, please") || ed.ReplyMarkup != nil {
		t.Errorf("edit = %+v", ed)
	}
	h.gone(e.UID)
}

func TestPlainTextFallback(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e1 := h.ask("que_1", dbQuestion())
	e2 := h.ask("que_2", dbQuestion())

	h.text(alice, "nobody waits for this", 0)
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("text with nobody awaiting answered %d times", n)
	}

	h.press(alice, data(t, frontend.Type, e1.UID, 0, 0), e1)
	h.press(bob, data(t, frontend.Type, e2.UID, 0, 0), e2)
	h.text(alice, "ambiguous", 0)
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("text with two requests awaiting answered %d times", n)
	}

	// Answering e2 by reply leaves exactly one awaiting text.
	h.text(bob, "for two", h.promptOf(e2.UID))
	h.text(alice, "for one", 0)
	r := h.oc.Replies()
	if len(r) != 2 || r[0].RequestID != "que_2" || r[1].RequestID != "que_1" || r[1].Answers[0][0] != "for one" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestIgnoredMessages(t *testing.T) {
	h := newHarness(t, harnessConfig{BotID: 123})
	e := h.ask("que_1", dbQuestion())
	h.press(alice, data(t, frontend.Type, e.UID, 0, 0), e)
	prompt := h.promptOf(e.UID)

	h.text(alice, "/start", prompt)                         // a command
	h.text(alice, "reply to the question itself", msgID(e)) // not the prompt
	h.text(models.User{ID: 123, IsBot: true}, "from the bot", prompt)
	// Another chat.
	h.update(context.Background(), &models.Update{Message: &models.Message{
		ID: 5000, Date: 1, Chat: models.Chat{ID: -999}, From: &alice, Text: "elsewhere",
		ReplyToMessage: &models.Message{ID: prompt, Date: 1, Chat: models.Chat{ID: -999}},
	}})
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("ignored messages answered %d times", n)
	}
	if !h.entry(e.UID).AwaitingText {
		t.Fatal("entry no longer awaits text")
	}
}

func TestForumTopicRootIsNotAReply(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.press(alice, data(t, frontend.Type, e.UID, 0, 0), e)
	h.update(context.Background(), &models.Update{Message: &models.Message{
		ID: 5000, Date: 1, Chat: models.Chat{ID: testChat, IsForum: true}, From: &alice, Text: "in a topic",
		IsTopicMessage: true, MessageThreadID: 7,
		ReplyToMessage: &models.Message{ID: 7, Date: 1, Chat: models.Chat{ID: testChat}, ForumTopicCreated: &models.ForumTopicCreated{Name: "t"}},
	}})
	if r := h.oc.Replies(); len(r) != 1 || r[0].Answers[0][0] != "in a topic" {
		t.Fatalf("replies = %+v, want the topic message taken by the fallback", r)
	}
}

func TestUnauthorisedPressChangesNothing(t *testing.T) {
	h := newHarness(t, harnessConfig{AllowedUserIDs: []int64{alice.ID}})
	e := h.ask("que_1", dbQuestion())
	before := h.entry(e.UID)

	for _, d := range []string{data(t, frontend.Pick, e.UID, 0, 0), data(t, frontend.Type, e.UID, 0, 0)} {
		id := h.press(mallory, d, e)
		if got := h.toast(id); got != i18n.ToastNotAllowed {
			t.Errorf("toast = %q, want %q", got, i18n.ToastNotAllowed)
		}
	}
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("unauthorised press reached opencode %d times", n)
	}
	if n := len(h.tg.Sent()); n != 1 {
		t.Errorf("sent %d messages, want only the request", n)
	}
	if len(h.tg.Edits()) != 0 {
		t.Error("unauthorised press edited the message")
	}
	if after := h.entry(e.UID); !reflect.DeepEqual(before, after) {
		t.Errorf("entry changed:\n%+v\n%+v", before, after)
	}
}

func TestUnauthorisedTypedAnswerIgnored(t *testing.T) {
	h := newHarness(t, harnessConfig{AllowedUserIDs: []int64{alice.ID}})
	e := h.ask("que_1", dbQuestion())
	h.press(alice, data(t, frontend.Type, e.UID, 0, 0), e)
	h.text(mallory, "sneaky", h.promptOf(e.UID))
	h.text(mallory, "sneaky", 0)
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("typed answer of a user not allowed reached opencode %d times", n)
	}
	h.text(alice, "fine", h.promptOf(e.UID))
	if n := len(h.oc.Replies()); n != 1 {
		t.Fatalf("allowed user's answer reached opencode %d times", n)
	}
}

func TestWrongChatPressRefused(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	id := h.pressIn(-999, alice, data(t, frontend.Pick, e.UID, 0, 0), msgID(e))
	if got := h.toast(id); got != i18n.ToastNotAllowed {
		t.Errorf("toast = %q", got)
	}
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("press from another chat answered %d times", n)
	}
	h.entry(e.UID)
}

func TestInaccessibleMessageFallsBackToEntryChat(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.update(context.Background(), &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "old", From: alice, Data: data(t, frontend.Pick, e.UID, 0, 0),
		Message: models.MaybeInaccessibleMessage{
			Type:                models.MaybeInaccessibleMessageTypeInaccessibleMessage,
			InaccessibleMessage: &models.InaccessibleMessage{Chat: models.Chat{ID: testChat}, MessageID: msgID(e)},
		},
	}})
	if got := h.tg.AnswersFor("old"); len(got) != 1 {
		t.Fatalf("answered %d times", len(got))
	}
	if n := len(h.oc.Replies()); n != 1 {
		t.Fatalf("press on an inaccessible message answered %d times, want 1", n)
	}
}

func TestEveryCallbackAnswered(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	cases := map[string]i18n.Toast{
		"":                       i18n.ToastUnknown,
		"ans:1:y":                i18n.ToastUnknown,
		"qopt:" + e.UID:          i18n.ToastUnknown,
		"qopt:" + e.UID + ":0:9": i18n.ToastUnknown, // no such option
		"qopt:" + e.UID + ":5:0": i18n.ToastUnknown, // no such question
		"qtog:" + e.UID + ":0:0": i18n.ToastUnknown, // not multi-select
		"qsub:" + e.UID + ":0":   i18n.ToastUnknown,
		"qopt:zzzzzzzz:0:0":      i18n.ToastGone,
		strings.Repeat("x", 65):  i18n.ToastUnknown,
	}
	for d, want := range cases {
		id := h.press(alice, d, e)
		if got := h.toast(id); got != want {
			t.Errorf("%q: toast %q, want %q", d, got, want)
		}
	}
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("bad buttons reached opencode %d times", n)
	}
}

func TestStaleButtonRefused(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion(), dbQuestion())
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	before := h.entry(e.UID)
	if before.Current != 1 {
		t.Fatalf("current = %d after answering question 1", before.Current)
	}
	id := h.press(alice, data(t, frontend.Pick, e.UID, 0, 1), e)
	if got := h.toast(id); got != i18n.ToastStale {
		t.Errorf("toast = %q, want %q", got, i18n.ToastStale)
	}
	if after := h.entry(e.UID); !reflect.DeepEqual(before, after) {
		t.Errorf("stale press changed the entry:\n%+v\n%+v", before, after)
	}
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatalf("replies = %d", n)
	}
}

func TestTwoQuestionsInSequence(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q2 := opencode.Question{Question: "Strict?", Header: "Strict", Options: []opencode.Option{{Label: "Yes"}, {Label: "No"}}}
	e := h.ask("que_1", dbQuestion(), q2)
	if !strings.Contains(h.lastSent().P.Text, "Question 1/2") {
		t.Errorf("first message lacks Question 1/2:\n%s", h.lastSent().P.Text)
	}

	id := h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	if got := h.toast(id); !strings.Contains(string(got), "Strict") {
		t.Errorf("toast after question 1 = %q", got)
	}
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatal("replied before every question was answered")
	}
	ed := h.lastEdit()
	if !strings.Contains(ed.Text, "Question 2/2") || !strings.Contains(ed.Text, "Strict?") || !strings.Contains(ed.Text, "Postgres") {
		t.Errorf("message after question 1:\n%s", ed.Text)
	}
	if got := buttons(t, ed.ReplyMarkup); got[0][1] != data(t, frontend.Pick, e.UID, 1, 0) {
		t.Errorf("buttons after question 1 = %q", got)
	}

	// The second answer is typed.
	h.press(bob, data(t, frontend.Type, e.UID, 1, 0), e)
	h.text(bob, "Only on Sundays", h.promptOf(e.UID))

	want := [][]string{{"Postgres"}, {"Only on Sundays"}}
	if r := h.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, want) {
		t.Fatalf("replies = %+v, want one with %v", r, want)
	}
	final := h.lastEdit().Text
	if !strings.Contains(final, "Postgres") || !strings.Contains(final, "Only on Sundays") || !strings.Contains(final, "Answered by Bob") {
		t.Errorf("final message:\n%s", final)
	}
	h.gone(e.UID)
}

func TestMultiSelect(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q := opencode.Question{Question: "Which?", Multiple: true,
		Options: []opencode.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}
	e := h.ask("que_1", q)
	got := buttons(t, h.lastSent().P.ReplyMarkup)
	want := [][2]string{
		{"☐ A", data(t, frontend.Toggle, e.UID, 0, 0)},
		{"☐ B", data(t, frontend.Toggle, e.UID, 0, 1)},
		{"☐ C", data(t, frontend.Toggle, e.UID, 0, 2)},
		{"✅ Submit", data(t, frontend.Submit, e.UID, 0, 0)},
		{"✏️ Type an answer", data(t, frontend.Type, e.UID, 0, 0)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("buttons = %q, want %q", got, want)
	}

	if id := h.press(alice, data(t, frontend.Submit, e.UID, 0, 0), e); h.toast(id) != i18n.ToastSelectFirst {
		t.Errorf("empty submit toast = %q", h.toast(id))
	}
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 2), e)
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 0), e)
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 1), e)
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 1), e) // B off again
	if got := buttons(t, h.lastEdit().ReplyMarkup); got[0][0] != "☑ A" || got[1][0] != "☐ B" || got[2][0] != "☑ C" || got[3][0] != "✅ Submit (2)" {
		t.Errorf("buttons after toggles = %q", got)
	}
	if n := len(h.oc.Replies()); n != 0 {
		t.Fatal("toggles answered")
	}
	h.press(alice, data(t, frontend.Submit, e.UID, 0, 0), e)
	wantAns := [][]string{{"A", "C"}}
	if r := h.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, wantAns) {
		t.Fatalf("replies = %+v, want %v", r, wantAns)
	}
	h.gone(e.UID)
}

func TestDoublePressRepliesOnce(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	first := h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	second := h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	if n := len(h.oc.Replies()); n != 1 {
		t.Fatalf("%d replies for a double press", n)
	}
	if h.toast(first) != i18n.ToastSending || h.toast(second) != i18n.ToastAnswered {
		t.Errorf("toasts = %q, %q", h.toast(first), h.toast(second))
	}
}

func TestConcurrentPressWhileSending(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	release := make(chan struct{})
	h.oc.block, h.oc.started = release, make(chan struct{}, 1)

	done := make(chan struct{})
	go func() {
		defer close(done)
		h.update(context.Background(), &models.Update{CallbackQuery: &models.CallbackQuery{
			ID: "first", From: alice, Data: data(t, frontend.Pick, e.UID, 0, 0),
			Message: models.MaybeInaccessibleMessage{Message: &models.Message{ID: msgID(e), Date: 1, Chat: models.Chat{ID: testChat}}},
		}})
	}()
	select {
	case <-h.oc.started:
	case <-time.After(10 * time.Second):
		t.Fatal("first press never reached opencode")
	}
	// The first press answered its callback before calling opencode.
	if got := h.tg.AnswersFor("first"); len(got) != 1 || got[0] != en(i18n.ToastSending) {
		t.Errorf("first press toasts while sending = %q", got)
	}
	second := h.press(bob, data(t, frontend.Pick, e.UID, 0, 1), e)
	if got := h.toast(second); got != i18n.ToastBusy {
		t.Errorf("second press toast = %q, want %q", got, i18n.ToastBusy)
	}
	close(release)
	<-done
	if r := h.oc.Replies(); len(r) != 1 || r[0].Answers[0][0] != "Postgres" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestFailureClasses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		resolve   bool // fail in resolve rather than reply
		kept      bool
		toPerson  string // text of the note to the person; "" for none
		editShows string
	}{
		{name: "not found on reply", err: opencode.ErrNotFound, editShows: "No longer pending"},
		{name: "not found on resolve", err: opencode.ErrNotFound, resolve: true, editShows: "No longer pending"},
		{name: "not accepted", err: opencode.ErrNotAccepted, kept: true, toPerson: "did not accept"},
		{name: "transient", err: opencode.ErrTransient, kept: true, toPerson: "Could not reach opencode"},
		{name: "transient on resolve", err: opencode.ErrTransient, resolve: true, kept: true, toPerson: "Could not reach opencode"},
		{name: "unauthorized", err: opencode.ErrUnauthorized, kept: true, toPerson: "Could not reach opencode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessConfig{})
			e := h.ask("que_1", dbQuestion())
			before := h.entry(e.UID)
			if tc.resolve {
				h.oc.resolveErr = tc.err
			} else {
				h.oc.replyErrs = []error{tc.err}
			}
			id := h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
			if got := h.toast(id); got != i18n.ToastSending {
				t.Errorf("toast = %q", got)
			}
			if !tc.kept {
				h.gone(e.UID)
				if ed := h.lastEdit(); !strings.Contains(ed.Text, tc.editShows) || ed.ReplyMarkup != nil {
					t.Errorf("edit = %q", ed.Text)
				}
				return
			}
			if after := h.entry(e.UID); !reflect.DeepEqual(before, after) {
				t.Errorf("entry changed:\n%+v\n%+v", before, after)
			}
			if len(h.tg.Edits()) != 0 {
				t.Errorf("message edited: %q", h.lastEdit().Text)
			}
			note := h.lastSent()
			if !strings.Contains(note.P.Text, tc.toPerson) || !strings.Contains(note.P.Text, "tg://user?id=11") {
				t.Errorf("note to the person = %q", note.P.Text)
			}
			if rp := note.P.ReplyParameters; rp == nil || rp.MessageID != msgID(e) {
				t.Errorf("note replies to %+v", rp)
			}
			// The person can answer again.
			h.oc.resolveErr, h.oc.replyErrs = nil, nil
			h.press(alice, data(t, frontend.Pick, e.UID, 0, 1), e)
			h.gone(e.UID)
		})
	}
}

func TestNotAcceptedClearsSelection(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q := opencode.Question{Question: "Which?", Multiple: true, Options: []opencode.Option{{Label: "A"}, {Label: "B"}}}
	e := h.ask("que_1", q)
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 0), e)
	h.oc.replyErrs = []error{opencode.ErrNotAccepted}
	h.press(alice, data(t, frontend.Submit, e.UID, 0, 0), e)
	got := h.entry(e.UID)
	if len(got.Selected) != 0 || got.Current != 0 {
		t.Errorf("entry after refused answer = %+v", got)
	}
	if b := buttons(t, h.lastEdit().ReplyMarkup); b[0][0] != "☐ A" {
		t.Errorf("buttons after refused answer = %q", b)
	}
}

func TestAnsweredElsewhere(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e1 := h.ask("que_1", dbQuestion())
	e2 := h.ask("que_2", dbQuestion())
	ctx := context.Background()

	h.b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionReplied, QuestionReplied: &opencode.QuestionReplied{
		SessionID: e1.SessionID, RequestID: "que_1", Answers: [][]string{{"SQLite"}}}})
	h.gone(e1.UID)
	ed := h.lastEdit()
	if ed.MessageID != msgID(e1) || ed.ReplyMarkup != nil || !strings.Contains(ed.Text, "Answered in opencode") || !strings.Contains(ed.Text, "SQLite") {
		t.Errorf("edit = %+v", ed)
	}

	h.b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionRejected, QuestionRejected: &opencode.QuestionRejected{
		SessionID: e2.SessionID, RequestID: "que_2"}})
	h.gone(e2.UID)
	if ed := h.lastEdit(); ed.MessageID != msgID(e2) || !strings.Contains(ed.Text, "Dismissed in opencode") {
		t.Errorf("edit = %+v", ed)
	}

	// Our own answer's echo, and a press on the closed request.
	edits := len(h.tg.Edits())
	h.b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionReplied, QuestionReplied: &opencode.QuestionReplied{RequestID: "que_1"}})
	if len(h.tg.Edits()) != edits {
		t.Error("echo of a closed request edited a message")
	}
	if id := h.press(alice, data(t, frontend.Pick, e1.UID, 0, 0), e1); h.toast(id) != i18n.ToastAnsweredElsewhere {
		t.Errorf("press on closed request: %q", h.toast(id))
	}
}

func TestHandlerSurvivesShutdownContext(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // polling stopped
	h.update(ctx, &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "late", From: alice, Data: data(t, frontend.Pick, e.UID, 0, 0),
		Message: models.MaybeInaccessibleMessage{Message: &models.Message{ID: msgID(e), Date: 1, Chat: models.Chat{ID: testChat}}},
	}})
	r := h.oc.Replies()
	if len(r) != 1 || r[0].CtxErr != nil {
		t.Fatalf("replies = %+v, want one made with a live context", r)
	}
	h.gone(e.UID)
}

func TestMiddlewaresRecoverAndWait(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	chain := func(hf tgbot.HandlerFunc) tgbot.HandlerFunc {
		mws := h.fe.Middlewares()
		for i := len(mws) - 1; i >= 0; i-- {
			hf = mws[i](hf)
		}
		return hf
	}

	chain(func(context.Context, *tgbot.Bot, *models.Update) { panic("boom") })(context.Background(), nil, &models.Update{ID: 42})
	logs := h.logs.String()
	if !strings.Contains(logs, "boom") || !strings.Contains(logs, "bridge_test.go") || !strings.Contains(logs, `"updateID":42`) {
		t.Errorf("panic log lacks the panic, its stack or the update:\n%s", logs)
	}
	if err := h.fe.Wait(context.Background()); err != nil {
		t.Fatalf("Wait after a panicked handler: %v", err)
	}

	release, entered := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		chain(func(context.Context, *tgbot.Bot, *models.Update) {
			close(entered)
			<-release
		})(context.Background(), nil, &models.Update{})
	}()
	<-entered
	short, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.fe.Wait(short); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a running handler and an ended context = %v", err)
	}
	waited := make(chan error, 1)
	go func() { waited <- h.fe.Wait(context.Background()) }()
	close(release)
	if err := <-waited; err != nil {
		t.Errorf("Wait = %v", err)
	}
	wg.Wait()
}

func TestPanicInCallbackStillAnswers(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	h.b.cfg.Servers[""] = panicky{}
	chain := h.chain(h.fe.Handler(h.b))
	chain(context.Background(), nil, &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "p", From: alice, Data: data(t, frontend.Pick, e.UID, 0, 0),
		Message: models.MaybeInaccessibleMessage{Message: &models.Message{ID: msgID(e), Date: 1, Chat: models.Chat{ID: testChat}}},
	}})
	if got := h.tg.AnswersFor("p"); len(got) != 1 {
		t.Fatalf("answered %d times", len(got))
	}
	// The lock was released: another press gets through.
	h.b.cfg.Servers[""] = h.oc
	h.press(alice, data(t, frontend.Pick, e.UID, 0, 0), e)
	if len(h.oc.Replies()) != 1 {
		t.Fatal("request stuck after a panic")
	}
}

type panicky struct{ Opencode }

func (panicky) ResolveQuestionID(context.Context, opencode.QuestionRef) (string, error) {
	panic("resolver exploded")
}

func TestExpireDue(t *testing.T) {
	h := newHarness(t, harnessConfig{TTL: time.Minute})
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := start
	h.b.now = func() time.Time { return clock }
	old := h.ask("que_old", dbQuestion())
	clock = start.Add(50 * time.Second)
	young := h.ask("que_young", dbQuestion())

	clock = start.Add(61 * time.Second)
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.gone(old.UID)
	h.entry(young.UID)
	if got := h.oc.rejects; len(got) != 1 || got[0] != "que_old" {
		t.Fatalf("rejects = %q", got)
	}
	if ed := h.lastEdit(); ed.MessageID != msgID(old) || ed.ReplyMarkup != nil || !strings.Contains(ed.Text, "Expired") {
		t.Errorf("edit = %+v", ed)
	}
	if id := h.press(alice, data(t, frontend.Pick, old.UID, 0, 0), old); h.toast(id) != i18n.ToastExpired {
		t.Errorf("press on expired request: %q", h.toast(id))
	}

	clock = start.Add(200 * time.Second)
	if err := h.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.gone(young.UID)
}

// hermes-bot stopping in the middle of an expiry finishes it: a reject
// cut off would count as failed, and the message would never say that
// the request expired.
func TestExpireDueFinishesAtShutdown(t *testing.T) {
	h := newHarness(t, harnessConfig{TTL: time.Minute})
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := start
	h.b.now = func() time.Time { return clock }
	e := h.ask("que_old", dbQuestion())

	clock = start.Add(61 * time.Second)
	ctx, stop := context.WithCancel(context.Background())
	h.oc.onReject = stop // the stop comes while opencode is being told
	_ = h.b.ExpireDue(ctx)
	h.gone(e.UID)
	if got := h.oc.rejects; len(got) != 1 || got[0] != "que_old" {
		t.Fatalf("rejects = %q, want que_old rejected", got)
	}
	if ed := h.lastEdit(); ed.MessageID != msgID(e) || ed.ReplyMarkup != nil || !strings.Contains(ed.Text, "Expired") {
		t.Errorf("edit = %+v, want the message to say it expired", ed)
	}
}

func TestPromptSendFailure(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	e := h.ask("que_1", dbQuestion())
	before := h.entry(e.UID)
	h.tg.sendErrs = []error{errors.New("429")}
	id := h.press(alice, data(t, frontend.Type, e.UID, 0, 0), e)
	if got := h.toast(id); got != i18n.ToastPromptFailed {
		t.Errorf("toast = %q", got)
	}
	if after := h.entry(e.UID); !reflect.DeepEqual(before, after) {
		t.Errorf("entry changed:\n%+v\n%+v", before, after)
	}
}

func TestSelectionDoesNotCarryToNextQuestion(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	q := opencode.Question{Question: "Which?", Multiple: true, Options: []opencode.Option{{Label: "A"}, {Label: "B"}}}
	e := h.ask("que_1", q, q)
	h.press(alice, data(t, frontend.Toggle, e.UID, 0, 0), e)
	h.press(alice, data(t, frontend.Submit, e.UID, 0, 0), e)
	if b := buttons(t, h.lastEdit().ReplyMarkup); b[0] != [2]string{"☐ A", data(t, frontend.Toggle, e.UID, 1, 0)} {
		t.Errorf("second question starts with %q", b[0])
	}
	h.press(alice, data(t, frontend.Toggle, e.UID, 1, 1), e)
	h.press(alice, data(t, frontend.Submit, e.UID, 1, 0), e)
	want := [][]string{{"A"}, {"B"}}
	if r := h.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, want) {
		t.Fatalf("replies = %+v, want %v", r, want)
	}
}

// A question is stored after its message is sent. A press that comes
// in between, from someone quick on a fast link, waits for the store
// rather than being told the request is closed.
func TestPressBeforeStoredWaits(t *testing.T) {
	h := newHarness(t, harnessConfig{})
	h.b.lockWait = 10 * time.Second // the press must not give up: this is not about busy presses
	pressed := make(chan string, 1)
	h.tg.onSend = func(p *tgbot.SendMessageParams, id int) {
		kb, ok := p.ReplyMarkup.(*models.InlineKeyboardMarkup)
		if !ok || len(kb.InlineKeyboard) == 0 {
			t.Errorf("question sent without buttons: %+v", p.ReplyMarkup)
			return
		}
		data := kb.InlineKeyboard[0][0].CallbackData
		go func() { pressed <- h.pressIn(testChat, alice, data, id) }()
	}
	e := h.ask("que_early", dbQuestion())
	cb := <-pressed
	if got := h.toast(cb); got != i18n.ToastSending {
		t.Errorf("toast %q, want %q", got, i18n.ToastSending)
	}
	replies := h.oc.Replies()
	if len(replies) != 1 || replies[0].RequestID != "que_early" || len(replies[0].Answers) != 1 || len(replies[0].Answers[0]) != 1 || replies[0].Answers[0][0] != "Postgres" {
		t.Fatalf("opencode got %+v, want one reply Postgres to que_early", replies)
	}
	h.gone(e.UID)
}

// chain wraps hf in the front-end's middlewares, as go-telegram/bot does.
func (h *harness) chain(hf tgbot.HandlerFunc) tgbot.HandlerFunc {
	mws := h.fe.Middlewares()
	for i := len(mws) - 1; i >= 0; i-- {
		hf = mws[i](hf)
	}
	return hf
}

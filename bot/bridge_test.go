package bot

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

func TestAskedPostsOneOpenMessage(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	msgs := c.fe.Messages()
	if len(msgs) != 1 || msgs[0].ID != msgID(e) || !msgs[0].Open || msgs[0].Request.Key != e.UID {
		t.Fatalf("messages %+v, want one open message of %s", msgs, e.UID)
	}
	v := msgs[0].Request.Members[0]
	if v.Kind != frontend.KindQuestion || v.Directory != "/home/user/projects/demo" || v.SessionID != testSession ||
		len(v.Questions) != 1 || v.Questions[0].Text != "Which database should I use?" || v.Questions[0].Header != "Database" ||
		len(v.Questions[0].Options) != 2 || v.Questions[0].Options[1].Description != "embedded" || !v.Questions[0].Custom {
		t.Errorf("message shows %+v", v)
	}
	if e.Kind != pending.KindQuestion || e.CallID != "call_que_1" || e.ToolMessageID != "msg_1" ||
		e.Directory != "/home/user/projects/demo" || !e.Questions[0].Custom {
		t.Errorf("entry = %+v", e)
	}
	if d := e.ExpiresAt.Sub(e.CreatedAt); d != DefaultTTL {
		t.Errorf("expires %v after creation, want %v", d, DefaultTTL)
	}
	if !strings.Contains(c.logs.String(), `"uid":"`+e.UID+`"`) {
		t.Errorf("log lines lack the uid field:\n%s", c.logs.String())
	}
}

func TestAskedTwiceIsPostedOnce(t *testing.T) {
	c := newCore(t, Config{})
	c.asked("que_1", dbQuestion())
	ev := askedEvent("que_1", dbQuestion())
	ev.Listed = true
	c.b.HandleEvent(context.Background(), ev)
	c.b.HandleEvent(context.Background(), ev)
	if n := len(c.fe.Messages()); n != 1 {
		t.Fatalf("posted %d messages for one request, want 1", n)
	}
}

// A question that takes no typed answer shows as such, and a Type press
// on it is refused.
func TestCustomFalseTakesNoTypedAnswer(t *testing.T) {
	c := newCore(t, Config{})
	q := dbQuestion()
	no := false
	q.Custom = &no
	e := c.asked("que_1", q)
	if v := c.message(e).Request.Members[0]; v.Questions[0].AllowsTyped() {
		t.Errorf("custom:false question shown as taking a typed answer: %+v", v.Questions[0])
	}
	if ack := c.tap(ann, frontend.Type, e.UID, e, 0, 0); ack != en(i18n.ToastUnknown) {
		t.Errorf("Type press told %q", ack)
	}
	if ps := c.fe.Prompts(); len(ps) != 0 || c.entry(e.UID).AwaitingText {
		t.Errorf("asked to type %+v for a custom:false question", ps)
	}
}

func TestSendFailureLeavesEntryForSendUnsent(t *testing.T) {
	c := newCore(t, Config{})
	c.fe.Fail("Post", errors.New("network down"))
	e := c.asked("que_1", dbQuestion())
	if msgID(e) != 0 || len(c.fe.Messages()) != 0 {
		t.Fatalf("message %d after a failed post", msgID(e))
	}
	c.fe.Fail("Post", nil)
	for range 2 {
		if err := c.b.SendUnsent(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	msgs := c.fe.Messages()
	if len(msgs) != 1 {
		t.Fatalf("posted %d messages, want 1", len(msgs))
	}
	if got := msgID(c.entry(e.UID)); got != msgs[0].ID {
		t.Errorf("entry's message = %d, want %d", got, msgs[0].ID)
	}
}

func TestSendUnsentReportsFailure(t *testing.T) {
	c := newCore(t, Config{})
	c.fe.Fail("Post", errors.New("down"))
	c.b.HandleEvent(context.Background(), askedEvent("que_1", dbQuestion()))
	if err := c.b.SendUnsent(context.Background()); err == nil {
		t.Fatal("SendUnsent succeeded though posting failed")
	}
}

func TestPressOptionAnswers(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	if ack := c.tap(ann, frontend.Pick, e.UID, e, 0, 1); ack != en(i18n.ToastSending) {
		t.Errorf("press told %q", ack)
	}
	want := []replyCall{{Dir: "/home/user/projects/demo", RequestID: "que_1", Answers: [][]string{{"SQLite"}}}}
	if got := c.oc.Replies(); !reflect.DeepEqual(got, want) {
		t.Fatalf("replies = %+v, want %+v", got, want)
	}
	if got := c.oc.resolves; len(got) != 1 || got[0] != (opencode.QuestionRef{Directory: e.Directory, RequestID: "que_1", SessionID: e.SessionID, CallID: "call_que_1"}) {
		t.Errorf("resolves = %+v", got)
	}
	c.wantIn(c.closedAs(e, frontend.Answered), `answers=[["SQLite"]]`, "by=Ann", "requests=que_1")
	c.gone(e.UID)
}

func TestResolvedIDIsUsed(t *testing.T) {
	c := newCore(t, Config{})
	c.oc.resolveID = "que_new"
	e := c.asked("que_old", dbQuestion())
	c.tap(ann, frontend.Pick, e.UID, e, 0, 0)
	if got := c.oc.Replies(); len(got) != 1 || got[0].RequestID != "que_new" {
		t.Fatalf("replies = %+v, want one to que_new", got)
	}
}

func TestCustomAnswerTyped(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	if ack := c.tap(ann, frontend.Type, e.UID, e, 0, 0); ack != en(i18n.ToastTypeAnswer) {
		t.Errorf("Type press told %q", ack)
	}
	p := c.prompt()
	if p.At != msgID(e) || p.Key != e.UID || p.Qi != 0 || p.Reason || p.User != ann || p.Entry.Questions[0].Text != "Which database should I use?" {
		t.Fatalf("prompt = %+v, want Ann asked for question 0 by the request's message", p)
	}
	if got := c.entry(e.UID); !got.AwaitingText || got.AwaitingQuestion != 0 || !c.b.Awaits(e.UID, 0, false) {
		t.Fatalf("entry after Type = %+v", got)
	}
	if len(c.oc.Replies()) != 0 {
		t.Fatal("a Type press alone answered")
	}
	c.typeIn(p, ann, "MariaDB, please")
	want := [][]string{{"MariaDB, please"}}
	if r := c.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, want) {
		t.Fatalf("replies = %+v, want %v", r, want)
	}
	c.wantIn(c.closedAs(e, frontend.Answered), `answers=[["MariaDB, please"]]`)
	c.gone(e.UID)
}

// Text typed by someone other than the person asked is still an answer:
// a front-end decides who may answer, the life cycle takes what it hands.
func TestTypedAnswerOfTwoRequests(t *testing.T) {
	c := newCore(t, Config{})
	e1 := c.asked("que_1", dbQuestion())
	e2 := c.asked("que_2", dbQuestion())
	c.tap(ann, frontend.Type, e1.UID, e1, 0, 0)
	c.tap(ben, frontend.Type, e2.UID, e2, 0, 0)
	ps := c.fe.Prompts()
	if len(ps) != 2 || ps[0].Key != e1.UID || ps[1].Key != e2.UID {
		t.Fatalf("prompts %+v, want one per request", ps)
	}
	c.typeIn(ps[1], ben, "for two")
	c.typeIn(ps[0], ann, "for one")
	r := c.oc.Replies()
	if len(r) != 2 || r[0].RequestID != "que_2" || r[1].RequestID != "que_1" || r[1].Answers[0][0] != "for one" {
		t.Fatalf("replies = %+v", r)
	}
}

// Text for a request that no longer waits for it changes nothing.
func TestTypedAnswerNotAwaitedIgnored(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	c.b.HandleInput(context.Background(), zerolog.Nop(), frontend.Input{Key: e.UID, Text: "unasked", User: ann, Frontend: "test"})
	c.b.HandleInput(context.Background(), zerolog.Nop(), frontend.Input{Key: "zzzzzzzz", Text: "nobody", User: ann, Frontend: "test"})
	if n := len(c.oc.Replies()); n != 0 {
		t.Fatalf("text nobody waited for answered %d times", n)
	}
	if got := c.entry(e.UID); got.AwaitingText || !c.message(e).Open {
		t.Fatalf("entry after stray text = %+v", got)
	}
}

func TestEveryBadPressTold(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	before := c.entry(e.UID)
	for _, tc := range []struct {
		key    string
		a      frontend.Action
		qi, oi int
		want   i18n.Toast
	}{
		{e.UID, frontend.Pick, 0, 9, i18n.ToastUnknown},   // no such option
		{e.UID, frontend.Pick, 5, 0, i18n.ToastUnknown},   // no such question
		{e.UID, frontend.Toggle, 0, 0, i18n.ToastUnknown}, // not multi-select
		{e.UID, frontend.Submit, 0, 0, i18n.ToastUnknown},
		{e.UID, frontend.AllowOnce, 0, 0, i18n.ToastUnknown}, // a permission's button
		{e.UID, frontend.Action(99), 0, 0, i18n.ToastUnknown},
		{"zzzzzzzz", frontend.Pick, 0, 0, i18n.ToastGone},
	} {
		if ack := c.tap(ann, tc.a, tc.key, e, tc.qi, tc.oi); ack != en(tc.want) {
			t.Errorf("%s %d/%d of %s told %q, want %q", tc.a, tc.qi, tc.oi, tc.key, ack, en(tc.want))
		}
	}
	if n := len(c.oc.Replies()); n != 0 {
		t.Fatalf("bad presses reached opencode %d times", n)
	}
	if after := c.entry(e.UID); !reflect.DeepEqual(before, after) {
		t.Errorf("entry changed:\n%+v\n%+v", before, after)
	}
}

func TestStaleButtonRefused(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion(), dbQuestion())
	c.tap(ann, frontend.Pick, e.UID, e, 0, 0)
	before := c.entry(e.UID)
	if before.Current != 1 {
		t.Fatalf("current = %d after answering question 1", before.Current)
	}
	if ack := c.tap(ann, frontend.Pick, e.UID, e, 0, 1); ack != en(i18n.ToastStale) {
		t.Errorf("press told %q, want %q", ack, en(i18n.ToastStale))
	}
	if after := c.entry(e.UID); !reflect.DeepEqual(before, after) {
		t.Errorf("stale press changed the entry:\n%+v\n%+v", before, after)
	}
	if n := len(c.oc.Replies()); n != 0 {
		t.Fatalf("replies = %d", n)
	}
}

func TestTwoQuestionsInSequence(t *testing.T) {
	c := newCore(t, Config{})
	q2 := opencode.Question{Question: "Strict?", Header: "Strict", Options: []opencode.Option{{Label: "Yes"}, {Label: "No"}}}
	e := c.asked("que_1", dbQuestion(), q2)
	if v := c.message(e).Request.Members[0]; v.Current != 0 || len(v.Questions) != 2 {
		t.Fatalf("first message shows %+v, want question 1 of 2", v)
	}
	if ack := c.tap(ann, frontend.Pick, e.UID, e, 0, 0); !strings.Contains(ack, "Strict") {
		t.Errorf("press on question 1 told %q", ack)
	}
	if n := len(c.oc.Replies()); n != 0 {
		t.Fatal("replied before every question was answered")
	}
	m := c.message(e)
	if v := m.Request.Members[0]; !m.Open || v.Current != 1 || len(v.Answers) == 0 || !reflect.DeepEqual(v.Answers[0], []string{"Postgres"}) {
		t.Errorf("message after question 1 shows %+v", v)
	}
	// The second answer is typed.
	c.tap(ben, frontend.Type, e.UID, e, 1, 0)
	c.typeIn(c.prompt(), ben, "Only on Sundays")
	want := [][]string{{"Postgres"}, {"Only on Sundays"}}
	if r := c.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, want) {
		t.Fatalf("replies = %+v, want one with %v", r, want)
	}
	c.wantIn(c.closedAs(e, frontend.Answered), `answers=[["Postgres"] ["Only on Sundays"]]`, "by=Ben")
	c.gone(e.UID)
}

func TestMultiSelect(t *testing.T) {
	c := newCore(t, Config{})
	q := opencode.Question{Question: "Which?", Multiple: true,
		Options: []opencode.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}
	e := c.asked("que_1", q)
	if v := c.message(e).Request.Members[0]; !v.Questions[0].Multiple || len(v.Selected) != 0 {
		t.Fatalf("message shows %+v, want a multi-select with nothing selected", v)
	}
	if ack := c.tap(ann, frontend.Submit, e.UID, e, 0, 0); ack != en(i18n.ToastSelectFirst) {
		t.Errorf("empty submit told %q", ack)
	}
	for i, tap := range []struct {
		oi   int
		want string
	}{{2, "☑ C"}, {0, "☑ A"}, {1, "☑ B"}, {1, "☐ B"}} {
		if ack := c.tap(ann, frontend.Toggle, e.UID, e, 0, tap.oi); ack != tap.want {
			t.Errorf("toggle %d told %q, want %q", i, ack, tap.want)
		}
	}
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := selected(c.message(e)); !slices.Equal(got, []string{"C", "A"}) {
		t.Errorf("message shows %q selected after the toggles, want C and A", got)
	}
	if n := len(c.oc.Replies()); n != 0 {
		t.Fatal("toggles answered")
	}
	c.tap(ann, frontend.Submit, e.UID, e, 0, 0)
	wantAns := [][]string{{"A", "C"}}
	if r := c.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, wantAns) {
		t.Fatalf("replies = %+v, want %v", r, wantAns)
	}
	c.gone(e.UID)
}

func TestDoublePressRepliesOnce(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	first := c.tap(ann, frontend.Pick, e.UID, e, 0, 0)
	second := c.tap(ann, frontend.Pick, e.UID, e, 0, 0)
	if n := len(c.oc.Replies()); n != 1 {
		t.Fatalf("%d replies for a double press", n)
	}
	if first != en(i18n.ToastSending) || second != en(i18n.ToastAnswered) {
		t.Errorf("told %q, %q", first, second)
	}
}

func TestConcurrentPressWhileSending(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	release := make(chan struct{})
	c.oc.block, c.oc.started = release, make(chan struct{}, 1)
	acked := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.b.HandlePress(context.Background(), zerolog.Nop(), frontend.Press{Key: e.UID, Action: frontend.Pick, User: ann,
			Frontend: c.fe.Name(), From: frontendtest.Place(msgID(e)), FromCarries: true, Ack: func(s string) { acked <- s }})
	}()
	select {
	case <-c.oc.started:
	case <-time.After(10 * time.Second):
		t.Fatal("first press never reached opencode")
	}
	// The first press was acknowledged before opencode was called.
	select {
	case ack := <-acked:
		if ack != en(i18n.ToastSending) {
			t.Errorf("first press told %q while sending", ack)
		}
	default:
		t.Error("first press not acknowledged while sending")
	}
	if ack := c.tap(ben, frontend.Pick, e.UID, e, 0, 1); ack != en(i18n.ToastBusy) {
		t.Errorf("second press told %q, want %q", ack, en(i18n.ToastBusy))
	}
	close(release)
	<-done
	if r := c.oc.Replies(); len(r) != 1 || r[0].Answers[0][0] != "Postgres" {
		t.Fatalf("replies = %+v", r)
	}
}

func TestFailureClasses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		resolve  bool // fail in resolve rather than reply
		kept     bool
		toPerson string // the note to the person; "" for none
	}{
		{name: "not found on reply", err: opencode.ErrNotFound},
		{name: "not found on resolve", err: opencode.ErrNotFound, resolve: true},
		{name: "not accepted", err: opencode.ErrNotAccepted, kept: true, toPerson: "did not accept"},
		{name: "transient", err: opencode.ErrTransient, kept: true, toPerson: "Could not reach opencode"},
		{name: "transient on resolve", err: opencode.ErrTransient, resolve: true, kept: true, toPerson: "Could not reach opencode"},
		{name: "unauthorized", err: opencode.ErrUnauthorized, kept: true, toPerson: "Could not reach opencode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(t, Config{})
			e := c.asked("que_1", dbQuestion())
			before, shown := c.entry(e.UID), c.message(e)
			if tc.resolve {
				c.oc.resolveErr = tc.err
			} else {
				c.oc.replyErrs = []error{tc.err}
			}
			if ack := c.tap(ann, frontend.Pick, e.UID, e, 0, 0); ack != en(i18n.ToastSending) {
				t.Errorf("press told %q", ack)
			}
			if !tc.kept {
				c.gone(e.UID)
				c.closedAs(e, frontend.NoLongerPending)
				return
			}
			if after := c.entry(e.UID); !reflect.DeepEqual(before, after) {
				t.Errorf("entry changed:\n%+v\n%+v", before, after)
			}
			if now := c.message(e); !reflect.DeepEqual(now, shown) {
				t.Errorf("message changed:\n%+v\n%+v", shown, now)
			}
			if told := c.fe.Told(); len(told) != 1 || !strings.HasPrefix(told[0], "Ann: ") || !strings.Contains(told[0], tc.toPerson) {
				t.Errorf("told %q, want Ann told %q", told, tc.toPerson)
			}
			// The person can answer again.
			c.oc.resolveErr, c.oc.replyErrs = nil, nil
			c.tap(ann, frontend.Pick, e.UID, e, 0, 1)
			c.gone(e.UID)
		})
	}
}

func TestNotAcceptedClearsSelection(t *testing.T) {
	c := newCore(t, Config{})
	q := opencode.Question{Question: "Which?", Multiple: true, Options: []opencode.Option{{Label: "A"}, {Label: "B"}}}
	e := c.asked("que_1", q)
	c.tap(ann, frontend.Toggle, e.UID, e, 0, 0)
	c.oc.replyErrs = []error{opencode.ErrNotAccepted}
	c.tap(ann, frontend.Submit, e.UID, e, 0, 0)
	if got := c.entry(e.UID); len(got.Selected) != 0 || got.Current != 0 {
		t.Errorf("entry after refused answer = %+v", got)
	}
	if err := c.b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m := c.message(e); !m.Open || len(selected(m)) != 0 {
		t.Errorf("message after refused answer = %+v, want open with nothing selected", m)
	}
}

func TestAnsweredElsewhere(t *testing.T) {
	c := newCore(t, Config{})
	e1 := c.asked("que_1", dbQuestion())
	e2 := c.asked("que_2", dbQuestion())
	ctx := context.Background()

	c.b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionReplied, QuestionReplied: &opencode.QuestionReplied{
		SessionID: e1.SessionID, RequestID: "que_1", Answers: [][]string{{"SQLite"}}}})
	c.gone(e1.UID)
	c.wantIn(c.closedAs(e1, frontend.AnsweredElsewhere), `answers=[["SQLite"]]`)

	c.b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionRejected, QuestionRejected: &opencode.QuestionRejected{
		SessionID: e2.SessionID, RequestID: "que_2"}})
	c.gone(e2.UID)
	c.closedAs(e2, frontend.Dismissed)

	// Our own answer's echo, and a press on the closed request.
	before := c.fe.Messages()
	c.b.HandleEvent(ctx, opencode.Event{Type: opencode.TypeQuestionReplied, QuestionReplied: &opencode.QuestionReplied{RequestID: "que_1"}})
	if after := c.fe.Messages(); !reflect.DeepEqual(before, after) {
		t.Errorf("echo of a closed request changed a message:\n%+v\n%+v", before, after)
	}
	if ack := c.tap(ann, frontend.Pick, e1.UID, e1, 0, 0); ack != en(i18n.ToastAnsweredElsewhere) {
		t.Errorf("press on closed request told %q", ack)
	}
}

// A panic while answering gives the request's lock back: the next press
// gets through.
func TestPanicInPressReleasesTheRequest(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	c.b.cfg.Servers[""] = panicky{}
	var acks []string
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("the resolver's panic did not reach the front-end")
			}
		}()
		c.b.HandlePress(context.Background(), zerolog.Nop(), c.fe.Press(e.UID, frontend.Pick, 0, 0, ann, msgID(e), &acks))
	}()
	if len(acks) != 1 {
		t.Errorf("panicked press acknowledged %d times", len(acks))
	}
	c.b.cfg.Servers[""] = c.oc
	c.tap(ann, frontend.Pick, e.UID, e, 0, 0)
	if len(c.oc.Replies()) != 1 {
		t.Fatal("request stuck after a panic")
	}
}

type panicky struct{ Opencode }

func (panicky) ResolveQuestionID(context.Context, opencode.QuestionRef) (string, error) {
	panic("resolver exploded")
}

func TestExpireDue(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	start := c.now
	old := c.asked("que_old", dbQuestion())
	c.now = start.Add(50 * time.Second)
	young := c.asked("que_young", dbQuestion())

	c.now = start.Add(61 * time.Second)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.gone(old.UID)
	c.entry(young.UID)
	if got := c.oc.rejects; len(got) != 1 || got[0] != "que_old" {
		t.Fatalf("rejects = %q", got)
	}
	c.wantIn(c.closedAs(old, frontend.Expired), fmt.Sprintf("told=%d", frontend.ToldDismissed))
	if ack := c.tap(ann, frontend.Pick, old.UID, old, 0, 0); ack != en(i18n.ToastExpired) {
		t.Errorf("press on expired request told %q", ack)
	}

	c.now = start.Add(200 * time.Second)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.gone(young.UID)
}

// hermes-bot stopping in the middle of an expiry finishes it: a reject
// cut off would count as failed, and the message would never say that
// the request expired.
func TestExpireDueFinishesAtShutdown(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	e := c.asked("que_old", dbQuestion())
	c.now = c.now.Add(61 * time.Second)
	ctx, stop := context.WithCancel(context.Background())
	c.oc.onReject = stop // the stop comes while opencode is being told
	_ = c.b.ExpireDue(ctx)
	c.gone(e.UID)
	if got := c.oc.rejects; len(got) != 1 || got[0] != "que_old" {
		t.Fatalf("rejects = %q, want que_old rejected", got)
	}
	c.wantIn(c.closedAs(e, frontend.Expired), fmt.Sprintf("told=%d", frontend.ToldDismissed))
}

func TestPromptFailure(t *testing.T) {
	c := newCore(t, Config{})
	e := c.asked("que_1", dbQuestion())
	before := c.entry(e.UID)
	c.fe.Fail("Collect", errors.New("429"))
	if ack := c.tap(ann, frontend.Type, e.UID, e, 0, 0); ack != en(i18n.ToastPromptFailed) {
		t.Errorf("press told %q", ack)
	}
	if after := c.entry(e.UID); !reflect.DeepEqual(before, after) {
		t.Errorf("entry changed:\n%+v\n%+v", before, after)
	}
}

func TestSelectionDoesNotCarryToNextQuestion(t *testing.T) {
	c := newCore(t, Config{})
	q := opencode.Question{Question: "Which?", Multiple: true, Options: []opencode.Option{{Label: "A"}, {Label: "B"}}}
	e := c.asked("que_1", q, q)
	c.tap(ann, frontend.Toggle, e.UID, e, 0, 0)
	c.tap(ann, frontend.Submit, e.UID, e, 0, 0)
	if m := c.message(e); m.Request.Members[0].Current != 1 || len(selected(m)) != 0 {
		t.Errorf("second question starts with %+v", m.Request.Members[0])
	}
	c.tap(ann, frontend.Toggle, e.UID, e, 1, 1)
	c.tap(ann, frontend.Submit, e.UID, e, 1, 0)
	want := [][]string{{"A"}, {"B"}}
	if r := c.oc.Replies(); len(r) != 1 || !reflect.DeepEqual(r[0].Answers, want) {
		t.Fatalf("replies = %+v, want %v", r, want)
	}
}

// A question is stored after its message is posted. A press that comes
// in between, from someone quick on a fast link, waits for the store
// rather than being told the request is closed.
func TestPressBeforeStoredWaits(t *testing.T) {
	c := newCore(t, Config{})
	c.b.lockWait = 10 * time.Second // the press must not give up: this is not about busy presses
	pressed := make(chan []string, 1)
	c.fe.OnPost(func(m frontendtest.Message) {
		var acks []string
		c.b.HandlePress(context.Background(), zerolog.Nop(), c.fe.Press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID, &acks))
		pressed <- acks
	})
	c.b.HandleEvent(context.Background(), askedEvent("que_early", dbQuestion()))
	if acks := <-pressed; len(acks) != 1 || acks[0] != en(i18n.ToastSending) {
		t.Errorf("press told %q, want %q", acks, en(i18n.ToastSending))
	}
	if r := c.oc.Replies(); len(r) != 1 || r[0].RequestID != "que_early" || !reflect.DeepEqual(r[0].Answers, [][]string{{"Postgres"}}) {
		t.Fatalf("opencode got %+v, want one reply Postgres to que_early", r)
	}
	if list, _ := c.store.List(); len(list) != 0 {
		t.Errorf("entries left: %+v", list)
	}
}

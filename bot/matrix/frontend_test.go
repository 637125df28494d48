package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/matrix/matrixtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// fakeCore records what the front-end hands the life cycle. A press of
// Type or RejectWithReason makes the request await text and calls
// Collect, as the bridge does. Methods the tests do not expect panic
// (the embedded nil Core).
type fakeCore struct {
	frontend.Core
	fe *Frontend

	mu        sync.Mutex
	changed   chan struct{}
	presses   []frontend.Press
	inputs    []frontend.Input
	open      []*frontend.View
	awaits    map[string]bool
	sessions  map[pending.Place]pending.SessionRef
	continued []string
	// submitAck is what a Submit press is answered with.
	submitAck string
	paused    []pending.Always
	resumed   []string
}

func (c *fakeCore) AutoApproval(context.Context) (frontend.AutoApproval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return frontend.AutoApproval{Policy: "low", Paused: c.paused}, nil
}

func (c *fakeCore) ResumeAutoApproval(_ context.Context, _ zerolog.Logger, server, dir string, u frontend.User) (bool, error) {
	c.record(func() { c.resumed = append(c.resumed, server+":"+dir+" by "+u.ID) })
	return true, nil
}

func newFakeCore() *fakeCore {
	return &fakeCore{changed: make(chan struct{}), awaits: map[string]bool{}, sessions: map[pending.Place]pending.SessionRef{}}
}

func (c *fakeCore) record(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
}

// wait waits until cond, read under the lock, holds.
func (c *fakeCore) wait(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for {
		c.mu.Lock()
		ok, ch := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Fatalf("%s: %v; presses %+v, inputs %+v", what, ctx.Err(), c.presses, c.inputs)
		}
	}
}

func (c *fakeCore) HandlePress(ctx context.Context, _ zerolog.Logger, p frontend.Press) {
	c.mu.Lock()
	ack := ""
	if p.Action == frontend.Submit {
		ack = c.submitAck
	} else if p.Action == frontend.Toggle {
		ack = "☑ toggled" // says nothing the poll does not show
	}
	c.mu.Unlock()
	p.Ack(ack)
	c.record(func() {
		p.Ack = nil
		c.presses = append(c.presses, p)
		if p.Action == frontend.Type || p.Action == frontend.RejectWithReason {
			c.awaits[p.Key] = true
		}
	})
	if p.Action == frontend.Type || p.Action == frontend.RejectWithReason {
		_ = c.fe.Collect(ctx, p.From, frontend.Request{Key: p.Key}, p.Question, p.Action == frontend.RejectWithReason, p.User)
	}
}

func (c *fakeCore) HandleInput(_ context.Context, _ zerolog.Logger, in frontend.Input) {
	c.record(func() { c.inputs = append(c.inputs, in) })
}

func (c *fakeCore) Awaits(key string, _ int, _ bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.awaits[key]
}

func (c *fakeCore) Open(context.Context, bool) ([]*frontend.View, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open, nil
}

func (c *fakeCore) SessionAt(_ context.Context, fe string, at pending.Place) (pending.SessionRef, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ref, ok := c.sessions[at]
	return ref, ok && fe == Name, nil
}

func (c *fakeCore) ContinueSession(_ context.Context, _ zerolog.Logger, ref pending.SessionRef, text string, _ frontend.User, _ frontend.Delivery) (frontend.Steered, error) {
	c.record(func() { c.continued = append(c.continued, ref.ID+": "+text) })
	return frontend.Steered{Ref: ref, Title: "Fix the build"}, nil
}

func (c *fakeCore) pressCount(act frontend.Action) int {
	n := 0
	for _, p := range c.presses {
		if p.Action == act {
			n++
		}
	}
	return n
}

// served is a front-end over a Client in r's room, serving core until
// stop (or the test's end).
func (r *rig) served(t *testing.T, ctx context.Context, core *fakeCore) (fe *Frontend, stop func()) {
	t.Helper()
	return r.servedWith(t, ctx, core, FrontendConfig{Version: "v-test"})
}

// servedWith is served with the front-end's settings cfg.
func (r *rig) servedWith(t *testing.T, ctx context.Context, core *fakeCore, cfg FrontendConfig) (fe *Frontend, stop func()) {
	t.Helper()
	c := r.client(t, ctx)
	fe = NewFrontend(c, r.state, cfg, zerolog.New(r.log))
	core.fe = fe
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- fe.Serve(sctx, core) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	t.Cleanup(stop)
	return fe, stop
}

func question(uid string, q frontend.Question) frontend.Request {
	return frontend.Request{Key: uid, Members: []*frontend.View{{UID: uid, Kind: frontend.KindQuestion,
		Directory: "/srv/shop", SessionID: "ses_" + uid, SessionTitle: "Fix the build", Questions: []frontend.Question{q}}}}
}

// pollOf waits, as u, for the poll asking text and returns it with the
// answers it offers.
func pollOf(t *testing.T, ctx context.Context, u *matrixtest.User, text string) (string, []string) {
	t.Helper()
	ev, err := u.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Type == typePollStart && strings.Contains(string(ev.Content), text)
	})
	if err != nil {
		t.Fatalf("no poll asking %q: %v", text, err)
	}
	var c struct {
		Start struct {
			Answers []map[string]string `json:"answers"`
		} `json:"org.matrix.msc3381.poll.start"`
	}
	if err := ev.Decode(&c); err != nil {
		t.Fatal(err)
	}
	var answers []string
	for _, a := range c.Start.Answers {
		answers = append(answers, a["id"]+"="+a[keyUnstableText])
	}
	return ev.ID, answers
}

// botSays waits, as u, for a message of the bot whose text holds text.
func botSays(t *testing.T, ctx context.Context, u *matrixtest.User, bot, text string) matrixtest.Event {
	t.Helper()
	ev, err := u.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Sender == bot && strings.Contains(shown(ev), text)
	})
	if err != nil {
		t.Fatalf("the bot never said %q: %v", text, err)
	}
	return ev
}

// shown is what a message event shows: its bodies, an edit's new ones.
func shown(ev matrixtest.Event) string {
	type body struct {
		Body string `json:"body"`
		HTML string `json:"formatted_body"`
	}
	var c struct {
		body
		New *body `json:"m.new_content"`
	}
	if ev.Type != typeMessage || ev.Decode(&c) != nil {
		return ""
	}
	s := c.Body + "\n" + c.HTML
	if c.New != nil {
		s += "\n" + c.New.Body + "\n" + c.New.HTML
	}
	return s
}

// testFrontendQuestions: a question of two steps, a new poll for the
// second, the first ended and its late votes ignored; a multiple choice
// taken by "done" and by ✅ once, a stranger's acts ignored; a typed
// reply with its quoted fallback; a close ending the poll.
func testFrontendQuestions(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	core := newFakeCore()
	fe, _ := r.served(t, ctx, core)
	r.joined(t, ctx, r.alice)
	bot := r.settings.UserID

	// Two questions: a poll each, in turn.
	req := question("que_a", frontend.Question{Text: "Which colour?", Header: "Colour",
		Options: []frontend.Option{{Label: "red", Description: "warm"}, {Label: "blue"}}})
	e := req.Members[0]
	e.Questions = append(e.Questions, frontend.Question{Text: "Which size?", Options: []frontend.Option{{Label: "S"}, {Label: "M"}}})
	at, err := fe.Post(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	// Posted again (a crash before its place was kept): the same events.
	if again, err := fe.Post(ctx, req); err != nil || again != at {
		t.Fatalf("posted again at %s (%v), want %s", again, err, at)
	}
	var rec requestRecord
	if _, err := fe.get(keyRequest+placeAt(at).Event, &rec); err != nil || len(rec.Polls) != 1 {
		t.Fatalf("record %+v (%v): want one poll", rec, err)
	}
	poll1, answers := pollOf(t, ctx, r.alice, "Which colour?")
	if fmt.Sprint(answers) != "[o0=red o1=blue]" {
		t.Fatalf("answers %v", answers)
	}
	if _, err := r.mallory.Vote(ctx, r.room, poll1, "o0"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.VoteStable(ctx, r.room, poll1, "o1"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "alice's pick", func() bool { return len(core.presses) == 1 })
	if p := core.presses[0]; p.Action != frontend.Pick || p.Question != 0 || p.Option != 1 || p.User.ID != r.alice.ID ||
		p.Frontend != Name || p.From != at || p.Key != "que_a" {
		t.Fatalf("press %+v", p)
	}
	e.Current = 1
	if err := fe.Refresh(ctx, at, req); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.WaitFor(ctx, func(ev matrixtest.Event) bool {
		return ev.Type == typePollEnd && strings.Contains(string(ev.Content), poll1)
	}); err != nil {
		t.Fatal(err)
	}
	poll2, _ := pollOf(t, ctx, r.alice, "Which size?")
	if err := fe.Refresh(ctx, at, req); err != nil { // shown already: nothing new
		t.Fatal(err)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll1, "o0"); err != nil { // ended: ignored
		t.Fatal(err)
	}
	if _, err := r.alice.Vote(ctx, r.room, poll2, "o0"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the second pick", func() bool { return len(core.presses) == 2 })
	if p := core.presses[1]; p.Question != 1 || p.Option != 0 {
		t.Fatalf("press %+v, want question 1 option 0 (the late vote on the first poll ignored)", p)
	}

	// Closed: the poll ends, the message says how, later votes count not.
	err = fe.Close(ctx, at, frontend.Closing{Request: req, Outcome: frontend.Outcome{How: frontend.Answered,
		Answers: [][]string{{"blue"}, {"S"}}, By: frontend.User{ID: r.alice.ID, Name: r.alice.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, "Answered by "+r.alice.ID+": blue; S")
	e.Current = 0 // a refresh handed over before the close lands after it: nothing
	if err := fe.Refresh(ctx, at, req); err != nil {
		t.Fatal(err)
	}
	if err := r.state.Put(keyEvent+"$unreadable", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Reply(ctx, r.room, "$unreadable", "", "ignored, and logged"); err != nil {
		t.Fatal(err)
	}

	// A multiple choice: "done" and ✅ take the sender's own selection.
	multi := question("que_m", frontend.Question{Text: "Which sizes?", Multiple: true,
		Options: []frontend.Option{{Label: "S"}, {Label: "M"}, {Label: "L"}}})
	core.record(func() {
		e := *multi.Members[0]
		e.Selected = []string{"S"}
		core.open = []*frontend.View{&e}
	})
	if _, err := fe.Post(ctx, multi); err != nil {
		t.Fatal(err)
	}
	pollM, answers := pollOf(t, ctx, r.alice, "") // the next poll: none came from the late refresh
	if fmt.Sprint(answers) != "[o0=S o1=M o2=L]" {
		t.Fatalf("the poll after the close has answers %v, want the multiple choice's", answers)
	}
	if _, err := r.alice.Vote(ctx, r.room, pollM, "o1", "o2"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mallory.Vote(ctx, r.room, pollM, "o0"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mallory.React(ctx, r.room, pollM, "✅"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.mallory.Reply(ctx, r.room, pollM, "", "done"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Reply(ctx, r.room, pollM, "Which sizes?", "Done"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the selection submitted", func() bool { return core.pressCount(frontend.Submit) == 1 })
	var toggled []int
	for _, p := range core.presses[2:] {
		if p.Action == frontend.Toggle {
			toggled = append(toggled, p.Option)
		}
	}
	if fmt.Sprint(toggled) != "[0 1 2]" {
		t.Fatalf("toggles %v, want S off and M, L on: %+v", toggled, core.presses)
	}
	if _, err := r.alice.React(ctx, r.room, pollM, "✅"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.React(ctx, r.room, pollM, "✅\uFE0F"); err != nil { // the same reaction again
		t.Fatal(err)
	}
	if _, err := r.alice.SendText(ctx, r.room, "!pending"); err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, "Waiting for you: 1")
	if fe.c.LastSync().IsZero() { // the batch of its join was handled before this one
		t.Error("LastSync is zero after syncs were handled")
	}
	if !strings.Contains(r.log.String(), "a record of the front-end is unreadable, ignored") {
		t.Errorf("the reply to a message with an unreadable record was not logged:\n%s", r.log)
	}
	if n := core.pressCount(frontend.Submit); n != 2 {
		t.Fatalf("%d submits, want 2: the ✅ acts once, a stranger's not at all", n)
	}

	// A typed answer: a reply, its quoted fallback stripped, asked for on
	// the sender's behalf without a prompt.
	typed := question("que_t", frontend.Question{Text: "Name the branch", Custom: true})
	tat, err := fe.Post(ctx, typed)
	if err != nil {
		t.Fatal(err)
	}
	msg := botSays(t, ctx, r.alice, bot, "Name the branch")
	if _, err := r.mallory.Reply(ctx, r.room, msg.ID, "", "evil"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Reply(ctx, r.room, msg.ID, "Name the branch", "feature/mx"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the typed answer", func() bool { return len(core.inputs) == 1 })
	if in := core.inputs[0]; in.Key != "que_t" || in.Text != "feature/mx" || in.Reason || in.User.ID != r.alice.ID {
		t.Fatalf("input %+v", in)
	}
	if p := core.presses[len(core.presses)-1]; p.Action != frontend.Type || p.From != tat {
		t.Fatalf("press %+v, want Type from the message", p)
	}
	rec = requestRecord{}
	if _, err := fe.get(keyRequest+placeAt(tat).Event, &rec); err != nil || len(rec.Polls) != 0 || !rec.Typed {
		t.Fatalf("typed question's record %+v (%v): want no poll", rec, err)
	}

	// A message in the request's thread is a reply to it.
	thread := question("que_th", frontend.Question{Text: "Name the tag", Custom: true})
	if _, err := fe.Post(ctx, thread); err != nil {
		t.Fatal(err)
	}
	msg = botSays(t, ctx, r.alice, bot, "Name the tag")
	if _, err := r.alice.Send(ctx, r.room, typeMessage, map[string]any{"msgtype": "m.text", "body": "v1.2.3",
		"m.relates_to": map[string]any{"rel_type": relThread, "event_id": msg.ID, "is_falling_back": true,
			"m.in_reply_to": map[string]string{"event_id": msg.ID}}}); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the answer in the thread", func() bool { return len(core.inputs) == 2 })
	if in := core.inputs[1]; in.Key != "que_th" || in.Text != "v1.2.3" {
		t.Fatalf("input %+v", in)
	}
}

// testFrontendPermissionsAndForms: a permission's poll and a reply as the
// reason of a reject; a form's yes/no and optional fields, and a link;
// a reply to a notice continuing its session; after a restart, a ✅ takes
// the vote cast before it.
func testFrontendPermissionsAndForms(t *testing.T, su *suite) {
	r, ctx := su.newRig(t)
	core := newFakeCore()
	fe, stop := r.served(t, ctx, core)
	r.joined(t, ctx, r.alice)
	bot := r.settings.UserID

	meta, _ := json.Marshal(map[string]string{"command": "rm -rf build && make"})
	perm := frontend.Request{Key: "per_1", Members: []*frontend.View{{UID: "per_1", Kind: frontend.KindPermission,
		Directory: "/srv/shop", SessionID: "ses_1", Permission: &frontend.Permission{Kind: "bash",
			Patterns: []string{"rm -rf build && make"}, Metadata: meta}}}}
	pat, err := fe.Post(ctx, perm)
	if err != nil {
		t.Fatal(err)
	}
	msg := botSays(t, ctx, r.alice, bot, "<pre><code>rm -rf build &amp;&amp; make</code></pre>")
	if !strings.Contains(shown(msg), "🔴 <b>high risk</b>") {
		t.Fatalf("permission message %s: want its risk, high", msg.Content)
	}
	poll, answers := pollOf(t, ctx, r.alice, "Allow rm -rf build")
	if fmt.Sprint(answers) != "[once=✅ Allow once always=♾️ Always allow reject=❌ Reject]" {
		t.Fatalf("answers %v", answers)
	}
	if _, err := r.alice.Reply(ctx, r.room, poll, "", "not the build folder"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the reason", func() bool { return len(core.inputs) == 1 })
	if in := core.inputs[0]; !in.Reason || in.Text != "not the build folder" || in.Key != "per_1" {
		t.Fatalf("input %+v", in)
	}
	if p := core.presses[0]; p.Action != frontend.RejectWithReason || p.From != pat {
		t.Fatalf("press %+v", p)
	}

	// An identical request joins the message: it says so, its poll stays.
	twin := *perm.Members[0]
	twin.UID = "per_2"
	perm.Members = append(perm.Members, &twin)
	if err := fe.Refresh(ctx, pat, perm); err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, "×2")

	// A form: yes/no, then an optional text field, then a link.
	form := question("frm_1", frontend.Question{Key: "ok", Type: frontend.TypeBoolean, Text: "Proceed?", Required: true,
		Options: []frontend.Option{{Label: "Yes", Value: "true"}, {Label: "No", Value: "false"}}})
	fq := &form.Members[0].Questions
	*fq = append(*fq, frontend.Question{Key: "n", Type: frontend.TypeInteger, Text: "How many?"})
	form.Members[0].Form = &frontend.Form{Mode: "form", Title: "Release"}
	fat, err := fe.Post(ctx, form)
	if err != nil {
		t.Fatal(err)
	}
	_, answers = pollOf(t, ctx, r.alice, "") // the next poll: the refresh posted none
	if fmt.Sprint(answers) != "[o0=Yes o1=No]" {
		t.Fatalf("yes/no answers %v", answers)
	}
	form.Members[0].Current = 1
	if err := fe.Refresh(ctx, fat, form); err != nil {
		t.Fatal(err)
	}
	_, answers = pollOf(t, ctx, r.alice, "How many?")
	if fmt.Sprint(answers) != "[skip=⏭ Skip]" {
		t.Fatalf("optional number's answers %v", answers)
	}
	link := question("frm_2", frontend.Question{})
	link.Members[0].Questions = nil
	link.Members[0].Form = &frontend.Form{Mode: frontend.FormModeURL, URL: "https://example.org/auth", Title: "Sign in"}
	if _, err := fe.Post(ctx, link); err != nil {
		t.Fatal(err)
	}
	lpoll, answers := pollOf(t, ctx, r.alice, "Done with the link?")
	if fmt.Sprint(answers) != "[done=✅ Done cancel=✖️ Cancel]" {
		t.Fatalf("link answers %v", answers)
	}
	if _, err := r.alice.Vote(ctx, r.room, lpoll, "done"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "done", func() bool { return core.pressCount(frontend.Submit) == 1 })

	// A reply to a notice continues its session.
	nat, err := fe.Notify(ctx, frontend.Notice{Directory: "/srv/shop", SessionID: "ses_9", Title: "Fix the build", Body: "All green."})
	if err != nil {
		t.Fatal(err)
	}
	core.record(func() { core.sessions[nat] = pending.SessionRef{Directory: "/srv/shop", ID: "ses_9"} })
	if _, err := r.mallory.Reply(ctx, r.room, placeAt(nat).Event, "", "rm -rf /"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.Reply(ctx, r.room, placeAt(nat).Event, "All green.", "now deploy it"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the session continued", func() bool { return len(core.continued) == 1 })
	if core.continued[0] != "ses_9: now deploy it" {
		t.Fatalf("continued %v", core.continued)
	}
	botSays(t, ctx, r.alice, bot, "→ sent to <b>Fix the build</b>")

	// Auto-approval paused by an always answer, resumed from the room.
	core.record(func() {
		core.paused = []pending.Always{{Directory: "/srv/shop", Kind: "edit", At: time.Now().Add(-time.Hour)}}
	})
	if _, err := r.alice.SendText(ctx, r.room, "!autoapprove"); err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, "1. <b>shop</b>: Always allow on <code>edit</code>")
	if _, err := r.alice.SendText(ctx, r.room, "!autoapprove resume 1"); err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, "Auto-approval resumed in <b>shop</b>")
	core.wait(t, ctx, "resumed", func() bool { return fmt.Sprint(core.resumed) == "[:/srv/shop by "+r.alice.ID+"]" })

	// A vote before a restart, a ✅ after it: the selection is the vote.
	multi := question("que_r", frontend.Question{Text: "Which files?", Multiple: true,
		Options: []frontend.Option{{Label: "a.go"}, {Label: "b.go"}}})
	core.record(func() { core.open = []*frontend.View{multi.Members[0]} })
	if _, err := fe.Post(ctx, multi); err != nil {
		t.Fatal(err)
	}
	mpoll, _ := pollOf(t, ctx, r.alice, "Which files?")
	if _, err := r.alice.Vote(ctx, r.room, mpoll, "o1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.alice.SendText(ctx, r.room, "!status"); err != nil {
		t.Fatal(err)
	}
	botSays(t, ctx, r.alice, bot, "Waiting for you: 1")
	stop() // a restart: a new front-end over the same State
	r.served(t, ctx, core)
	core.record(func() { core.submitAck = "Choose at least 2 options" })
	if _, err := r.alice.React(ctx, r.room, mpoll, "✅"); err != nil {
		t.Fatal(err)
	}
	core.wait(t, ctx, "the selection after a restart", func() bool { return core.pressCount(frontend.Submit) == 2 })
	p := core.presses[len(core.presses)-2]
	if p.Action != frontend.Toggle || p.Option != 1 {
		t.Fatalf("press %+v, want b.go toggled from the vote before the restart", p)
	}
	// The life cycle's answer to the submit is news: said in the room.
	botSays(t, ctx, r.alice, bot, "Choose at least 2 options")
}

func TestQuietAck(t *testing.T) {
	for _, lang := range i18n.Languages() {
		f := NewFrontend(nil, nil, FrontendConfig{Lang: lang}, zerolog.Nop())
		tx := i18n.For(lang)
		for _, text := range []string{"", tx.Toast(i18n.ToastSending), tx.Toast(i18n.ToastTypeAnswer), "☑ S", "☐ M",
			tx.SavedNext(tx.Title("Size", 1))} {
			if !f.quietAck(text) {
				t.Errorf("%s: %q said in the room; the room shows it already", lang, text)
			}
		}
		for _, text := range []string{tx.Toast(i18n.ToastBusy), tx.Toast(i18n.ToastAnswered), tx.Toast(i18n.ToastSelectFirst), "Choose at least 2"} {
			if f.quietAck(text) {
				t.Errorf("%s: %q not said in the room", lang, text)
			}
		}
	}
}

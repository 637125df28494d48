package bot

import (
	"context"
	"encoding/json"
	"fmt"
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

// formEvent is form.created of form id in testSession.
func formEvent(id string, fields ...opencode.FormField) opencode.Event {
	return opencode.Event{
		Directory: "/home/user/projects/demo", Type: opencode.TypeFormCreated, Surface: opencode.SurfaceAPI, Generation: 2,
		FormAsked: &opencode.Form{ID: id, SessionID: testSession, Title: "Setup", Mode: opencode.FormModeFields, Fields: fields},
	}
}

func ptr[T any](v T) *T { return &v }

func opts(pairs ...string) []opencode.FormOption {
	var out []opencode.FormOption
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, opencode.FormOption{Value: pairs[i], Label: pairs[i+1]})
	}
	return out
}

// askForm makes opencode ask ev's form and returns its message.
func (c *core) askForm(ev opencode.Event) frontendtest.Message {
	c.t.Helper()
	c.b.HandleEvent(context.Background(), ev)
	return c.shown(ev.FormAsked.ID)
}

// current is the field form id asks now, as its message shows it.
func (c *core) current(id string) int {
	c.t.Helper()
	m := c.shown(id)
	if !m.Open {
		c.t.Fatalf("form %s's message is closed: %+v", id, m)
	}
	return m.Request.Members[0].Current
}

// typeText asks for a typed answer to field qi of message m and replies
// text to the prompt, as user.
func (c *core) typeText(m frontendtest.Message, qi int, user frontend.User, text string) {
	c.t.Helper()
	c.press(m.Request.Key, frontend.Type, qi, 0, user, m.ID)
	c.reply(user, text)
}

// reply replies text to the last prompt.
func (c *core) reply(user frontend.User, text string) {
	c.t.Helper()
	ps := c.fe.Prompts()
	if len(ps) == 0 {
		c.t.Fatal("no prompt to reply to")
	}
	p := ps[len(ps)-1]
	p.User = user
	c.b.HandleInput(context.Background(), zerolog.Nop(), c.fe.Input(p, text))
}

// formReplied checks opencode got exactly one answer, want (its JSON).
func (c *core) formReplied(want string) {
	c.t.Helper()
	r := c.oc.FormReplies()
	if len(r) != 1 || r[0].Answer != want || r[0].SessionID != testSession {
		c.t.Fatalf("opencode got %+v, want one answer %s", r, want)
	}
}

// Every field type answered as a person would reaches opencode typed:
// option values, numbers, booleans, lists.
func TestFormEveryFieldType(t *testing.T) {
	c := newCore(t, Config{})
	m := c.askForm(formEvent("frm_1",
		opencode.FormField{Key: "db", Type: "string", Title: "Database", Required: true, Options: opts("pg", "Postgres", "lite", "SQLite")},
		opencode.FormField{Key: "name", Type: "string", Required: true, MinLength: ptr(2)},
		opencode.FormField{Key: "count", Type: "integer", Required: true, Minimum: ptr(1.0), Maximum: ptr(10.0)},
		opencode.FormField{Key: "ratio", Type: "number", Required: true},
		opencode.FormField{Key: "ok", Type: "boolean", Required: true},
		opencode.FormField{Key: "tags", Type: "multiselect", Required: true, MaxItems: ptr(2), Options: opts("a", "Alpha", "b", "Beta", "c", "Gamma")},
		opencode.FormField{Key: "other", Type: "string", Required: true, Custom: true, Options: opts("x", "X")},
		opencode.FormField{Key: "more", Type: "multiselect", Custom: true, Options: opts("m1", "One")},
	))
	e, err := c.store.Get(m.Request.Key)
	if err != nil {
		t.Fatal(err)
	}
	if e.Form == nil || e.Generation != 2 || e.Surface != "api" || e.Kind != pending.KindQuestion || len(e.Questions) != 8 {
		t.Fatalf("form stored as %+v", e)
	}
	if q := e.Questions[4]; len(q.Options) != 2 || q.Options[0].Value != "true" || q.Options[1].Label != "No" {
		t.Errorf("boolean field's options %+v, want Yes/No", q.Options)
	}
	key := m.Request.Key
	c.press(key, frontend.Pick, 0, 1, ann, m.ID)
	c.typeText(m, 1, ann, "Bob")
	c.typeText(m, 2, ann, "7")
	c.typeText(m, 3, ann, "2.5")
	c.press(key, frontend.Pick, 4, 0, ann, m.ID)
	c.press(key, frontend.Toggle, 5, 2, ann, m.ID)
	c.press(key, frontend.Toggle, 5, 0, ann, m.ID)
	if acks := c.press(key, frontend.Pick, 5, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastUnknown) {
		t.Errorf("pick on a multiselect told %q", acks)
	}
	c.press(key, frontend.Submit, 5, 0, ann, m.ID)
	c.typeText(m, 6, ann, "Mongo")
	// A typed choice of a multiselect goes beside the ones ticked.
	c.press(key, frontend.Toggle, 7, 0, ann, m.ID)
	c.typeText(m, 7, ann, "Two")
	c.formReplied(`{"answer":{"count":7,"db":"lite","more":["m1","Two"],"name":"Bob","ok":true,"other":"Mongo","ratio":2.5,"tags":["a","c"]}}`)
	if len(c.oc.Replies()) != 0 {
		t.Errorf("a form was answered as a 1.x question: %+v", c.oc.Replies())
	}
	got, _ := c.fe.Message(m.ID)
	if got.Open || !strings.Contains(got.Outcome, `answers=[["SQLite"] ["Bob"] ["7"] ["2.5"] ["Yes"] ["Alpha" "Gamma"] ["Mongo"] ["One" "Two"]]`) {
		t.Fatalf("message ends as %+v", got)
	}
}

// Fields whose conditions do not hold are passed over and left out;
// an optional field can be skipped.
func TestFormWhenAndSkip(t *testing.T) {
	fields := []opencode.FormField{
		{Key: "mode", Type: "string", Required: true, Options: opts("auto", "Automatic", "manual", "Manual")},
		{Key: "path", Type: "string", Required: true, When: opencode.FormWhen{{Key: "mode", Op: "eq", Value: json.RawMessage(`"manual"`)}}},
		{Key: "note", Type: "string"},
		{Key: "notify", Type: "boolean"},
		{Key: "email", Type: "string", Format: "email", When: opencode.FormWhen{{Key: "notify", Op: "eq", Value: json.RawMessage(`true`)}}},
		{Key: "level", Type: "integer", When: opencode.FormWhen{{Key: "mode", Op: "neq", Value: json.RawMessage(`"auto"`)}}},
	}
	t.Run("passed over", func(t *testing.T) {
		c := newCore(t, Config{})
		m := c.askForm(formEvent("frm_1", fields...))
		if acks := c.press(m.Request.Key, frontend.Skip, 0, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastUnknown) {
			t.Errorf("skip of a required field told %q", acks)
		}
		c.press(m.Request.Key, frontend.Pick, 0, 0, ann, m.ID)
		if qi := c.current("frm_1"); qi != 2 {
			t.Fatalf("after Automatic the form asks field %d, want 2 (path passed over)", qi)
		}
		c.press(m.Request.Key, frontend.Skip, 2, 0, ann, m.ID)
		c.press(m.Request.Key, frontend.Pick, 3, 1, ann, m.ID) // No: email and level are not asked
		c.formReplied(`{"answer":{"mode":"auto","notify":false}}`)
	})
	t.Run("asked", func(t *testing.T) {
		c := newCore(t, Config{})
		m := c.askForm(formEvent("frm_2", fields...))
		c.press(m.Request.Key, frontend.Pick, 0, 1, ann, m.ID)
		if qi := c.current("frm_2"); qi != 1 {
			t.Fatalf("after Manual the form asks field %d, want 1", qi)
		}
		c.typeText(m, 1, ann, "/srv")
		c.typeText(m, 2, ann, "hi")
		c.press(m.Request.Key, frontend.Pick, 3, 0, ann, m.ID)
		c.typeText(m, 4, ann, "ann@example.com")
		c.press(m.Request.Key, frontend.Skip, 5, 0, ann, m.ID)
		c.formReplied(`{"answer":{"email":"ann@example.com","mode":"manual","note":"hi","notify":true,"path":"/srv"}}`)
		got, _ := c.fe.Message(m.ID)
		if !strings.Contains(got.Outcome, `answers=[["Manual"] ["/srv"] ["hi"] ["Yes"] ["ann@example.com"] []]`) {
			t.Errorf("message ends as %+v", got)
		}
	})
}

// A typed answer that breaks its field's rules is refused with the rule,
// and asked for again; the form waits for it.
func TestFormTypedAnswerCheckedLocally(t *testing.T) {
	c := newCore(t, Config{})
	m := c.askForm(formEvent("frm_1",
		opencode.FormField{Key: "n", Type: "integer", Required: true, Minimum: ptr(1.0), Maximum: ptr(10.0)},
		opencode.FormField{Key: "mail", Type: "string", Required: true, Format: "email"},
		opencode.FormField{Key: "code", Type: "string", Required: true, Pattern: "^[A-Z]{3}$", MaxLength: ptr(3)},
		opencode.FormField{Key: "when", Type: "string", Required: true, Format: "date", Pattern: "(?<=x)"}, // not Go syntax: left to opencode
	))
	c.typeText(m, 0, ann, "abc")
	for _, text := range []string{"11", "3.5", "0"} {
		c.reply(ann, text)
	}
	c.reply(ann, "4")
	c.typeText(m, 1, ann, "not-an-address")
	c.reply(ann, "ann@example.com")
	c.typeText(m, 2, ann, "abcd")
	c.reply(ann, "abc")
	c.reply(ann, "ABC")
	c.typeText(m, 3, ann, "31/01/2025")
	c.reply(ann, "2025-01-31")
	ft := i18n.English.Form
	want := []string{ft.NotNumber, ft.TooLarge("10"), ft.NotInteger, ft.TooSmall("1"), ft.BadEmail,
		ft.TooLong(3), ft.NoMatch("^[A-Z]{3}$"), ft.BadDate}
	told := c.fe.Told()
	if len(told) != len(want) {
		t.Fatalf("told %q, want %d notes", told, len(want))
	}
	for i, w := range want {
		if !strings.Contains(told[i], w) {
			t.Errorf("note %d is %q, want it to say %q", i, told[i], w)
		}
	}
	// Each refusal asked again: a prompt per refusal, for the same field.
	if ps := c.fe.Prompts(); len(ps) != 4+len(want) {
		t.Errorf("%d prompts, want %d", len(ps), 4+len(want))
	}
	c.formReplied(`{"answer":{"code":"ABC","mail":"ann@example.com","n":4,"when":"2025-01-31"}}`)
}

// A multiselect takes as many options as its field allows.
func TestFormMultiselectItems(t *testing.T) {
	c := newCore(t, Config{})
	m := c.askForm(formEvent("frm_1",
		opencode.FormField{Key: "req", Type: "multiselect", Required: true, MaxItems: ptr(2), Options: opts("a", "A", "b", "B", "c", "C")},
		opencode.FormField{Key: "opt", Type: "multiselect", Options: opts("x", "X")},
		opencode.FormField{Key: "min", Type: "multiselect", MinItems: ptr(2), Options: opts("y", "Y", "z", "Z")},
	))
	key, at := m.Request.Key, m.ID
	if acks := c.press(key, frontend.Submit, 0, 0, ann, at); acks[0] != i18n.English.Form.TooFew(1) {
		t.Errorf("required multiselect submitted empty told %q", acks)
	}
	for oi := range 3 {
		c.press(key, frontend.Toggle, 0, oi, ann, at)
	}
	if acks := c.press(key, frontend.Submit, 0, 0, ann, at); acks[0] != i18n.English.Form.TooMany(2) {
		t.Errorf("three of at most two told %q", acks)
	}
	c.press(key, frontend.Toggle, 0, 1, ann, at)
	c.press(key, frontend.Submit, 0, 0, ann, at)
	c.press(key, frontend.Submit, 1, 0, ann, at) // optional: none is an answer
	if acks := c.press(key, frontend.Submit, 2, 0, ann, at); acks[0] != i18n.English.Form.TooFew(2) {
		t.Errorf("none of at least two told %q", acks)
	}
	c.press(key, frontend.Skip, 2, 0, ann, at)
	c.formReplied(`{"answer":{"opt":[],"req":["a","c"]}}`)
}

// opencode refusing the answer is told, with its reason, and the form is
// asked again from its first field.
func TestFormRefusedByServer(t *testing.T) {
	c := newCore(t, Config{})
	c.oc.formErrs = []error{&opencode.FormInvalidError{FormID: "frm_1", Message: "name <taken>"}}
	m := c.askForm(formEvent("frm_1",
		opencode.FormField{Key: "skip", Type: "string", When: opencode.FormWhen{{Key: "name", Op: "eq", Value: json.RawMessage(`"z"`)}}},
		opencode.FormField{Key: "name", Type: "string", Required: true},
		opencode.FormField{Key: "ok", Type: "boolean", Required: true},
	))
	if qi := c.current("frm_1"); qi != 1 {
		t.Fatalf("form starts at field %d, want 1", qi)
	}
	c.typeText(m, 1, ann, "bob")
	c.press(m.Request.Key, frontend.Pick, 2, 0, ann, m.ID)
	told := c.fe.Told()
	if len(told) != 1 || !strings.Contains(told[0], "name &lt;taken&gt;") {
		t.Fatalf("told %q, want the reason escaped", told)
	}
	e, err := c.store.ByRequestID("", "frm_1")
	if err != nil || e.Answers != nil || e.Current != 1 || e.AwaitingText {
		t.Fatalf("after the refusal the form is %+v, %v; want it asked again from field 1", e, err)
	}
	if got := c.shown("frm_1"); !got.Open || got.Request.Members[0].Current != 1 {
		t.Fatalf("message shows %+v, want field 1 again", got)
	}
	c.typeText(m, 1, ann, "alice")
	c.press(m.Request.Key, frontend.Pick, 2, 1, ann, m.ID)
	r := c.oc.FormReplies()
	if len(r) != 2 || r[1].Answer != `{"answer":{"name":"alice","ok":false}}` {
		t.Fatalf("opencode got %+v", r)
	}
	if got, _ := c.fe.Message(m.ID); got.Open {
		t.Errorf("message still open after the answer was taken")
	}
}

// A form answered or cancelled in opencode closes, without buttons.
func TestFormClosedElsewhere(t *testing.T) {
	c := newCore(t, Config{})
	field := opencode.FormField{Key: "db", Type: "string", Required: true, Options: opts("pg", "Postgres", "lite", "SQLite")}
	m1 := c.askForm(formEvent("frm_1", field, opencode.FormField{Key: "n", Type: "number"}))
	m2 := c.askForm(formEvent("frm_2", field))
	c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypeFormReplied, Generation: 2,
		FormReplied: &opencode.FormReplied{ID: "frm_1", SessionID: testSession, Answer: json.RawMessage(`{"db":"pg","n":3}`)}})
	c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypeFormCancelled, Generation: 2,
		FormCancelled: &opencode.FormCancelled{ID: "frm_2", SessionID: testSession}})
	got1, _ := c.fe.Message(m1.ID)
	if got1.Open || !strings.Contains(got1.Outcome, fmt.Sprintf("how=%d", frontend.AnsweredElsewhere)) ||
		!strings.Contains(got1.Outcome, `answers=[["Postgres"] ["3"]]`) {
		t.Errorf("answered form ends as %+v", got1)
	}
	got2, _ := c.fe.Message(m2.ID)
	if got2.Open || !strings.Contains(got2.Outcome, fmt.Sprintf("how=%d", frontend.Dismissed)) {
		t.Errorf("cancelled form ends as %+v", got2)
	}
	if acks := c.press(m1.Request.Key, frontend.Pick, 0, 0, ann, m1.ID); acks[0] != i18n.English.Toast(i18n.ToastAnsweredElsewhere) {
		t.Errorf("late press told %q", acks)
	}
	if len(c.oc.FormReplies()) != 0 || len(c.oc.FormCancels()) != 0 {
		t.Errorf("opencode heard of forms closed there: %+v %+v", c.oc.FormReplies(), c.oc.FormCancels())
	}
	// A form.created read after it closed is not posted again.
	c.b.HandleEvent(context.Background(), formEvent("frm_1", field))
	if n := len(c.fe.Messages()); n != 2 {
		t.Errorf("%d messages, want the 2 forms only", n)
	}
}

// A form that is a link is done, or cancelled, from its buttons.
func TestURLForm(t *testing.T) {
	c := newCore(t, Config{})
	ev := func(id string) opencode.Event {
		e := formEvent(id)
		e.FormAsked.Mode, e.FormAsked.URL = opencode.FormModeURL, "https://example.com/login"
		return e
	}
	m := c.askForm(ev("frm_1"))
	if e := m.Request.Members[0]; !e.IsURLForm() || e.Form.URL != "https://example.com/login" || len(e.Questions) != 0 {
		t.Fatalf("link form stored as %+v", e)
	}
	if acks := c.press(m.Request.Key, frontend.Submit, 0, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastSending) {
		t.Errorf("done told %q", acks)
	}
	c.formReplied(`{"answer":{}}`)
	if got, _ := c.fe.Message(m.ID); got.Open || !strings.Contains(got.Outcome, fmt.Sprintf("how=%d", frontend.Answered)) {
		t.Errorf("done link form ends as %+v", got)
	}

	m2 := c.askForm(ev("frm_2"))
	c.press(m2.Request.Key, frontend.Cancel, 0, 0, ben, m2.ID)
	if cs := c.oc.FormCancels(); len(cs) != 1 || cs[0] != "frm_2" {
		t.Fatalf("cancelled %q, want frm_2", cs)
	}
	got, _ := c.fe.Message(m2.ID)
	if got.Open || !strings.Contains(got.Outcome, fmt.Sprintf("how=%d", frontend.Cancelled)) || !strings.Contains(got.Outcome, "by=Ben") {
		t.Errorf("cancelled link form ends as %+v", got)
	}
	if acks := c.press(m2.Request.Key, frontend.Submit, 0, 0, ann, m2.ID); acks[0] != i18n.English.Toast(i18n.ToastCancelled) {
		t.Errorf("late press told %q", acks)
	}
}

// A form nobody answers is cancelled in opencode when it expires.
func TestFormExpiryCancels(t *testing.T) {
	c := newCore(t, Config{TTL: time.Minute})
	m := c.askForm(formEvent("frm_1", opencode.FormField{Key: "n", Type: "number", Required: true}))
	c.now = c.now.Add(2 * time.Minute)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cs := c.oc.FormCancels(); len(cs) != 1 || cs[0] != "frm_1" {
		t.Fatalf("cancelled %q, want frm_1", cs)
	}
	if len(c.oc.rejects) != 0 {
		t.Errorf("a form was rejected as a 1.x question: %q", c.oc.rejects)
	}
	got, _ := c.fe.Message(m.ID)
	if got.Open || !strings.Contains(got.Outcome, fmt.Sprintf("how=%d", frontend.Expired)) {
		t.Errorf("expired form ends as %+v", got)
	}
}

// An entry written before forms is answered exactly as before: labels,
// through the question routes.
func TestEntryBeforeFormsAnsweredAsBefore(t *testing.T) {
	c := newCore(t, Config{})
	const old = `{"uid":"abcd1234","kind":"question","directory":"/p","sessionID":"ses_1","callID":"call_1",` +
		`"requestID":"que_1","questions":[{"text":"Which database?","header":"Database",` +
		`"options":[{"label":"Postgres"},{"label":"SQLite"}],"custom":true},` +
		`{"text":"Colours?","options":[{"label":"Red"},{"label":"Blue"}],"multiple":true,"custom":false}],` +
		`"place":{"chat":-42,"message":0},"createdAt":"2030-01-02T03:04:05Z","expiresAt":"2030-01-02T03:34:05Z"}`
	var e pending.Entry
	if err := json.Unmarshal([]byte(old), &e); err != nil {
		t.Fatal(err)
	}
	if err := c.store.Create(&e); err != nil {
		t.Fatal(err)
	}
	if err := c.b.SendUnsent(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := c.shown("que_1")
	c.press("abcd1234", frontend.Pick, 0, 1, ann, m.ID)
	if acks := c.press("abcd1234", frontend.Submit, 1, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastSelectFirst) {
		t.Errorf("empty submit told %q", acks)
	}
	if acks := c.press("abcd1234", frontend.Skip, 1, 0, ann, m.ID); acks[0] != i18n.English.Toast(i18n.ToastUnknown) {
		t.Errorf("skip of a 1.x question told %q", acks)
	}
	c.press("abcd1234", frontend.Toggle, 1, 1, ann, m.ID)
	c.press("abcd1234", frontend.Submit, 1, 0, ann, m.ID)
	r := c.oc.Replies()
	if len(r) != 1 || fmt.Sprint(r[0].Answers) != "[[SQLite] [Blue]]" || r[0].RequestID != "que_1" || r[0].Surface != "" {
		t.Fatalf("opencode got %+v, want [[SQLite] [Blue]] through the original route", r)
	}
	if len(c.oc.FormReplies()) != 0 {
		t.Errorf("a 1.x question was answered as a form")
	}
}

// A session's snapshot posts the forms it lists and closes those held
// that its list, when it succeeded, no longer has; nothing else.
func TestSessionSnapshotForms(t *testing.T) {
	c := newCore(t, Config{})
	field := opencode.FormField{Key: "n", Type: "number", Required: true}
	m1 := c.askForm(formEvent("frm_1", field))
	q := c.ask("que_1", dbQuestion())
	listed := formEvent("frm_2", field).FormAsked
	c.oc.forms = map[string][]opencode.Form{testSession: {*listed}}
	snap := opencode.Snapshot{SessionID: testSession, Generation: 2, Directory: "/home/user/projects/demo",
		Forms: []opencode.Form{*listed}, Taken: c.now.Add(time.Second)}

	c.b.HandleSnapshot(context.Background(), snap) // the list failed: nothing is gone
	if got, _ := c.fe.Message(m1.ID); !got.Open {
		t.Fatalf("form closed by a snapshot whose list failed: %+v", got)
	}
	m2 := c.shown("frm_2")
	if e := m2.Request.Members[0]; e.Form == nil || e.Generation != 2 {
		t.Errorf("listed form stored as %+v", e)
	}

	snap.FormsListed = true
	c.b.HandleSnapshot(context.Background(), snap)
	got, _ := c.fe.Message(m1.ID)
	if got.Open || !strings.Contains(got.Outcome, fmt.Sprintf("how=%d", frontend.Gone)) {
		t.Errorf("form no longer listed ends as %+v", got)
	}
	if got, _ := c.fe.Message(m2.ID); !got.Open {
		t.Errorf("listed form closed")
	}
	if got, _ := c.fe.Message(q.ID); !got.Open {
		t.Errorf("a 1.x question closed by a session's forms snapshot")
	}
	if n := len(c.fe.Messages()); n != 3 {
		t.Errorf("%d messages, want 3 (no form posted twice)", n)
	}

	// Its questions: one of the /api surface held and no longer listed is
	// gone once the list succeeded; a 1.x question is none of its business.
	ev := askedEvent("que_api", dbQuestion())
	ev.Type, ev.Surface, ev.Generation = opencode.TypeQuestionV2Asked, opencode.SurfaceAPI, 2
	ev.QuestionAsked.Surface = opencode.SurfaceAPI
	c.b.HandleEvent(context.Background(), ev)
	qa := c.shown("que_api")
	if e := qa.Request.Members[0]; e.Generation != 2 {
		t.Errorf("an OpenCode 2 question stored with generation %d", e.Generation)
	}
	snap.Taken = c.now.Add(2 * time.Second)
	snap.QuestionsListed, snap.PermissionsListed = true, true
	c.b.HandleSnapshot(context.Background(), snap)
	if got, _ := c.fe.Message(qa.ID); !got.Open {
		t.Fatalf("question closed by a snapshot that did not list questions")
	}
	snap.APIQuestionsListed, snap.APIPermissionsListed = true, true
	c.b.HandleSnapshot(context.Background(), snap)
	if got, _ := c.fe.Message(qa.ID); got.Open {
		t.Errorf("an OpenCode 2 question no longer listed stays open")
	}
	if got, _ := c.fe.Message(q.ID); !got.Open {
		t.Errorf("a 1.x question closed by a session's snapshot")
	}
}

package telegram_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

const (
	token  = "123:secret-token"
	chatID = int64(-1001234567890)
)

var (
	ann = telegramtest.User{ID: 7, FirstName: "Ann", Username: "ann"}
	eve = telegramtest.User{ID: 66, FirstName: "Eve"}
)

// The real clients fit the bridge, and the bridge fits the watcher.
var (
	_ bot.Opencode      = (*opencode.Client)(nil)
	_ telegram.Telegram = (*tgbot.Bot)(nil)
	_ opencode.Handler  = (*bot.Bridge)(nil)
)

// recordingOpencode accepts every answer and records it. It reads no
// agent's last words, and steers through steer when set.
type recordingOpencode struct {
	mu      sync.Mutex
	replies [][][]string
	perms   [][3]string // request ID, reply, message
	changed chan struct{}
	steer   *steerOpencode
	// replyErr, when set, is what ReplyQuestion returns (nothing recorded).
	replyErr error
}

// errNoSteer is what the steering calls return without a steerOpencode.
var errNoSteer = fmt.Errorf("recording opencode: steering not scripted: %w", opencode.ErrTransient)

func (o *recordingOpencode) RecentContext(context.Context, string, string, opencode.ContextOptions) ([]opencode.ContextLine, error) {
	return nil, nil
}

func (o *recordingOpencode) LastAssistantText(context.Context, string, string) (string, error) {
	return "", nil
}

// ToolCall and Agents fail: no request of these tests is auto-approved.
func (o *recordingOpencode) ToolCall(_ context.Context, _, _ string, ref opencode.ToolRef) (opencode.ToolCall, error) {
	return opencode.ToolCall{}, fmt.Errorf("read tool call %s: not scripted: %w", ref.CallID, opencode.ErrTransient)
}

func (o *recordingOpencode) Agents(context.Context, string) ([]opencode.Agent, error) {
	return nil, fmt.Errorf("list agents: not scripted: %w", opencode.ErrTransient)
}

func (o *recordingOpencode) CreateSession(ctx context.Context, dir, title string) (opencode.Session, error) {
	if o.steer == nil {
		return opencode.Session{}, errNoSteer
	}
	return o.steer.CreateSession(ctx, dir, title)
}

func (o *recordingOpencode) PromptAsync(ctx context.Context, dir, id, text string) error {
	if o.steer == nil {
		return errNoSteer
	}
	return o.steer.PromptAsync(ctx, dir, id, text)
}

func (o *recordingOpencode) Abort(ctx context.Context, dir, id string) error {
	if o.steer == nil {
		return errNoSteer
	}
	return o.steer.Abort(ctx, dir, id)
}

func (o *recordingOpencode) ListSessions(ctx context.Context, dir string) ([]opencode.Session, error) {
	if o.steer == nil {
		return nil, errNoSteer
	}
	return o.steer.ListSessions(ctx, dir)
}

func (o *recordingOpencode) BusySessions(ctx context.Context, dir string) (map[string]bool, error) {
	if o.steer == nil {
		return nil, errNoSteer
	}
	return o.steer.BusySessions(ctx, dir)
}

func (o *recordingOpencode) ListProjects(ctx context.Context) ([]opencode.Project, error) {
	if o.steer == nil {
		return nil, errNoSteer
	}
	return o.steer.ListProjects(ctx)
}

// The form calls fail: these tests ask no form.
func (o *recordingOpencode) ListSessionForms(context.Context, string) ([]opencode.Form, error) {
	return nil, fmt.Errorf("list forms: not scripted: %w", opencode.ErrTransient)
}

func (o *recordingOpencode) ReplyForm(_ context.Context, _, formID string, _ opencode.FormAnswer) error {
	return fmt.Errorf("reply form %s: not scripted: %w", formID, opencode.ErrTransient)
}

func (o *recordingOpencode) CancelForm(_ context.Context, _, formID string) error {
	return fmt.Errorf("cancel form %s: not scripted: %w", formID, opencode.ErrTransient)
}

// The calls of OpenCode 2 go to steer; without it the server is 1.x.
func (o *recordingOpencode) Generation() int {
	if o.steer == nil {
		return 1
	}
	return o.steer.Generation()
}

func (o *recordingOpencode) Steer(ctx context.Context, dir, id, text string) error {
	if o.steer == nil {
		return errNoSteer
	}
	return o.steer.Steer(ctx, dir, id, text)
}

func (o *recordingOpencode) ListSaved(ctx context.Context, projectID string) ([]opencode.SavedApproval, error) {
	if o.steer == nil {
		return nil, errNoSteer
	}
	return o.steer.ListSaved(ctx, projectID)
}

func (o *recordingOpencode) DeleteSaved(ctx context.Context, id string) error {
	if o.steer == nil {
		return errNoSteer
	}
	return o.steer.DeleteSaved(ctx, id)
}

func (o *recordingOpencode) ResolveQuestionID(_ context.Context, ref opencode.QuestionRef) (string, error) {
	return ref.RequestID, nil
}

func (o *recordingOpencode) ShowToast(context.Context, string, string, opencode.ToastVariant) error {
	return nil
}

// Requests answers for every surface alike.
func (o *recordingOpencode) Requests(opencode.Surface) opencode.Requests { return o }

func (o *recordingOpencode) Surface() opencode.Surface { return opencode.SurfaceLegacy }

func (o *recordingOpencode) ReplyQuestion(_ context.Context, _, _, _ string, answers [][]string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.replyErr != nil {
		return o.replyErr
	}
	o.replies = append(o.replies, answers)
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return nil
}

func (o *recordingOpencode) RejectQuestion(context.Context, string, string, string) error { return nil }

func (o *recordingOpencode) ReplyPermission(_ context.Context, _, _, requestID, reply, message string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.perms = append(o.perms, [3]string{requestID, reply, message})
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return nil
}

func (o *recordingOpencode) ListQuestions(context.Context, string) ([]opencode.QuestionRequest, error) {
	return nil, opencode.ErrTransient // not scripted: listed requests are posted unchecked
}

func (o *recordingOpencode) ListPermissions(context.Context, string) ([]opencode.PermissionRequest, error) {
	return nil, opencode.ErrTransient
}

func (o *recordingOpencode) GetSession(_ context.Context, _, id string) (opencode.Session, error) {
	if id == "ses_dd4235358ffeK4sOj0rQeppn49" {
		return opencode.Session{ID: id, Title: "Release prep", ParentID: "ses_parent"}, nil
	}
	if id == "ses_parent" {
		return opencode.Session{ID: id, Title: "Plan & ship"}, nil
	}
	return opencode.Session{}, fmt.Errorf("get session %s: %w", id, opencode.ErrNotFound)
}

func (o *recordingOpencode) Perms() [][3]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([][3]string(nil), o.perms...)
}

func (o *recordingOpencode) Replies() [][][]string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([][][]string(nil), o.replies...)
}

type rig struct {
	srv    *telegramtest.Server
	bridge *bot.Bridge
	oc     *recordingOpencode
	store  *pending.Store
	logs   *testlog.Buffer
}

// startRig runs a real go-telegram/bot client against the fake Bot API,
// polling, with the bridge wired as cmd/hermes-bot wires it.
func startRig(t *testing.T, allowed ...int64) (*rig, context.Context) {
	t.Helper()
	return startRigWith(t, telegram.Config{AllowedUserIDs: allowed})
}

// startRigWith is startRig with the front-end's settings cfg; the chat
// and the bot are the rig's own.
func startRigWith(t *testing.T, cfg telegram.Config) (*rig, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)

	srv := telegramtest.NewServer(token)
	t.Cleanup(srv.Close)
	if err := srv.AddChat(chatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	store, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })

	redactor := telegram.NewRedactor(token)
	tb := newFakeBot(t, srv, token)
	logs := &testlog.Buffer{}
	log := zerolog.New(logs)
	oc := &recordingOpencode{changed: make(chan struct{}, 1)}
	cfg.ChatID, cfg.BotID, cfg.BotUsername = chatID, tb.ID(), srv.BotUser().Username
	fe := telegram.New(cfg, telegram.RedactTelegram(tb, redactor), store, log)
	br := bot.NewBridge(bot.Config{Servers: map[string]bot.Opencode{"": oc}}, store, []frontend.Frontend{fe}, log)
	tb.RegisterHandlerMatchFunc(func(*models.Update) bool { return true }, fe.Handler(br), fe.Middlewares()...)

	polling, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tb.Start(polling)
	}()
	t.Cleanup(func() {
		stop()
		<-stopped
		if err := br.Wait(ctx); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("bridge log:\n%s", logs.String())
		}
	})
	return &rig{srv: srv, bridge: br, oc: oc, store: store, logs: logs}, ctx
}

func question(id string) opencode.Event {
	return opencode.Event{
		Directory: "/home/user/projects/demo",
		Type:      opencode.TypeQuestionAsked,
		QuestionAsked: &opencode.QuestionRequest{
			ID:        id,
			SessionID: "ses_dd4235358ffeK4sOj0rQeppn49",
			Questions: []opencode.Question{{
				Question: "Which database should I use? <b>&</b>",
				Header:   "Database",
				Options:  []opencode.Option{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "embedded"}},
			}},
			Tool: &opencode.ToolRef{MessageID: "msg_1", CallID: "call_1"},
		},
	}
}

// posted asks a question and returns its message as the fake holds it.
func (r *rig) posted(t *testing.T, ctx context.Context, id string) telegramtest.Message {
	t.Helper()
	r.bridge.HandleEvent(ctx, question(id))
	e, err := r.store.ByRequestID("", id)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := r.srv.Message(chatID, telegram.MessageAt(e.Places[telegram.Name]))
	if !ok || telegram.MessageAt(e.Places[telegram.Name]) == 0 {
		t.Fatalf("message of %s not posted (message ID %d)", id, telegram.MessageAt(e.Places[telegram.Name]))
	}
	return m
}

func (r *rig) waitReplies(t *testing.T, ctx context.Context, n int) [][][]string {
	t.Helper()
	for {
		if got := r.oc.Replies(); len(got) >= n {
			return got
		}
		select {
		case <-r.oc.changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %d replies: %v (got %d)", n, ctx.Err(), len(r.oc.Replies()))
		}
	}
}

func TestTelegramPressOption(t *testing.T) {
	r, ctx := startRig(t)
	m := r.posted(t, ctx, "que_1")
	var texts []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			texts = append(texts, b.Text)
		}
	}
	if want := []string{"Postgres", "SQLite", "✏️ Type an answer"}; !reflect.DeepEqual(texts, want) {
		t.Fatalf("buttons = %q, want %q", texts, want)
	}
	if !strings.Contains(m.PlainText, "Which database should I use? <b>&</b>") {
		t.Errorf("agent text shown as %q", m.PlainText)
	}

	cb, err := r.srv.PressButtonText(chatID, m.ID, ann, "SQLite")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.waitReplies(t, ctx, 1); !reflect.DeepEqual(got[0], [][]string{{"SQLite"}}) {
		t.Fatalf("replies = %v", got)
	}
	edited, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool {
		return x.ID == m.ID && strings.Contains(x.PlainText, "Answered by")
	})
	if err != nil {
		t.Fatal(err)
	}
	if edited.Keyboard != nil || !strings.Contains(edited.PlainText, "Answered by Ann (@ann)") || !strings.Contains(edited.PlainText, "→ SQLite") {
		t.Errorf("edited message: %q, keyboard %v", edited.PlainText, edited.Keyboard)
	}
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || a.Text != "Sending…" {
		t.Errorf("callback answer = %+v, %v", a, err)
	}
	if list, _ := r.store.List(); len(list) != 0 {
		t.Errorf("entries left: %+v", list)
	}
}

func TestTelegramTypedAnswer(t *testing.T) {
	r, ctx := startRig(t)
	m := r.posted(t, ctx, "que_1")
	cb, err := r.srv.PressButtonText(chatID, m.ID, ann, "✏️ Type an answer")
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool { return x.ForceReply != nil })
	if err != nil {
		t.Fatal(err)
	}
	if !prompt.ForceReply.Selective || prompt.ReplyTo != m.ID || !strings.Contains(prompt.PlainText, "Ann") {
		t.Errorf("prompt = %+v", prompt)
	}
	if !hasMention(prompt, ann.ID) {
		t.Errorf("prompt does not mention the presser: %+v", prompt.Entities)
	}
	// The toast comes once the prompt is recorded.
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "Reply") {
		t.Fatalf("callback answer = %+v, %v", a, err)
	}
	if _, err := r.srv.Reply(chatID, prompt.ID, ann, "CockroachDB & friends"); err != nil {
		t.Fatal(err)
	}
	if got := r.waitReplies(t, ctx, 1); !reflect.DeepEqual(got[0], [][]string{{"CockroachDB & friends"}}) {
		t.Fatalf("replies = %v", got)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool {
		return x.ID == m.ID && x.Keyboard == nil && strings.Contains(x.PlainText, "CockroachDB & friends")
	}); err != nil {
		t.Fatal(err)
	}
}

func hasMention(m telegramtest.Message, id int64) bool {
	for _, e := range m.Entities {
		if e.Type == "text_mention" || (e.Type == "text_link" && strings.Contains(e.URL, "tg://user?id=")) {
			return true
		}
	}
	return strings.Contains(m.Text, `tg://user?id=`)
}

func TestTelegramUserNotAllowed(t *testing.T) {
	r, ctx := startRig(t, ann.ID)
	m := r.posted(t, ctx, "que_1")
	cb, err := r.srv.PressButtonText(chatID, m.ID, eve, "Postgres")
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.srv.WaitAnswer(ctx, cb)
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != "You are not allowed to answer here" {
		t.Errorf("toast = %q", a.Text)
	}
	// The toast comes last in a refused press, so nothing more can follow.
	if n := len(r.oc.Replies()); n != 0 {
		t.Fatalf("a user not allowed answered (%d replies)", n)
	}
	now, _ := r.srv.Message(chatID, m.ID)
	if now.Edits != 0 || now.Keyboard == nil {
		t.Errorf("message changed: %+v", now)
	}
	if _, err := r.store.ByRequestID("", "que_1"); err != nil {
		t.Errorf("entry gone: %v", err)
	}
}

func TestTelegramEveryCallbackAnswered(t *testing.T) {
	r, ctx := startRig(t)
	m := r.posted(t, ctx, "que_1")
	for _, d := range []string{"ans:1:y", "qopt:nope0000:0:0", "qopt:x:1:0"} {
		if _, err := r.srv.PressData(chatID, m.ID, ann, d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.srv.PressData(chatID, 99999, ann, "qopt:x:0:0"); err != nil { // inaccessible message
		t.Fatal(err)
	}
	if err := r.srv.Wait(ctx, func() bool {
		return len(r.srv.CallbackAnswers()) == 4 && len(r.srv.UnansweredCallbacks()) == 0
	}); err != nil {
		t.Fatalf("callbacks left unanswered: %v (%q)", err, r.srv.UnansweredCallbacks())
	}
}

func permissionAsked(id, cmd string) opencode.Event {
	return opencode.Event{
		Directory: "/home/user/projects/demo",
		Type:      opencode.TypePermissionAsked,
		PermissionAsked: &opencode.PermissionRequest{
			ID:         id,
			SessionID:  "ses_dd4235358ffeK4sOj0rQeppn49",
			Permission: "bash",
			Patterns:   []string{cmd},
			Metadata:   []byte(`{"command":` + strconv.Quote(cmd) + `}`),
			Always:     []string{"echo *"},
		},
	}
}

func TestTelegramPermission(t *testing.T) {
	r, ctx := startRig(t)
	r.bridge.HandleEvent(ctx, permissionAsked("per_1", "echo hello > out.txt"))
	r.bridge.HandleEvent(ctx, permissionAsked("per_2", "echo a; rm -rf /"))
	msgs := r.srv.Messages(chatID)
	if len(msgs) != 2 {
		t.Fatalf("%d messages posted, want 2", len(msgs))
	}
	m1, m2 := msgs[0], msgs[1]
	for _, want := range []string{"Release prep", "subagent of Plan & ship", "Permission: bash", "echo hello > out.txt", "medium risk", "echo *"} {
		if !strings.Contains(m1.PlainText, want) {
			t.Errorf("message lacks %q:\n%s", want, m1.PlainText)
		}
	}
	if !strings.Contains(m2.PlainText, "high risk") {
		t.Errorf("chained rm -rf not high:\n%s", m2.PlainText)
	}

	if _, err := r.srv.PressButtonText(chatID, m1.ID, ann, "✅ Allow once"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool {
		return x.ID == m1.ID && x.Keyboard == nil && strings.Contains(x.PlainText, "Allowed once by Ann (@ann)")
	}); err != nil {
		t.Fatal(err)
	}

	if _, err := r.srv.PressButtonText(chatID, m2.ID, ann, "💬 Reject with reason"); err != nil {
		t.Fatal(err)
	}
	prompt, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool { return x.ForceReply != nil })
	if err != nil {
		t.Fatal(err)
	}
	if prompt.ReplyTo != m2.ID || !hasMention(prompt, ann.ID) {
		t.Errorf("prompt = %+v", prompt)
	}
	if _, err := r.srv.Reply(chatID, prompt.ID, ann, "never delete / & co"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool {
		return x.ID == m2.ID && x.Keyboard == nil && strings.Contains(x.PlainText, "Reason: never delete / & co")
	}); err != nil {
		t.Fatal(err)
	}
	want := [][3]string{{"per_1", "once", ""}, {"per_2", "reject", "never delete / & co"}}
	if got := r.oc.Perms(); !reflect.DeepEqual(got, want) {
		t.Errorf("permission replies = %q, want %q", got, want)
	}
	if list, _ := r.store.List(); len(list) != 0 {
		t.Errorf("entries left: %+v", list)
	}
}

// newFakeBot is a go-telegram client of the fake server srv, polling with
// a short timeout and logging its errors (token redacted) to the test;
// opts come last, so they override these defaults.
func newFakeBot(t *testing.T, srv *telegramtest.Server, token string, opts ...tgbot.Option) *tgbot.Bot {
	t.Helper()
	redactor := telegram.NewRedactor(token)
	base := []tgbot.Option{
		tgbot.WithServerURL(srv.URL),
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(2*time.Second, &http.Client{Timeout: 10 * time.Second}),
		tgbot.WithDefaultHandler(func(context.Context, *tgbot.Bot, *models.Update) {}),
		tgbot.WithErrorsHandler(func(err error) { t.Log(redactor.Error(err)) }),
	}
	tb, err := tgbot.New(token, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestTelegramButtonStyles: a permission's allow buttons are green and its
// reject buttons red, as Telegram accepts them; a question's carry none.
func TestTelegramButtonStyles(t *testing.T) {
	r, ctx := startRig(t)
	r.bridge.HandleEvent(ctx, permissionAsked("per_1", "echo hello"))
	perm := r.srv.Messages(chatID)[0]
	want := map[string]string{"✅ Allow once": "success", "♾️ Always allow": "success", "❌ Reject": "danger", "💬 Reject with reason": "danger"}
	got := map[string]string{}
	for _, row := range perm.Keyboard {
		for _, b := range row {
			got[b.Text] = b.Style
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("permission button styles = %q, want %q", got, want)
	}
	if !strings.Contains(perm.PlainText, "Always allow allows echo * in this project, in every session, until opencode restarts") {
		t.Errorf("message does not say what Always allows, and for how long:\n%s", perm.PlainText)
	}
	for _, row := range r.posted(t, ctx, "que_1").Keyboard {
		for _, b := range row {
			if b.Style != "" {
				t.Errorf("question button %q has style %q", b.Text, b.Style)
			}
		}
	}
}

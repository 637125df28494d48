package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// fakeOpencode records calls and returns scripted errors.
type fakeOpencode struct {
	mu sync.Mutex
	// resolveID, when set, is what ResolveQuestionID returns instead of
	// the cached ID.
	resolveID  string
	resolveErr error
	// replyErrs are returned by successive ReplyQuestion calls; once used
	// up, calls succeed.
	replyErrs []error
	// block, when set, makes ReplyQuestion wait for it (or ctx) after
	// signalling started.
	block   chan struct{}
	started chan struct{}

	resolves []opencode.QuestionRef
	replies  []replyCall
	rejects  []string
	// rejectErrs fail successive RejectQuestion calls, as replyErrs do.
	rejectErrs []error
	// onReject, when set, runs at the start of RejectQuestion.
	onReject func()

	// permErrs map a permission request ID to the errors its successive
	// ReplyPermission calls return; once used up, calls succeed.
	permErrs    map[string][]error
	permReplies []permCall

	// sessions are what GetSession finds; any other ID is not found.
	// sessionErr, when set, fails every look-up; sessionBlock makes it
	// wait for its context to end.
	sessions     map[string]opencode.Session
	sessionErr   error
	sessionBlock bool
	sessionCalls []string

	// toasts are the terminal toasts shown; toastErr fails every one.
	toasts   []string
	toastErr error

	// toolCalls are what ToolCall finds, by call ID; agents what Agents
	// lists (nil: it fails). toolCallReads counts ToolCall's calls.
	toolCalls     map[string]opencode.ToolCall
	agents        []opencode.Agent
	toolCallReads int

	// reader, when set, answers LastAssistantText; steer, when set, the
	// steering calls. Without them those calls fail: a test that does
	// not script them should not depend on them.
	reader *fakeReader
	steer  *fakeSteer

	// context is what RecentContext returns, contextErr fails it;
	// contextCalls are the options it was called with.
	context      []opencode.ContextLine
	contextErr   error
	contextCalls []opencode.ContextOptions

	// formReplies are the forms answered, each with its answer's exact
	// JSON; formErrs fail successive ReplyForm calls, as replyErrs do.
	// formCancels are the forms cancelled; cancelErrs fail CancelForm.
	// forms are what ListSessionForms lists, by session (nil: it fails).
	formReplies []formCall
	formErrs    []error
	formCancels []string
	cancelErrs  []error
	forms       map[string][]opencode.Form
}

type formCall struct {
	SessionID, FormID string
	// Answer is the answer as it goes on the wire.
	Answer string
}

func (f *fakeOpencode) ReplyForm(_ context.Context, sessionID, formID string, answer opencode.FormAnswer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	raw, err := json.Marshal(map[string]any{"answer": answer})
	if err != nil {
		return fmt.Errorf("reply form %s: %w", formID, err)
	}
	f.formReplies = append(f.formReplies, formCall{sessionID, formID, string(raw)})
	if len(f.formErrs) > 0 {
		err := f.formErrs[0]
		f.formErrs = f.formErrs[1:]
		if err != nil {
			return fmt.Errorf("reply form %s: %w", formID, err)
		}
	}
	return nil
}

func (f *fakeOpencode) CancelForm(_ context.Context, sessionID, formID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.formCancels = append(f.formCancels, formID)
	if len(f.cancelErrs) > 0 {
		err := f.cancelErrs[0]
		f.cancelErrs = f.cancelErrs[1:]
		if err != nil {
			return fmt.Errorf("cancel form %s: %w", formID, err)
		}
	}
	return nil
}

func (f *fakeOpencode) ListSessionForms(_ context.Context, sessionID string) ([]opencode.Form, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.forms == nil {
		return nil, fmt.Errorf("list forms: %w", errNotScripted)
	}
	return slices.Clone(f.forms[sessionID]), nil
}

func (f *fakeOpencode) FormReplies() []formCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.formReplies)
}

func (f *fakeOpencode) FormCancels() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.formCancels)
}

// errNotScripted is what the calls a test did not script return.
var errNotScripted = fmt.Errorf("fake opencode: not scripted: %w", opencode.ErrTransient)

func (f *fakeOpencode) RecentContext(_ context.Context, _, sessionID string, opt opencode.ContextOptions) ([]opencode.ContextLine, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.contextCalls = append(f.contextCalls, opt)
	if f.contextErr != nil {
		return nil, fmt.Errorf("recent context of %s: %w", sessionID, f.contextErr)
	}
	return slices.Clone(f.context), nil
}

func (f *fakeOpencode) LastAssistantText(ctx context.Context, dir, sessionID string) (string, error) {
	if f.reader == nil {
		return "", fmt.Errorf("last message of %s: %w", sessionID, errNotScripted)
	}
	return f.reader.LastAssistantText(ctx, dir, sessionID)
}

func (f *fakeOpencode) CreateSession(ctx context.Context, dir, title string) (opencode.Session, error) {
	if f.steer == nil {
		return opencode.Session{}, fmt.Errorf("create session: %w", errNotScripted)
	}
	return f.steer.CreateSession(ctx, dir, title)
}

func (f *fakeOpencode) PromptAsync(ctx context.Context, dir, id, text string) error {
	if f.steer == nil {
		return fmt.Errorf("prompt session %s: %w", id, errNotScripted)
	}
	return f.steer.PromptAsync(ctx, dir, id, text)
}

func (f *fakeOpencode) Abort(ctx context.Context, dir, id string) error {
	if f.steer == nil {
		return fmt.Errorf("abort session %s: %w", id, errNotScripted)
	}
	return f.steer.Abort(ctx, dir, id)
}

func (f *fakeOpencode) ListSessions(ctx context.Context, dir string) ([]opencode.Session, error) {
	if f.steer == nil {
		return nil, fmt.Errorf("list sessions: %w", errNotScripted)
	}
	return f.steer.ListSessions(ctx, dir)
}

func (f *fakeOpencode) BusySessions(ctx context.Context, dir string) (map[string]bool, error) {
	if f.steer == nil {
		return nil, fmt.Errorf("list busy sessions: %w", errNotScripted)
	}
	return f.steer.BusySessions(ctx, dir)
}

func (f *fakeOpencode) ListProjects(ctx context.Context) ([]opencode.Project, error) {
	if f.steer == nil {
		return nil, fmt.Errorf("list projects: %w", errNotScripted)
	}
	return f.steer.ListProjects(ctx)
}

// The calls of OpenCode 2 go to steer, as the steering calls do;
// without it the server is 1.x.
func (f *fakeOpencode) Generation() int {
	if f.steer == nil {
		return 1
	}
	return f.steer.Generation()
}

func (f *fakeOpencode) Steer(ctx context.Context, dir, id, text string) error {
	if f.steer == nil {
		return fmt.Errorf("steer session %s: %w", id, errNotScripted)
	}
	return f.steer.Steer(ctx, dir, id, text)
}

func (f *fakeOpencode) ListSaved(ctx context.Context, projectID string) ([]opencode.SavedApproval, error) {
	if f.steer == nil {
		return nil, fmt.Errorf("list saved approvals: %w", errNotScripted)
	}
	return f.steer.ListSaved(ctx, projectID)
}

func (f *fakeOpencode) DeleteSaved(ctx context.Context, id string) error {
	if f.steer == nil {
		return fmt.Errorf("delete saved approval %s: %w", id, errNotScripted)
	}
	return f.steer.DeleteSaved(ctx, id)
}

func (f *fakeOpencode) ShowToast(_ context.Context, dir, message string, _ opencode.ToastVariant) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.toastErr != nil {
		return fmt.Errorf("show toast: %w", f.toastErr)
	}
	f.toasts = append(f.toasts, dir+": "+message)
	return nil
}

func (f *fakeOpencode) Toasts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.toasts)
}

type permCall struct {
	Dir, SessionID, RequestID, Reply, Message string
	// Surface is the surface the reply went through; legacy is "".
	Surface string
}

type replyCall struct {
	Dir, RequestID string
	Answers        [][]string
	CtxErr         error
	Surface        string
}

var _ Opencode = (*fakeOpencode)(nil)

func (f *fakeOpencode) ToolCall(_ context.Context, dir, sessionID string, ref opencode.ToolRef) (opencode.ToolCall, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.toolCallReads++
	tc, ok := f.toolCalls[ref.CallID]
	if !ok {
		return opencode.ToolCall{}, fmt.Errorf("read tool call %s: %w", ref.CallID, errNotScripted)
	}
	return tc, nil
}

func (f *fakeOpencode) Agents(context.Context, string) ([]opencode.Agent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.agents == nil {
		return nil, fmt.Errorf("list agents: %w", errNotScripted)
	}
	return slices.Clone(f.agents), nil
}

// Requests returns the fake's calls of surface sf, recorded with it.
func (f *fakeOpencode) Requests(sf opencode.Surface) opencode.Requests { return fakeRequests{f, sf} }

// fakeRequests is fakeOpencode seen through one surface.
type fakeRequests struct {
	f  *fakeOpencode
	sf opencode.Surface
}

func (r fakeRequests) Surface() opencode.Surface { return r.sf }

func (r fakeRequests) ListQuestions(ctx context.Context, dir string) ([]opencode.QuestionRequest, error) {
	return r.f.ListQuestions(ctx, dir)
}

func (r fakeRequests) ListPermissions(ctx context.Context, dir string) ([]opencode.PermissionRequest, error) {
	return r.f.ListPermissions(ctx, dir)
}

func (r fakeRequests) ReplyQuestion(ctx context.Context, dir, _, requestID string, answers [][]string) error {
	return r.f.replyQuestion(ctx, r.sf, dir, requestID, answers)
}

func (r fakeRequests) RejectQuestion(ctx context.Context, dir, _, requestID string) error {
	return r.f.RejectQuestion(ctx, dir, requestID)
}

func (r fakeRequests) ReplyPermission(ctx context.Context, dir, sessionID, requestID, reply, message string) error {
	return r.f.replyPermission(r.sf, dir, sessionID, requestID, reply, message)
}

// surfaceName is how the calls record surface sf: legacy as "".
func surfaceName(sf opencode.Surface) string {
	if sf == opencode.SurfaceLegacy {
		return ""
	}
	return sf.String()
}

func (f *fakeOpencode) ResolveQuestionID(ctx context.Context, ref opencode.QuestionRef) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resolves = append(f.resolves, ref)
	if f.resolveErr != nil {
		return "", fmt.Errorf("resolve: %w", f.resolveErr)
	}
	if f.resolveID != "" {
		return f.resolveID, nil
	}
	return ref.RequestID, nil
}

func (f *fakeOpencode) replyQuestion(ctx context.Context, sf opencode.Surface, dir, requestID string, answers [][]string) error {
	f.mu.Lock()
	block, started := f.block, f.started
	f.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, replyCall{Dir: dir, RequestID: requestID, Answers: answers, CtxErr: ctx.Err(), Surface: surfaceName(sf)})
	if len(f.replyErrs) > 0 {
		err := f.replyErrs[0]
		f.replyErrs = f.replyErrs[1:]
		if err != nil {
			return fmt.Errorf("reply question %s: %w", requestID, err)
		}
	}
	return nil
}

func (f *fakeOpencode) RejectQuestion(ctx context.Context, dir, requestID string) error {
	if f.onReject != nil {
		f.onReject()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("reject question %s: %w: %w", requestID, opencode.ErrTransient, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rejects = append(f.rejects, requestID)
	if len(f.rejectErrs) > 0 {
		err := f.rejectErrs[0]
		f.rejectErrs = f.rejectErrs[1:]
		if err != nil {
			return fmt.Errorf("reject question %s: %w", requestID, err)
		}
	}
	return nil
}

func (f *fakeOpencode) replyPermission(sf opencode.Surface, dir, sessionID, requestID, reply, message string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.permReplies = append(f.permReplies, permCall{dir, sessionID, requestID, reply, message, surfaceName(sf)})
	if errs := f.permErrs[requestID]; len(errs) > 0 {
		f.permErrs[requestID] = errs[1:]
		if errs[0] != nil {
			return fmt.Errorf("reply permission %s: %w", requestID, errs[0])
		}
	}
	return nil
}

// ListQuestions and ListPermissions are not scripted: the bridge then
// posts what a snapshot listed without checking again, which is what the
// in-memory tests expect.
func (f *fakeOpencode) ListQuestions(context.Context, string) ([]opencode.QuestionRequest, error) {
	return nil, fmt.Errorf("fake opencode: listing is not scripted: %w", opencode.ErrTransient)
}

func (f *fakeOpencode) ListPermissions(context.Context, string) ([]opencode.PermissionRequest, error) {
	return nil, fmt.Errorf("fake opencode: listing is not scripted: %w", opencode.ErrTransient)
}

func (f *fakeOpencode) GetSession(ctx context.Context, dir, id string) (opencode.Session, error) {
	f.mu.Lock()
	f.sessionCalls = append(f.sessionCalls, id)
	s, ok := f.sessions[id]
	err, block := f.sessionErr, f.sessionBlock
	f.mu.Unlock()
	if block {
		<-ctx.Done()
		return opencode.Session{}, fmt.Errorf("get session %s: %w: %w", id, opencode.ErrTransient, ctx.Err())
	}
	if err != nil {
		return opencode.Session{}, fmt.Errorf("get session %s: %w", id, err)
	}
	if !ok {
		return opencode.Session{}, fmt.Errorf("get session %s: %w", id, opencode.ErrNotFound)
	}
	return s, nil
}

func (f *fakeOpencode) PermReplies() []permCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.permReplies)
}

func (f *fakeOpencode) SessionCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sessionCalls)
}

func (f *fakeOpencode) Replies() []replyCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.replies)
}

// fakeTelegram is an in-memory Bot API that checks what it is sent the
// way Telegram does: text length, HTML, callback data, force_reply.
type fakeTelegram struct {
	t      testing.TB
	mu     sync.Mutex
	nextID int
	// sendErrs fail successive SendMessage calls; nil entries succeed.
	// editErrs do the same for EditMessageText.
	sendErrs, editErrs []error
	// deleted are message IDs someone deleted: editing them fails as
	// Telegram fails it.
	deleted map[int]bool
	sent    []sentMessage
	edits   []*tgbot.EditMessageTextParams
	answers []*tgbot.AnswerCallbackQueryParams
	// topics are the names of the forum topics created, in order; topicErr,
	// when set, fails every createForumTopic.
	topics   []string
	topicErr error
	// docs counts the files sent.
	docs int
	// onSend, if set, is called with each message sent, under the fake's
	// lock: it must not call the fake, but may start something that does.
	onSend func(p *tgbot.SendMessageParams, id int)
}

// CreateForumTopic gives topics thread IDs 100, 101, … so they cannot be
// mistaken for message IDs.
func (f *fakeTelegram) CreateForumTopic(ctx context.Context, p *tgbot.CreateForumTopicParams) (*models.ForumTopic, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.topicErr != nil {
		return nil, f.topicErr
	}
	if n := len([]rune(p.Name)); n == 0 || n > 128 {
		f.t.Errorf("Telegram would refuse topic name %q", p.Name)
		return nil, fmt.Errorf("bad request: topic name")
	}
	f.topics = append(f.topics, p.Name)
	return &models.ForumTopic{MessageThreadID: 99 + len(f.topics), Name: p.Name}, nil
}

// SendDocument accepts a file as Telegram would: with a name, not empty,
// its caption at most 1,024 UTF-16 units. Its message's ID is 1,000,000 or
// more, kept apart from the other messages' so that a file sent beside
// them does not change the IDs a test expects of them.
func (f *fakeTelegram) SendDocument(ctx context.Context, p *tgbot.SendDocumentParams) (*models.Message, error) {
	u, ok := p.Document.(*models.InputFileUpload)
	if !ok || u == nil || u.Filename == "" || u.Data == nil {
		f.t.Errorf("Telegram would refuse document %+v", p.Document)
		return nil, fmt.Errorf("bad request: document")
	}
	data, err := io.ReadAll(u.Data)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 || telegramtest.UTF16Len(p.Caption) > 1024 {
		f.t.Errorf("Telegram would refuse file %q of %d bytes with caption %q", u.Filename, len(data), p.Caption)
		return nil, fmt.Errorf("bad request: file")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs++
	return &models.Message{ID: 999_999 + f.docs, Chat: models.Chat{ID: p.ChatID.(int64)}, Caption: p.Caption,
		Document: &models.Document{FileName: u.Filename, FileSize: int64(len(data))}}, nil
}

// Topics returns the names of the forum topics created.
func (f *fakeTelegram) Topics() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.topics)
}

type sentMessage struct {
	ID int
	P  *tgbot.SendMessageParams
}

var _ telegram.Telegram = (*fakeTelegram)(nil)

func (f *fakeTelegram) check(text string, markup any) error {
	f.t.Helper()
	if err := checkMessageText(text); err != nil {
		f.t.Errorf("Telegram would refuse %q: %v", text, err)
		return fmt.Errorf("bad request: %w", err)
	}
	if kb, ok := markup.(*models.InlineKeyboardMarkup); ok {
		if err := checkKeyboard(kb); err != nil {
			f.t.Errorf("Telegram would refuse keyboard: %v", err)
			return fmt.Errorf("bad request: %w", err)
		}
	}
	if fr, ok := markup.(*models.ForceReply); ok {
		if !fr.ForceReply || telegramtest.UTF16Len(fr.InputFieldPlaceholder) > 64 {
			f.t.Errorf("Telegram would refuse force_reply %+v", fr)
			return fmt.Errorf("bad request: force_reply")
		}
	}
	return nil
}

func (f *fakeTelegram) SendMessage(ctx context.Context, p *tgbot.SendMessageParams) (*models.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sendErrs) > 0 {
		err := f.sendErrs[0]
		f.sendErrs = f.sendErrs[1:]
		if err != nil {
			return nil, err
		}
	}
	if err := f.check(p.Text, p.ReplyMarkup); err != nil {
		return nil, err
	}
	f.nextID++
	f.sent = append(f.sent, sentMessage{ID: f.nextID, P: p})
	if f.onSend != nil {
		f.onSend(p, f.nextID)
	}
	return &models.Message{ID: f.nextID, Chat: models.Chat{ID: p.ChatID.(int64)}, Text: p.Text}, nil
}

func (f *fakeTelegram) EditMessageText(ctx context.Context, p *tgbot.EditMessageTextParams) (*models.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deleted[p.MessageID] {
		return nil, fmt.Errorf("%w, Bad Request: message to edit not found", tgbot.ErrorBadRequest)
	}
	if len(f.editErrs) > 0 {
		err := f.editErrs[0]
		f.editErrs = f.editErrs[1:]
		if err != nil {
			return nil, err
		}
	}
	if err := f.check(p.Text, p.ReplyMarkup); err != nil {
		return nil, err
	}
	f.edits = append(f.edits, p)
	return &models.Message{ID: p.MessageID, Text: p.Text}, nil
}

func (f *fakeTelegram) AnswerCallbackQuery(ctx context.Context, p *tgbot.AnswerCallbackQueryParams) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if telegramtest.UTF16Len(p.Text) > 200 {
		f.t.Errorf("toast too long: %q", p.Text)
	}
	f.answers = append(f.answers, p)
	return true, nil
}

// Delete makes message id gone, as if a member of the chat deleted it.
func (f *fakeTelegram) Delete(id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deleted == nil {
		f.deleted = make(map[int]bool)
	}
	f.deleted[id] = true
}

// EditsOf returns the edits of message id, oldest first.
func (f *fakeTelegram) EditsOf(id int) []*tgbot.EditMessageTextParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*tgbot.EditMessageTextParams
	for _, e := range f.edits {
		if e.MessageID == id {
			out = append(out, e)
		}
	}
	return out
}

func (f *fakeTelegram) Sent() []sentMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

func (f *fakeTelegram) Edits() []*tgbot.EditMessageTextParams {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.edits)
}

// AnswersFor returns the toasts given to one callback query.
func (f *fakeTelegram) AnswersFor(id string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, a := range f.answers {
		if a.CallbackQueryID == id {
			out = append(out, a.Text)
		}
	}
	return out
}

// checkMessageText checks text as Telegram would: 1–4096 UTF-16 units
// of HTML it accepts.
func checkMessageText(text string) error {
	if n := telegramtest.UTF16Len(text); n == 0 || n > 4096 {
		return fmt.Errorf("text length %d", n)
	}
	_, _, err := telegramtest.ParseHTML(text)
	return err
}

// checkKeyboard checks an inline keyboard as Telegram would: at most 100
// buttons, 8 a row, each with text and 1–64 bytes of callback data.
func checkKeyboard(kb *models.InlineKeyboardMarkup) error {
	total := 0
	for _, row := range kb.InlineKeyboard {
		if len(row) == 0 || len(row) > 8 {
			return fmt.Errorf("row of %d buttons", len(row))
		}
		for _, btn := range row {
			total++
			if btn.Text == "" {
				return fmt.Errorf("button without text")
			}
			if btn.URL != "" {
				if btn.CallbackData != "" || !strings.HasPrefix(btn.URL, "http") {
					return fmt.Errorf("link button %q with data %q", btn.URL, btn.CallbackData)
				}
				continue
			}
			if n := len(btn.CallbackData); n == 0 || n > 64 {
				return fmt.Errorf("callback data of %d bytes: %q", n, btn.CallbackData)
			}
		}
	}
	if total > 100 {
		return fmt.Errorf("%d buttons", total)
	}
	return nil
}

// harness is a Bridge over a real store, the fake opencode and the fake
// Telegram.
type harness struct {
	t     *testing.T
	cfg   harnessConfig
	fe    *telegram.Frontend
	b     *Bridge
	store *pending.Store
	path  string
	oc    *fakeOpencode
	tg    *fakeTelegram
	logs  *testlog.Buffer
	seq   int
}

const testChat int64 = -1001234

// harnessConfig is the settings of the bridge and of its Telegram
// front-end, as a test gives them.
type harnessConfig struct {
	// The front-end's (see telegram.Config).
	ChatID          int64
	AllowedUserIDs  []int64
	BotID           int64
	BotUsername     string
	OnChatMigrated  func(oldChatID, newChatID int64)
	ThreadID        int
	TopicPerProject bool
	Version         string
	Status          telegram.OpencodeStatus
	StartedAt       time.Time
	// The bridge's (see Config).
	TTL         time.Duration
	Metrics     *Metrics
	Notify      NotifyOptions
	AutoApprove AutoApprovePolicy
	Server      string
	// Both's.
	Lang string
}

func (c harnessConfig) bridge() Config {
	return Config{TTL: c.TTL, Metrics: c.Metrics, Notify: c.Notify, AutoApprove: c.AutoApprove, Lang: c.Lang, URL: c.Server}
}

func (c harnessConfig) telegram() telegram.Config {
	return telegram.Config{ChatID: c.ChatID, AllowedUserIDs: c.AllowedUserIDs, BotID: c.BotID, BotUsername: c.BotUsername,
		OnChatMigrated: c.OnChatMigrated, ThreadID: c.ThreadID, TopicPerProject: c.TopicPerProject, Lang: c.Lang,
		Version: c.Version, Servers: []telegram.ServerStatus{{Status: c.Status}}, StartedAt: c.StartedAt}
}

func newHarness(t *testing.T, cfg harnessConfig) *harness {
	t.Helper()
	if cfg.ChatID == 0 {
		cfg.ChatID = testChat
	}
	path := filepath.Join(t.TempDir(), "pending.db")
	store, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	h := &harness{t: t, cfg: cfg, store: store, path: path, oc: &fakeOpencode{}, tg: &fakeTelegram{t: t}, logs: &testlog.Buffer{}}
	h.wire(h.tg)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bridge log:\n%s", h.logs.String())
		}
	})
	return h
}

// wire makes the harness's front-end, over tg, and bridge, over its
// store, anew.
func (h *harness) wire(tg telegram.Telegram) {
	log := zerolog.New(h.logs)
	tc := h.cfg.telegram()
	// One clock for both: tests set the bridge's.
	tc.Now = func() time.Time { return h.b.now() }
	if tc.StartedAt.IsZero() {
		tc.StartedAt = time.Now() // before the bridge, and its clock, exist
	}
	h.fe = telegram.New(tc, tg, h.store, log)
	bc := h.cfg.bridge()
	bc.Servers = map[string]Opencode{"": h.oc}
	h.b = NewBridge(bc, h.store, []frontend.Frontend{h.fe}, log)
	h.b.lockWait = 50 * time.Millisecond
}

// update hands upd to the front-end, as polling would.
func (h *harness) update(ctx context.Context, upd *models.Update) {
	h.fe.HandleUpdate(ctx, h.b, upd)
}

var (
	alice   = models.User{ID: 11, FirstName: "Alice", Username: "alice"}
	bob     = models.User{ID: 22, FirstName: "Bob"}
	mallory = models.User{ID: 666, FirstName: "Mallory"}
)

func askedEvent(id string, qs ...opencode.Question) opencode.Event {
	return opencode.Event{
		Directory: "/home/user/projects/demo",
		Project:   "global",
		Type:      opencode.TypeQuestionAsked,
		QuestionAsked: &opencode.QuestionRequest{
			ID:        id,
			SessionID: "ses_dd4235358ffeK4sOj0rQeppn49",
			Questions: qs,
			Tool:      &opencode.ToolRef{MessageID: "msg_1", CallID: "call_" + id},
		},
	}
}

const testSession = "ses_dd4235358ffeK4sOj0rQeppn49"

// permEvent is a permission.asked event of testSession running cmd.
func permEvent(id, cmd string) opencode.Event {
	meta, _ := json.Marshal(map[string]string{"command": cmd})
	return opencode.Event{
		Directory: "/home/user/projects/demo",
		Project:   "global",
		Type:      opencode.TypePermissionAsked,
		PermissionAsked: &opencode.PermissionRequest{
			ID:         id,
			SessionID:  testSession,
			Permission: "bash",
			Patterns:   []string{cmd},
			Metadata:   meta,
			Always:     []string{strings.Fields(cmd)[0] + " *"},
			Tool:       &opencode.ToolRef{MessageID: "msg_1", CallID: "call_" + id},
		},
	}
}

// askPerm posts a permission request event and returns its entry.
func (h *harness) askPerm(ev opencode.Event) *pending.Entry {
	h.t.Helper()
	h.b.HandleEvent(context.Background(), ev)
	e, err := h.store.ByRequestID("", ev.PermissionAsked.ID)
	if err != nil {
		h.t.Fatalf("request %s not stored: %v", ev.PermissionAsked.ID, err)
	}
	return e
}

func permData(t testing.TB, a frontend.Action, uid string) string {
	t.Helper()
	return data(t, a, uid, 0, 0)
}

func dbQuestion() opencode.Question {
	return opencode.Question{
		Question: "Which database should I use?",
		Header:   "Database",
		Options:  []opencode.Option{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "embedded"}},
	}
}

// ask posts a request and returns its entry.
func (h *harness) ask(id string, qs ...opencode.Question) *pending.Entry {
	h.t.Helper()
	h.b.HandleEvent(context.Background(), askedEvent(id, qs...))
	e, err := h.store.ByRequestID("", id)
	if err != nil {
		h.t.Fatalf("request %s not stored: %v", id, err)
	}
	return e
}

// press sends a callback update from user in chat and returns its ID,
// after checking the query was answered exactly once.
func (h *harness) pressIn(chat int64, user models.User, data string, msgID int) string {
	h.t.Helper()
	h.seq++
	id := fmt.Sprintf("cb%d", h.seq)
	h.update(context.Background(), &models.Update{
		ID: int64(h.seq),
		CallbackQuery: &models.CallbackQuery{
			ID:   id,
			From: user,
			Data: data,
			Message: models.MaybeInaccessibleMessage{
				Type:    models.MaybeInaccessibleMessageTypeMessage,
				Message: &models.Message{ID: msgID, Date: 1700000000, Chat: models.Chat{ID: chat, Type: "supergroup"}},
			},
		},
	})
	if got := h.tg.AnswersFor(id); len(got) != 1 {
		h.t.Fatalf("callback %s (%q) answered %d times: %q", id, data, len(got), got)
	}
	return id
}

func (h *harness) press(user models.User, data string, e *pending.Entry) string {
	h.t.Helper()
	return h.pressIn(testChat, user, data, msgID(e))
}

// toast returns the single answer of callback id.
// en is the English text of toast t, as a press is answered with it.
func en(t i18n.Toast) string { return i18n.English.Toast(t) }

func (h *harness) toast(id string) i18n.Toast {
	h.t.Helper()
	got := h.tg.AnswersFor(id)
	if len(got) != 1 {
		h.t.Fatalf("callback %s answered %d times", id, len(got))
	}
	for _, t := range []i18n.Toast{i18n.ToastUnknown, i18n.ToastNotAllowed, i18n.ToastGone, i18n.ToastStale,
		i18n.ToastBusy, i18n.ToastSending, i18n.ToastFailed, i18n.ToastTypeAnswer, i18n.ToastSelectFirst,
		i18n.ToastPromptFailed, i18n.ToastAnswered, i18n.ToastAnsweredElsewhere, i18n.ToastDismissed, i18n.ToastExpired,
		i18n.ToastCancelled} {
		if got[0] == h.b.text.Toast(t) {
			return t
		}
	}
	return i18n.Toast(got[0]) // a text that is no toast, such as "☑ Auth"
}

// text sends a message from user; replyTo 0 sends a plain message.
func (h *harness) text(user models.User, text string, replyTo int) {
	h.t.Helper()
	h.seq++
	m := &models.Message{
		ID:   1000 + h.seq,
		Date: 1700000000,
		Chat: models.Chat{ID: testChat, Type: "supergroup"},
		From: &user,
		Text: text,
	}
	if replyTo != 0 {
		m.ReplyToMessage = &models.Message{ID: replyTo, Date: 1700000000, Chat: m.Chat, From: &models.User{ID: 123, IsBot: true}}
	}
	h.update(context.Background(), &models.Update{ID: int64(h.seq), Message: m})
}

func (h *harness) entry(uid string) *pending.Entry {
	h.t.Helper()
	e, err := h.store.Get(uid)
	if err != nil {
		h.t.Fatalf("entry %s: %v", uid, err)
	}
	return e
}

func (h *harness) gone(uid string) {
	h.t.Helper()
	if e, err := h.store.Get(uid); err == nil {
		h.t.Fatalf("entry %s still stored: %+v", uid, e)
	}
}

func (h *harness) lastEdit() *tgbot.EditMessageTextParams {
	h.t.Helper()
	edits := h.tg.Edits()
	if len(edits) == 0 {
		h.t.Fatal("no message was edited")
	}
	return edits[len(edits)-1]
}

func (h *harness) lastSent() sentMessage {
	h.t.Helper()
	sent := h.tg.Sent()
	if len(sent) == 0 {
		h.t.Fatal("no message was sent")
	}
	return sent[len(sent)-1]
}

func data(t testing.TB, a frontend.Action, uid string, qi, oi int) string {
	t.Helper()
	s, err := telegram.ButtonData(a, uid, qi, oi)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// buttons lists a keyboard's (text, data) pairs.
func buttons(t testing.TB, markup any) [][2]string {
	t.Helper()
	kb, ok := markup.(*models.InlineKeyboardMarkup)
	if !ok {
		t.Fatalf("reply markup is %T, want an inline keyboard", markup)
	}
	var out [][2]string
	for _, row := range kb.InlineKeyboard {
		for _, b := range row {
			out = append(out, [2]string{b.Text, b.CallbackData})
		}
	}
	return out
}

// msgID is the message showing e in the front-end of a test: Telegram's
// (the harness), else frontendtest's.
func msgID(e *pending.Entry) int {
	if at := e.Places[telegram.Name]; at != "" {
		return tgMessage(at)
	}
	return frontendtest.ID(e.Places["test"])
}

// tgMessage is the message ID of a Telegram place.
func tgMessage(at pending.Place) int { return tgAt(at).Message }

// tgPlace is a Telegram place decoded.
type tgPlaceOf struct {
	Chat            int64
	Message, Thread int
}

// tgAt decodes Telegram place at.
func tgAt(at pending.Place) tgPlaceOf {
	var p tgPlaceOf
	_ = json.Unmarshal([]byte(at), &p)
	return p
}

// tgOf is where the Telegram front-end shows e.
func tgOf(e *pending.Entry) tgPlaceOf { return tgAt(e.Places[telegram.Name]) }

// promptOf is the message of the Telegram prompt waiting for request
// uid's text; 0 when none.
func (h *harness) promptOf(uid string) int {
	h.t.Helper()
	id := 0
	err := h.store.FrontendState(telegram.Name).View(func(kv pending.KV) error {
		return kv.ForEach("prompt:", func(k string, v []byte) error {
			var b struct{ Key string }
			if json.Unmarshal(v, &b) == nil && b.Key == uid {
				_, msg, _ := strings.Cut(strings.TrimPrefix(k, "prompt:"), ":")
				fmt.Sscan(msg, &id)
			}
			return nil
		})
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return id
}

// tgPlace is the Telegram place of message msg of chat.
func tgPlace(chat int64, msg int) pending.Place {
	return pending.Place(fmt.Sprintf(`{"chat":%d,"message":%d}`, chat, msg))
}

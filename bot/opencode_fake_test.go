package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

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

func dbQuestion() opencode.Question {
	return opencode.Question{
		Question: "Which database should I use?",
		Header:   "Database",
		Options:  []opencode.Option{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "embedded"}},
	}
}

// en is the English text of toast t, as a press is acknowledged with it.
func en(t i18n.Toast) string { return i18n.English.Toast(t) }

// msgID is the message showing e in the in-memory front-end named "test".
func msgID(e *pending.Entry) int { return frontendtest.ID(e.Places["test"]) }

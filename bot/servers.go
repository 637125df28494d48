package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Opencode is what the bridge needs of each opencode server's client:
// answering requests, and what notices and steering use. It is one
// interface, not a small one and extras found out by type assertion, so
// a client lacking something fails to compile instead of quietly leaving
// notices without excerpts or a server unsteerable. Errors must wrap
// opencode's ErrNotFound, ErrNotAccepted, ErrUnauthorized or
// ErrTransient, as the client's do.
type Opencode interface {
	// Requests lists and answers the requests of surface s: a request is
	// answered through the surface that raised it (Entry.Surface). Its
	// lists tell, just before a listed request is posted, whether it is
	// still pending (see HandleSnapshot).
	Requests(s opencode.Surface) opencode.Requests
	ResolveQuestionID(ctx context.Context, ref opencode.QuestionRef) (string, error)
	GetSession(ctx context.Context, dir, id string) (opencode.Session, error)
	// ShowToast tells the person at opencode's terminal (its TUI) what
	// happened; without one attached it does nothing.
	ShowToast(ctx context.Context, dir, message string, variant opencode.ToastVariant) error
	// RecentContext returns the last lines the agent wrote and the tools
	// it called before the request opt names, newest last.
	RecentContext(ctx context.Context, dir, sessionID string, opt opencode.ContextOptions) ([]opencode.ContextLine, error)
	// LastAssistantText returns the text of the session's latest
	// assistant message, for the excerpt of a "finished" notice; "" when
	// it has none.
	LastAssistantText(ctx context.Context, dir, sessionID string) (string, error)
	// ToolCall reads a tool call of a session (what a shell command's
	// request runs, and where); Agents lists the agents and their rules.
	ToolCall(ctx context.Context, dir, sessionID string, ref opencode.ToolRef) (opencode.ToolCall, error)
	Agents(ctx context.Context, dir string) ([]opencode.Agent, error)

	// The steering calls (see Steering in the package doc).
	CreateSession(ctx context.Context, dir, title string) (opencode.Session, error)
	PromptAsync(ctx context.Context, dir, id, text string) error
	Abort(ctx context.Context, dir, id string) error
	ListSessions(ctx context.Context, dir string) ([]opencode.Session, error)
	BusySessions(ctx context.Context, dir string) (map[string]bool, error)
	ListProjects(ctx context.Context) ([]opencode.Project, error)

	// OpenCode 2's forms: listing a session's, answering one, and
	// cancelling one (nobody answered in time, or someone cancelled it).
	ListSessionForms(ctx context.Context, sessionID string) ([]opencode.Form, error)
	ReplyForm(ctx context.Context, sessionID, formID string, answer opencode.FormAnswer) error
	CancelForm(ctx context.Context, sessionID, formID string) error
	// OpenCode 2 (see rules.go): Generation is the server's kind (2 for
	// OpenCode 2, 1 for 1.x, 0 before it was reached); Steer sends into a
	// running turn; ListSaved and DeleteSaved list and revoke the rules
	// "always" answers saved. On 1.x the last three fail.
	Generation() int
	Steer(ctx context.Context, dir, id, text string) error
	ListSaved(ctx context.Context, projectID string) ([]opencode.SavedApproval, error)
	DeleteSaved(ctx context.Context, id string) error
}

// toastTimeout bounds the terminal toast that follows an answer.
const toastTimeout = 3 * time.Second

// tellTerminal shows message as a toast in the terminal of e's project,
// beside the answer's own work: nothing waits for it, and a failure (no
// terminal, opencode busy) is only noted. Wait waits for it.
func (b *Bridge) tellTerminal(log zerolog.Logger, e *pending.Entry, message string) {
	b.running.Add()
	go func() {
		defer b.running.Done()
		ctx, cancel := context.WithTimeout(context.Background(), toastTimeout)
		defer cancel()
		if err := b.opencodeOf(e.Server).ShowToast(ctx, e.Directory, message, opencode.ToastInfo); err != nil {
			log.Debug().Err(err).Msg("could not show a toast in opencode's terminal")
		}
	}()
}

// surfaceOf is the surface request e was asked through.
func surfaceOf(e *pending.Entry) opencode.Surface {
	if e.Surface == opencode.SurfaceAPI.String() {
		return opencode.SurfaceAPI
	}
	return opencode.SurfaceLegacy
}

// resolveQuestionID asks e's server for the ID its 1.x question request
// has now (see opencode.Client.ResolveQuestionID).
func (b *Bridge) resolveQuestionID(ctx context.Context, e *pending.Entry) (string, error) {
	return b.opencodeOf(e.Server).ResolveQuestionID(ctx, opencode.QuestionRef{
		Directory: e.Directory,
		RequestID: e.RequestID,
		SessionID: e.SessionID,
		CallID:    e.CallID,
		Surface:   surfaceOf(e),
	})
}

// storedSurface is how an entry records surface s: legacy, the default,
// as nothing, which the entry's JSON leaves out.
func storedSurface(s opencode.Surface) string {
	if s == opencode.SurfaceLegacy {
		return ""
	}
	return s.String()
}

var _ Opencode = (*opencode.Client)(nil)

// opencodeOf is the client of the opencode server named server ("" for
// a bare OPENCODE_URL's): every call about a request goes to the server
// that asked it. A name no longer served (OPENCODE_URL changed while
// requests were held) gets a client that refuses everything, so such a
// request waits, refused, until it expires rather than being answered on
// a server that never asked it.
func (b *Bridge) opencodeOf(server string) Opencode {
	if oc, ok := b.cfg.Servers[server]; ok && oc != nil {
		return oc
	}
	return unservedServer(server)
}

// unservedServer is an opencode server the bridge is not configured for.
// It is an Opencode like any other, so every path meets its error rather
// than a missing method.
type unservedServer string

var _ Opencode = unservedServer("")

func (s unservedServer) err(op string) error {
	return fmt.Errorf("%s: opencode server %q is not among those served: %w", op, string(s), opencode.ErrNotAccepted)
}

func (s unservedServer) Requests(sf opencode.Surface) opencode.Requests {
	return unservedRequests{s: s, sf: sf}
}

func (s unservedServer) ResolveQuestionID(context.Context, opencode.QuestionRef) (string, error) {
	return "", s.err("resolve question")
}

func (s unservedServer) GetSession(context.Context, string, string) (opencode.Session, error) {
	return opencode.Session{}, s.err("get session")
}

func (s unservedServer) ShowToast(context.Context, string, string, opencode.ToastVariant) error {
	return s.err("show toast")
}

func (s unservedServer) RecentContext(context.Context, string, string, opencode.ContextOptions) ([]opencode.ContextLine, error) {
	return nil, s.err("read recent context")
}

func (s unservedServer) LastAssistantText(context.Context, string, string) (string, error) {
	return "", s.err("read the last message")
}

func (s unservedServer) ToolCall(context.Context, string, string, opencode.ToolRef) (opencode.ToolCall, error) {
	return opencode.ToolCall{}, s.err("read tool call")
}

func (s unservedServer) Agents(context.Context, string) ([]opencode.Agent, error) {
	return nil, s.err("list agents")
}

func (s unservedServer) CreateSession(context.Context, string, string) (opencode.Session, error) {
	return opencode.Session{}, s.err("create session")
}

func (s unservedServer) PromptAsync(context.Context, string, string, string) error {
	return s.err("prompt session")
}

func (s unservedServer) Abort(context.Context, string, string) error {
	return s.err("abort session")
}

func (s unservedServer) ListSessions(context.Context, string) ([]opencode.Session, error) {
	return nil, s.err("list sessions")
}

func (s unservedServer) BusySessions(context.Context, string) (map[string]bool, error) {
	return nil, s.err("list busy sessions")
}

func (s unservedServer) ListProjects(context.Context) ([]opencode.Project, error) {
	return nil, s.err("list projects")
}

func (s unservedServer) ListSessionForms(context.Context, string) ([]opencode.Form, error) {
	return nil, s.err("list forms")
}

func (s unservedServer) ReplyForm(context.Context, string, string, opencode.FormAnswer) error {
	return s.err("reply form")
}

func (s unservedServer) CancelForm(context.Context, string, string) error {
	return s.err("cancel form")
}

func (s unservedServer) Generation() int { return 0 }

func (s unservedServer) Steer(context.Context, string, string, string) error {
	return s.err("steer session")
}

func (s unservedServer) ListSaved(context.Context, string) ([]opencode.SavedApproval, error) {
	return nil, s.err("list saved approvals")
}

func (s unservedServer) DeleteSaved(context.Context, string) error {
	return s.err("delete saved approval")
}

type unservedRequests struct {
	s  unservedServer
	sf opencode.Surface
}

func (r unservedRequests) Surface() opencode.Surface { return r.sf }

func (r unservedRequests) ListQuestions(context.Context, string) ([]opencode.QuestionRequest, error) {
	return nil, r.s.err("list questions")
}

func (r unservedRequests) ListPermissions(context.Context, string) ([]opencode.PermissionRequest, error) {
	return nil, r.s.err("list permissions")
}

func (r unservedRequests) ReplyQuestion(context.Context, string, string, string, [][]string) error {
	return r.s.err("reply question")
}

func (r unservedRequests) RejectQuestion(context.Context, string, string, string) error {
	return r.s.err("reject question")
}

func (r unservedRequests) ReplyPermission(context.Context, string, string, string, string, string) error {
	return r.s.err("reply permission")
}

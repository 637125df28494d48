package bot

import (
	"context"
	"fmt"

	"github.com/hermes-bot/hermes-bot/opencode"
)

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

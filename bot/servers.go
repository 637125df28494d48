package bot

import (
	"context"
	"fmt"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// opencodeOf is the client of the opencode server named server ("" for
// the one NewBridge was given): every call about a request goes to the
// server that asked it. A name no longer served (OPENCODE_URL changed
// while requests were held) gets a client that refuses everything, so
// such a request waits, refused, until it expires rather than being
// answered on a server that never asked it.
func (b *Bridge) opencodeOf(server string) Opencode {
	if server == "" && b.oc != nil {
		return b.oc
	}
	if oc, ok := b.cfg.Servers[server]; ok && oc != nil {
		return oc
	}
	return unservedServer(server)
}

// unservedServer is an opencode server the bridge is not configured for.
type unservedServer string

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

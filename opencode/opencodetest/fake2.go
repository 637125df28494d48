package opencodetest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// server2Routes is every route an OpenCode 2 fake serves; a test holds it
// to opencode.Contract2. Every other path answers 404 with a JSON body:
// what a real OpenCode 2 answers there was not established.
var server2Routes = []struct {
	pattern string
	handler func(*Server, http.ResponseWriter, *http.Request)
}{
	{"GET /api/health", (*Server).handleHealth2},
	{"GET /api/info", (*Server).handleInfo},
	{"GET /api/event", (*Server).handleEvents2},
	{"GET /api/event/changes", (*Server).handleChanges},
	{"GET /api/session", (*Server).handleListSessions2},
	{"POST /api/session", (*Server).handleCreateSession2},
	{"GET /api/session/{sid}", (*Server).handleGetSession2},
	{"GET /api/session/{sid}/form", (*Server).handleForms},
	{"POST /api/session/{sid}/form/{id}/reply", (*Server).handleFormReply},
	{"POST /api/session/{sid}/form/{id}/cancel", (*Server).handleFormCancel},
	{"DELETE /api/session/{sid}/form/{id}", (*Server).handleFormCancel},
	{"GET /api/session/{sid}/form/{id}/state", (*Server).handleFormState},
	{"GET /api/session/{sid}/question", (*Server).handleSessionQuestions},
	{"POST /api/session/{sid}/question/{id}/reply", (*Server).handleAPIQuestionReply},
	{"POST /api/session/{sid}/question/{id}/reject", (*Server).handleAPIQuestionReply},
	{"GET /api/session/{sid}/permission", (*Server).handleSessionPermissions},
	{"POST /api/session/{sid}/permission/{id}/reply", (*Server).handleAPIPermissionReply},
	{"GET /api/permission/saved", (*Server).handleSaved},
	{"DELETE /api/permission/saved/{id}", (*Server).handleDeleteSaved},
	{"POST /api/session/{sid}/prompt", (*Server).handlePrompt},
	{"POST /api/session/{sid}/interrupt", (*Server).handleInterrupt},
	{"GET /api/session/active", (*Server).handleActive},
}

func (s *Server) route2(mux *http.ServeMux) {
	for _, rt := range server2Routes {
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { rt.handler(s, w, r) })
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fakeWriteJSON(w, http.StatusNotFound, map[string]string{"message": "no route " + r.Method + " " + r.URL.Path})
	})
}

// routeAPIRequests serves the question and permission routes under
// /api/session/{sid}, which opencode 1.18.33 and OpenCode 2 share.
func (s *Server) routeAPIRequests(mux *http.ServeMux) {
	for _, rt := range server2Routes {
		if strings.Contains(rt.pattern, "/api/session/{sid}/question") || strings.Contains(rt.pattern, "/api/session/{sid}/permission") {
			mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { rt.handler(s, w, r) })
		}
	}
}

// Server2ProjectID is the project of every session of an OpenCode 2
// fake: the projectID of the approvals its permission replies save.
const Server2ProjectID = "prj_fake"

// info2 is the session as OpenCode 2's Session.Info: the keys the schema
// requires, and parentID for a child.
func (f *fakeSession) info2() map[string]any {
	m := map[string]any{
		"id": f.ID, "projectID": Server2ProjectID, "title": f.Title, "cost": 0,
		"tokens":   map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]int{"read": 0, "write": 0}},
		"time":     map[string]int64{"created": f.Time.Created, "updated": f.Time.Updated},
		"location": map[string]string{"directory": f.Directory},
	}
	if f.ParentID != "" {
		m["parentID"] = f.ParentID
	}
	return m
}

// WriteServiceFile writes dir/service.json as OpenCode 2 registers itself
// ({id, version, url, pid, password}, mode 0600, renamed into place) and
// returns its path; dir must exist. The pid is this process's, so it is
// alive.
func (s *Server) WriteServiceFile(dir string) (string, error) {
	b, err := json.Marshal(map[string]any{
		"id": "svc_fake", "version": s.Version, "url": s.URL, "pid": os.Getpid(), "password": s.Password,
	})
	if err != nil {
		return "", fmt.Errorf("opencodetest: encoding service.json: %w", err)
	}
	tmp := filepath.Join(dir, ".service.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return "", fmt.Errorf("opencodetest: writing service.json: %w", err)
	}
	p := filepath.Join(dir, "service.json")
	if err := os.Rename(tmp, p); err != nil {
		return "", fmt.Errorf("opencodetest: writing service.json: %w", err)
	}
	return p, nil
}

func (s *Server) handleHealth2(w http.ResponseWriter, _ *http.Request) {
	fakeWriteJSON(w, http.StatusOK, map[string]any{"healthy": true, "version": s.Version, "pid": os.Getpid()})
}

func (s *Server) handleInfo(w http.ResponseWriter, _ *http.Request) {
	fakeWriteJSON(w, http.StatusOK, map[string]any{"version": s.Version, "pid": os.Getpid(), "urls": []string{s.URL}, "paths": struct{}{}})
}

func (s *Server) handleEvents2(w http.ResponseWriter, r *http.Request) {
	first := locked(s, func() Event2 {
		return Event2{ID: s.nextIDLocked("evt"), Created: time.Now().UnixMilli(), Type: "server.connected", Data: struct{}{}}
	})
	s.stream(w, r, s.events, &s.connections, sseRecord(first), func() []byte { return []byte(": heartbeat\n\n") })
}

const sweepRecord = "data: {\"type\":\"log.sweep_required\"}\n\n"

func (s *Server) handleChanges(w http.ResponseWriter, r *http.Request) {
	s.stream(w, r, s.changes, &s.changeConns, []byte(sweepRecord), nil)
}

// SweepRequired sends the marker log.sweep_required to every connected
// GET /api/event/changes stream, as the server does when hints were lost.
func (s *Server) SweepRequired() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.changes {
		st.push([]byte(sweepRecord))
	}
}

// apiSession checks the {sid} of an /api route: 400 without the "ses"
// prefix and, on 1.x, 404 for a session no request named.
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request) (string, bool) {
	sid, ok := pathID(w, r, "sid", "ses")
	if ok && s.gen == 1 && locked(s, func() bool { return s.sessions[sid] == nil }) {
		sessionNotFound(w, sid)
		return "", false
	}
	return sid, ok
}

// pathID checks the path parameter name of an /api route against prefix.
func pathID(w http.ResponseWriter, r *http.Request, name, prefix string) (string, bool) {
	id := r.PathValue(name)
	if !strings.HasPrefix(id, prefix) {
		fakeInvalid(w, "Params", "Expected a string matching the pattern ^"+prefix+", got \""+id+"\"")
		return "", false
	}
	return id, true
}

func sessionNotFound(w http.ResponseWriter, sid string) {
	fakeTagged(w, http.StatusNotFound, "SessionNotFoundError", "Session not found: "+sid, "sessionID", sid)
}

func permissionsV2(ps []opencode.PermissionRequest) []any {
	out := make([]any, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.V2())
	}
	return out
}

func (s *Server) handleSessionQuestions(w http.ResponseWriter, r *http.Request) {
	sid, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	qs := []opencode.QuestionRequest{}
	for _, q := range s.questions {
		if q.SessionID == sid && q.Surface == opencode.SurfaceAPI {
			qs = append(qs, q.QuestionRequest)
		}
	}
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": qs})
}

func (s *Server) handleSessionPermissions(w http.ResponseWriter, r *http.Request) {
	sid, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	var ps []opencode.PermissionRequest
	for _, p := range s.permissions {
		if p.SessionID == sid && p.Surface == opencode.SurfaceAPI {
			ps = append(ps, p.PermissionRequest)
		}
	}
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": permissionsV2(ps)})
}

// handleAPIQuestionReply serves …/question/{id}/reply and …/reject.
func (s *Server) handleAPIQuestionReply(w http.ResponseWriter, r *http.Request) {
	sid, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	id, ok := pathID(w, r, "id", "que")
	if !ok {
		return
	}
	reject := strings.HasSuffix(r.URL.Path, "/reject")
	var body struct {
		Answers *[][]string `json:"answers"`
	}
	if b := strings.TrimSpace(fakeBody(r)); reject && b != "" && b != "{}" {
		fakeInvalid(w, "Payload", "Expected no body")
		return
	} else if !reject && (decode(b, &body, true) != nil || body.Answers == nil) {
		fakeInvalid(w, "Payload", "Expected {\"answers\": [[label, …], …]}")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := take(s, &s.questions, func(q heldQuestion) bool {
		return q.ID == id && q.SessionID == sid && q.Surface == opencode.SurfaceAPI
	})
	if !ok {
		fakeTagged(w, http.StatusNotFound, "QuestionNotFoundError", "Question request not found: "+id, "requestID", id)
		return
	}
	rep := Reply{Kind: RejectQuestion, Directory: q.dir, SessionID: sid, RequestID: id, Surface: opencode.SurfaceAPI}
	if reject {
		s.settledLocked(q.dir, sid, q.Surface, opencode.TypeQuestionRejected, opencode.QuestionRejected{SessionID: sid, RequestID: id})
	} else {
		rep.Kind, rep.Answers = ReplyQuestion, *body.Answers
		s.settledLocked(q.dir, sid, q.Surface, opencode.TypeQuestionReplied, opencode.QuestionReplied{SessionID: sid, RequestID: id, Answers: *body.Answers})
	}
	s.replies = append(s.replies, rep)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleAPIPermissionReply(w http.ResponseWriter, r *http.Request) {
	sid, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	id, ok := pathID(w, r, "id", "per")
	if !ok {
		return
	}
	var body struct {
		Reply   string  `json:"reply"`
		Message *string `json:"message"`
	}
	if err := decode(fakeBody(r), &body, true); err != nil {
		fakeInvalid(w, "Payload", "Expected {\"reply\": once|always|reject, \"message\"?: string}")
		return
	}
	if !slices.Contains([]string{"once", "always", "reject"}, body.Reply) {
		fakeInvalid(w, "Payload", "Expected once, always or reject, got \""+body.Reply+"\"")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := take(s, &s.permissions, func(p heldPermission) bool {
		return p.ID == id && p.SessionID == sid && p.Surface == opencode.SurfaceAPI
	})
	if !ok {
		fakeTagged(w, http.StatusNotFound, "PermissionNotFoundError", "Permission request not found: "+id, "requestID", id)
		return
	}
	if body.Reply == "always" && s.gen == 2 {
		// What "always" remembers is save, else the resources asked for.
		save := p.Always
		if len(save) == 0 {
			save = p.Patterns
		}
		for _, res := range save {
			s.saved = append(s.saved, SavedApproval{ID: s.nextIDLocked("psv"), ProjectID: Server2ProjectID, Action: p.Permission, Resource: res})
		}
	}
	rep := Reply{Kind: ReplyPermission, Directory: p.dir, SessionID: sid, RequestID: id, Reply: body.Reply, Surface: opencode.SurfaceAPI}
	if body.Message != nil {
		rep.Message = *body.Message
	}
	s.replies = append(s.replies, rep)
	s.settledLocked(p.dir, sid, p.Surface, opencode.TypePermissionReplied, opencode.PermissionReplied{SessionID: sid, RequestID: id, Reply: body.Reply})
	w.WriteHeader(http.StatusNoContent)
}

// SavedApproval is an approval saved by a permission reply of "always",
// as GET /api/permission/saved lists it.
type SavedApproval struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectID"`
	Action    string `json:"action"`
	Resource  string `json:"resource"`
}

// AddSaved saves a, as a reply of "always" would, and returns it with an
// ID when it had none.
func (s *Server) AddSaved(a SavedApproval) SavedApproval {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.ID == "" {
		a.ID = s.nextIDLocked("psv")
	}
	s.saved = append(s.saved, a)
	s.broadcastLocked()
	return a
}

// Saved returns the saved approvals.
func (s *Server) Saved() []SavedApproval {
	return locked(s, func() []SavedApproval { return slices.Clone(s.saved) })
}

// WaitSaved blocks until exactly n approvals are saved, or ctx is done,
// and returns them.
func (s *Server) WaitSaved(ctx context.Context, n int) ([]SavedApproval, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d saved approvals", n), func() bool { return len(s.saved) == n })
	return s.Saved(), err
}

func (s *Server) handleSaved(w http.ResponseWriter, r *http.Request) {
	project := r.URL.Query().Get("projectID")
	s.mu.Lock()
	out := []SavedApproval{}
	for _, a := range s.saved {
		if project == "" || a.ProjectID == project {
			out = append(out, a)
		}
	}
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": out})
}

func (s *Server) handleDeleteSaved(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.saved = slices.DeleteFunc(s.saved, func(a SavedApproval) bool { return a.ID == r.PathValue("id") })
	s.broadcastLocked()
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// promptText is the text and attachments of a prompt, in either shape.
type promptText struct {
	Text   *string         `json:"text"`
	Files  json.RawMessage `json:"files"`
	Agents json.RawMessage `json:"agents"`
}

// handlePrompt takes the prompt's fields at the top level (@01fd0c8) or
// under prompt (@8c6ff62), or both alike; like the real server's schema,
// it ignores keys it does not know.
func (s *Server) handlePrompt(w http.ResponseWriter, r *http.Request) {
	sid, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	var body struct {
		ID string `json:"id"`
		promptText
		Prompt   *promptText     `json:"prompt"`
		Delivery string          `json:"delivery"`
		Resume   json.RawMessage `json:"resume"`
	}
	const want = "Expected {\"id\"?, \"text\", \"files\"?, \"agents\"?, \"delivery\"?, \"resume\"?}, or the text under \"prompt\""
	if err := decode(fakeBody(r), &body, false); err != nil {
		fakeInvalid(w, "Payload", want+": "+err.Error())
		return
	}
	p := body.promptText
	if n := body.Prompt; n != nil {
		switch {
		case p.Text == nil:
			p = *n
		case n.Text == nil || *n.Text != *p.Text:
			fakeInvalid(w, "Payload", "text and prompt.text differ")
			return
		default:
			p.Files, p.Agents = cmpOr(p.Files, n.Files), cmpOr(p.Agents, n.Agents)
		}
	}
	if p.Text == nil {
		fakeInvalid(w, "Payload", want)
		return
	}
	if body.Delivery != "" && body.Delivery != "steer" && body.Delivery != "queue" {
		fakeInvalid(w, "Payload", "Expected delivery steer or queue, got \""+body.Delivery+"\"")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touchLocked(sid, "")
	s.prompts = append(s.prompts, Prompt{SessionID: sid, ID: body.ID, Text: *p.Text, Delivery: body.Delivery,
		Files: p.Files, Agents: p.Agents, Resume: body.Resume})
	s.startTurnLocked(sid, "")
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

func cmpOr(a, b json.RawMessage) json.RawMessage {
	if a == nil {
		return b
	}
	return a
}

func (s *Server) handleInterrupt(w http.ResponseWriter, r *http.Request) {
	sid, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interrupts = append(s.interrupts, sid)
	s.endTurnLocked(sid, "session.execution.interrupted", map[string]any{"sessionID": sid, "reason": "user"})
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

// handleActive lists as running every session in a turn or with a
// pending form, question or permission request: what a sweep must list.
func (s *Server) handleActive(w http.ResponseWriter, _ *http.Request) {
	running := map[string]string{"type": "running"}
	active := map[string]any{}
	s.mu.Lock()
	for sid := range s.busy {
		active[sid] = running
	}
	for _, f := range s.forms {
		if f.state.Status == "pending" {
			active[f.SessionID] = running
		}
	}
	for _, q := range s.questions {
		active[q.SessionID] = running
	}
	for _, p := range s.permissions {
		active[p.SessionID] = running
	}
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": active})
}

// handleListSessions2 lists sessions newest first (order=asc: oldest
// first), of directory when the query names one, at most limit. The fake
// answers one page: it hands out no cursor, so any is invalid.
func (s *Server) handleListSessions2(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	dir, order := q.Get("directory"), q.Get("order")
	limit, err := strconv.Atoi(cmp.Or(q.Get("limit"), "50"))
	switch {
	case q.Has("directory") && !path.IsAbs(dir):
		fakeInvalid(w, "Query", "Expected an absolute path, got \""+dir+"\"")
	case err != nil || limit < 1:
		fakeInvalid(w, "Query", "Expected a positive integer, got \""+q.Get("limit")+"\"")
	case order != "" && order != "asc" && order != "desc":
		fakeInvalid(w, "Query", "Expected \"asc\" or \"desc\", got \""+order+"\"")
	case q.Has("cursor"):
		fakeTagged(w, http.StatusBadRequest, "InvalidCursorError", "Invalid cursor")
	default:
		s.mu.Lock()
		var list []*fakeSession
		for _, f := range s.sessions {
			if dir == "" || f.Directory == dir {
				list = append(list, f)
			}
		}
		slices.SortFunc(list, func(a, b *fakeSession) int { return b.seq - a.seq })
		if order == "asc" {
			slices.Reverse(list)
		}
		data := []any{}
		for _, f := range list[:min(limit, len(list))] {
			data = append(data, f.info2())
		}
		s.mu.Unlock()
		fakeWriteJSON(w, http.StatusOK, map[string]any{"data": data, "cursor": struct{}{}})
	}
}

// handleCreateSession2 creates a session: the given id or the next free
// ses_N, in location.directory ("/" when none), or at its parent's.
func (s *Server) handleCreateSession2(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ID, ParentID, Title string
		Location            *struct {
			Directory   string `json:"directory"`
			WorkspaceID string `json:"workspaceID"`
		} `json:"location"`
		Agent, Model, Metadata, Permissions json.RawMessage
	}
	if err := decode(fakeBody(r), &body, true); err != nil {
		fakeInvalid(w, "Payload", "Expected {\"id\"?, \"parentID\"?, \"title\"?, \"location\"?: {\"directory\"}, …}: "+err.Error())
		return
	}
	for _, id := range []string{body.ID, body.ParentID} {
		if id != "" && !strings.HasPrefix(id, "ses") {
			fakeInvalid(w, "Payload", "Expected a string matching the pattern ^ses, got \""+id+"\"")
			return
		}
	}
	dir := "/"
	if body.Location != nil {
		if !path.IsAbs(body.Location.Directory) {
			fakeInvalid(w, "Payload", "Expected an absolute path, got \""+body.Location.Directory+"\"")
			return
		}
		dir = body.Location.Directory
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if body.ParentID != "" {
		parent, ok := s.sessions[body.ParentID]
		if !ok {
			sessionNotFound(w, body.ParentID)
			return
		}
		dir = parent.Directory
	}
	id := body.ID
	if _, taken := s.sessions[id]; taken {
		fakeTagged(w, http.StatusConflict, "ConflictError", "Session already exists: "+id, "resource", id)
		return
	}
	f := s.sessionLocked(cmp.Or(id, s.freeSessionIDLocked()), dir)
	f.ParentID, f.Title, f.implicit = body.ParentID, body.Title, false
	s.broadcastLocked()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": f.info2()})
}

func (s *Server) handleGetSession2(w http.ResponseWriter, r *http.Request) {
	sid, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.sessions[sid]; ok {
		fakeWriteJSON(w, http.StatusOK, map[string]any{"data": f.info2()})
	} else {
		sessionNotFound(w, sid)
	}
}

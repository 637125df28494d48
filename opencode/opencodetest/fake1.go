package opencodetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// route1 serves opencode 1.18.33's routes, with its status codes and
// error bodies. Per-directory state is keyed by the directory query
// parameter (on /api, location[directory] or x-opencode-directory).
func (s *Server) route1(mux *http.ServeMux) {
	mux.HandleFunc("GET /global/health", func(w http.ResponseWriter, _ *http.Request) {
		fakeWriteJSON(w, http.StatusOK, opencode.Health{Healthy: true, Version: s.Version})
	})
	mux.HandleFunc("GET /global/event", func(w http.ResponseWriter, r *http.Request) {
		rec := func(typ string) []byte {
			return locked(s, func() []byte {
				return fmt.Appendf(nil, "data: {\"payload\":{\"id\":%q,\"type\":%q,\"properties\":{}}}\n\n", s.nextIDLocked("evt"), typ)
			})
		}
		s.stream(w, r, s.events, &s.connections, rec("server.connected"), func() []byte { return rec("server.heartbeat") })
	})
	mux.HandleFunc("GET /question", func(w http.ResponseWriter, r *http.Request) {
		dir := r.URL.Query().Get("directory")
		fakeWriteJSON(w, http.StatusOK, locked(s, func() any { return s.questionsLocked(dir, ptr(opencode.SurfaceLegacy)) }))
	})
	mux.HandleFunc("POST /question/{id}/reply", s.handleReplyQuestion)
	mux.HandleFunc("POST /question/{id}/reject", s.handleReplyQuestion)
	mux.HandleFunc("GET /permission", func(w http.ResponseWriter, r *http.Request) {
		dir := r.URL.Query().Get("directory")
		fakeWriteJSON(w, http.StatusOK, locked(s, func() any { return s.permissionsLocked(dir, ptr(opencode.SurfaceLegacy)) }))
	})
	if !s.legacyPermissions {
		mux.HandleFunc("POST /permission/{id}/reply", s.handleReplyPermission)
	}
	mux.HandleFunc("POST /session/{sid}/permissions/{id}", s.handleReplyPermission)
	mux.HandleFunc("GET /project", func(w http.ResponseWriter, _ *http.Request) {
		fakeWriteJSON(w, http.StatusOK, locked(s, func() []opencode.Project { return append([]opencode.Project{}, s.projects...) }))
	})
	mux.HandleFunc("GET /agent", func(w http.ResponseWriter, r *http.Request) {
		dir := r.URL.Query().Get("directory")
		fakeWriteJSON(w, http.StatusOK, locked(s, func() []opencode.Agent { return append([]opencode.Agent{}, s.agents[dir]...) }))
	})
	mux.HandleFunc("GET /session/{id}/message/{messageID}", s.handleGetMessage)
	mux.HandleFunc("GET /session/{id}/message", func(w http.ResponseWriter, _ *http.Request) {
		fakeWriteJSON(w, http.StatusOK, []any{}) // no text messages are kept
	})
	mux.HandleFunc("GET /session/{id}", s.handleGetSession)
	mux.HandleFunc("GET /session", s.handleListSessions1)
	mux.HandleFunc("POST /session", s.handleCreateSession1)
	mux.HandleFunc("GET /session/status", s.handleSessionStatus)
	mux.HandleFunc("POST /session/{id}/prompt_async", s.handlePromptAsync)
	mux.HandleFunc("POST /session/{id}/abort", s.handleAbort)
	mux.HandleFunc("POST /tui/show-toast", func(w http.ResponseWriter, _ *http.Request) { fakeWriteJSON(w, http.StatusOK, true) })

	// The /api surface of 1.18.33, beside the routes above.
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, _ *http.Request) {
		fakeWriteJSON(w, http.StatusOK, map[string]bool{"healthy": true}) // the version is on /global/health
	})
	mux.HandleFunc("GET /api/question/request", func(w http.ResponseWriter, r *http.Request) {
		dir := apiDirectory(r)
		fakeWriteJSON(w, http.StatusOK, map[string]any{"location": map[string]string{"directory": dir}, "data": locked(s, func() any { return s.questionsLocked(dir, ptr(opencode.SurfaceAPI)) })})
	})
	mux.HandleFunc("GET /api/permission/request", func(w http.ResponseWriter, r *http.Request) {
		dir := apiDirectory(r)
		fakeWriteJSON(w, http.StatusOK, map[string]any{"location": map[string]string{"directory": dir}, "data": permissionsV2(locked(s, func() []opencode.PermissionRequest { return s.permissionsLocked(dir, ptr(opencode.SurfaceAPI)) }))})
	})
	s.routeAPIRequests(mux)
	mux.HandleFunc("/api/", fakeWebApp)
}

func ptr[T any](v T) *T { return &v }

// fakeWebPage stands for the web app opencode serves on paths it does not
// route.
const fakeWebPage = "<!doctype html>\n<html lang=\"en\"><head><title>OpenCode</title></head><body><div id=\"root\"></div></body></html>\n"

func fakeWebApp(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(fakeWebPage))
}

// apiDirectory is the directory an /api request names.
func apiDirectory(r *http.Request) string {
	if d := r.URL.Query().Get("location[directory]"); d != "" {
		return d
	}
	return r.Header.Get("x-opencode-directory")
}

func fakeBadRequest(w http.ResponseWriter, kind, message string) {
	fakeWriteJSON(w, http.StatusBadRequest, map[string]any{"name": "BadRequest", "data": map[string]any{"message": message, "kind": kind}})
}

func fakeNotFound(w http.ResponseWriter, tag, id string) {
	fakeWriteJSON(w, http.StatusNotFound, map[string]any{"_tag": tag, "requestID": id, "message": fmt.Sprintf("request %s not found", id)})
}

// handleReplyQuestion serves POST /question/{id}/reply and …/reject.
func (s *Server) handleReplyQuestion(w http.ResponseWriter, r *http.Request) {
	id, dir := r.PathValue("id"), r.URL.Query().Get("directory")
	if !strings.HasPrefix(id, "que") {
		fakeBadRequest(w, "Params", "requestID must start with \"que\"")
		return
	}
	reject := strings.HasSuffix(r.URL.Path, "/reject")
	var body struct {
		Answers *[][]string `json:"answers"`
	}
	if err := json.Unmarshal([]byte(fakeBody(r)), &body); !reject && (err != nil || body.Answers == nil) {
		fakeBadRequest(w, "Payload", "body must be {\"answers\": [[label, …], …]}")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := take(s, &s.questions, func(q heldQuestion) bool { return q.dir == dir && q.ID == id && q.Surface != opencode.SurfaceAPI })
	if !ok {
		fakeNotFound(w, "QuestionNotFoundError", id)
		return
	}
	rep := Reply{Kind: ReplyQuestion, Directory: dir, SessionID: q.SessionID, RequestID: id}
	if reject {
		rep.Kind = RejectQuestion
		s.sendLocked(dir, opencode.TypeQuestionRejected, opencode.QuestionRejected{SessionID: q.SessionID, RequestID: id})
	} else {
		rep.Answers = *body.Answers
		s.sendLocked(dir, opencode.TypeQuestionReplied, opencode.QuestionReplied{SessionID: q.SessionID, RequestID: id, Answers: *body.Answers})
	}
	s.replies = append(s.replies, rep)
	fakeWriteJSON(w, http.StatusOK, true)
}

// handleReplyPermission serves POST /permission/{id}/reply and the older
// POST /session/{sid}/permissions/{id}.
func (s *Server) handleReplyPermission(w http.ResponseWriter, r *http.Request) {
	id, dir, legacy := r.PathValue("id"), r.URL.Query().Get("directory"), r.PathValue("sid") != ""
	var body struct {
		Reply    string `json:"reply"`
		Response string `json:"response"` // the older route's
		Message  string `json:"message"`
	}
	if err := json.Unmarshal([]byte(fakeBody(r)), &body); err != nil {
		fakeBadRequest(w, "Payload", "body must be {\"reply\": …, \"message\"?: …}")
		return
	}
	if legacy {
		body.Reply, body.Message = body.Response, ""
	}
	if !strings.HasPrefix(id, "per") {
		fakeBadRequest(w, "Params", "requestID must start with \"per\"")
		return
	}
	if !slices.Contains([]string{"once", "always", "reject"}, body.Reply) {
		fakeBadRequest(w, "Payload", "reply must be once, always or reject")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := take(s, &s.permissions, func(p heldPermission) bool { return p.dir == dir && p.ID == id && p.Surface != opencode.SurfaceAPI })
	if !ok {
		fakeNotFound(w, "PermissionNotFoundError", id)
		return
	}
	s.replies = append(s.replies, Reply{Kind: ReplyPermission, Directory: dir, SessionID: p.SessionID, RequestID: id,
		Reply: body.Reply, Message: body.Message, Legacy: legacy})
	s.sendLocked(dir, opencode.TypePermissionReplied, opencode.PermissionReplied{SessionID: p.SessionID, RequestID: id, Reply: body.Reply})
	fakeWriteJSON(w, http.StatusOK, true)
}

// freeSessionIDLocked returns the first ses_N not taken, from N = the
// number of sessions + 1.
func (s *Server) freeSessionIDLocked() string {
	for n := len(s.sessions) + 1; ; n++ {
		if id := "ses_" + strconv.Itoa(n); s.sessions[id] == nil {
			return id
		}
	}
}

// session1Locked returns a session 1.x's session routes know: one added
// or created, not one only named by a request.
func (s *Server) session1Locked(w http.ResponseWriter, id string) *fakeSession {
	if f, ok := s.sessions[id]; ok && !f.implicit {
		return f
	}
	fakeJSONError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("session %s not found", id))
	return nil
}

func (s *Server) handleGetSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.session1Locked(w, r.PathValue("id")); f != nil {
		fakeWriteJSON(w, http.StatusOK, f.Session)
	}
}

// handleListSessions1 lists the sessions of the directory, most recently
// updated first.
func (s *Server) handleListSessions1(w http.ResponseWriter, r *http.Request) {
	dir := r.URL.Query().Get("directory")
	s.mu.Lock()
	list := []opencode.Session{}
	for _, f := range s.sessions {
		if !f.implicit && (dir == "" || f.Directory == dir) {
			list = append(list, f.Session)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b opencode.Session) int { return int(b.Time.Updated - a.Time.Updated) })
	fakeWriteJSON(w, http.StatusOK, list)
}

func (s *Server) handleCreateSession1(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Title string `json:"title"`
	}
	if b := fakeBody(r); b != "" && json.Unmarshal([]byte(b), &body) != nil {
		fakeBadRequest(w, "Payload", "body must be {\"title\"?: …}")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.sessionLocked(s.freeSessionIDLocked(), r.URL.Query().Get("directory"))
	f.implicit, f.Title = false, body.Title
	if f.Title == "" {
		f.Title = "New session - " + time.Now().UTC().Format(time.RFC3339)
	}
	s.broadcastLocked()
	fakeWriteJSON(w, http.StatusOK, f.Session)
}

func (s *Server) handleSessionStatus(w http.ResponseWriter, r *http.Request) {
	dir := r.URL.Query().Get("directory")
	s.mu.Lock()
	out := map[string]any{}
	for sid := range s.busy {
		if f := s.sessions[sid]; dir == "" || f != nil && f.Directory == dir {
			out[sid] = map[string]string{"type": "busy"}
		}
	}
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, out)
}

// handlePromptAsync takes a prompt's text parts and starts a turn that
// lasts until FinishTurn, FailTurn or an abort.
func (s *Server) handlePromptAsync(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"parts"`
	}
	if err := json.Unmarshal([]byte(fakeBody(r)), &body); err != nil || len(body.Parts) == 0 {
		fakeBadRequest(w, "Payload", "body must be {\"parts\": [{\"type\": \"text\", \"text\": …}]}")
		return
	}
	var texts []string
	for _, p := range body.Parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.session1Locked(w, r.PathValue("id"))
	if f == nil {
		return
	}
	s.prompts = append(s.prompts, Prompt{SessionID: f.ID, Text: strings.Join(texts, "\n")})
	s.touchLocked(f.ID, "")
	s.startTurnLocked(f.ID, f.Directory)
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

// handleAbort answers true for any session, as 1.18.33 does.
func (s *Server) handleAbort(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interrupts = append(s.interrupts, sid)
	s.endTurnLocked(sid, opencode.TypeSessionError, map[string]any{
		"sessionID": sid, "error": map[string]any{"name": "MessageAbortedError", "data": map[string]string{"message": "Aborted"}},
	})
	s.broadcastLocked()
	fakeWriteJSON(w, http.StatusOK, true)
}

// SetProjects sets what GET /project answers: each project's worktree and
// sandboxes are the directories a watcher lists after a connect.
func (s *Server) SetProjects(ps []opencode.Project) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projects = slices.Clone(ps)
}

// SetAgents sets what GET /agent answers for directory dir.
func (s *Server) SetAgents(dir string, agents []opencode.Agent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agents[dir] = slices.Clone(agents)
}

// ToolMessage is an assistant message holding tool calls, as
// GET /session/{id}/message/{messageID} shows it.
type ToolMessage struct {
	ID, SessionID string
	Agent         string
	Cwd, Root     string // the message's path: the instance directory and the worktree
	Calls         []ToolCallPart
}

// ToolCallPart is one tool call of a ToolMessage.
type ToolCallPart struct {
	CallID, Tool string
	Status       string // "running" when empty
	Input        any    // the call's arguments, sent as JSON
}

// AddMessage makes m what GET /session/{m.SessionID}/message/{m.ID}
// answers, in any directory.
func (s *Server) AddMessage(m ToolMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages[m.SessionID+"/"+m.ID] = m
}

func (s *Server) handleGetMessage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	m, ok := s.messages[r.PathValue("id")+"/"+r.PathValue("messageID")]
	s.mu.Unlock()
	if !ok {
		fakeJSONError(w, http.StatusNotFound, "NotFoundError", "message not found")
		return
	}
	parts := []map[string]any{}
	for i, c := range m.Calls {
		status := c.Status
		if status == "" {
			status = "running"
		}
		parts = append(parts, map[string]any{
			"id": fmt.Sprintf("prt_%d", i), "messageID": m.ID, "sessionID": m.SessionID, "type": "tool",
			"tool": c.Tool, "callID": c.CallID, "state": map[string]any{"status": status, "input": c.Input},
		})
	}
	info := map[string]any{
		"id": m.ID, "sessionID": m.SessionID, "role": "assistant", "agent": m.Agent,
		"path": map[string]string{"cwd": m.Cwd, "root": m.Root},
	}
	fakeWriteJSON(w, http.StatusOK, map[string]any{"info": info, "parts": parts})
}

package opencodetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// WithOpencode2 makes the server answer like OpenCode 2, which speaks
// only the /api surface: every path outside /api, /global/health and
// /global/event included, answers 200 with the web app's page, while
// GET /api/health answers {"healthy":true,"version","pid"} (version
// "2.0.0" unless a later WithVersion says otherwise) and the /api request
// routes work as they do on opencode 1.x.
func WithOpencode2() ServerOption {
	return func(s *Server) { s.opencode2, s.version = true, "2.0.0" }
}

// fakeWebPage stands for the web app opencode serves on paths it does not
// route.
const fakeWebPage = "<!doctype html>\n<html lang=\"en\"><head><title>OpenCode</title></head><body><div id=\"root\"></div></body></html>\n"

func fakeWebApp(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(fakeWebPage))
}

func (s *Server) routeAPI(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, _ *http.Request) {
		if s.opencode2 {
			fakeWriteJSON(w, http.StatusOK, map[string]any{"healthy": true, "version": s.version, "pid": 4242})
			return
		}
		// opencode 1.18 says no more; its version is on /global/health.
		fakeWriteJSON(w, http.StatusOK, map[string]bool{"healthy": true})
	})
	mux.HandleFunc("GET /api/question/request", s.handleAPIListQuestions)
	mux.HandleFunc("GET /api/permission/request", s.handleAPIListPermissions)
	mux.HandleFunc("GET /api/session/{sessionID}/question", s.handleAPISessionQuestions)
	mux.HandleFunc("GET /api/session/{sessionID}/permission", s.handleAPISessionPermissions)
	mux.HandleFunc("POST /api/session/{sessionID}/question/{id}/reply", s.handleAPIReplyQuestion)
	mux.HandleFunc("POST /api/session/{sessionID}/question/{id}/reject", s.handleAPIRejectQuestion)
	mux.HandleFunc("POST /api/session/{sessionID}/permission/{id}/reply", s.handleAPIReplyPermission)
	mux.HandleFunc("/api/", fakeWebApp)
}

// AddAPIQuestion makes q a pending question of the /api surface in
// directory dir, as a session prompted through /api raises it, and sends
// question.v2.asked to the connected streams. Only the /api routes list
// and answer it.
func (s *Server) AddAPIQuestion(dir string, q opencode.QuestionRequest) {
	s.StoreAPIQuestion(dir, q)
	s.SendEvent(dir, opencode.TypeQuestionV2Asked, q)
}

// StoreAPIQuestion makes q pending on the /api surface without telling
// the streams.
func (s *Server) StoreAPIQuestion(dir string, q opencode.QuestionRequest) {
	q.Surface = opencode.SurfaceAPI
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiQuestions[dir] = append(s.apiQuestions[dir], q)
	s.apiSessions[q.SessionID] = dir
	s.broadcastLocked()
}

// APIQuestions returns the /api surface's questions pending in dir.
func (s *Server) APIQuestions(dir string) []opencode.QuestionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.apiQuestions[dir])
}

// AddAPIPermission makes p a pending permission request of the /api
// surface in directory dir and sends permission.v2.asked, in the /api
// wire shape (action, resources, save, source), to the connected streams.
func (s *Server) AddAPIPermission(dir string, p opencode.PermissionRequest) {
	s.StoreAPIPermission(dir, p)
	s.SendEvent(dir, opencode.TypePermissionV2Asked, p.V2())
}

// StoreAPIPermission makes p pending on the /api surface without telling
// the streams.
func (s *Server) StoreAPIPermission(dir string, p opencode.PermissionRequest) {
	p.Surface = opencode.SurfaceAPI
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiPermissions[dir] = append(s.apiPermissions[dir], p)
	s.apiSessions[p.SessionID] = dir
	s.broadcastLocked()
}

// APIPermissions returns the /api surface's permission requests pending
// in dir.
func (s *Server) APIPermissions(dir string) []opencode.PermissionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.apiPermissions[dir])
}

// apiDirectory is the directory an /api request names: the
// location[directory] query parameter, else the x-opencode-directory
// header, else "".
func apiDirectory(r *http.Request) string {
	if d := r.URL.Query().Get("location[directory]"); d != "" {
		return d
	}
	return r.Header.Get("x-opencode-directory")
}

// fakeTagged writes an error of the /api surface: {"_tag", "message", …}.
func fakeTagged(w http.ResponseWriter, status int, tag, message string, extra ...string) {
	body := map[string]string{"_tag": tag, "message": message}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i]] = extra[i+1]
	}
	fakeWriteJSON(w, status, body)
}

func fakeInvalid(w http.ResponseWriter, kind, message string) {
	fakeTagged(w, http.StatusBadRequest, "InvalidRequestError", message, "kind", kind)
}

// apiSession checks the session of an /api route, answering 400 or 404
// as the real server does, and returns its directory.
func (s *Server) apiSession(w http.ResponseWriter, r *http.Request) (dir string, ok bool) {
	sid := r.PathValue("sessionID")
	if !strings.HasPrefix(sid, "ses") {
		fakeInvalid(w, "Params", "Expected a string matching the pattern ^ses, got \""+sid+"\"")
		return "", false
	}
	s.mu.Lock()
	dir, ok = s.apiSessions[sid]
	if !ok {
		var sess opencode.Session
		sess, ok = s.sessions[sid]
		dir = sess.Directory
	}
	s.mu.Unlock()
	if !ok {
		fakeTagged(w, http.StatusNotFound, "SessionNotFoundError", "Session not found: "+sid, "sessionID", sid)
	}
	return dir, ok
}

// decodeStrict decodes body into v, refusing unknown fields and trailing
// data, as the real server's schema does.
func decodeStrict(body string, v any) error {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

// decodeLoose is decodeStrict for a route whose schema ignores unknown
// keys.
func decodeLoose(body string, v any) error {
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

func (s *Server) handleAPIListQuestions(w http.ResponseWriter, r *http.Request) {
	dir := apiDirectory(r)
	qs := s.APIQuestions(dir)
	if qs == nil {
		qs = []opencode.QuestionRequest{}
	}
	fakeWriteJSON(w, http.StatusOK, map[string]any{"location": map[string]string{"directory": dir}, "data": qs})
}

func permissionsV2(ps []opencode.PermissionRequest) []any {
	out := make([]any, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.V2())
	}
	return out
}

func (s *Server) handleAPIListPermissions(w http.ResponseWriter, r *http.Request) {
	dir := apiDirectory(r)
	fakeWriteJSON(w, http.StatusOK, map[string]any{
		"location": map[string]string{"directory": dir}, "data": permissionsV2(s.APIPermissions(dir)),
	})
}

func (s *Server) handleAPISessionQuestions(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	sid := r.PathValue("sessionID")
	qs := slices.DeleteFunc(s.APIQuestions(dir), func(q opencode.QuestionRequest) bool { return q.SessionID != sid })
	if qs == nil {
		qs = []opencode.QuestionRequest{}
	}
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": qs})
}

func (s *Server) handleAPISessionPermissions(w http.ResponseWriter, r *http.Request) {
	dir, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	sid := r.PathValue("sessionID")
	ps := slices.DeleteFunc(s.APIPermissions(dir), func(p opencode.PermissionRequest) bool { return p.SessionID != sid })
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": permissionsV2(ps)})
}

// takeAPIQuestion removes question id of session sid in dir.
func (s *Server) takeAPIQuestion(dir, sid, id string) (opencode.QuestionRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	qs := s.apiQuestions[dir]
	for i, q := range qs {
		if q.ID == id && q.SessionID == sid {
			s.apiQuestions[dir] = slices.Delete(slices.Clone(qs), i, i+1)
			s.broadcastLocked()
			return q, true
		}
	}
	return opencode.QuestionRequest{}, false
}

func (s *Server) takeAPIPermission(dir, sid, id string) (opencode.PermissionRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.apiPermissions[dir]
	for i, p := range ps {
		if p.ID == id && p.SessionID == sid {
			s.apiPermissions[dir] = slices.Delete(slices.Clone(ps), i, i+1)
			s.broadcastLocked()
			return p, true
		}
	}
	return opencode.PermissionRequest{}, false
}

// apiRequestID checks the request ID of an /api route against prefix.
func apiRequestID(w http.ResponseWriter, r *http.Request, prefix string) (string, bool) {
	id := r.PathValue("id")
	if !strings.HasPrefix(id, prefix) {
		fakeInvalid(w, "Params", "Expected a string matching the pattern ^"+prefix+", got \""+id+"\"")
		return "", false
	}
	return id, true
}

func (s *Server) handleAPIReplyQuestion(w http.ResponseWriter, r *http.Request) {
	id, ok := apiRequestID(w, r, "que")
	if !ok {
		return
	}
	var body struct {
		Answers *[][]string `json:"answers"`
	}
	if err := decodeStrict(fakeBody(r), &body); err != nil || body.Answers == nil {
		fakeInvalid(w, "Payload", "Expected QuestionV2.Reply {\"answers\": [[label, …], …]}")
		return
	}
	dir, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	sid := r.PathValue("sessionID")
	if _, ok := s.takeAPIQuestion(dir, sid, id); !ok {
		fakeTagged(w, http.StatusNotFound, "QuestionNotFoundError", "Question request not found: "+id, "requestID", id)
		return
	}
	s.record(Reply{Kind: ReplyQuestion, Directory: dir, SessionID: sid, RequestID: id, Answers: *body.Answers, Surface: opencode.SurfaceAPI})
	s.SendEvent(dir, opencode.TypeQuestionV2Replied, opencode.QuestionReplied{SessionID: sid, RequestID: id, Answers: *body.Answers})
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleAPIRejectQuestion(w http.ResponseWriter, r *http.Request) {
	id, ok := apiRequestID(w, r, "que")
	if !ok {
		return
	}
	if b := bytes.TrimSpace([]byte(fakeBody(r))); len(b) > 0 && string(b) != "{}" {
		fakeInvalid(w, "Payload", "Expected no body")
		return
	}
	dir, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	sid := r.PathValue("sessionID")
	if _, ok := s.takeAPIQuestion(dir, sid, id); !ok {
		fakeTagged(w, http.StatusNotFound, "QuestionNotFoundError", "Question request not found: "+id, "requestID", id)
		return
	}
	s.record(Reply{Kind: RejectQuestion, Directory: dir, SessionID: sid, RequestID: id, Surface: opencode.SurfaceAPI})
	s.SendEvent(dir, opencode.TypeQuestionV2Rejected, opencode.QuestionRejected{SessionID: sid, RequestID: id})
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleAPIReplyPermission(w http.ResponseWriter, r *http.Request) {
	id, ok := apiRequestID(w, r, "per")
	if !ok {
		return
	}
	var body struct {
		Reply   string  `json:"reply"`
		Message *string `json:"message"`
	}
	if err := decodeStrict(fakeBody(r), &body); err != nil {
		fakeInvalid(w, "Payload", "Expected {\"reply\": once|always|reject, \"message\"?: string}")
		return
	}
	switch body.Reply {
	case "once", "always", "reject":
	default:
		fakeInvalid(w, "Payload", "Expected PermissionV2.Reply, got \""+body.Reply+"\"")
		return
	}
	dir, ok := s.apiSession(w, r)
	if !ok {
		return
	}
	sid := r.PathValue("sessionID")
	if _, ok := s.takeAPIPermission(dir, sid, id); !ok {
		fakeTagged(w, http.StatusNotFound, "PermissionNotFoundError", "Permission request not found: "+id, "requestID", id)
		return
	}
	var message string
	if body.Message != nil {
		message = *body.Message
	}
	s.record(Reply{
		Kind: ReplyPermission, Directory: dir, SessionID: sid, RequestID: id,
		Reply: body.Reply, Message: message, Surface: opencode.SurfaceAPI,
	})
	s.SendEvent(dir, opencode.TypePermissionV2Replied, opencode.PermissionReplied{SessionID: sid, RequestID: id, Reply: body.Reply})
	w.WriteHeader(http.StatusNoContent)
}

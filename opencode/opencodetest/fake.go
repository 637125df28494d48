package opencodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// Server is a fake opencode server on a loopback port, for unit tests. It
// serves the routes hermes-bot uses, with the status codes and error bodies
// opencode 1.18.33 gives:
//
//	GET  /global/health
//	GET  /global/event                        (SSE; see Send)
//	GET  /question                            POST /question/{id}/reply, /question/{id}/reject
//	GET  /permission                          POST /permission/{id}/reply
//	POST /session/{sessionID}/permissions/{id} (the older permission route)
//	GET  /session/{id}                        GET /project
//	GET  /session/{id}/message/{messageID}    GET /agent
//
// and the /api surface's request routes (see AddAPIQuestion):
//
//	GET  /api/health
//	GET  /api/question/request                GET /api/permission/request
//	GET  /api/session/{sid}/question          GET /api/session/{sid}/permission
//	POST /api/session/{sid}/question/{id}/reply, …/reject
//	POST /api/session/{sid}/permission/{id}/reply
//
// Any other path under /api answers 200 with a web page, as the real
// server's web app does.
//
// Per-directory state is keyed by the directory query parameter (on /api,
// location[directory] or the x-opencode-directory header); a request
// without it uses the directory "". Every request is recorded (Requests),
// and every accepted answer too (Replies).
//
// All methods are safe for concurrent use, also while requests are served.
// Events are delivered only to streams connected when Send is called: like
// the real server, the fake keeps no history, so a test waits with
// WaitConnections before it sends.
type Server struct {
	// URL is the base URL, http://127.0.0.1:port, with no trailing slash.
	URL string

	srv               *httptest.Server
	user, password    string
	version           string
	legacyPermissions bool
	opencode2         bool

	closing   chan struct{}
	closeOnce sync.Once

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced on every change waiters care about
	questions   map[string][]opencode.QuestionRequest
	permissions map[string][]opencode.PermissionRequest
	// The /api surface's requests, kept apart as the real server keeps
	// them: neither surface's routes find the other's.
	apiQuestions   map[string][]opencode.QuestionRequest
	apiPermissions map[string][]opencode.PermissionRequest
	apiSessions    map[string]string // session ID → directory, of every /api request stored
	sessions       map[string]opencode.Session
	messages       map[string]ToolMessage // session ID "/" message ID → message
	agents         map[string][]opencode.Agent
	projects       []opencode.Project
	requests       []Request
	replies        []Reply
	faults         []fakeFault
	streams        map[*fakeStream]struct{}
	connections    int
	eventSeq       int
}

// ServerOption configures a Server.
type ServerOption func(*Server)

// WithAuth makes the server demand HTTP basic auth with user and password;
// a request without them gets 401. An empty user means "opencode". Without
// this option the server is open, as opencode is without a password.
func WithAuth(user, password string) ServerOption {
	return func(s *Server) {
		if user == "" {
			user = "opencode"
		}
		s.user, s.password = user, password
	}
}

// WithVersion sets the version GET /global/health reports (default
// "1.18.33").
func WithVersion(v string) ServerOption {
	return func(s *Server) { s.version = v }
}

// WithLegacyPermissions makes the server behave like an older opencode
// without POST /permission/{id}/reply: that route answers a plain 404, and
// only POST /session/{sessionID}/permissions/{id} answers permissions.
func WithLegacyPermissions() ServerOption {
	return func(s *Server) { s.legacyPermissions = true }
}

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   string
	// User is the basic-auth user sent, "" when none was; Authorized says
	// whether the credentials were accepted.
	User       string
	Authorized bool
}

// Directory is the request's directory query parameter.
func (r Request) Directory() string { return r.Query.Get("directory") }

// These are the kinds of Reply.
const (
	ReplyQuestion   = "question.reply"
	RejectQuestion  = "question.reject"
	ReplyPermission = "permission.reply"
)

// Reply is an answer the server accepted.
type Reply struct {
	Kind      string // ReplyQuestion, RejectQuestion or ReplyPermission
	Directory string
	SessionID string
	RequestID string
	Answers   [][]string // ReplyQuestion only
	Reply     string     // ReplyPermission only: once, always or reject
	Message   string     // ReplyPermission only
	Legacy    bool       // answered through the older permission route
	// Surface is the surface answered through: SurfaceAPI for the /api
	// routes.
	Surface opencode.Surface
}

type fakeFault struct {
	prefix string
	status int
}

// fakeStream is one connected GET /global/event.
type fakeStream struct {
	mu     sync.Mutex
	queue  [][]byte
	notify chan struct{} // has a value when queue may be non-empty
	drop   chan struct{} // closed to cut the stream
}

func (st *fakeStream) push(rec []byte) {
	st.mu.Lock()
	st.queue = append(st.queue, rec)
	st.mu.Unlock()
	select {
	case st.notify <- struct{}{}:
	default:
	}
}

func (st *fakeStream) take() [][]byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	q := st.queue
	st.queue = nil
	return q
}

// NewServer starts a Server. The caller should call Close when finished.
func NewServer(opts ...ServerOption) *Server {
	s := &Server{
		version:     "1.18.33",
		closing:     make(chan struct{}),
		changed:     make(chan struct{}),
		questions:   make(map[string][]opencode.QuestionRequest),
		permissions: make(map[string][]opencode.PermissionRequest),

		apiQuestions:   make(map[string][]opencode.QuestionRequest),
		apiPermissions: make(map[string][]opencode.PermissionRequest),
		apiSessions:    make(map[string]string),
		sessions:       make(map[string]opencode.Session),
		messages:       make(map[string]ToolMessage),
		agents:         make(map[string][]opencode.Agent),
		streams:        make(map[*fakeStream]struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	if !s.opencode2 {
		mux.HandleFunc("GET /global/health", s.handleHealth)
		mux.HandleFunc("GET /global/event", s.handleEvents)
		mux.HandleFunc("GET /question", s.handleListQuestions)
		mux.HandleFunc("POST /question/{id}/reply", s.handleReplyQuestion)
		mux.HandleFunc("POST /question/{id}/reject", s.handleRejectQuestion)
		mux.HandleFunc("GET /permission", s.handleListPermissions)
		if !s.legacyPermissions {
			mux.HandleFunc("POST /permission/{id}/reply", s.handleReplyPermission)
		}
		mux.HandleFunc("POST /session/{sessionID}/permissions/{id}", s.handleLegacyPermission)
		mux.HandleFunc("GET /session/{id}", s.handleGetSession)
		mux.HandleFunc("GET /project", s.handleProjects)
		mux.HandleFunc("GET /session/{id}/message/{messageID}", s.handleGetMessage)
		mux.HandleFunc("GET /agent", s.handleAgents)
	}
	s.routeAPI(mux)
	if s.opencode2 {
		// Every path outside /api is the web app's.
		mux.HandleFunc("/", fakeWebApp)
	}
	s.srv = httptest.NewServer(s.middleware(mux))
	s.URL = s.srv.URL
	return s
}

// Client returns an opencode.Client for this server, with its credentials
// and opts.
func (s *Server) Client(opts ...opencode.ClientOption) *opencode.Client {
	if s.password != "" {
		opts = append([]opencode.ClientOption{opencode.WithBasicAuth(s.user, s.password)}, opts...)
	}
	c, err := opencode.NewClient(s.URL, opts...)
	if err != nil {
		// s.URL is always a plain http URL.
		panic(fmt.Sprintf("opencodetest: client for %s: %v", s.URL, err))
	}
	return c
}

// Close cuts every event stream, shuts the server down and blocks until all
// requests have finished. Calling it again does nothing.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.Close()
	})
}

// broadcastLocked wakes every waiter. s.mu must be held.
func (s *Server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond, checked under s.mu, holds or ctx is done.
func (s *Server) waitFor(ctx context.Context, what string, cond func() bool) error {
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("opencodetest: waiting for %s: %w", what, ctx.Err())
		case <-ch:
		}
	}
}

// AddQuestion makes q pending in directory dir and sends question.asked to
// the connected streams.
func (s *Server) AddQuestion(dir string, q opencode.QuestionRequest) {
	s.StoreQuestion(dir, q)
	s.SendEvent(dir, opencode.TypeQuestionAsked, q)
}

// StoreQuestion makes q pending in directory dir without telling the
// streams, as if it had been asked while nobody listened.
func (s *Server) StoreQuestion(dir string, q opencode.QuestionRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.questions[dir] = append(s.questions[dir], q)
	s.broadcastLocked()
}

// Questions returns the questions pending in directory dir.
func (s *Server) Questions(dir string) []opencode.QuestionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.questions[dir])
}

// AnswerQuestion answers question id of directory dir as another client
// (the TUI, say) would: it is no longer pending and question.replied is
// sent. It reports whether the question was pending. The answer is not
// recorded in Replies.
func (s *Server) AnswerQuestion(dir, id string, answers [][]string) bool {
	q, ok := s.takeQuestion(dir, id)
	if ok {
		s.SendEvent(dir, opencode.TypeQuestionReplied, opencode.QuestionReplied{
			SessionID: q.SessionID, RequestID: id, Answers: answers,
		})
	}
	return ok
}

// RemoveQuestion drops question id of directory dir without telling the
// streams, as if it had been answered while nobody listened. It reports
// whether the question was pending.
func (s *Server) RemoveQuestion(dir, id string) bool {
	_, ok := s.takeQuestion(dir, id)
	return ok
}

// AddPermission makes p pending in directory dir and sends permission.asked
// to the connected streams.
func (s *Server) AddPermission(dir string, p opencode.PermissionRequest) {
	s.StorePermission(dir, p)
	s.SendEvent(dir, opencode.TypePermissionAsked, p)
}

// StorePermission makes p pending in directory dir without telling the
// streams.
func (s *Server) StorePermission(dir string, p opencode.PermissionRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.permissions[dir] = append(s.permissions[dir], p)
	s.broadcastLocked()
}

// Permissions returns the permission requests pending in directory dir.
func (s *Server) Permissions(dir string) []opencode.PermissionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.permissions[dir])
}

// RemovePermission drops permission request id of directory dir without
// telling the streams. It reports whether the request was pending.
func (s *Server) RemovePermission(dir, id string) bool {
	_, ok := s.takePermission(dir, id)
	return ok
}

// AddSession makes GET /session/{sess.ID} answer sess.
func (s *Server) AddSession(sess opencode.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[sess.ID] = sess
}

// SetProjects sets what GET /project answers: each project's worktree and
// sandboxes are the directories a watcher lists after a connect.
func (s *Server) SetProjects(ps []opencode.Project) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projects = slices.Clone(ps)
}

// FailNext makes the next request whose path starts with pathPrefix fail
// with status and a JSON error body, before any other check (auth
// included). Faults queue up: each call fails one more request.
func (s *Server) FailNext(pathPrefix string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fakeFault{prefix: pathPrefix, status: status})
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Replies returns every answer accepted so far, in order.
func (s *Server) Replies() []Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.replies)
}

// WaitReplies blocks until at least n answers were accepted, or ctx is
// done, and returns them all.
func (s *Server) WaitReplies(ctx context.Context, n int) ([]Reply, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d replies", n), func() bool { return len(s.replies) >= n })
	return s.Replies(), err
}

// Connections returns how many event streams were opened so far, cut ones
// included.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connections
}

// WaitConnections blocks until at least n event streams were opened so far
// and the last is ready for Send, or ctx is done.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.waitFor(ctx, fmt.Sprintf("%d event streams", n), func() bool { return s.connections >= n })
}

// DropStreams cuts every connected event stream, as a server restart or a
// network failure would.
func (s *Server) DropStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.streams {
		close(st.drop)
		delete(s.streams, st)
	}
	s.broadcastLocked()
}

// Send sends one record to every connected stream. An opencode.Event is
// sent in the wire shape of GET /global/event ({"directory", "project",
// "payload": {"id", "type", "properties"}}), its properties taken from the
// pointer its Type names; anything else is sent as its JSON encoding. A
// value that cannot be encoded panics: it is a bug in the test.
func (s *Server) Send(ev any) {
	if e, ok := ev.(*opencode.Event); ok && e != nil {
		ev = *e
	}
	if e, ok := ev.(opencode.Event); ok {
		s.sendEnvelope(e.Directory, e.Project, e.ID, e.Type, eventProperties(e))
		return
	}
	b, err := json.Marshal(ev)
	if err != nil {
		panic(fmt.Sprintf("opencodetest: Send: %v", err))
	}
	s.SendRaw("data: " + string(b) + "\n\n")
}

// SendEvent sends an event of type typ in directory dir, with properties
// props, to every connected stream.
func (s *Server) SendEvent(dir, typ string, props any) {
	s.sendEnvelope(dir, "", "", typ, props)
}

// SendRaw writes text verbatim to every connected stream: it may hold a
// part of a record, several records, comments or junk. A record ends with a
// blank line ("\n\n").
func (s *Server) SendRaw(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.streams {
		st.push([]byte(text))
	}
}

func (s *Server) sendEnvelope(dir, project, id, typ string, props any) {
	s.mu.Lock()
	if id == "" {
		s.eventSeq++
		id = fmt.Sprintf("evt_fake%06d", s.eventSeq)
	}
	s.mu.Unlock()
	if props == nil {
		props = struct{}{}
	}
	type payload struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		Properties any    `json:"properties"`
	}
	rec := struct {
		Directory string  `json:"directory,omitempty"`
		Project   string  `json:"project,omitempty"`
		Payload   payload `json:"payload"`
	}{dir, project, payload{id, typ, props}}
	if dir != "" && project == "" {
		rec.Project = "global"
	}
	s.Send(rec)
}

func eventProperties(e opencode.Event) any {
	switch {
	case e.QuestionAsked != nil:
		return e.QuestionAsked
	case e.QuestionReplied != nil:
		return e.QuestionReplied
	case e.QuestionRejected != nil:
		return e.QuestionRejected
	case e.PermissionAsked != nil && e.Type == opencode.TypePermissionV2Asked:
		return e.PermissionAsked.V2()
	case e.PermissionAsked != nil:
		return e.PermissionAsked
	case e.PermissionReplied != nil:
		return e.PermissionReplied
	case e.SessionIdle != nil:
		return e.SessionIdle
	case e.SessionError != nil:
		return e.SessionError
	}
	return nil
}

// middleware records every request, then applies faults and auth.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8<<20))
		if err != nil {
			fakeJSONError(w, http.StatusRequestEntityTooLarge, "PayloadTooLarge", err.Error())
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		user, pass, hasAuth := r.BasicAuth()
		authorized := s.password == "" || hasAuth && user == s.user && pass == s.password

		s.mu.Lock()
		s.requests = append(s.requests, Request{
			Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: string(body),
			User: user, Authorized: authorized,
		})
		var fault *fakeFault
		for i, f := range s.faults {
			if strings.HasPrefix(r.URL.Path, f.prefix) {
				fault = &f
				s.faults = slices.Delete(s.faults, i, i+1)
				break
			}
		}
		s.broadcastLocked()
		s.mu.Unlock()

		if fault != nil {
			fakeJSONError(w, fault.status, "InjectedFault", "injected by opencodetest")
			return
		}
		if !authorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="Secure Area"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func fakeWriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fakeJSONError writes opencode's BadRequest-style error body.
func fakeJSONError(w http.ResponseWriter, status int, name, message string) {
	fakeWriteJSON(w, status, map[string]any{"name": name, "data": map[string]any{"message": message}})
}

func fakeBadRequest(w http.ResponseWriter, kind, message string) {
	fakeWriteJSON(w, http.StatusBadRequest, map[string]any{
		"name": "BadRequest",
		"data": map[string]any{"message": message, "kind": kind},
	})
}

func fakeNotFound(w http.ResponseWriter, tag, id string) {
	fakeWriteJSON(w, http.StatusNotFound, map[string]any{
		"_tag": tag, "requestID": id, "message": fmt.Sprintf("request %s not found", id),
	})
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	fakeWriteJSON(w, http.StatusOK, opencode.Health{Healthy: true, Version: s.version})
}

func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)

	st := &fakeStream{notify: make(chan struct{}, 1), drop: make(chan struct{})}
	s.mu.Lock()
	s.eventSeq++
	// Queued before the stream is visible to Send, so it always comes first.
	st.push(fmt.Appendf(nil, "data: {\"payload\":{\"id\":\"evt_fake%06d\",\"type\":\"server.connected\",\"properties\":{}}}\n\n", s.eventSeq))
	s.streams[st] = struct{}{}
	s.connections++
	s.broadcastLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, st)
		s.mu.Unlock()
	}()

	for {
		for _, rec := range st.take() {
			if _, err := w.Write(rec); err != nil {
				return
			}
		}
		flusher.Flush()
		select {
		case <-st.notify:
		case <-st.drop:
			return
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}

func (s *Server) handleListQuestions(w http.ResponseWriter, r *http.Request) {
	qs := s.Questions(r.URL.Query().Get("directory"))
	if qs == nil {
		qs = []opencode.QuestionRequest{}
	}
	fakeWriteJSON(w, http.StatusOK, qs)
}

// takeQuestion removes question id of dir and returns it.
func (s *Server) takeQuestion(dir, id string) (opencode.QuestionRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	qs := s.questions[dir]
	for i, q := range qs {
		if q.ID == id {
			s.questions[dir] = slices.Delete(slices.Clone(qs), i, i+1)
			s.broadcastLocked()
			return q, true
		}
	}
	return opencode.QuestionRequest{}, false
}

func (s *Server) takePermission(dir, id string) (opencode.PermissionRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.permissions[dir]
	for i, p := range ps {
		if p.ID == id {
			s.permissions[dir] = slices.Delete(slices.Clone(ps), i, i+1)
			s.broadcastLocked()
			return p, true
		}
	}
	return opencode.PermissionRequest{}, false
}

func (s *Server) record(rep Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, rep)
	s.broadcastLocked()
}

func (s *Server) handleReplyQuestion(w http.ResponseWriter, r *http.Request) {
	id, dir := r.PathValue("id"), r.URL.Query().Get("directory")
	if !strings.HasPrefix(id, "que") {
		fakeBadRequest(w, "Params", "requestID must start with \"que\"")
		return
	}
	var body struct {
		Answers *[][]string `json:"answers"`
	}
	if err := json.Unmarshal([]byte(fakeBody(r)), &body); err != nil || body.Answers == nil {
		fakeBadRequest(w, "Payload", "body must be {\"answers\": [[label, …], …]}")
		return
	}
	q, ok := s.takeQuestion(dir, id)
	if !ok {
		fakeNotFound(w, "QuestionNotFoundError", id)
		return
	}
	s.record(Reply{Kind: ReplyQuestion, Directory: dir, SessionID: q.SessionID, RequestID: id, Answers: *body.Answers})
	s.SendEvent(dir, opencode.TypeQuestionReplied, opencode.QuestionReplied{
		SessionID: q.SessionID, RequestID: id, Answers: *body.Answers,
	})
	fakeWriteJSON(w, http.StatusOK, true)
}

func (s *Server) handleRejectQuestion(w http.ResponseWriter, r *http.Request) {
	id, dir := r.PathValue("id"), r.URL.Query().Get("directory")
	if !strings.HasPrefix(id, "que") {
		fakeBadRequest(w, "Params", "requestID must start with \"que\"")
		return
	}
	q, ok := s.takeQuestion(dir, id)
	if !ok {
		fakeNotFound(w, "QuestionNotFoundError", id)
		return
	}
	s.record(Reply{Kind: RejectQuestion, Directory: dir, SessionID: q.SessionID, RequestID: id})
	s.SendEvent(dir, opencode.TypeQuestionRejected, opencode.QuestionRejected{SessionID: q.SessionID, RequestID: id})
	fakeWriteJSON(w, http.StatusOK, true)
}

func (s *Server) handleListPermissions(w http.ResponseWriter, r *http.Request) {
	ps := s.Permissions(r.URL.Query().Get("directory"))
	if ps == nil {
		ps = []opencode.PermissionRequest{}
	}
	fakeWriteJSON(w, http.StatusOK, ps)
}

func (s *Server) handleReplyPermission(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reply   string `json:"reply"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(fakeBody(r)), &body); err != nil {
		fakeBadRequest(w, "Payload", "body must be {\"reply\": …, \"message\"?: …}")
		return
	}
	s.answerPermission(w, r, body.Reply, body.Message, false)
}

func (s *Server) handleLegacyPermission(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal([]byte(fakeBody(r)), &body); err != nil {
		fakeBadRequest(w, "Payload", "body must be {\"response\": …}")
		return
	}
	s.answerPermission(w, r, body.Response, "", true)
}

func (s *Server) answerPermission(w http.ResponseWriter, r *http.Request, reply, message string, legacy bool) {
	id, dir := r.PathValue("id"), r.URL.Query().Get("directory")
	if !strings.HasPrefix(id, "per") {
		fakeBadRequest(w, "Params", "requestID must start with \"per\"")
		return
	}
	switch reply {
	case "once", "always", "reject":
	default:
		fakeBadRequest(w, "Payload", "reply must be once, always or reject")
		return
	}
	p, ok := s.takePermission(dir, id)
	if !ok {
		fakeNotFound(w, "PermissionNotFoundError", id)
		return
	}
	s.record(Reply{
		Kind: ReplyPermission, Directory: dir, SessionID: p.SessionID, RequestID: id,
		Reply: reply, Message: message, Legacy: legacy,
	})
	s.SendEvent(dir, opencode.TypePermissionReplied, opencode.PermissionReplied{
		SessionID: p.SessionID, RequestID: id, Reply: reply,
	})
	fakeWriteJSON(w, http.StatusOK, true)
}

func (s *Server) handleGetSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	sess, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		fakeJSONError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("session %s not found", id))
		return
	}
	fakeWriteJSON(w, http.StatusOK, sess)
}

func (s *Server) handleProjects(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	ps := slices.Clone(s.projects)
	s.mu.Unlock()
	if ps == nil {
		ps = []opencode.Project{}
	}
	fakeWriteJSON(w, http.StatusOK, ps)
}

// fakeBody returns the body the middleware already read.
func fakeBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

// ToolMessage is an assistant message holding tool calls, as
// GET /session/{id}/message/{messageID} shows it.
type ToolMessage struct {
	ID, SessionID string
	Agent         string
	// Cwd and Root are the message's path: the instance directory and
	// the worktree.
	Cwd, Root string
	Calls     []ToolCallPart
}

// ToolCallPart is one tool call of a ToolMessage.
type ToolCallPart struct {
	CallID, Tool string
	// Status is "running" when empty.
	Status string
	// Input is the call's arguments, sent as JSON.
	Input any
}

// AddMessage makes m what GET /session/{m.SessionID}/message/{m.ID}
// answers, in any directory.
func (s *Server) AddMessage(m ToolMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages[m.SessionID+"/"+m.ID] = m
}

// SetAgents sets what GET /agent answers for directory dir; a directory
// without agents answers an empty list.
func (s *Server) SetAgents(dir string, agents []opencode.Agent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agents[dir] = slices.Clone(agents)
}

func (s *Server) handleGetMessage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	m, ok := s.messages[r.PathValue("id")+"/"+r.PathValue("messageID")]
	s.mu.Unlock()
	if !ok {
		fakeJSONError(w, http.StatusNotFound, "NotFoundError", "message not found")
		return
	}
	type part struct {
		ID        string `json:"id"`
		MessageID string `json:"messageID"`
		SessionID string `json:"sessionID"`
		Type      string `json:"type"`
		Tool      string `json:"tool"`
		CallID    string `json:"callID"`
		State     struct {
			Status string `json:"status"`
			Input  any    `json:"input"`
		} `json:"state"`
	}
	parts := []part{}
	for i, c := range m.Calls {
		p := part{ID: fmt.Sprintf("prt_%d", i), MessageID: m.ID, SessionID: m.SessionID, Type: "tool", Tool: c.Tool, CallID: c.CallID}
		p.State.Status, p.State.Input = c.Status, c.Input
		if p.State.Status == "" {
			p.State.Status = "running"
		}
		parts = append(parts, p)
	}
	info := map[string]any{
		"id": m.ID, "sessionID": m.SessionID, "role": "assistant", "agent": m.Agent,
		"path": map[string]string{"cwd": m.Cwd, "root": m.Root},
	}
	fakeWriteJSON(w, http.StatusOK, map[string]any{"info": info, "parts": parts})
}

func (s *Server) handleAgents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	as := slices.Clone(s.agents[r.URL.Query().Get("directory")])
	s.mu.Unlock()
	if as == nil {
		as = []opencode.Agent{}
	}
	fakeWriteJSON(w, http.StatusOK, as)
}

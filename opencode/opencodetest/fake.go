package opencodetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// Server is a fake opencode on a loopback port, for unit tests: opencode
// 1.x by default (the routes of fake1.go, as `opencode serve` 1.18.33
// answers them), or OpenCode 2 with WithOpencode2 (exactly the routes of
// opencode.Contract2, fake2.go).
//
// One store serves both: sessions, questions and permissions (each of
// the surface that raised it: the 1.x routes or /api), forms, saved
// approvals, prompts and interrupts. Scripting methods change it and
// send the events the generation sends; every request is recorded
// (Requests), and every accepted answer (Replies), prompt and interrupt.
//
// All methods are safe for concurrent use, also while requests are
// served. Events reach only streams connected when they are sent (the
// fake keeps no history, like the real server): wait with
// WaitConnections before sending.
type Server struct {
	// URL is the base URL, http://127.0.0.1:port, with no trailing slash.
	URL string
	// User and Password are the basic-auth credentials the server demands;
	// an empty Password means none.
	User, Password string
	// Version is what the health routes report.
	Version string

	gen               int
	legacyPermissions bool
	heartbeat         time.Duration
	srv               *httptest.Server
	closing           chan struct{}
	closeOnce         sync.Once

	mu              sync.Mutex
	changed         chan struct{} // closed and replaced on every change waiters care about
	permissionEvent string
	sessions        map[string]*fakeSession
	questions       []heldQuestion
	permissions     []heldPermission
	forms           []*form2
	saved           []SavedApproval
	busy            map[string]bool
	hints           map[string]int // the last log.hint seq of each session
	messages        map[string]ToolMessage
	agents          map[string][]opencode.Agent
	projects        []opencode.Project
	requests        []Request
	replies         []Reply
	prompts         []Prompt
	interrupts      []string
	refuse          map[string]string // form ID → the message of its next refusal
	faults          []fakeFault
	events, changes map[*fakeStream]struct{}
	connections     int // event streams opened
	heartbeats      int // heartbeats sent, on all streams
	changeConns     int // GET /api/event/changes streams opened
	lastID          int
}

// ServerOption configures a Server.
type ServerOption func(*Server)

// WithAuth makes the server demand HTTP basic auth with user ("opencode"
// when empty) and password; an empty password turns auth off.
func WithAuth(user, password string) ServerOption {
	return func(s *Server) {
		if user == "" {
			user = "opencode"
		}
		s.User, s.Password = user, password
	}
}

// WithVersion sets the version the health routes report (default
// "1.18.33", or "2.0.0" with WithOpencode2).
func WithVersion(v string) ServerOption { return func(s *Server) { s.Version = v } }

// WithOpencode2 makes the server an OpenCode 2: the routes and events of
// opencode.Contract2 only, basic auth with a random password.
func WithOpencode2() ServerOption { return func(s *Server) { s.gen = 2 } }

// WithLegacyPermissions makes a 1.x server behave like an older opencode
// without POST /permission/{id}/reply (a plain 404): only
// POST /session/{sessionID}/permissions/{id} answers permissions.
func WithLegacyPermissions() ServerOption { return func(s *Server) { s.legacyPermissions = true } }

// WithHeartbeat sets how often the event stream sends a heartbeat
// (server.heartbeat on 1.x, a ": heartbeat" comment on OpenCode 2); 0
// sends none. The default is the real servers': 10 s on 1.x, 15 s on 2.
func WithHeartbeat(d time.Duration) ServerOption { return func(s *Server) { s.heartbeat = d } }

// NewServer starts a Server. The caller should call Close when finished.
func NewServer(opts ...ServerOption) *Server {
	s := &Server{
		gen: 1, heartbeat: -1, closing: make(chan struct{}), changed: make(chan struct{}),
		sessions: map[string]*fakeSession{}, busy: map[string]bool{}, hints: map[string]int{},
		messages: map[string]ToolMessage{}, agents: map[string][]opencode.Agent{}, refuse: map[string]string{},
		events: map[*fakeStream]struct{}{}, changes: map[*fakeStream]struct{}{},
		permissionEvent: opencode.TypePermissionV2Asked,
	}
	for _, o := range opts {
		o(s)
	}
	if s.User == "" { // no WithAuth: OpenCode 2 always has a password, 1.x none
		s.User = "opencode"
		if s.gen == 2 {
			var pw [12]byte
			_, _ = rand.Read(pw[:]) // never fails
			s.Password = hex.EncodeToString(pw[:])
		}
	}
	if s.Version == "" {
		s.Version = map[int]string{1: "1.18.33", 2: "2.0.0"}[s.gen]
	}
	if s.heartbeat < 0 {
		s.heartbeat = map[int]time.Duration{1: 10 * time.Second, 2: 15 * time.Second}[s.gen]
	}
	mux := http.NewServeMux()
	if s.gen == 2 {
		s.route2(mux)
	} else {
		s.route1(mux)
	}
	s.srv = httptest.NewServer(s.middleware(mux))
	s.URL = s.srv.URL
	return s
}

// Client returns an opencode.Client for this server, with its credentials
// and opts.
func (s *Server) Client(opts ...opencode.ClientOption) *opencode.Client {
	if s.Password != "" {
		opts = append([]opencode.ClientOption{opencode.WithBasicAuth(s.User, s.Password)}, opts...)
	}
	c, err := opencode.NewClient(s.URL, opts...)
	if err != nil {
		panic(fmt.Sprintf("opencodetest: client for %s: %v", s.URL, err)) // s.URL is always plain http
	}
	return c
}

// Close cuts every stream, shuts the server down and blocks until all
// requests have finished. Calling it again does nothing.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.Close()
	})
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
	ReplyForm       = "form.reply"
	CancelForm      = "form.cancel"
)

// Reply is an answer the server accepted.
type Reply struct {
	Kind      string
	Directory string // "" on OpenCode 2
	SessionID string
	RequestID string         // the question's, permission's or form's
	Answers   [][]string     // ReplyQuestion only
	Answer    map[string]any // ReplyForm only
	Reply     string         // ReplyPermission only: once, always or reject
	// Message is a permission reply's message, or the ?message= of a
	// DELETE …/form/{id}.
	Message string
	Legacy  bool // answered through the older permission route
	// Surface is the surface answered through: SurfaceAPI for /api routes.
	Surface opencode.Surface
}

// Prompt is a prompt the server accepted.
type Prompt struct {
	SessionID string
	ID        string // the message ID the client chose, "" when none
	Text      string
	// Delivery is "steer", "queue" or "" when the body had none.
	Delivery string
	// Files, Agents and Resume are as sent to OpenCode 2, nil when absent.
	Files, Agents, Resume json.RawMessage
}

type fakeFault struct {
	prefix string
	status int
}

type heldQuestion struct {
	dir string
	opencode.QuestionRequest
}

type heldPermission struct {
	dir string
	opencode.PermissionRequest
}

// fakeSession is a session and its place in creation order.
type fakeSession struct {
	opencode.Session
	seq int
	// implicit: named by a request, not added or created; 1.x routes
	// about sessions do not know it.
	implicit bool
}

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

// locked returns f's result under s.mu.
func locked[T any](s *Server, f func() T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
}

func (s *Server) nextIDLocked(prefix string) string {
	s.lastID++
	return fmt.Sprintf("%s_fake%06d", prefix, s.lastID)
}

// sessionLocked returns session sid, creating it (implicit, in dir, "/"
// when empty) when unknown.
func (s *Server) sessionLocked(sid, dir string) *fakeSession {
	if f, ok := s.sessions[sid]; ok {
		return f
	}
	if dir == "" {
		dir = "/"
	}
	now := time.Now().UnixMilli()
	f := &fakeSession{Session: opencode.Session{ID: sid, Directory: dir}, seq: len(s.sessions) + 1, implicit: true}
	f.Time.Created, f.Time.Updated = now, now
	s.sessions[sid] = f
	return f
}

// touchLocked notes that session sid changed now.
func (s *Server) touchLocked(sid, dir string) {
	if sid != "" {
		f := s.sessionLocked(sid, dir)
		f.Time.Updated = max(f.Time.Updated, time.Now().UnixMilli())
	}
}

// AddSession makes sess known, as the session routes list it; a session
// known already keeps its times and takes the new fields.
func (s *Server) AddSession(sess opencode.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.sessionLocked(sess.ID, sess.Directory)
	created, updated := f.Time.Created, f.Time.Updated
	f.Session, f.implicit = sess, false
	if f.Directory == "" {
		f.Directory = "/"
	}
	f.Time.Created, f.Time.Updated = max(created, sess.Time.Created), max(updated, sess.Time.Updated)
	s.broadcastLocked()
}

// AddQuestion makes q pending in directory dir and sends its event: on
// 1.x question.asked, answered through the 1.x routes, or, when
// q.Surface is opencode.SurfaceAPI (always on OpenCode 2),
// question.v2.asked, answered through /api only.
func (s *Server) AddQuestion(dir string, q opencode.QuestionRequest) { s.ask(dir, q, true) }

// StoreQuestion is AddQuestion without the event, as if asked while
// nobody listened.
func (s *Server) StoreQuestion(dir string, q opencode.QuestionRequest) { s.ask(dir, q, false) }

// AddPermission makes p pending in directory dir and sends its event: on
// 1.x permission.asked or, when p.Surface is opencode.SurfaceAPI,
// permission.v2.asked in the /api wire shape (action, resources, save,
// source); on OpenCode 2 the type SetPermissionEvent chose, in that shape.
func (s *Server) AddPermission(dir string, p opencode.PermissionRequest) { s.ask(dir, p, true) }

// StorePermission is AddPermission without the event.
func (s *Server) StorePermission(dir string, p opencode.PermissionRequest) { s.ask(dir, p, false) }

// SetPermissionEvent sets the type AddPermission sends on OpenCode 2:
// opencode.TypePermissionV2Asked (the default) or TypePermissionAsked,
// which OpenCode 2 also keeps.
func (s *Server) SetPermissionEvent(typ string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.permissionEvent = typ
}

func (s *Server) ask(dir string, req any, send bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sid, typ string
	var wire any
	switch r := req.(type) {
	case opencode.QuestionRequest:
		if s.gen == 2 {
			r.Surface = opencode.SurfaceAPI
		}
		sid, typ, wire = r.SessionID, opencode.TypeQuestionAsked, r
		if r.Surface == opencode.SurfaceAPI {
			typ = opencode.TypeQuestionV2Asked
			s.touchLocked(sid, dir)
		}
		s.questions = append(s.questions, heldQuestion{dir, r})
	case opencode.PermissionRequest:
		if s.gen == 2 {
			r.Surface = opencode.SurfaceAPI
		}
		sid, typ, wire = r.SessionID, opencode.TypePermissionAsked, r
		if r.Surface == opencode.SurfaceAPI {
			typ, wire = opencode.TypePermissionV2Asked, r.V2()
			if s.gen == 2 {
				typ = s.permissionEvent
			}
			s.touchLocked(sid, dir)
		}
		s.permissions = append(s.permissions, heldPermission{dir, r})
	}
	if send {
		s.sendLocked(dir, typ, wire)
		s.hintLocked(sid)
	}
	s.broadcastLocked()
}

// Questions returns the questions pending in directory dir, of both
// surfaces (Surface tells them apart).
func (s *Server) Questions(dir string) []opencode.QuestionRequest {
	return locked(s, func() []opencode.QuestionRequest { return s.questionsLocked(dir, nil) })
}

func (s *Server) questionsLocked(dir string, surface *opencode.Surface) []opencode.QuestionRequest {
	out := []opencode.QuestionRequest{}
	for _, q := range s.questions {
		if q.dir == dir && (surface == nil || q.Surface == *surface) {
			out = append(out, q.QuestionRequest)
		}
	}
	return out
}

// Permissions returns the permission requests pending in directory dir,
// of both surfaces.
func (s *Server) Permissions(dir string) []opencode.PermissionRequest {
	return locked(s, func() []opencode.PermissionRequest { return s.permissionsLocked(dir, nil) })
}

func (s *Server) permissionsLocked(dir string, surface *opencode.Surface) []opencode.PermissionRequest {
	out := []opencode.PermissionRequest{}
	for _, p := range s.permissions {
		if p.dir == dir && (surface == nil || p.Surface == *surface) {
			out = append(out, p.PermissionRequest)
		}
	}
	return out
}

// take removes the first element of list that match accepts. s.mu must
// be held.
func take[T any](s *Server, list *[]T, match func(T) bool) (v T, ok bool) {
	if i := slices.IndexFunc(*list, match); i >= 0 {
		v, ok = (*list)[i], true
		*list = slices.Delete(*list, i, i+1)
		s.broadcastLocked()
	}
	return v, ok
}

// AnswerQuestion answers question id of directory dir as another client
// (the TUI, say) would: it is no longer pending and question.replied (or
// .v2.replied) is sent. It reports whether it was pending. Replies does
// not record it.
func (s *Server) AnswerQuestion(dir, id string, answers [][]string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := take(s, &s.questions, func(q heldQuestion) bool { return q.dir == dir && q.ID == id })
	if ok {
		s.settledLocked(q.dir, q.SessionID, q.Surface, opencode.TypeQuestionReplied, opencode.QuestionReplied{
			SessionID: q.SessionID, RequestID: id, Answers: answers,
		})
	}
	return ok
}

// RemoveQuestion drops question id of directory dir without telling the
// streams. It reports whether the question was pending.
func (s *Server) RemoveQuestion(dir, id string) bool {
	return locked(s, func() bool {
		_, ok := take(s, &s.questions, func(q heldQuestion) bool { return q.dir == dir && q.ID == id })
		return ok
	})
}

// settledLocked tells the streams that a request of session sid was
// answered: the 1.x event of typ (its v2 spelling for the /api surface),
// and on OpenCode 2, whose contract has no such event, a hint only.
func (s *Server) settledLocked(dir, sid string, surface opencode.Surface, typ string, props any) {
	if s.gen == 1 {
		if surface == opencode.SurfaceAPI {
			typ = strings.Replace(typ, ".", ".v2.", 1)
		}
		s.sendLocked(dir, typ, props)
	}
	s.hintLocked(sid)
}

// FailNext makes the next request whose path starts with pathPrefix fail
// with status and a JSON error body, before any other check (auth
// included). Faults queue up: each call fails one more request.
func (s *Server) FailNext(pathPrefix string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fakeFault{pathPrefix, status})
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	return locked(s, func() []Request { return slices.Clone(s.requests) })
}

// Replies returns every answer accepted so far, in order.
func (s *Server) Replies() []Reply {
	return locked(s, func() []Reply { return slices.Clone(s.replies) })
}

// Prompts returns every prompt accepted so far, in order.
func (s *Server) Prompts() []Prompt {
	return locked(s, func() []Prompt { return slices.Clone(s.prompts) })
}

// Interrupts returns the session of every interrupt (an abort on 1.x)
// received so far, idle sessions' included, in order.
func (s *Server) Interrupts() []string {
	return locked(s, func() []string { return slices.Clone(s.interrupts) })
}

// Connections returns how many event streams were opened so far.
func (s *Server) Connections() int { return locked(s, func() int { return s.connections }) }

// WaitReplies blocks until at least n answers were accepted, or ctx is
// done, and returns them all.
func (s *Server) WaitReplies(ctx context.Context, n int) ([]Reply, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d replies", n), func() bool { return len(s.replies) >= n })
	return s.Replies(), err
}

// WaitPrompts blocks until at least n prompts were accepted, or ctx is
// done, and returns them all.
func (s *Server) WaitPrompts(ctx context.Context, n int) ([]Prompt, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d prompts", n), func() bool { return len(s.prompts) >= n })
	return s.Prompts(), err
}

// WaitInterrupts blocks until at least n interrupts were received, or ctx
// is done, and returns their sessions.
func (s *Server) WaitInterrupts(ctx context.Context, n int) ([]string, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d interrupts", n), func() bool { return len(s.interrupts) >= n })
	return s.Interrupts(), err
}

// WaitConnections blocks until at least n event streams were opened so
// far and the last is ready for events, or ctx is done.
func (s *Server) WaitConnections(ctx context.Context, n int) error {
	return s.waitFor(ctx, fmt.Sprintf("%d event streams", n), func() bool { return s.connections >= n })
}

// WaitHeartbeats blocks until at least n heartbeats were sent, or ctx is
// done.
func (s *Server) WaitHeartbeats(ctx context.Context, n int) error {
	return s.waitFor(ctx, fmt.Sprintf("%d heartbeats", n), func() bool { return s.heartbeats >= n })
}

// WaitChangesConnections is WaitConnections for GET /api/event/changes.
func (s *Server) WaitChangesConnections(ctx context.Context, n int) error {
	return s.waitFor(ctx, fmt.Sprintf("%d change streams", n), func() bool { return s.changeConns >= n })
}

// Busy reports whether session sid is in a turn: prompted and not yet
// finished, failed or interrupted.
func (s *Server) Busy(sid string) bool { return locked(s, func() bool { return s.busy[sid] }) }

// FinishTurn ends a busy session's turn (on OpenCode 2
// session.execution.succeeded, then session.status idle; on 1.x
// session.status idle and session.idle). It reports whether it was busy.
func (s *Server) FinishTurn(sid string) bool {
	return locked(s, func() bool {
		return s.endTurnLocked(sid, "session.execution.succeeded", map[string]any{"sessionID": sid})
	})
}

// FailTurn ends a busy session's turn with an error (OpenCode 2:
// session.execution.failed {sessionID, error: {type, message}}; 1.x:
// session.error). It reports whether the session was busy.
func (s *Server) FailTurn(sid, errType, message string) bool {
	return locked(s, func() bool {
		if s.gen == 1 {
			return s.endTurnLocked(sid, opencode.TypeSessionError, map[string]any{
				"sessionID": sid, "error": map[string]any{"name": errType, "data": map[string]string{"message": message}},
			})
		}
		return s.endTurnLocked(sid, "session.execution.failed", map[string]any{
			"sessionID": sid, "error": map[string]string{"type": errType, "message": message},
		})
	})
}

func (s *Server) startTurnLocked(sid, dir string) {
	if !s.busy[sid] {
		s.busy[sid] = true
		s.sendLocked(dir, "session.status", sessionStatus(sid, "busy"))
		s.hintLocked(sid)
	}
}

func (s *Server) endTurnLocked(sid, typ string, data any) bool {
	if !s.busy[sid] {
		return false
	}
	delete(s.busy, sid)
	dir := s.sessionLocked(sid, "").Directory
	if s.gen == 2 || typ == opencode.TypeSessionError {
		s.sendLocked(dir, typ, data)
	}
	s.sendLocked(dir, "session.status", sessionStatus(sid, "idle"))
	if s.gen == 1 {
		s.sendLocked(dir, opencode.TypeSessionIdle, map[string]string{"sessionID": sid})
	}
	s.hintLocked(sid)
	s.broadcastLocked()
	return true
}

func sessionStatus(sid, typ string) map[string]any {
	return map[string]any{"sessionID": sid, "status": map[string]string{"type": typ}}
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
		authorized := s.Password == "" || hasAuth && user == s.User && pass == s.Password

		s.mu.Lock()
		s.requests = append(s.requests, Request{r.Method, r.URL.Path, r.URL.Query(), string(body), user, authorized})
		i := slices.IndexFunc(s.faults, func(f fakeFault) bool { return strings.HasPrefix(r.URL.Path, f.prefix) })
		var fault fakeFault
		if i >= 0 {
			fault = s.faults[i]
			s.faults = slices.Delete(s.faults, i, i+1)
		}
		s.broadcastLocked()
		s.mu.Unlock()

		switch {
		case i >= 0:
			fakeJSONError(w, fault.status, "InjectedFault", "injected by opencodetest")
		case !authorized:
			w.Header().Set("WWW-Authenticate", `Basic realm="Secure Area"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// fakeStream is one connected event stream.
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

// stream serves one server-sent-events stream registered in set, first
// writing first, then a heartbeat record every s.heartbeat when
// heartbeat is not nil.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, set map[*fakeStream]struct{}, count *int, first []byte, heartbeat func() []byte) {
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
	st.push(first) // before the stream is visible to senders, so it comes first
	set[st] = struct{}{}
	*count++
	s.broadcastLocked()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(set, st)
		s.mu.Unlock()
	}()

	var tick <-chan time.Time
	if heartbeat != nil && s.heartbeat > 0 {
		t := time.NewTicker(s.heartbeat)
		defer t.Stop()
		tick = t.C
	}
	for {
		for _, rec := range st.take() {
			if _, err := w.Write(rec); err != nil {
				return
			}
		}
		flusher.Flush()
		select {
		case <-st.notify:
		case <-tick:
			st.push(heartbeat())
			s.mu.Lock()
			s.heartbeats++
			s.broadcastLocked()
			s.mu.Unlock()
		case <-st.drop:
			return
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}

// DropStreams cuts every connected stream, as a restart or a network
// failure would.
func (s *Server) DropStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range []map[*fakeStream]struct{}{s.events, s.changes} {
		for st := range m {
			close(st.drop)
			delete(m, st)
		}
	}
	s.broadcastLocked()
}

// Event2 is one record of OpenCode 2's GET /api/event.
type Event2 struct {
	ID       string `json:"id"`      // "evt_…"; empty means the next one
	Created  int64  `json:"created"` // milliseconds since the epoch; 0 means now
	Type     string `json:"type"`
	Data     any    `json:"data"`
	Location any    `json:"location,omitempty"`
}

// Send sends one record to every connected event stream: an Event2 with
// its ID and time filled in, anything else as its JSON encoding (on 1.x,
// an envelope {"directory", "project", "payload"}). A value that cannot
// be encoded panics: it is a bug in the test.
func (s *Server) Send(ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := ev.(Event2); ok {
		s.send2Locked(e)
	} else {
		s.pushLocked(sseRecord(ev))
	}
}

// SendEvent sends an event of type typ in directory dir, with properties
// props, in the generation's envelope.
func (s *Server) SendEvent(dir, typ string, props any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sendLocked(dir, typ, props)
}

// SendRaw writes text verbatim to every connected event stream: a part
// of a record, several records, comments or junk. A record ends with a
// blank line ("\n\n").
func (s *Server) SendRaw(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pushLocked([]byte(text))
}

func (s *Server) pushLocked(rec []byte) {
	for st := range s.events {
		st.push(rec)
	}
}

func (s *Server) sendLocked(dir, typ string, props any) {
	if s.gen == 2 {
		s.send2Locked(Event2{Type: typ, Data: props})
	} else {
		s.send1Locked(dir, typ, props)
	}
}

func (s *Server) send1Locked(dir, typ string, props any) {
	if props == nil {
		props = struct{}{}
	}
	project := ""
	if dir != "" {
		project = "global"
	}
	type payload struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		Properties any    `json:"properties"`
	}
	s.pushLocked(sseRecord(struct {
		Directory string  `json:"directory,omitempty"`
		Project   string  `json:"project,omitempty"`
		Payload   payload `json:"payload"`
	}{dir, project, payload{s.nextIDLocked("evt"), typ, props}}))
}

func (s *Server) send2Locked(ev Event2) {
	if ev.ID == "" {
		ev.ID = s.nextIDLocked("evt")
	}
	if ev.Created == 0 {
		ev.Created = time.Now().UnixMilli()
	}
	if ev.Data == nil {
		ev.Data = struct{}{}
	}
	s.pushLocked(sseRecord(ev))
}

func sseRecord(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("opencodetest: encoding an event: %v", err))
	}
	return fmt.Appendf(nil, "data: %s\n\n", b)
}

// hintLocked tells the change streams (OpenCode 2) that session sid
// changed.
func (s *Server) hintLocked(sid string) {
	if s.gen != 2 || sid == "" {
		return
	}
	s.hints[sid]++
	rec := sseRecord(map[string]any{"type": "log.hint", "aggregateID": sid, "seq": s.hints[sid]})
	for st := range s.changes {
		st.push(rec)
	}
}

func fakeWriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fakeJSONError writes 1.x's NamedError body.
func fakeJSONError(w http.ResponseWriter, status int, name, message string) {
	fakeWriteJSON(w, status, map[string]any{"name": name, "data": map[string]any{"message": message}})
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

// fakeBody returns the body the middleware already read.
func fakeBody(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

// decode decodes body into v, refusing trailing data and, when strict,
// unknown fields, as the real server's schemas do.
func decode(body string, v any, strict bool) error {
	dec := json.NewDecoder(strings.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the JSON value")
	}
	return nil
}

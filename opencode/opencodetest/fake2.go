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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// Server2 is a fake OpenCode 2 server on a loopback port, for unit tests.
// It serves exactly the routes of opencode.Contract2, under basic auth
// (user "opencode", Password), and answers every other path 404 with a
// JSON body: what a real OpenCode 2 answers there was not established.
//
// Scripting methods (AddSession, AddForm, AddQuestion, AddPermission,
// AddSaved, FinishTurn, FailTurn, Send) change its state and send the events the
// contract names on GET /api/event, each in the envelope {id, created,
// type, data, location?}; every change of a session also sends a log.hint
// on GET /api/event/changes. Every request is recorded (Requests), and
// every accepted answer, prompt and interrupt too. A session a scripting
// method or a prompt names exists from then on, in "/" without a title
// unless AddSession or POST /api/session said otherwise.
//
// All methods are safe for concurrent use once Start has returned, also
// while requests are served; the exported fields must not change after
// Start. Events reach only streams connected when they are sent (the fake
// keeps no history; wait with WaitConnections), and it never cuts a slow
// reader, as the real server may.
type Server2 struct {
	// URL is the base URL, http://127.0.0.1:port, with no trailing slash;
	// set by Start.
	URL string
	// Password is the basic-auth password of the user "opencode"; empty
	// means no auth. NewUnstartedServer2 sets a random one.
	Password string
	// Version is what /api/health, /api/info and service.json report.
	Version string
	// PermissionEvent is the type AddPermission sends:
	// opencode.TypePermissionV2Asked (the default) or the 1.x spelling
	// opencode.TypePermissionAsked, which OpenCode 2 also keeps.
	PermissionEvent string
	// Heartbeat is how often GET /api/event sends ": heartbeat"; 0 never.
	Heartbeat time.Duration

	srv       *httptest.Server
	closing   chan struct{}
	closeOnce sync.Once

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced on every change waiters care about
	sessions    map[string]*fakeSession2
	sessionSeq  int
	forms       []*form2
	questions   []opencode.QuestionRequest
	permissions []opencode.PermissionRequest
	saved       []SavedApproval
	busy        map[string]bool
	seq         map[string]int // the last log.hint seq of each session
	requests    []Request
	replies     []Reply2
	prompts     []Prompt2
	interrupts  []string
	refuse      map[string]string // form ID → the message of its next refusal
	events      map[*fakeStream]struct{}
	changes     map[*fakeStream]struct{}
	connections int // GET /api/event streams opened
	changeConns int // GET /api/event/changes streams opened
	lastID      int
}

// form2 is a form and where it stands.
type form2 struct {
	Form
	state FormState
}

// FormState is the answer of GET …/form/{id}/state under data.
type FormState struct {
	Status string         `json:"status"` // pending, answered or cancelled
	Answer map[string]any `json:"answer,omitempty"`
}

// SavedApproval is an approval saved by a permission reply of "always",
// as GET /api/permission/saved lists it.
type SavedApproval struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectID"`
	Action    string `json:"action"`
	Resource  string `json:"resource"`
}

// Server2ProjectID is the project of every session of a Server2: the
// projectID of the approvals its permission replies save.
const Server2ProjectID = "prj_fake"

// Event2 is one record of GET /api/event.
type Event2 struct {
	// ID is "evt_…"; empty means the next one of the server.
	ID string `json:"id"`
	// Created is in milliseconds since the epoch; 0 means now.
	Created  int64  `json:"created"`
	Type     string `json:"type"`
	Data     any    `json:"data"`
	Location any    `json:"location,omitempty"`
}

// These are the kinds of Reply2.
const (
	ReplyForm  = "form.reply"
	CancelForm = "form.cancel"
)

// Reply2 is an answer a Server2 accepted.
type Reply2 struct {
	Kind      string // ReplyForm, CancelForm, ReplyQuestion, RejectQuestion or ReplyPermission
	SessionID string
	ID        string         // the form's, question's or permission's
	Answer    map[string]any // ReplyForm only
	Answers   [][]string     // ReplyQuestion only
	Reply     string         // ReplyPermission only: once, always or reject
	// Message is a permission reply's message, or the ?message= of a
	// DELETE …/form/{id}.
	Message string
}

// Prompt2 is a prompt a Server2 accepted.
type Prompt2 struct {
	SessionID string
	ID        string // the message ID the client chose, "" when none
	Text      string
	// Delivery is "steer", "queue" or "" when the body had none.
	Delivery string
	// Files, Agents and Resume are as sent, nil when absent: their shapes
	// were not read.
	Files, Agents, Resume json.RawMessage
}

// NewServer2 starts a Server2 with a random password. The caller should
// call Close when finished.
func NewServer2() *Server2 {
	s := NewUnstartedServer2()
	s.Start()
	return s
}

// NewUnstartedServer2 returns a Server2 that is not yet listening, so its
// fields can be changed before Start.
func NewUnstartedServer2() *Server2 {
	var pw [12]byte
	_, _ = rand.Read(pw[:]) // never fails
	return &Server2{
		Password:        hex.EncodeToString(pw[:]),
		Version:         "2.0.0",
		PermissionEvent: opencode.TypePermissionV2Asked,
		Heartbeat:       15 * time.Second,
		closing:         make(chan struct{}),
		changed:         make(chan struct{}),
		sessions:        make(map[string]*fakeSession2),
		busy:            make(map[string]bool),
		seq:             make(map[string]int),
		events:          make(map[*fakeStream]struct{}),
		changes:         make(map[*fakeStream]struct{}),
	}
}

// route2 is one route of a Server2.
type route2 struct {
	pattern string
	handler func(*Server2, http.ResponseWriter, *http.Request)
}

// server2Routes is every route a Server2 serves; a test holds it to
// opencode.Contract2.
var server2Routes = []route2{
	{"GET /api/health", (*Server2).handleHealth},
	{"GET /api/info", (*Server2).handleInfo},
	{"GET /api/event", (*Server2).handleEvents},
	{"GET /api/event/changes", (*Server2).handleChanges},
	{"GET /api/session", (*Server2).handleListSessions},
	{"POST /api/session", (*Server2).handleCreateSession},
	{"GET /api/session/{sid}", (*Server2).handleGetSession},
	{"GET /api/session/{sid}/form", (*Server2).handleForms},
	{"POST /api/session/{sid}/form/{id}/reply", (*Server2).handleFormReply},
	{"POST /api/session/{sid}/form/{id}/cancel", (*Server2).handleFormCancel},
	{"DELETE /api/session/{sid}/form/{id}", (*Server2).handleFormCancel},
	{"GET /api/session/{sid}/form/{id}/state", (*Server2).handleFormState},
	{"GET /api/session/{sid}/question", (*Server2).handleQuestions},
	{"POST /api/session/{sid}/question/{id}/reply", (*Server2).handleQuestionReply},
	{"POST /api/session/{sid}/question/{id}/reject", (*Server2).handleQuestionReject},
	{"GET /api/session/{sid}/permission", (*Server2).handlePermissions},
	{"POST /api/session/{sid}/permission/{id}/reply", (*Server2).handlePermissionReply},
	{"GET /api/permission/saved", (*Server2).handleSaved},
	{"DELETE /api/permission/saved/{id}", (*Server2).handleDeleteSaved},
	{"POST /api/session/{sid}/prompt", (*Server2).handlePrompt},
	{"POST /api/session/{sid}/interrupt", (*Server2).handleInterrupt},
	{"GET /api/session/active", (*Server2).handleActive},
}

// Start starts a server from NewUnstartedServer2. It panics if called twice.
func (s *Server2) Start() {
	if s.srv != nil {
		panic("opencodetest: Server2 already started")
	}
	mux := http.NewServeMux()
	for _, rt := range server2Routes {
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { rt.handler(s, w, r) })
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fakeWriteJSON(w, http.StatusNotFound, map[string]string{"message": "no route " + r.Method + " " + r.URL.Path})
	})
	s.srv = httptest.NewServer(s.middleware(mux))
	s.URL = s.srv.URL
}

// Close cuts every stream, shuts the server down and blocks until all
// requests have finished. Calling it again does nothing.
func (s *Server2) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		if s.srv != nil {
			s.srv.Close()
		}
	})
}

// WriteServiceFile writes dir/service.json as OpenCode 2 registers itself
// ({id, version, url, pid, password}, mode 0600, renamed into place) and
// returns its path; dir must exist. The pid is this process's, so it is
// alive; call it once the server is started, for its URL.
func (s *Server2) WriteServiceFile(dir string) (string, error) {
	b, err := json.Marshal(map[string]any{
		"id": "svc_fake", "version": s.Version, "url": s.URL, "pid": os.Getpid(), "password": s.Password,
	})
	if err != nil {
		return "", fmt.Errorf("opencodetest: encoding service.json: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "service-*.json")
	if err != nil {
		return "", fmt.Errorf("opencodetest: writing service.json: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", fmt.Errorf("opencodetest: writing service.json: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return "", fmt.Errorf("opencodetest: writing service.json: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("opencodetest: writing service.json: %w", err)
	}
	path := filepath.Join(dir, "service.json")
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("opencodetest: writing service.json: %w", err)
	}
	return path, nil
}

func (s *Server2) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond, checked under s.mu, holds or ctx is done.
func (s *Server2) waitFor(ctx context.Context, what string, cond func() bool) error {
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

// nextIDLocked returns a fresh ID with prefix ("frm", "evt", …).
func (s *Server2) nextIDLocked(prefix string) string {
	s.lastID++
	return fmt.Sprintf("%s_fake%06d", prefix, s.lastID)
}

// Send sends ev to every connected GET /api/event stream, filling in its
// ID and time when missing. Data that cannot be encoded panics: it is a
// bug in the test.
func (s *Server2) Send(ev Event2) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sendLocked(ev)
}

func (s *Server2) sendLocked(ev Event2) {
	if ev.ID == "" {
		ev.ID = s.nextIDLocked("evt")
	}
	if ev.Created == 0 {
		ev.Created = time.Now().UnixMilli()
	}
	if ev.Data == nil {
		ev.Data = struct{}{}
	}
	rec := sseRecord(ev)
	for st := range s.events {
		st.push(rec)
	}
}

func sseRecord(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("opencodetest: encoding an event: %v", err))
	}
	return fmt.Appendf(nil, "data: %s\n\n", b)
}

// SendRaw writes text verbatim to every connected GET /api/event stream.
func (s *Server2) SendRaw(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.events {
		st.push([]byte(text))
	}
}

// hintLocked tells the change streams that session sid changed.
func (s *Server2) hintLocked(sid string) {
	s.seq[sid]++
	rec := sseRecord(map[string]any{"type": "log.hint", "aggregateID": sid, "seq": s.seq[sid]})
	for st := range s.changes {
		st.push(rec)
	}
}

// SweepRequired sends the marker log.sweep_required to every connected
// GET /api/event/changes stream, as the server does when hints were lost.
func (s *Server2) SweepRequired() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.changes {
		st.push([]byte(sweepRecord))
	}
}

const sweepRecord = "data: {\"type\":\"log.sweep_required\"}\n\n"

// DropStreams cuts every connected stream, as a restart or a network
// failure would.
func (s *Server2) DropStreams() {
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

// WaitConnections blocks until at least n GET /api/event streams were
// opened so far and the last is ready for Send, or ctx is done.
func (s *Server2) WaitConnections(ctx context.Context, n int) error {
	return s.waitFor(ctx, fmt.Sprintf("%d event streams", n), func() bool { return s.connections >= n })
}

// WaitChangesConnections is WaitConnections for GET /api/event/changes.
func (s *Server2) WaitChangesConnections(ctx context.Context, n int) error {
	return s.waitFor(ctx, fmt.Sprintf("%d change streams", n), func() bool { return s.changeConns >= n })
}

// AddForm makes f pending in session sid and sends form.created. An
// empty ID gets a fresh one, an empty mode is "form". It returns the form
// as stored, and panics on a form the schema refuses (a bug in the test).
func (s *Server2) AddForm(sid string, f Form) Form {
	f.SessionID = sid
	if f.Mode == "" {
		f.Mode = "form"
	}
	f = normalizeForm(f)
	if err := checkForm(f); err != nil {
		panic(fmt.Sprintf("opencodetest: AddForm: %v", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.ID == "" {
		f.ID = s.nextIDLocked("frm")
	}
	s.touchLocked(sid)
	s.forms = append(s.forms, &form2{Form: f, state: FormState{Status: "pending"}})
	s.sendLocked(Event2{Type: "form.created", Data: map[string]any{"form": f}})
	s.hintLocked(sid)
	s.broadcastLocked()
	return f
}

// Forms returns the forms pending in session sid.
func (s *Server2) Forms(sid string) []Form {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Form
	for _, f := range s.forms {
		if f.SessionID == sid && f.state.Status == "pending" {
			out = append(out, f.Form)
		}
	}
	return out
}

// AddQuestion makes q pending and sends question.v2.asked.
func (s *Server2) AddQuestion(q opencode.QuestionRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touchLocked(q.SessionID)
	s.questions = append(s.questions, q)
	s.sendLocked(Event2{Type: opencode.TypeQuestionV2Asked, Data: q})
	s.hintLocked(q.SessionID)
	s.broadcastLocked()
}

// AddPermission makes p pending and sends PermissionEvent, with p in the
// wire shape of OpenCode 2 (action, resources, save, source).
func (s *Server2) AddPermission(p opencode.PermissionRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touchLocked(p.SessionID)
	s.permissions = append(s.permissions, p)
	s.sendLocked(Event2{Type: s.PermissionEvent, Data: p.V2()})
	s.hintLocked(p.SessionID)
	s.broadcastLocked()
}

// AddSaved saves a, as a reply of "always" would, and returns it with an
// ID when it had none.
func (s *Server2) AddSaved(a SavedApproval) SavedApproval {
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
func (s *Server2) Saved() []SavedApproval {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.saved)
}

// FinishTurn ends a busy session's turn: session.execution.succeeded,
// then session.status idle. It reports whether the session was busy.
func (s *Server2) FinishTurn(sid string) bool {
	return s.endTurn(sid, "session.execution.succeeded", map[string]any{"sessionID": sid})
}

// FailTurn ends a busy session's turn with session.execution.failed
// {sessionID, error: {type, message}}, then session.status idle. It
// reports whether the session was busy.
func (s *Server2) FailTurn(sid, errType, message string) bool {
	return s.endTurn(sid, "session.execution.failed", map[string]any{
		"sessionID": sid, "error": map[string]string{"type": errType, "message": message},
	})
}

func (s *Server2) endTurn(sid, typ string, data any) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endTurnLocked(sid, typ, data)
}

func (s *Server2) endTurnLocked(sid, typ string, data any) bool {
	if !s.busy[sid] {
		return false
	}
	delete(s.busy, sid)
	s.sendLocked(Event2{Type: typ, Data: data})
	s.sendLocked(Event2{Type: "session.status", Data: sessionStatus(sid, "idle")})
	s.hintLocked(sid)
	s.broadcastLocked()
	return true
}

func sessionStatus(sid, typ string) map[string]any {
	return map[string]any{"sessionID": sid, "status": map[string]string{"type": typ}}
}

// Busy reports whether session sid is in a turn: prompted and not yet
// finished, failed or interrupted.
func (s *Server2) Busy(sid string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy[sid]
}

// Requests returns every request received so far, in arrival order.
func (s *Server2) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Replies returns every answer accepted so far, in order.
func (s *Server2) Replies() []Reply2 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.replies)
}

// WaitReplies blocks until at least n answers were accepted, or ctx is
// done, and returns them all.
func (s *Server2) WaitReplies(ctx context.Context, n int) ([]Reply2, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d replies", n), func() bool { return len(s.replies) >= n })
	return s.Replies(), err
}

// Prompts returns every prompt accepted so far, in order.
func (s *Server2) Prompts() []Prompt2 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.prompts)
}

// Interrupts returns the session of every interrupt received so far, idle
// sessions' included, in order.
func (s *Server2) Interrupts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.interrupts)
}

// WaitPrompts blocks until at least n prompts were accepted, or ctx is
// done, and returns them all.
func (s *Server2) WaitPrompts(ctx context.Context, n int) ([]Prompt2, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d prompts", n), func() bool { return len(s.prompts) >= n })
	return s.Prompts(), err
}

// WaitInterrupts blocks until at least n interrupts were received, or ctx
// is done, and returns their sessions.
func (s *Server2) WaitInterrupts(ctx context.Context, n int) ([]string, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d interrupts", n), func() bool { return len(s.interrupts) >= n })
	return s.Interrupts(), err
}

// WaitSaved blocks until exactly n approvals are saved, or ctx is done,
// and returns them.
func (s *Server2) WaitSaved(ctx context.Context, n int) ([]SavedApproval, error) {
	err := s.waitFor(ctx, fmt.Sprintf("%d saved approvals", n), func() bool { return len(s.saved) == n })
	return s.Saved(), err
}

// middleware records every request, then checks basic auth.
func (s *Server2) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8<<20))
		if err != nil {
			fakeWriteJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"message": err.Error()})
			return
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		user, pass, hasAuth := r.BasicAuth()
		authorized := s.Password == "" || hasAuth && user == "opencode" && pass == s.Password

		s.mu.Lock()
		s.requests = append(s.requests, Request{
			Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: string(body),
			User: user, Authorized: authorized,
		})
		s.broadcastLocked()
		s.mu.Unlock()

		if !authorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="opencode"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server2) handleHealth(w http.ResponseWriter, _ *http.Request) {
	fakeWriteJSON(w, http.StatusOK, map[string]any{"healthy": true, "version": s.Version, "pid": os.Getpid()})
}

func (s *Server2) handleInfo(w http.ResponseWriter, _ *http.Request) {
	fakeWriteJSON(w, http.StatusOK, map[string]any{
		"version": s.Version, "pid": os.Getpid(), "urls": []string{s.URL}, "paths": struct{}{},
	})
}

// stream serves one server-sent-events stream registered in set, first
// writing first. heartbeat 0 sends none.
func (s *Server2) stream(w http.ResponseWriter, r *http.Request, set map[*fakeStream]struct{}, count *int, first []byte, heartbeat time.Duration) {
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
	// Queued before the stream is visible to senders, so it always comes first.
	st.push(first)
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
	if heartbeat > 0 {
		t := time.NewTicker(heartbeat)
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
			st.push([]byte(": heartbeat\n\n"))
		case <-st.drop:
			return
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}

func (s *Server2) handleEvents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	first := Event2{ID: s.nextIDLocked("evt"), Created: time.Now().UnixMilli(), Type: "server.connected", Data: struct{}{}}
	s.mu.Unlock()
	s.stream(w, r, s.events, &s.connections, sseRecord(first), s.Heartbeat)
}

func (s *Server2) handleChanges(w http.ResponseWriter, r *http.Request) {
	s.stream(w, r, s.changes, &s.changeConns, []byte(sweepRecord), 0)
}

// session2 checks the {sid} of a route, answering 400 as opencode 1.x's
// /api surface does for one without the "ses" prefix.
func session2(w http.ResponseWriter, r *http.Request) (string, bool) {
	sid := r.PathValue("sid")
	if !strings.HasPrefix(sid, "ses") {
		fakeInvalid(w, "Params", "Expected a string matching the pattern ^ses, got \""+sid+"\"")
		return "", false
	}
	return sid, true
}

func (s *Server2) handleForms(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	fs := s.Forms(sid)
	if fs == nil {
		fs = []Form{}
	}
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": fs})
}

// formError writes an error of the form routes: {"_tag", "id", "message"}.
func formError(w http.ResponseWriter, status int, tag, id, message string) {
	fakeWriteJSON(w, status, map[string]string{"_tag": tag, "id": id, "message": message})
}

// formLocked finds the form of a route, answering 404 when the session
// has none with that ID.
func (s *Server2) formLocked(w http.ResponseWriter, sid, id string) *form2 {
	for _, f := range s.forms {
		if f.ID == id && f.SessionID == sid {
			return f
		}
	}
	formError(w, http.StatusNotFound, "FormNotFoundError", id, "Form not found: "+id)
	return nil
}

// pendingFormLocked is formLocked for a route that settles the form:
// one settled already is answered 409.
func (s *Server2) pendingFormLocked(w http.ResponseWriter, sid, id string) *form2 {
	f := s.formLocked(w, sid, id)
	if f != nil && f.state.Status != "pending" {
		formError(w, http.StatusConflict, "FormAlreadySettledError", id, "Form already "+f.state.Status+": "+id)
		return nil
	}
	return f
}

func (s *Server2) handleFormReply(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.pendingFormLocked(w, sid, id)
	if f == nil {
		return
	}
	var body struct {
		Answer map[string]any `json:"answer"`
	}
	if err := decodeStrict(fakeBody(r), &body); err != nil || body.Answer == nil {
		formError(w, http.StatusBadRequest, "FormInvalidAnswerError", id, "Expected {\"answer\": {key: value}}")
		return
	}
	if err := validateAnswer(f.Form, body.Answer); err != nil {
		formError(w, http.StatusBadRequest, "FormInvalidAnswerError", id, err.Error())
		return
	}
	if why, ok := s.takeRefusalLocked(id); ok {
		formError(w, http.StatusBadRequest, "FormInvalidAnswerError", id, why)
		return
	}
	f.state = FormState{Status: "answered", Answer: body.Answer}
	s.replies = append(s.replies, Reply2{Kind: ReplyForm, SessionID: sid, ID: id, Answer: body.Answer})
	s.sendLocked(Event2{Type: "form.replied", Data: map[string]any{"id": id, "sessionID": sid, "answer": body.Answer}})
	s.hintLocked(sid)
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

// handleFormCancel serves both spellings of a cancel: POST …/cancel and
// DELETE …/form/{id}?message=.
func (s *Server2) handleFormCancel(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.pendingFormLocked(w, sid, id)
	if f == nil {
		return
	}
	f.state = FormState{Status: "cancelled"}
	s.replies = append(s.replies, Reply2{Kind: CancelForm, SessionID: sid, ID: id, Message: r.URL.Query().Get("message")})
	s.sendLocked(Event2{Type: "form.cancelled", Data: map[string]any{"id": id, "sessionID": sid}})
	s.hintLocked(sid)
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server2) handleFormState(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.formLocked(w, sid, r.PathValue("id")); f != nil {
		fakeWriteJSON(w, http.StatusOK, map[string]any{"data": f.state})
	}
}

func (s *Server2) handleQuestions(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	qs := []opencode.QuestionRequest{}
	for _, q := range s.questions {
		if q.SessionID == sid {
			qs = append(qs, q)
		}
	}
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": qs})
}

// takeQuestionLocked removes question id of session sid.
func (s *Server2) takeQuestionLocked(sid, id string) bool {
	i := slices.IndexFunc(s.questions, func(q opencode.QuestionRequest) bool { return q.ID == id && q.SessionID == sid })
	if i < 0 {
		return false
	}
	s.questions = slices.Delete(s.questions, i, i+1)
	return true
}

func (s *Server2) handleQuestionReply(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	id, ok := apiRequestID(w, r, "que")
	if !ok {
		return
	}
	var body struct {
		Answers *[][]string `json:"answers"`
	}
	if err := decodeStrict(fakeBody(r), &body); err != nil || body.Answers == nil {
		fakeInvalid(w, "Payload", "Expected {\"answers\": [[label, …], …]}")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.takeQuestionLocked(sid, id) {
		fakeTagged(w, http.StatusNotFound, "QuestionNotFoundError", "Question request not found: "+id, "requestID", id)
		return
	}
	s.replies = append(s.replies, Reply2{Kind: ReplyQuestion, SessionID: sid, ID: id, Answers: *body.Answers})
	s.hintLocked(sid)
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server2) handleQuestionReject(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	id, ok := apiRequestID(w, r, "que")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.takeQuestionLocked(sid, id) {
		fakeTagged(w, http.StatusNotFound, "QuestionNotFoundError", "Question request not found: "+id, "requestID", id)
		return
	}
	s.replies = append(s.replies, Reply2{Kind: RejectQuestion, SessionID: sid, ID: id})
	s.hintLocked(sid)
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server2) handlePermissions(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	ps := slices.DeleteFunc(slices.Clone(s.permissions), func(p opencode.PermissionRequest) bool { return p.SessionID != sid })
	s.mu.Unlock()
	fakeWriteJSON(w, http.StatusOK, map[string]any{"data": permissionsV2(ps)})
}

func (s *Server2) handlePermissionReply(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
	if !ok {
		return
	}
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
	if !slices.Contains([]string{"once", "always", "reject"}, body.Reply) {
		fakeInvalid(w, "Payload", "Expected once, always or reject, got \""+body.Reply+"\"")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.permissions, func(p opencode.PermissionRequest) bool { return p.ID == id && p.SessionID == sid })
	if i < 0 {
		fakeTagged(w, http.StatusNotFound, "PermissionNotFoundError", "Permission request not found: "+id, "requestID", id)
		return
	}
	p := s.permissions[i]
	s.permissions = slices.Delete(s.permissions, i, i+1)
	if body.Reply == "always" {
		// What "always" remembers is save, else the resources asked for.
		save := p.Always
		if len(save) == 0 {
			save = p.Patterns
		}
		for _, res := range save {
			s.saved = append(s.saved, SavedApproval{ID: s.nextIDLocked("psv"), ProjectID: Server2ProjectID, Action: p.Permission, Resource: res})
		}
	}
	var message string
	if body.Message != nil {
		message = *body.Message
	}
	s.replies = append(s.replies, Reply2{Kind: ReplyPermission, SessionID: sid, ID: id, Reply: body.Reply, Message: message})
	s.hintLocked(sid)
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server2) handleSaved(w http.ResponseWriter, r *http.Request) {
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

func (s *Server2) handleDeleteSaved(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	s.saved = slices.DeleteFunc(s.saved, func(a SavedApproval) bool { return a.ID == id })
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
func (s *Server2) handlePrompt(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
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
	if err := decodeLoose(fakeBody(r), &body); err != nil {
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
			if p.Files == nil {
				p.Files = n.Files
			}
			if p.Agents == nil {
				p.Agents = n.Agents
			}
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
	s.touchLocked(sid)
	s.prompts = append(s.prompts, Prompt2{
		SessionID: sid, ID: body.ID, Text: *p.Text, Delivery: body.Delivery,
		Files: p.Files, Agents: p.Agents, Resume: body.Resume,
	})
	if !s.busy[sid] {
		s.busy[sid] = true
		s.sendLocked(Event2{Type: "session.status", Data: sessionStatus(sid, "busy")})
		s.hintLocked(sid)
	}
	s.broadcastLocked()
	w.WriteHeader(http.StatusNoContent)
}

// handleActive lists as running every session in a turn or with a
// pending form, question or permission request: what a sweep must list.
func (s *Server2) handleActive(w http.ResponseWriter, _ *http.Request) {
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

func (s *Server2) handleInterrupt(w http.ResponseWriter, r *http.Request) {
	sid, ok := session2(w, r)
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

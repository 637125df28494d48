package telegramtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is a fake Telegram Bot API server listening on a loopback port.
// Create it with NewServer and Close it when the test ends.
type Server struct {
	// URL is the base URL, of the form http://127.0.0.1:port with no
	// trailing slash: pass it to bot.WithServerURL.
	URL string

	token   string
	bot     User
	maxPoll time.Duration
	// maxUpload is the largest file sendDocument takes.
	maxUpload int
	srv       *httptest.Server
	methods   map[string]method // by lower-case name: Telegram ignores case

	closeOnce sync.Once
	done      chan struct{} // closed by Close to end long polls

	mu           sync.Mutex
	changed      chan struct{} // closed and replaced on every state change
	chats        map[int64]*chat
	updates      []queuedUpdate // not yet confirmed by the poller
	nextUpdateID int64
	allowed      map[string]bool // nil until a poll names allowed_updates
	pollGen      uint64          // identifies the newest getUpdates call
	webhook      string
	requests     []Request
	faults       map[string][]Fault // by lower-case method name
	holds        map[string]*hold   // by lower-case method name; see Hold
	callbacks    map[string]bool    // by ID: answered
	callbackIDs  []string           // issue order
	answers      []CallbackAnswer
	nextCallback uint64
	members      map[int64]map[int64]member // by chat, then user; see SetMember
	privacyOff   bool                       // see WithPrivacyDisabled
}

// User is a Telegram user, as a test passes it to PressButton or Reply.
type User struct {
	ID        int64
	FirstName string
	Username  string
}

// Request is one API call the server received, with every parameter as
// text (nested objects such as reply_markup are JSON text).
type Request struct {
	Method string // as Telegram names it, e.g. "sendMessage"
	Params map[string]string
}

// Fault makes a call fail; see FailNext.
type Fault struct {
	Code            int    // error_code and HTTP status, e.g. 429 or 500
	Description     string // defaults to Telegram's text for Code
	RetryAfter      int    // seconds; sent as parameters.retry_after
	MigrateToChatID int64  // sent as parameters.migrate_to_chat_id
	// Body, when set, is sent verbatim instead of the JSON error, like the
	// HTML page a proxy in front of Telegram answers with on a 502.
	Body string
}

// Option configures a Server.
type Option func(*Server)

// WithUsername sets the bot's username (default "hermes_test_bot").
func WithUsername(username string) Option {
	return func(s *Server) { s.bot.Username = username }
}

// WithFirstName sets the bot's name as clients show it (default "Hermes
// Test").
func WithFirstName(name string) Option {
	return func(s *Server) { s.bot.FirstName = name }
}

// WithMaxPollWait caps how long getUpdates waits for an update, whatever
// timeout the client asks for (default 1 s), so tests stay quick.
func WithMaxPollWait(d time.Duration) Option {
	return func(s *Server) {
		if d > 0 {
			s.maxPoll = d
		}
	}
}

// WithMaxUpload lowers the size of a file sendDocument takes (default
// Telegram's 50 MB), so a test of the limit need not send 50 MB.
func WithMaxUpload(bytes int) Option {
	return func(s *Server) {
		if bytes > 0 {
			s.maxUpload = bytes
		}
	}
}

const (
	defaultMaxPoll = time.Second
	// idleShortPoll is how long a getUpdates without a timeout waits when
	// nothing is queued. Telegram answers at once, after a network round
	// trip; without a pause here a short-polling client spins a CPU.
	idleShortPoll = 50 * time.Millisecond
)

// NewServer starts a fake Bot API server for the bot with the given token.
// The bot's ID is the number before ':' in the token, as with Telegram and
// go-telegram/bot's Bot.ID (0 if the token does not start with digits and
// ':'); use tokens like "123:abc". There are no chats until AddChat.
// The caller should call Close when finished.
func NewServer(token string, opts ...Option) *Server {
	s := &Server{
		token:        token,
		maxPoll:      defaultMaxPoll,
		maxUpload:    maxUploadBytes,
		done:         make(chan struct{}),
		changed:      make(chan struct{}),
		chats:        make(map[int64]*chat),
		nextUpdateID: 1,
		faults:       make(map[string][]Fault),
		holds:        make(map[string]*hold),
		callbacks:    make(map[string]bool),
		members:      make(map[int64]map[int64]member),
		nextCallback: 4_100_000_000_000_000_000,
		bot:          User{FirstName: "Hermes Test", Username: "hermes_test_bot"},
	}
	if id, err := strconv.ParseInt(strings.Split(token, ":")[0], 10, 64); err == nil {
		s.bot.ID = id
	}
	for _, o := range opts {
		o(s)
	}
	s.methods = s.methodTable()
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.srv.URL
	return s
}

// Close ends pending long polls, shuts the server down and blocks until every
// request has finished. Calling it again does nothing.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.Close()
	})
}

// BotUser returns the bot's own identity, as getMe reports it.
func (s *Server) BotUser() User {
	return s.bot
}

// FailNext makes the next call of method (e.g. "sendMessage") fail with f.
// Faults queue: FailNext twice fails the next two calls. The failed call
// changes nothing but is still listed by Requests.
func (s *Server) FailNext(method string, f Fault) {
	s.FailNextN(method, 1, f)
}

// FailNextN makes the next n calls of method fail with f.
func (s *Server) FailNextN(method string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(method)
	for range n {
		s.faults[key] = append(s.faults[key], f)
	}
}

// ClearFaults drops the faults still queued for method: its next calls
// succeed again.
func (s *Server) ClearFaults(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.faults, strings.ToLower(method))
}

// Requests returns every API call received so far with the right token, in
// order of arrival, getUpdates included.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = Request{Method: r.Method, Params: maps.Clone(r.Params)}
	}
	return out
}

// RequestsFor returns the calls of one method, in order of arrival.
func (s *Server) RequestsFor(method string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if strings.EqualFold(r.Method, method) {
			out = append(out, r)
		}
	}
	return out
}

// SetWebhook marks a webhook as set, as if a previous run had called
// setWebhook: getUpdates then fails with 409 until deleteWebhook is called.
func (s *Server) SetWebhook(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = url
	s.notifyLocked()
}

// Wait blocks until cond returns true or ctx ends. cond is evaluated at once
// and again after every change of the server's state (a request, an update,
// a test control), never while the server's lock is held, so it may call any
// Server method.
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("telegramtest: wait: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes every Wait and long poll. s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// apiError is an unsuccessful Bot API answer.
type apiError struct {
	code            int
	description     string
	retryAfter      int
	migrateToChatID int64
	body            string
}

func badRequest(description string) *apiError {
	return &apiError{code: http.StatusBadRequest, description: "Bad Request: " + description}
}

// errClientGone ends a call whose client went away: nothing is written.
var errClientGone = &apiError{}

type method struct {
	name string
	fn   func(ctx context.Context, p params) (any, *apiError)
}

func (s *Server) methodTable() map[string]method {
	table := map[string]func(context.Context, params) (any, *apiError){
		"getMe":               s.getMe,
		"getUpdates":          s.getUpdates,
		"sendMessage":         s.sendMessage,
		"sendDocument":        s.sendDocument,
		"editMessageText":     s.editMessageText,
		"answerCallbackQuery": s.answerCallbackQuery,
		"deleteWebhook":       s.deleteWebhook,
		"setMyCommands":       s.setMyCommands,
		"getChat":             s.getChat,
		"getChatMember":       s.getChatMember,
		"createForumTopic":    s.createForumTopic,
		"setMessageReaction":  s.setMessageReaction,
		"getFile":             s.getFile,
	}
	m := make(map[string]method, len(table))
	for name, fn := range table {
		m[strings.ToLower(name)] = method{name: name, fn: fn}
	}
	return m
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok && r.Method == http.MethodGet {
		s.serveFile(w, r, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	slash := strings.LastIndexByte(rest, '/')
	if !ok || slash < 0 || (r.Method != http.MethodGet && r.Method != http.MethodPost) {
		writeError(w, &apiError{code: http.StatusNotFound, description: "Not Found"})
		return
	}
	token, name := rest[:slash], rest[slash+1:]
	if token != s.token {
		writeError(w, &apiError{code: http.StatusUnauthorized, description: "Unauthorized"})
		return
	}
	p, err := readParams(r)
	if err != nil {
		writeError(w, badRequest(err.Error()))
		return
	}
	m, known := s.methods[strings.ToLower(name)]
	if known {
		name = m.name
	}

	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: name, Params: maps.Clone(p)})
	var fault *Fault
	if q := s.faults[strings.ToLower(name)]; len(q) > 0 {
		fault = &q[0]
		s.faults[strings.ToLower(name)] = q[1:]
	}
	h := s.holds[strings.ToLower(name)]
	s.notifyLocked()
	s.mu.Unlock()

	if h != nil && !h.replies {
		if s.await(r.Context(), h) {
			writeError(w, &apiError{code: http.StatusBadGateway, description: "Bad Gateway"})
		}
		return // never took effect
	}
	switch {
	case !known:
		writeError(w, &apiError{code: http.StatusNotFound, description: "Not Found"})
	case fault != nil:
		writeError(w, faultError(*fault))
	default:
		result, apiErr := m.fn(r.Context(), p)
		if h != nil && h.replies && !s.await(r.Context(), h) {
			return // done, but the client never learns it
		}
		switch {
		case apiErr == errClientGone:
		case apiErr != nil:
			writeError(w, apiErr)
		default:
			writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
		}
	}
}

// hold is a Hold or HoldReplies in force.
type hold struct {
	replies bool          // the call takes effect; its answer waits
	release chan struct{} // closed by the release func
}

// Hold makes every call of method (e.g. "editMessageText") wait until
// the returned func is called, and never take effect, as a call lost on
// its way: its client, if still there, then gets a 502. Tests kill a bot
// while such calls are held, then release them. Requests lists held
// calls at once, so WaitRequests tells when they arrived. Calling
// release again does nothing; a later Hold of the same method replaces
// this one for the calls after it.
func (s *Server) Hold(method string) (release func()) {
	return s.addHold(method, false)
}

// HoldReplies makes every call of method take effect at once but hold
// back its answer until the returned func is called: Telegram has the
// message, the client does not know it yet. A client killed meanwhile
// never learns the call succeeded.
func (s *Server) HoldReplies(method string) (release func()) {
	return s.addHold(method, true)
}

func (s *Server) addHold(method string, replies bool) func() {
	h := &hold{replies: replies, release: make(chan struct{})}
	key := strings.ToLower(method)
	s.mu.Lock()
	s.holds[key] = h
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.holds[key] == h {
				delete(s.holds, key)
			}
			s.notifyLocked()
			s.mu.Unlock()
			close(h.release)
		})
	}
}

// await blocks until h is released, reporting true, or the client or
// the server goes away, reporting false.
func (s *Server) await(ctx context.Context, h *hold) bool {
	select {
	case <-h.release:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

func faultError(f Fault) *apiError {
	e := &apiError{code: f.Code, description: f.Description, retryAfter: f.RetryAfter, migrateToChatID: f.MigrateToChatID, body: f.Body}
	if e.code == 0 {
		e.code = http.StatusInternalServerError
	}
	if e.description == "" {
		switch {
		case e.code == http.StatusTooManyRequests:
			e.description = fmt.Sprintf("Too Many Requests: retry after %d", f.RetryAfter)
		case e.code == http.StatusBadRequest && f.MigrateToChatID != 0:
			e.description = "Bad Request: group chat was upgraded to a supergroup chat"
		default:
			e.description = http.StatusText(e.code)
		}
	}
	return e
}

func writeError(w http.ResponseWriter, e *apiError) {
	if e.body != "" {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(e.code)
		_, _ = io.WriteString(w, e.body)
		return
	}
	body := map[string]any{"ok": false, "error_code": e.code, "description": e.description}
	parameters := map[string]any{}
	if e.retryAfter != 0 {
		parameters["retry_after"] = e.retryAfter
	}
	if e.migrateToChatID != 0 {
		parameters["migrate_to_chat_id"] = e.migrateToChatID
	}
	if len(parameters) > 0 {
		body["parameters"] = parameters
	}
	status := e.code
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, status = []byte(`{"ok":false,"error_code":500,"description":"Internal Server Error"}`), http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// params are a call's parameters as text, however they were encoded.
type params map[string]string

// fileMark starts the key under which an uploaded file's name is kept
// beside its content (which is under the field's own name): no Bot API
// parameter contains a NUL.
const fileMark = "\x00file:"

// addFile keeps an uploaded file of field key: its content as the
// field's value, its name under fileMark+key.
func (p params) addFile(key string, fh *multipart.FileHeader) error {
	f, err := fh.Open()
	if err != nil {
		return fmt.Errorf("can't read uploaded file %q: %v", fh.Filename, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("can't read uploaded file %q: %v", fh.Filename, err)
	}
	p[key] = string(b)
	p[fileMark+key] = fh.Filename
	return nil
}

// file returns the file uploaded as field key, if one was.
func (p params) file(key string) (name string, content []byte, ok bool) {
	name, ok = p[fileMark+key]
	if !ok {
		return "", nil, false
	}
	return name, []byte(p[key]), true
}

func (p params) has(key string) bool {
	_, ok := p[key]
	return ok
}

// readParams accepts the encodings Telegram accepts: a query string,
// multipart/form-data, application/x-www-form-urlencoded and JSON.
func readParams(r *http.Request) (params, error) {
	p := params{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mediaType {
	case "multipart/form-data":
		// go-telegram/bot sends calls without parameters (getMe) as an empty
		// body with a multipart Content-Type, which has no closing boundary.
		err := r.ParseMultipartForm(32 << 20)
		if err != nil && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "NextPart: EOF") {
			return nil, fmt.Errorf("can't parse multipart/form-data request: %v", err)
		}
		if r.MultipartForm != nil {
			for k, v := range r.MultipartForm.Value {
				p[k] = v[0]
			}
			for k, fhs := range r.MultipartForm.File {
				if err := p.addFile(k, fhs[0]); err != nil {
					return nil, err
				}
			}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, fmt.Errorf("can't parse form request: %v", err)
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
		if err != nil {
			return nil, fmt.Errorf("can't read request body: %v", err)
		}
		if len(strings.TrimSpace(string(body))) == 0 {
			break
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil {
			return nil, fmt.Errorf("can't parse JSON request: %v", err)
		}
		for k, raw := range fields {
			if isNull(raw) {
				continue
			}
			var str string
			if json.Unmarshal(raw, &str) == nil {
				p[k] = str
			} else {
				p[k] = string(raw)
			}
		}
	}
	return p, nil
}

func parseBool(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		return true
	}
	return false
}

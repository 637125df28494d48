package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
)

const (
	// DefaultMaxRecord is the longest event record the watcher accepts.
	DefaultMaxRecord = 16 << 20

	defaultUser            = "opencode"
	defaultCallTimeout     = 30 * time.Second
	defaultResolveAttempts = 20
	defaultResolveInterval = 300 * time.Millisecond
	defaultSilenceTimeout  = 30 * time.Second
	defaultBackoffMin      = time.Second
	defaultBackoffMax      = 30 * time.Second
	defaultBackoffReset    = 30 * time.Second

	// maxErrorBody bounds how much of an error answer lands in an APIError.
	maxErrorBody = 300
	// maxResponseBody bounds a successful answer: GET /question of a busy
	// server is the largest one expected, and it is far below this.
	maxResponseBody = 64 << 20
)

// Client talks to one opencode server. Build it with NewClient.
//
// A Client is safe for use by several goroutines at once; its settings do
// not change after NewClient returns, but for the server's address and
// credentials when WithEndpoint looks them up again.
type Client struct {
	ep  atomic.Pointer[endpoint]
	hc  *http.Client
	log zerolog.Logger

	lookup      func() (Endpoint, error) // WithEndpoint's; nil: the address is fixed
	lookupEvery time.Duration
	lookupMu    sync.Mutex // serialises lookups and guards lookupAt
	lookupAt    time.Time

	callTimeout     time.Duration
	resolveAttempts int
	resolveInterval time.Duration
	silence         time.Duration
	backoffMin      time.Duration
	backoffMax      time.Duration
	backoffReset    time.Duration
	live            bool             // WithLiveStatus
	now             func() time.Time // read by the watcher's log limiter
	state           watchState       // what Watch knows of the stream, for State
	gen             atomic.Int32     // the generation Probe found last; 0 before
}

// endpoint is the address and credentials requests go to.
type endpoint struct {
	base     string // scheme://host[/prefix], no trailing slash
	user     string
	password string
	auth     bool
}

// ClientOption changes one setting of a Client.
type ClientOption func(*Client)

// WithBasicAuth sends HTTP basic auth on every request. An empty user means
// "opencode", the server's default.
func WithBasicAuth(user, password string) ClientOption {
	return func(c *Client) {
		if user == "" {
			user = defaultUser
		}
		e := *c.ep.Load()
		e.user, e.password, e.auth = user, password, true
		c.ep.Store(&e)
	}
}

// WithHTTPClient replaces the HTTP client. Its Timeout must be zero: the
// event stream never ends on its own, and unary calls carry their own
// deadline.
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithLogger sets where the watcher reports connects, failures and skipped
// records. The default discards everything.
func WithLogger(log zerolog.Logger) ClientOption {
	return func(c *Client) { c.log = log }
}

// WithResolveRetry sets how often ResolveQuestionID lists questions before
// giving up, and how long it waits between lists (default 20 × 300 ms).
func WithResolveRetry(attempts int, interval time.Duration) ClientOption {
	return func(c *Client) {
		if attempts > 0 {
			c.resolveAttempts = attempts
		}
		if interval >= 0 {
			c.resolveInterval = interval
		}
	}
}

// WithSilenceTimeout sets how long the event stream may stay silent before
// it counts as dead (default 30 s; the server sends a heartbeat every 10 s).
func WithSilenceTimeout(d time.Duration) ClientOption {
	return func(c *Client) {
		if d > 0 {
			c.silence = d
		}
	}
}

// WithBackoff sets the reconnect delay: it starts at min, doubles after each
// failure up to max, and goes back to min once a connection has stayed up
// for resetAfter (defaults 1 s, 30 s, 30 s).
func WithBackoff(min, max, resetAfter time.Duration) ClientOption {
	return func(c *Client) {
		if min > 0 {
			c.backoffMin = min
		}
		if max > 0 {
			c.backoffMax = max
		}
		if c.backoffMax < c.backoffMin {
			c.backoffMax = c.backoffMin
		}
		if resetAfter > 0 {
			c.backoffReset = resetAfter
		}
	}
}

// WithLiveStatus makes Watch deliver a turn's progress too: events with
// Event.ToolStep, StepFinished or Status set (see TypeMessagePartUpdated).
// Off by default, as they are most of a busy stream.
func WithLiveStatus() ClientOption {
	return func(c *Client) { c.live = true }
}

// NewClient returns a Client for the server at baseURL, e.g.
// "http://127.0.0.1:4096". Credentials belong in WithBasicAuth, never in
// the URL: a URL ends up in error messages.
func NewClient(baseURL string, opts ...ClientOption) (*Client, error) {
	u, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		hc:              &http.Client{},
		log:             zerolog.Nop(),
		callTimeout:     defaultCallTimeout,
		resolveAttempts: defaultResolveAttempts,
		resolveInterval: defaultResolveInterval,
		silence:         defaultSilenceTimeout,
		backoffMin:      defaultBackoffMin,
		backoffMax:      defaultBackoffMax,
		backoffReset:    defaultBackoffReset,
		now:             time.Now,
	}
	c.ep.Store(&endpoint{base: strings.TrimSuffix(u.String(), "/")})
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// parseBaseURL checks a server's URL as NewClient takes it.
func parseBaseURL(baseURL string) (*url.URL, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		// url.Parse quotes the whole input, which may hold a password.
		return nil, errors.New("opencode URL: cannot parse it")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("opencode URL: scheme %q: want http or https", u.Scheme)
	case u.Host == "":
		return nil, errors.New("opencode URL: no host")
	case u.User != nil:
		return nil, errors.New("opencode URL: holds credentials; pass them with WithBasicAuth instead")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("opencode URL: must not have a query or fragment")
	}
	return u, nil
}

// dirQuery is the query of a per-directory call. An empty dir leaves the
// parameter out, so the server uses its own working directory.
func dirQuery(dir string) url.Values {
	if dir == "" {
		return nil
	}
	return url.Values{"directory": {dir}}
}

// newRequest builds a request for path (already escaped) with basic auth,
// to the endpoint of the moment.
func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, body io.Reader) (*http.Request, error) {
	return c.newRequestTo(ctx, c.ep.Load(), method, path, query, body)
}

func (c *Client) newRequestTo(ctx context.Context, ep *endpoint, method, path string, query url.Values, body io.Reader) (*http.Request, error) {
	target := ep.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, err
	}
	if ep.auth {
		req.SetBasicAuth(ep.user, ep.password)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// call does one unary request under its own deadline. in, when not nil, is
// sent as JSON; out, when not nil, receives the JSON answer.
func (c *Client) call(ctx context.Context, op, method, path string, query url.Values, in, out any) error {
	var decode func(io.Reader) error
	if out != nil {
		decode = func(r io.Reader) error { return json.NewDecoder(r).Decode(out) }
	}
	return c.do(ctx, op, method, path, query, in, decode)
}

// list does GET path of directory dir and decodes the answer, a JSON
// array, as decodeArray does.
func list[T any](ctx context.Context, c *Client, op, path, dir string) ([]T, error) {
	var out []T
	err := c.do(ctx, op, http.MethodGet, path, dirQuery(dir), nil, func(r io.Reader) (err error) {
		out, err = decodeArray[T](r)
		return err
	})
	return out, err
}

// decodeArray decodes a JSON array one element at a time, straight into
// the slice it returns. Decoding it in one piece would make the decoder
// hold the whole body, in buffers it grows as it reads: for the lists of
// a busy server, that is most of the memory and garbage of a connect. An
// answer of null is a nil slice, as json.Unmarshal has it.
func decodeArray[T any](r io.Reader) ([]T, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	switch d, _ := tok.(json.Delim); {
	case err != nil:
		return nil, noEOF(err)
	case tok == nil:
		return nil, nil
	case d == '{':
		return nil, errors.New("want a JSON array, got an object")
	case d != '[':
		return nil, fmt.Errorf("want a JSON array, got a %T", tok)
	}
	var out []T
	for dec.More() {
		out = append(out, *new(T))
		if err := dec.Decode(&out[len(out)-1]); err != nil {
			return nil, noEOF(err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing ]
		return nil, noEOF(err)
	}
	return out, nil
}

// noEOF turns the io.EOF of an answer cut short into io.ErrUnexpectedEOF,
// which says so.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// do does one unary request under its own deadline. in, when not nil, is
// sent as JSON; decode, when not nil, reads the answer of a 2xx. When the
// server cannot be reached or refuses the password and WithEndpoint finds
// it elsewhere, the request is sent once more, there.
func (c *Client) do(ctx context.Context, op, method, path string, query url.Values, in any, decode func(io.Reader) error) error {
	var b []byte
	if in != nil {
		var err error
		if b, err = json.Marshal(in); err != nil {
			return fmt.Errorf("%s: encode request: %w: %w", op, ErrNotAccepted, err)
		}
	}
	ep := c.ep.Load()
	err := c.doAt(ctx, ep, op, method, path, query, b, decode)
	if err != nil && ctx.Err() == nil && c.moved(ep, err) {
		return c.doAt(ctx, c.ep.Load(), op, method, path, query, b, decode)
	}
	return err
}

// doAt is do's one attempt, at ep.
func (c *Client) doAt(ctx context.Context, ep *endpoint, op, method, path string, query url.Values, in []byte, decode func(io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.callTimeout)
	defer cancel()

	var body io.Reader
	if in != nil {
		body = bytes.NewReader(in)
	}
	req, err := c.newRequestTo(ctx, ep, method, path, query, body)
	if err != nil {
		return fmt.Errorf("%s: build request: %w: %w", op, ErrNotAccepted, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return transientError(ctx, op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return readAPIError(op, resp)
	}
	if isHTML(resp.Header) {
		// opencode answers a path under /api it does not serve with its
		// web app: 200, and a page that must not pass for an answer.
		// Elsewhere a page is more likely a proxy's, which may go away.
		class := ErrTransient
		if strings.HasPrefix(path, "/api/") {
			class = ErrNotAccepted
		}
		return fmt.Errorf("%s: HTTP %d with %s: %w: %w", op, resp.StatusCode, resp.Header.Get("Content-Type"), class, ErrNoRoute)
	}
	if decode == nil {
		// Drain a little so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil
	}
	if err := decode(io.LimitReader(resp.Body, maxResponseBody)); err != nil {
		return transientError(ctx, op+": decode answer", err)
	}
	return nil
}

// isHTML reports whether an answer is a web page.
func isHTML(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// transientError wraps a network failure. A cancelled or expired ctx stays
// recognisable with errors.Is even when the transport hid it.
func transientError(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("%s: %w: %w (%w)", op, ErrTransient, err, ctxErr)
	}
	return fmt.Errorf("%s: %w: %w", op, ErrTransient, err)
}

// readAPIError turns a non-2xx answer into an *APIError holding the start
// of its body.
func readAPIError(op string, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+utf8.UTFMax))
	return &APIError{Op: op, Status: resp.StatusCode, Body: truncateBody(b)}
}

func truncateBody(b []byte) string {
	if len(b) > maxErrorBody {
		cut := maxErrorBody
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = append(b[:cut:cut], "…"...)
	}
	return strings.TrimSpace(string(b))
}

// Health asks GET /global/health whether the server is up and which
// version it runs.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.call(ctx, "health", http.MethodGet, "/global/health", nil, nil, &h)
	return h, err
}

// GetSession returns session id of directory dir.
func (c *Client) GetSession(ctx context.Context, dir, id string) (Session, error) {
	var s Session
	if id == "" {
		return s, fmt.Errorf("get session: empty session ID: %w", ErrNotAccepted)
	}
	if c.Generation() == 2 {
		return c.getSession2(ctx, id)
	}
	op := "get session " + id
	err := c.call(ctx, op, http.MethodGet, "/session/"+url.PathEscape(id), dirQuery(dir), nil, &s)
	return s, err
}

// ListProjects returns every project the server has opened; none on
// OpenCode 2.
func (c *Client) ListProjects(ctx context.Context) ([]Project, error) {
	if c.Generation() == 2 {
		// No route of OpenCode 2 lists projects; callers fall back on
		// the folders they know.
		return nil, nil
	}
	var ps []Project
	err := c.call(ctx, "list projects", http.MethodGet, "/project", nil, nil, &ps)
	return ps, err
}

package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
)

// pollMargin is how much longer than one long poll /healthz lets pass
// without a getUpdates answer before it calls polling down.
const pollMargin = 30 * time.Second

// After Telegram answers getUpdates with 409 Conflict, the next poll goes
// out conflictFirstWait later, then twice as long after each further 409,
// up to conflictMaxWait. go-telegram/bot retries at most 5 s after an
// error: two processes polling one token would otherwise end each other's
// long polls every few seconds, forever. Telegram keeps updates for a
// day, so a press made meanwhile waits at most conflictMaxWait once the
// other process is gone.
const (
	conflictFirstWait = 10 * time.Second
	conflictMaxWait   = 2 * time.Minute
)

// pollTracker is the transport of the Telegram client. It records when
// getUpdates was last sent, answered with 200, and failed, because
// go-telegram/bot does not tell whether polling works; and it spaces the
// polls out while another process polls the same bot token, which the
// library would retry every 5 s. Requests carry the bot token in their
// URL: it never logs or returns one.
type pollTracker struct {
	next http.RoundTripper // http.DefaultTransport if nil
	now  func() time.Time
	// log hears, once each, that another process takes this bot's
	// updates and that it stopped.
	log zerolog.Logger

	mu                    sync.Mutex
	started, ok, failedAt time.Time
	failing               bool // the last answered poll failed
	// After a 409: how long the last wait was, and until when getUpdates
	// is answered here, without asking Telegram.
	conflictWait  time.Duration
	conflictUntil time.Time
}

func newPollTracker() *pollTracker {
	return &pollTracker{now: time.Now, log: zerolog.Nop()}
}

// conflictAnswer is what a getUpdates gets while hermes-bot waits out
// another poller: Telegram's own 409, so go-telegram/bot retries as after
// the real one (every 5 s at most), each time at no cost. Waiting here
// instead, by sleeping, would count against the client's timeout.
const conflictAnswer = `{"ok":false,"error_code":409,"description":"Conflict: another process polls this bot token; ` +
	`hermes-bot waits before it polls again"}`

func (p *pollTracker) RoundTrip(req *http.Request) (*http.Response, error) {
	next := p.next
	if next == nil {
		next = http.DefaultTransport
	}
	if !strings.HasSuffix(req.URL.Path, "/getUpdates") {
		return next.RoundTrip(req)
	}
	now := p.now()
	p.mu.Lock()
	waiting := now.Before(p.conflictUntil)
	if !waiting {
		p.started = now
	}
	p.mu.Unlock()
	if waiting {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even unsent
		}
		return &http.Response{
			Status: "409 Conflict", StatusCode: http.StatusConflict,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header:        http.Header{"Content-Type": {"application/json"}},
			Body:          io.NopCloser(strings.NewReader(conflictAnswer)),
			ContentLength: int64(len(conflictAnswer)),
			Request:       req,
		}, nil
	}
	resp, err := next.RoundTrip(req)
	ok := err == nil && resp.StatusCode == http.StatusOK
	if ok || req.Context().Err() == nil { // not polling stopped at shutdown
		p.answered(ok)
		p.conflicted(err == nil && resp.StatusCode == http.StatusConflict, ok)
	}
	return resp, err
}

// conflicted sets when the next poll may go out, and logs when another
// process starts or stops taking this bot's updates: Telegram answers a
// getUpdates with 409 Conflict when a newer one, from anywhere, replaces
// it, or when the bot has a webhook. ok is a 200 answer; an answer that is
// neither (a network error, a 5xx) changes nothing here.
func (p *pollTracker) conflicted(conflict, ok bool) {
	now := p.now()
	p.mu.Lock()
	was := p.conflictWait > 0
	switch {
	case conflict:
		p.conflictWait = min(max(2*p.conflictWait, conflictFirstWait), conflictMaxWait)
		p.conflictUntil = now.Add(p.conflictWait)
	case ok:
		p.conflictWait, p.conflictUntil = 0, time.Time{}
	}
	wait := p.conflictWait
	p.mu.Unlock()
	switch {
	case conflict && !was:
		p.log.Error().Dur("retry_in", wait).Msg("another process is polling Telegram with this bot token (409 Conflict): " +
			"each update reaches only one of them, so this hermes-bot misses presses and replies. Stop the other one " +
			"(often a hermes-bot service left running, or a second one started by hand), or give each its own bot token. " +
			fmt.Sprintf("Polling again less and less often, up to every %s, until it is gone", conflictMaxWait))
	case ok && was:
		p.log.Info().Msg("telegram polling works again: no other process takes this bot's updates any more")
	}
}

func (p *pollTracker) answered(ok bool) {
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if ok {
		p.ok = now
	} else {
		p.failedAt = now
	}
	p.failing = !ok
}

// LastOK returns when getUpdates was last answered with 200; zero if
// never. Safe for concurrent use.
func (p *pollTracker) LastOK() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ok
}

// down returns why polling is not up at now, or "" if it is: a poll must
// have been sent, none may have failed since the last success, and the
// last poll sent or answered must be within one long poll and a margin
// (a poll with no updates is answered only when it times out).
func (p *pollTracker) down(now time.Time, window time.Duration) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.started.IsZero():
		return "polling has not started"
	case p.failing && p.conflictWait > 0:
		return fmt.Sprintf("polling failing since %s: another process polls this bot token (409 Conflict)",
			p.failedAt.UTC().Format(time.RFC3339))
	case p.failing:
		return fmt.Sprintf("polling failing since %s", p.failedAt.UTC().Format(time.RFC3339))
	}
	last := p.started
	if p.ok.After(last) {
		last = p.ok
	}
	if now.Sub(last) > window {
		return fmt.Sprintf("polling silent since %s", last.UTC().Format(time.RFC3339))
	}
	return ""
}

// chatPoll is how a chat takes its updates (Telegram's getUpdates,
// Matrix's sync), as /healthz watches it.
type chatPoll interface {
	// down returns why the poll is not up at now, or "" if it is; window
	// is the chat's long poll and a margin.
	down(now time.Time, window time.Duration) string
}

// watchedChat is a configured chat's poll for /healthz; name starts its
// reasons.
type watchedChat struct {
	name   string
	poll   chatPoll
	window time.Duration
}

// syncWatch is the Matrix sync as /healthz sees it: up while a sync
// succeeded within the window, counted from since before the first.
type syncWatch struct {
	last  func() time.Time // when a sync last succeeded; zero before
	since time.Time
}

func (s syncWatch) down(now time.Time, window time.Duration) string {
	last := s.last()
	switch {
	case last.IsZero() && now.Sub(s.since) > window:
		return "sync has not succeeded since the start at " + s.since.UTC().Format(time.RFC3339)
	case !last.IsZero() && now.Sub(last) > window:
		return "sync has not succeeded since " + last.UTC().Format(time.RFC3339)
	}
	return ""
}

// healthHandler answers 200 "ok" while every opencode server's event
// stream and every chat's poll are up, else 503 with the reasons, one a
// line: a named server's names it, a chat's starts with its name.
func healthHandler(streams []bot.ServerStream, chats []watchedChat, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reasons []string
		for _, s := range streams {
			st := s.Stream.State()
			if st.Connected {
				continue
			}
			reason := "opencode event stream down"
			if s.Name != "" {
				reason = "opencode event stream of server " + s.Name + " down"
			}
			if !st.Since.IsZero() {
				reason += " since " + st.Since.UTC().Format(time.RFC3339)
			}
			if st.LastError != "" {
				reason += " (" + st.LastError + ")"
			}
			reasons = append(reasons, reason)
		}
		for _, c := range chats {
			if reason := c.poll.down(now(), c.window); reason != "" {
				reasons = append(reasons, c.name+" "+reason)
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if len(reasons) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, strings.Join(reasons, "\n"))
			return
		}
		fmt.Fprintln(w, "ok")
	})
}

// metricsHandler serves m in the Prometheus text format.
func metricsHandler(m *bot.Metrics, log zerolog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if _, err := m.WriteTo(w); err != nil {
			log.Debug().Err(err).Msg("writing /metrics failed")
		}
	})
}

// httpServer serves /healthz and /metrics until Close.
type httpServer struct {
	srv  *http.Server
	addr string // the address listened on, the port resolved
	done chan error
}

// startHTTP listens on addr and serves h in a goroutine. A failure to
// listen is returned at once, so a wrong HERMES_HTTP_ADDR stops start-up.
func startHTTP(addr string, h http.Handler, log zerolog.Logger) (*httpServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("health and metrics listener (HERMES_HTTP_ADDR=%s): %w", addr, err)
	}
	s := &httpServer{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       time.Minute,
		},
		addr: ln.Addr().String(),
		done: make(chan error, 1),
	}
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	log.Info().Str("addr", s.addr).Msg("serving /healthz and /metrics")
	return s, nil
}

// newHTTPHandler routes /healthz and /metrics.
func newHTTPHandler(m *bot.Metrics, streams []bot.ServerStream, chats []watchedChat, log zerolog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", healthHandler(streams, chats, time.Now))
	mux.Handle("GET /metrics", metricsHandler(m, log))
	return mux
}

// Close stops accepting connections, lets requests in progress finish
// until ctx ends, and waits for the server's goroutine. Call it once.
func (s *httpServer) Close(ctx context.Context) error {
	serr := s.srv.Shutdown(ctx)
	if serr != nil {
		serr = errors.Join(serr, s.srv.Close())
	}
	err := <-s.done
	if err = errors.Join(serr, err); err != nil {
		return fmt.Errorf("stop health and metrics listener: %w", err)
	}
	return nil
}

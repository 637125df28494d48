package main

import (
	"context"
	"errors"
	"fmt"
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

// pollTracker is the transport of the Telegram client. It records when
// getUpdates was last sent, answered with 200, and failed, because
// go-telegram/bot does not tell whether polling works. Requests carry the
// bot token in their URL: it never logs or returns one.
type pollTracker struct {
	next http.RoundTripper // http.DefaultTransport if nil
	now  func() time.Time

	mu                    sync.Mutex
	started, ok, failedAt time.Time
	failing               bool // the last answered poll failed
}

func newPollTracker() *pollTracker { return &pollTracker{now: time.Now} }

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
	p.started = now
	p.mu.Unlock()
	resp, err := next.RoundTrip(req)
	ok := err == nil && resp.StatusCode == http.StatusOK
	if ok || req.Context().Err() == nil { // not polling stopped at shutdown
		p.answered(ok)
	}
	return resp, err
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
		return "telegram polling has not started"
	case p.failing:
		return fmt.Sprintf("telegram polling failing since %s", p.failedAt.UTC().Format(time.RFC3339))
	}
	if last := later(p.started, p.ok); now.Sub(last) > window {
		return fmt.Sprintf("telegram polling silent since %s", last.UTC().Format(time.RFC3339))
	}
	return ""
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// healthHandler answers 200 "ok" while the opencode event stream and
// Telegram polling are up, else 503 with the reasons, one a line.
func healthHandler(stream bot.OpencodeStatus, poll *pollTracker, window time.Duration, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reasons []string
		if st := stream.State(); !st.Connected {
			reason := "opencode event stream down"
			if !st.Since.IsZero() {
				reason += " since " + st.Since.UTC().Format(time.RFC3339)
			}
			if st.LastError != "" {
				reason += " (" + st.LastError + ")"
			}
			reasons = append(reasons, reason)
		}
		if reason := poll.down(now(), window); reason != "" {
			reasons = append(reasons, reason)
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
func newHTTPHandler(m *bot.Metrics, stream bot.OpencodeStatus, poll *pollTracker, log zerolog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", healthHandler(stream, poll, pollTimeout+pollMargin, time.Now))
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

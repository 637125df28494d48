package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"
)

// ListActiveSessions returns the sessions OpenCode 2 is running a turn
// of (GET /api/session/active, {data: {sessionID: {type: "running"}}}),
// sorted.
func (c *Client) ListActiveSessions(ctx context.Context) ([]string, error) {
	var body struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	err := c.do(ctx, "list active sessions", http.MethodGet, "/api/session/active", nil, nil, func(r io.Reader) error {
		if err := json.NewDecoder(r).Decode(&body); err != nil {
			return err
		}
		if body.Data == nil {
			return errors.New("answer has no data field")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(body.Data)), nil
}

// openStream GETs the event stream at path. A server that takes the
// connection but does not answer within the silence timeout cancels
// connCtx with errSilent. A web page or a 404 there is an error wrapping
// ErrNotAccepted (the web page, also ErrNoRoute), after which the caller
// may probe what the server is.
func (c *Client) openStream(connCtx context.Context, cancel context.CancelCauseFunc, op, path string) (*http.Response, error) {
	req, err := c.newRequest(connCtx, http.MethodGet, path, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: build request: %w: %w", op, ErrNotAccepted, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	silence := time.AfterFunc(c.silence, func() { cancel(errSilent) })
	resp, err := c.hc.Do(req)
	silence.Stop()
	if err != nil {
		return nil, c.streamError(connCtx, op+": connect", err)
	}
	if resp.StatusCode == http.StatusOK && isHTML(resp.Header) {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: connect: a web page, not an event stream: %w: %w", op, ErrNotAccepted, ErrNoRoute)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, readAPIError(op+": connect", resp)
	}
	return resp, nil
}

// watchOnce2 is watchOnce for OpenCode 2: connect GET /api/event, sweep,
// then hand over its events, and sweep again whenever the changes stream,
// followed on a goroutine of its own, asks. Events and sweeps meet in
// one select, so h is only ever called from this goroutine.
func (c *Client) watchOnce2(ctx context.Context, h Handler, known func(context.Context) Known, mem *watchMemory, failures *failureLog) (up time.Duration, err error) {
	const op = "event stream"
	connCtx, cancel := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel(nil) // ends the reader and the changes stream
		wg.Wait()
	}()

	resp, err := c.openStream(connCtx, cancel, op, "/api/event")
	if err != nil {
		if !errors.Is(err, ErrNotAccepted) {
			return 0, err
		}
		// Perhaps no longer OpenCode 2: the probe tells the next attempt.
		if _, perr := c.Probe(ctx); errors.Is(perr, ErrUnsupportedServer) {
			return 0, perr
		}
		return 0, err
	}
	defer resp.Body.Close()
	connected := time.Now()

	ev := c.log.Info().Str("url", c.ep.Load().base).Int("generation", 2)
	var version string
	switch info, err := c.Probe(ctx); {
	case errors.Is(err, ErrUnsupportedServer):
		return 0, err
	case err != nil:
		c.log.Warn().Err(err).Msg("opencode health check failed")
	case info.Generation != 2:
		return 0, fmt.Errorf("%s: the server is opencode %s now, not OpenCode 2: %w", op, info.Version, ErrTransient)
	default:
		version = info.Version
		ev = ev.Str("version", info.Version).Bool("api", info.API)
	}
	c.logConnected(ev, failures, version)

	// Its first marker asks for the sweep done below.
	sweeps := make(chan struct{}, 1)
	wg.Go(func() { c.followChanges(connCtx, sweeps) })

	c.sweep(ctx, h, known, mem)
	if ctx.Err() != nil {
		return time.Since(connected), ctx.Err()
	}

	events := make(chan Event)
	failed := make(chan error, 1)
	silence := time.AfterFunc(c.silence, func() { cancel(errSilent) })
	silence.Stop()
	defer silence.Stop()
	wg.Go(func() {
		er := NewEventReader2(&silenceReader{r: resp.Body, d: c.silence, t: silence}, DefaultMaxRecord, c.log)
		er.SetLiveStatus(c.live)
		for {
			e, err := er.Next()
			if err != nil {
				err = c.readError(connCtx, op, err)
				failed <- err
				return
			}
			select {
			case events <- e:
			case <-connCtx.Done():
				return
			}
		}
	})
	for {
		select {
		case e := <-events:
			c.state.event()
			if sid := e.SessionID(); sid != "" {
				mem.sessions[sid] = struct{}{}
			}
			h.HandleEvent(ctx, e)
		case <-sweeps:
			c.sweep(ctx, h, known, mem)
		case err := <-failed:
			return time.Since(connected), err
		case <-ctx.Done():
			return time.Since(connected), ctx.Err()
		}
	}
}

// followChanges reads GET /api/event/changes until ctx is done, asking
// for a sweep (a token in sweeps, which holds one) at every
// log.sweep_required but the first, which the connect's own sweep
// covers. A marker after a reconnect of this stream alone does ask: hints
// were lost while it was down. Its failures are logged as the event
// stream's are, once a minute, and it reconnects with backoff; it never
// ends the event stream.
func (c *Client) followChanges(ctx context.Context, sweeps chan<- struct{}) {
	const op = "change stream"
	var failures failureLog
	backoff := c.backoffMin
	first := true
	for attempt := 1; ; attempt++ {
		start := time.Now()
		hints, err := c.changesOnce(ctx, op, sweeps, &first, &failures)
		if ctx.Err() != nil {
			return
		}
		wait := c.nextWait(&backoff, time.Since(start) >= c.backoffReset)
		logged, repeats, since := failures.admit(errorClass(err), c.now())
		e := c.log.Debug().Bool("repeat", true)
		if logged {
			e = c.log.Warn()
		}
		e = e.Err(err).Str("class", errorClass(err)).Int("attempt", attempt).Dur("retry_in", wait).Int("hints", hints)
		if repeats > 0 {
			e = e.Int("unlogged_failures", repeats).Time("unlogged_since", since)
		}
		e.Msg("opencode change stream failed; reconnecting it (events still flow)")
		if !sleep(ctx, wait) {
			return
		}
	}
}

// changesOnce is one connection of the changes stream; it returns how
// many log.hint records it read (events carry the same news, so they are
// only counted) and why it ended.
func (c *Client) changesOnce(ctx context.Context, op string, sweeps chan<- struct{}, first *bool, failures *failureLog) (hints int, err error) {
	connCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	resp, err := c.openStream(connCtx, cancel, op, "/api/event/changes")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	failures.connected()
	cr := NewChangeReader(resp.Body, DefaultMaxRecord, c.log)
	for {
		ch, err := cr.Next()
		if err != nil {
			return hints, c.readError(connCtx, op, err)
		}
		switch {
		case !ch.Sweep:
			hints++
		case *first:
			*first = false
		default:
			c.log.Debug().Int("hints", hints).Msg("opencode asks for a sweep")
			select {
			case sweeps <- struct{}{}:
			default: // one is pending already
			}
		}
	}
}

// sweep hands h a Snapshot of every session that may have requests
// pending: the caller's known Sessions, those events named, and those the
// server runs. A session listed empty is forgotten unless named again, so
// the sessions of a long run do not pile up.
func (c *Client) sweep(ctx context.Context, h Handler, known func(context.Context) Known, mem *watchMemory) {
	set := maps.Clone(mem.sessions)
	if known != nil {
		for _, s := range known(ctx).Sessions {
			set[s] = struct{}{}
		}
	}
	if ctx.Err() != nil {
		return
	}
	if active, err := c.ListActiveSessions(ctx); err != nil {
		if ctx.Err() != nil {
			return
		}
		c.log.Warn().Err(err).Str("class", errorClass(err)).
			Msg("listing active opencode sessions failed; listing only the sessions already known")
	} else {
		for _, s := range active {
			set[s] = struct{}{}
		}
	}
	delete(set, "")
	all := slices.Sorted(maps.Keys(set))
	c.log.Debug().Int("sessions", len(all)).Msg("sweeping opencode sessions")
	handInOrder(ctx, all, c.sessionSnapshot, func(s Snapshot) {
		if s.FormsListed && s.APIQuestionsListed && s.APIPermissionsListed &&
			len(s.Forms)+len(s.Questions)+len(s.Permissions) == 0 {
			delete(mem.sessions, s.SessionID)
		}
		h.HandleSnapshot(ctx, s)
	})
}

// sessionSnapshot lists what is pending in session sid of OpenCode 2. A
// session the server does not have (ErrNotFound) has nothing pending: all
// its lists count as listed. It is safe for concurrent use.
func (c *Client) sessionSnapshot(ctx context.Context, sid string) Snapshot {
	s := Snapshot{SessionID: sid, Generation: 2, Taken: time.Now()}
	// OpenCode 2 has no legacy surface: nothing can be pending there.
	s.setListed(SurfaceLegacy, KindQuestions)
	s.setListed(SurfaceLegacy, KindPermissions)
	gone := false
	lg := c.log.With().Str("session", sid).Logger()
	listed := func(what string, err error) bool {
		switch {
		case err == nil:
			return true
		case errors.Is(err, ErrNotFound):
			gone = true
			return false
		case ctx.Err() != nil:
			return false
		}
		c.log.Warn().Err(err).Str("session", sid).Str("class", errorClass(err)).
			Msg("listing pending opencode " + what + " failed")
		return false
	}
	fs, err := c.ListSessionForms(ctx, sid)
	if listed("forms", err) {
		s.setListed(SurfaceAPI, KindForms)
		s.Forms = withIDs(lg, fs, func(f Form) string { return f.ID }, "form")
	}
	if !gone && ctx.Err() == nil {
		qs, err := c.API().ListSessionQuestions(ctx, "", sid)
		if listed("questions", err) {
			s.setListed(SurfaceAPI, KindQuestions)
			s.Questions = withIDs(lg, qs, func(q QuestionRequest) string { return q.ID }, "question")
		}
	}
	if !gone && ctx.Err() == nil {
		ps, err := c.API().ListSessionPermissions(ctx, "", sid)
		if listed("permissions", err) {
			s.setListed(SurfaceAPI, KindPermissions)
			s.Permissions = withIDs(lg, ps, func(p PermissionRequest) string { return p.ID }, "permission")
		}
	}
	if gone {
		// Nothing waits in a session that does not exist.
		s = Snapshot{SessionID: sid, Generation: 2, Taken: s.Taken, QuestionsListed: true, PermissionsListed: true,
			APIQuestionsListed: true, APIPermissionsListed: true, FormsListed: true}
	}
	c.log.Debug().Str("session", sid).Int("forms", len(s.Forms)).Int("questions", len(s.Questions)).
		Int("permissions", len(s.Permissions)).Bool("gone", gone).Bool("formsListed", s.FormsListed).
		Bool("questionsListed", s.APIQuestionsListed).Bool("permissionsListed", s.APIPermissionsListed).
		Msg("listed pending opencode requests of a session")
	return s
}

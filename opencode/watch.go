package opencode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Handler receives what Watch reads: every event, and after every
// connect what each known directory has pending. Snapshots are part of it
// rather than an extra a handler may have: a handler that left them out
// would silently see no request go away while the stream was down.
type Handler interface {
	// HandleEvent is called once per event, from one goroutine, in stream
	// order; the next event waits until it returns. ctx is Watch's.
	HandleEvent(ctx context.Context, ev Event)
	SnapshotHandler
}

// Known is what the caller of Watch holds requests of, for Watch to list
// again after every connect.
type Known struct {
	// Directories are listed on opencode 1.x.
	Directories []string
	// Sessions are listed on OpenCode 2, which lists per session.
	Sessions []string
}

// Snapshot is what one directory (opencode 1.x) or one session (OpenCode
// 2) had pending when the event stream (re)connected, or when OpenCode 2
// asked for a sweep.
type Snapshot struct {
	// Server names the opencode server listed, as Event.Server does.
	Server string
	// Directory is the directory listed; "" for OpenCode 2, whose lists
	// are per session and name no directory.
	Directory string
	// SessionID is the session listed, on OpenCode 2 only.
	SessionID string
	// Generation is 2 for a snapshot of OpenCode 2, 0 for 1.x.
	Generation  int
	Questions   []QuestionRequest
	Permissions []PermissionRequest
	// Forms are OpenCode 2's pending forms; FormsListed is false when
	// their list failed.
	Forms       []Form
	FormsListed bool
	// QuestionsListed and PermissionsListed are false when that list call
	// of the original surface failed: the requests of that kind and
	// surface are then missing from the slices, which prove nothing
	// about them, so a stored one must not be taken as gone. The API
	// fields say the same of the /api surface. Both surfaces' requests
	// are in the slices, each with its Surface set. OpenCode 2 has only
	// the /api surface: its legacy flags are always true.
	QuestionsListed, PermissionsListed       bool
	APIQuestionsListed, APIPermissionsListed bool
	// Taken is when listing this directory (or session) began, before its
	// list calls.
	// A request stored after it may be missing from the lists without
	// being gone. Directories are listed a few at a time, so Taken can be
	// well before the snapshot is handed over.
	Taken time.Time
}

// The kinds of request a Snapshot lists.
const (
	KindQuestions   = "questions"
	KindPermissions = "permissions"
	// KindForms are OpenCode 2's forms, of SurfaceAPI.
	KindForms = "forms"
)

func (s *Snapshot) setListed(sf Surface, kind string) { *s.listedFlag(sf, kind) = true }

// Listed reports whether the list of kind (KindQuestions, KindPermissions
// or, of SurfaceAPI, KindForms) of surface sf succeeded, so a stored
// request of that kind and surface missing from it is gone.
func (s Snapshot) Listed(sf Surface, kind string) bool {
	return (kind != KindForms || sf == SurfaceAPI) && *s.listedFlag(sf, kind)
}

// listedFlag is the field saying whether the list of kind of surface sf
// succeeded.
func (s *Snapshot) listedFlag(sf Surface, kind string) *bool {
	switch {
	case kind == KindForms:
		return &s.FormsListed
	case sf == SurfaceAPI && kind == KindQuestions:
		return &s.APIQuestionsListed
	case sf == SurfaceAPI:
		return &s.APIPermissionsListed
	case kind == KindQuestions:
		return &s.QuestionsListed
	default:
		return &s.PermissionsListed
	}
}

// Events are the requests s lists as question.asked, permission.asked
// and form.created events with Listed set, questions first, forms last,
// for a Handler that treats a listed request like an asked one and has
// no use for what is gone.
func (s Snapshot) Events() []Event {
	out := make([]Event, 0, len(s.Questions)+len(s.Permissions)+len(s.Forms))
	ev := func(typ string) Event {
		return Event{Type: typ, Server: s.Server, Directory: s.Directory, Listed: true, Generation: s.Generation}
	}
	for j := range s.Questions {
		e := ev(TypeQuestionAsked)
		e.QuestionAsked = &s.Questions[j]
		out = append(out, e)
	}
	for j := range s.Permissions {
		e := ev(TypePermissionAsked)
		e.PermissionAsked = &s.Permissions[j]
		out = append(out, e)
	}
	for j := range s.Forms {
		e := ev(TypeFormCreated)
		e.Surface, e.FormAsked = SurfaceAPI, &s.Forms[j]
		out = append(out, e)
	}
	return out
}

// SnapshotHandler is the half of a Handler that takes what is pending
// after a connect one directory at a time, with flags saying which lists
// succeeded, so it can also tell which requests are gone.
type SnapshotHandler interface {
	// HandleSnapshot is called once per known directory (on OpenCode 2,
	// per known session) after every connect, even when a list failed or
	// nothing is pending, in sorted order, from the goroutine that calls
	// HandleEvent, before any event of that connection. On OpenCode 2 it
	// is also called for every session whenever the server says events
	// may have been lost (a sweep), between events.
	HandleSnapshot(ctx context.Context, s Snapshot)
}

// errSilent ends a connection that sent nothing for the silence timeout.
var errSilent = errors.New("event stream silent")

// Watch follows GET /global/event (OpenCode 2: GET /api/event, see
// below) and hands every relevant event to h, until ctx is done; then it
// returns nil. It reconnects whenever the stream fails, ends, or stays
// silent for the silence timeout, waiting between attempts as WithBackoff
// says. A failure that keeps recurring is logged once a minute (the
// first at once, at Error for a refused password or a server hermes-bot
// cannot serve, see Probe), the repeats at Debug.
//
// After every connect, before reading the stream, it lists the questions
// and permission requests pending in every known directory, because the
// stream does not replay what was sent while nobody listened. The known
// directories are known's Directories (known may be nil), every directory
// an event has named so far, and the worktrees and sandboxes GET /project
// names (except "/", the worktree of the "global" project of folders
// outside git, which holds no requests of its own). A failed list only
// logs a warning. Up to four directories are listed at once, but h gets
// them one at a time, in sorted order, from Watch's goroutine; when ctx
// ends, the lists still running are cancelled and waited for.
//
// h gets one Snapshot per directory (Snapshot.Events turns one into
// listed events, for a handler that wants no more).
//
// h also receives server.connected and server.heartbeat events; it may
// ignore them. server.connected, the first record of every connection,
// comes after that connection's listing.
//
// When the probe at a connect finds OpenCode 2, Watch reads GET /api/event
// instead, and beside it GET /api/event/changes, which says when events
// may have been lost. It then lists per session (a sweep): known's
// Sessions, every session an event named so far, and those GET
// /api/session/active names; h gets one Snapshot per session, with its
// forms, questions and permission requests, in sorted session order. It
// sweeps after every connect, before that connection's events, and
// again, between events, whenever the changes stream asks. A failing
// changes stream is logged and reconnected on its own; a failing event
// stream ends both. Every Event and Snapshot of OpenCode 2 has
// Generation 2.
func (c *Client) Watch(ctx context.Context, h Handler, known func(context.Context) Known) error {
	if h == nil {
		return errors.New("watch opencode events: nil handler")
	}
	mem := &watchMemory{dirs: make(map[string]struct{}), sessions: make(map[string]struct{})}
	var failures failureLog
	backoff := c.backoffMin
	for attempt := 1; ; attempt++ {
		ep := c.ep.Load()
		up, err := c.watchOnce(ctx, h, known, mem, &failures)
		if ctx.Err() != nil {
			return nil
		}
		// A server found elsewhere is worth trying at once.
		wait := c.nextWait(&backoff, up >= c.backoffReset || c.moved(ep, err))
		c.state.failed(c.now(), err)
		c.logFailure(&failures, err, attempt, up, wait)
		if !sleep(ctx, wait) {
			return nil
		}
	}
}

// nextWait returns the wait before the next reconnect: *backoff, or
// backoffMin when reset, plus jitter. The one after it is twice as long,
// up to backoffMax.
func (c *Client) nextWait(backoff *time.Duration, reset bool) time.Duration {
	if reset {
		*backoff = c.backoffMin
	}
	wait := jitter(*backoff)
	*backoff = min(2**backoff, c.backoffMax)
	return wait
}

// jitter adds up to a tenth to d, so that many clients of one restarted
// server do not reconnect in step.
func jitter(d time.Duration) time.Duration {
	if d < 10 {
		return d
	}
	return d + rand.N(d/10)
}

// sleep waits for d, and reports false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// failureLogEvery is how often one kind of failure that keeps coming back
// is logged. A wrong password, or a server that is down, fails every
// reconnect, and a line for each would bury everything else.
const failureLogEvery = time.Minute

// failureLog decides which failures of the event stream get a log line:
// the first of its class at once, with its hint; further ones of the same
// class are counted, and the next line logged (a failure after
// failureLogEvery, one of another class, or the connect that ends the
// run) says how many there were. A connect starts afresh.
type failureLog struct {
	class   string    // of the last failure logged
	at      time.Time // when it was logged
	repeats int       // failures not logged since
	since   time.Time // when the first of them happened
}

// admit reports whether a failure of class at now is logged; if so it also
// returns how many failures were left unlogged before it, and since when.
func (f *failureLog) admit(class string, now time.Time) (logged bool, repeats int, since time.Time) {
	if f.class == class && now.Sub(f.at) < failureLogEvery {
		if f.repeats == 0 {
			f.since = now
		}
		f.repeats++
		return false, 0, time.Time{}
	}
	repeats, since = f.repeats, f.since
	*f = failureLog{class: class, at: now}
	return true, repeats, since
}

// connected forgets everything and returns how many failures were left
// unlogged, and since when, for the connect line to say.
func (f *failureLog) connected() (repeats int, since time.Time) {
	repeats, since = f.repeats, f.since
	*f = failureLog{}
	return repeats, since
}

// logFailure logs why a connection ended, as failures allows: a repeat
// within failureLogEvery only reaches the debug level.
func (c *Client) logFailure(failures *failureLog, err error, attempt int, up, wait time.Duration) {
	class := errorClass(err)
	logged, repeats, since := failures.admit(class, c.now())
	var e *zerolog.Event
	switch {
	case !logged:
		e = c.log.Debug().Bool("repeat", true)
	case errors.Is(err, ErrUnauthorized), errors.Is(err, ErrUnsupportedServer):
		e = c.log.Error()
	default:
		e = c.log.Warn()
	}
	e = e.Err(err).Str("class", class).Int("attempt", attempt).Dur("retry_in", wait)
	if up > 0 {
		e = e.Dur("connected_for", up)
	}
	msg := "opencode event stream failed; reconnecting"
	var unsupported *UnsupportedServerError
	switch {
	case errors.Is(err, ErrUnauthorized):
		msg = "opencode refused the event stream: wrong username or password (check OPENCODE_SERVER_PASSWORD)"
	case errors.As(err, &unsupported):
		msg = "opencode server not supported: " + unsupported.Error() + "; retrying"
	}
	if repeats > 0 {
		e = e.Int("unlogged_failures", repeats).Time("unlogged_since", since)
		msg += fmt.Sprintf(" (%d more failures since %s, not logged)", repeats, since.Format(time.TimeOnly))
	}
	e.Msg(msg)
}

// errorClass names the sentinel an error wraps, for logs.
func errorClass(err error) string {
	switch {
	case errors.Is(err, errSilent):
		return "silent"
	case errors.Is(err, ErrUnauthorized):
		return "unauthorized"
	case errors.Is(err, ErrUnsupportedServer):
		return "unsupported"
	case errors.Is(err, ErrNotFound):
		return "not_found"
	case errors.Is(err, ErrNotAccepted):
		return "not_accepted"
	case errors.Is(err, ErrTransient):
		return "transient"
	default:
		return "other"
	}
}

// watchMemory is what Watch remembers across connections: the
// directories (1.x) and sessions (OpenCode 2) events have named. Only
// Watch's goroutine uses it.
type watchMemory struct {
	dirs     map[string]struct{}
	sessions map[string]struct{}
}

// watchOnce is one connection: connect, list what is pending, then read
// until the stream fails. up is how long the connection stayed up (zero
// when it never came up); err says why it ended. A server found to be
// OpenCode 2 is served by watchOnce2.
func (c *Client) watchOnce(ctx context.Context, h Handler, known func(context.Context) Known, mem *watchMemory, failures *failureLog) (up time.Duration, err error) {
	if c.Generation() == 2 {
		// Known from the last probe: GET /global/event would only answer
		// a web page. watchOnce2 probes again.
		return c.watchOnce2(ctx, h, known, mem, failures)
	}
	const op = "event stream"
	connCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	resp, err := c.openStream(connCtx, cancel, op, "/global/event")
	if errors.Is(err, ErrNoRoute) || errors.Is(err, ErrNotFound) {
		// No event stream there. Tell OpenCode 2, which answers its web
		// app on every path outside /api, from a wrong address.
		switch info, perr := c.Probe(ctx); {
		case errors.Is(perr, ErrUnsupportedServer):
			return 0, perr
		case perr == nil && info.Generation == 2:
			return c.watchOnce2(ctx, h, known, mem, failures)
		}
	}
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	silence := time.AfterFunc(c.silence, func() { cancel(errSilent) })
	silence.Stop()
	defer silence.Stop()
	connected := time.Now()

	ev := c.log.Info().Str("url", c.ep.Load().base)
	var version string
	api := apiUnknown
	switch hl, err := c.Probe(ctx); {
	case errors.Is(err, ErrUnsupportedServer):
		// A stream there, but not a server hermes-bot can serve: say so
		// rather than wait for requests that will never come.
		return 0, err
	case err == nil && hl.Generation == 2:
		// A 1.x stream from a server saying 2.x: served as OpenCode 2.
		resp.Body.Close()
		return c.watchOnce2(ctx, h, known, mem, failures)
	case err != nil:
		c.log.Warn().Err(err).Msg("opencode health check failed")
	default:
		version = hl.Version
		ev = ev.Str("version", hl.Version).Bool("api", hl.API)
		api = apiNone
		if hl.API {
			api = apiServed
		}
	}
	c.logConnected(ev, failures, version)

	c.listPending(ctx, h, known, mem.dirs, api)
	if ctx.Err() != nil {
		return time.Since(connected), ctx.Err()
	}

	er := NewEventReader(&silenceReader{r: resp.Body, d: c.silence, t: silence}, DefaultMaxRecord, c.log)
	er.SetLiveStatus(c.live)
	for {
		e, err := er.Next()
		if err != nil {
			err = c.readError(connCtx, op, err)
			return time.Since(connected), err
		}
		c.state.event()
		if e.Directory != "" {
			mem.dirs[e.Directory] = struct{}{}
		}
		h.HandleEvent(ctx, e)
	}
}

// logConnected records a connect to a server of version, and logs it on
// ev with the failures before it that were not logged.
func (c *Client) logConnected(ev *zerolog.Event, failures *failureLog, version string) {
	c.state.connected(c.now(), version)
	msg := "connected to opencode event stream"
	if n, since := failures.connected(); n > 0 {
		ev = ev.Int("unlogged_failures", n).Time("unlogged_since", since)
		msg += fmt.Sprintf(" (after %d more failures since %s, not logged)", n, since.Format(time.TimeOnly))
	}
	ev.Msg(msg)
}

// readError classifies the end of reading a stream: closed by the
// server, or failed.
func (c *Client) readError(connCtx context.Context, op string, err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: closed by the server: %w", op, ErrTransient)
	}
	return c.streamError(connCtx, op+": read", err)
}

// streamError classifies a failure of the stream connection, telling a
// silence timeout from a network failure.
func (c *Client) streamError(connCtx context.Context, op string, err error) error {
	if errors.Is(context.Cause(connCtx), errSilent) {
		return fmt.Errorf("%s: no record for %s: %w: %w", op, c.silence, errSilent, ErrTransient)
	}
	return transientError(connCtx, op, err)
}

// listParallel is how many directories listPending lists at once: enough
// to keep both the server and the decoding here busy while the handler
// works through the directory before, few enough that the lists of a busy
// server held in memory stay small.
const listParallel = 4

// listPending hands h what is pending in every known directory, in sorted
// directory order. It returns once all of it is handed over, or ctx is
// done; either way no list call is left running.
func (c *Client) listPending(ctx context.Context, h Handler, knownFn func(context.Context) Known, known map[string]struct{}, api apiState) {
	if knownFn != nil {
		for _, d := range knownFn(ctx).Directories {
			if d != "" {
				known[d] = struct{}{}
			}
		}
	}
	if ctx.Err() != nil {
		return
	}
	// Remembered like directories seen in events, so a later connect whose
	// project list fails still lists them.
	if ps, err := c.ListProjects(ctx); err != nil {
		c.log.Warn().Err(err).Str("class", errorClass(err)).
			Msg("listing opencode projects failed; listing only the directories already known")
	} else {
		for _, p := range ps {
			for _, d := range append([]string{p.Worktree}, p.Sandboxes...) {
				if d != "" && d != "/" {
					known[d] = struct{}{}
				}
			}
		}
	}
	all := make([]string, 0, len(known))
	for d := range known {
		all = append(all, d)
	}
	slices.Sort(all)
	handInOrder(ctx, all, func(ctx context.Context, dir string) Snapshot { return c.snapshot(ctx, dir, api) },
		func(s Snapshot) { h.HandleSnapshot(ctx, s) })
}

// handInOrder lists keys with list, listParallel at a time, but hands the
// snapshots to hand one by one in keys' order, on the caller's goroutine:
// ready[i] gets the snapshot of keys[i]. Listing of keys[i+listParallel]
// starts only once keys[i] is handed over, so at most listParallel
// snapshots are held at once. It returns once all are handed over, or ctx
// is done; either way no list is left running.
func handInOrder(ctx context.Context, keys []string, list func(context.Context, string) Snapshot, hand func(Snapshot)) {
	ready := make([]chan Snapshot, len(keys))
	var wg sync.WaitGroup
	defer wg.Wait() // the lists of a cancelled ctx end at once
	next := 0
	for i := range keys {
		for ; next < len(keys) && next < i+listParallel; next++ {
			n := next
			ready[n] = make(chan Snapshot, 1)
			wg.Go(func() { ready[n] <- list(ctx, keys[n]) })
		}
		var s Snapshot
		select {
		case s = <-ready[i]:
		case <-ctx.Done():
			return
		}
		if ctx.Err() != nil { // select picks at random when both are ready
			return
		}
		hand(s)
	}
}

// snapshot lists what is pending in dir. A failed list leaves its flag
// false; a listed request without an ID is dropped, as nothing could
// answer it. Once ctx is done the snapshot is of no use, and failures
// are not logged. It is safe for concurrent use.
func (c *Client) snapshot(ctx context.Context, dir string, api apiState) Snapshot {
	s := Snapshot{Directory: dir, Taken: time.Now()}
	c.listSurface(ctx, &s, SurfaceLegacy)
	switch {
	case ctx.Err() != nil:
		return s
	case api == apiServed:
		c.listSurface(ctx, &s, SurfaceAPI)
	case api == apiNone:
		// Nothing can be pending on a surface the server does not serve.
		s.setListed(SurfaceAPI, KindQuestions)
		s.setListed(SurfaceAPI, KindPermissions)
	}
	c.log.Debug().Str("directory", dir).Int("questions", len(s.Questions)).Int("permissions", len(s.Permissions)).
		Bool("questionsListed", s.QuestionsListed).Bool("permissionsListed", s.PermissionsListed).
		Bool("apiQuestionsListed", s.APIQuestionsListed).Bool("apiPermissionsListed", s.APIPermissionsListed).
		Msg("listed pending opencode requests")
	return s
}

// apiState is what the probe at a connect found of the /api surface.
type apiState int

const (
	// apiUnknown: the probe failed; the /api lists are not tried, and
	// prove nothing.
	apiUnknown apiState = iota
	apiNone
	apiServed
)

// withIDs drops, each with a warning, the requests listed without an ID.
func withIDs[T any](log zerolog.Logger, listed []T, id func(T) string, what string) []T {
	return slices.DeleteFunc(listed, func(r T) bool {
		if id(r) == "" {
			log.Warn().Msg("listed opencode " + what + " without id; skipped")
			return true
		}
		return false
	})
}

// listSurface adds to s what surface sf has pending in s.Directory. A
// server without the /api surface (it answers a web page there) has
// nothing pending on it: that list counts as listed.
func (c *Client) listSurface(ctx context.Context, s *Snapshot, sf Surface) {
	r := c.Requests(sf)
	dir := s.Directory
	lg := c.log.With().Str("directory", dir).Logger()
	listed := func(what string, err error) bool {
		switch {
		case err == nil:
			return true
		case ctx.Err() != nil:
			return false
		case sf == SurfaceAPI && errors.Is(err, ErrNoRoute):
			return true
		}
		c.log.Warn().Err(err).Str("directory", dir).Str("surface", sf.String()).Str("class", errorClass(err)).
			Msg("listing pending opencode " + what + " failed")
		return false
	}
	qs, err := r.ListQuestions(ctx, dir)
	if ok := listed("questions", err); ok {
		s.setListed(sf, KindQuestions)
		s.Questions = append(s.Questions, withIDs(lg, qs, func(q QuestionRequest) string { return q.ID }, "question")...)
	}
	ps, err := r.ListPermissions(ctx, dir)
	if ok := listed("permissions", err); ok {
		s.setListed(sf, KindPermissions)
		s.Permissions = append(s.Permissions, withIDs(lg, ps, func(p PermissionRequest) string { return p.ID }, "permission")...)
	}
}

// silenceReader arms the silence timer only while waiting for the server,
// so time the caller spends between reads (inside HandleEvent) does not
// count.
type silenceReader struct {
	r io.Reader
	d time.Duration
	t *time.Timer
}

func (s *silenceReader) Read(p []byte) (int, error) {
	s.t.Reset(s.d)
	n, err := s.r.Read(p)
	s.t.Stop()
	return n, err
}

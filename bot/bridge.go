package bot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/internal/bounded"
	"github.com/hermes-bot/hermes-bot/bot/internal/tracker"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Config is what the bridge needs to know of its deployment.
type Config struct {
	// TTL is how long a request waits for an answer; 30 minutes if zero.
	TTL time.Duration
	// Metrics, if set, counts requests posted and closed and times them.
	Metrics *Metrics
	// Notify says which session notifications (finished, failed) to post.
	Notify NotifyOptions
	// AutoApprove is which permission requests are allowed without
	// asking; the zero value asks for every one.
	AutoApprove AutoApprovePolicy
	// ContextLines is how many lines of what the agent did before asking
	// each request shows above it (HERMES_CONTEXT_LINES); 0: none.
	ContextLines int
	// Lang is the language of the texts the bridge hands the front-end
	// (notes, toasts): "en" (the default) or "zh" (HERMES_LANG).
	Lang string
	// Servers are the opencode servers served, by name: "" for the one
	// server of a bare OPENCODE_URL, else the names OPENCODE_URL gives.
	// An event names its server (opencode.Event.Server), the request's
	// entry records it, and every call about the request goes to that
	// server.
	Servers map[string]Opencode
	// URL is the URL of the server named "": with a request's ID it
	// gives the request's entry its UID, so that survives a restart. A
	// named server's requests take their UIDs from its name.
	URL string
}

// DefaultTTL is the TTL when Config leaves it zero.
const DefaultTTL = 30 * time.Minute

const (
	// handlerTimeout bounds one event's work, opencode's resolve (about
	// 6 s) and reply included.
	handlerTimeout = 30 * time.Second
	// lockWait is how long a press waits for another press on the same
	// request; a callback must be answered well before Telegram's ~10 s.
	lockWait = 2 * time.Second
	// expireRetryFor is how long after its expiry a request whose reject
	// keeps failing is still retried; then it is dropped with a warning.
	expireRetryFor = 10 * time.Minute
)

// Bridge carries requests from opencode to the people who answer them,
// through a front-end, and their answers back. Make one with NewBridge.
type Bridge struct {
	cfg Config
	// text is the catalog of cfg.Lang.
	text  *i18n.Text
	store *pending.Store
	// fes show requests, each every request: everything the life cycle
	// posts, edits or asks goes to them (frontends.go).
	fes     []frontend.Frontend
	log     zerolog.Logger
	locks   keyedMutex
	running tracker.Tracker
	// posting counts the new questions being sent and not yet stored.
	posting tracker.Tracker
	// closed remembers how the requests this process closed most
	// recently ended. It spares a late press a store read, and covers the
	// rare store that failed to record it.
	closed *bounded.Map[string, pending.ClosedRequest]
	// noticing is read-held while a notice is posted and remembered. A
	// reply to a message not (yet) known takes it for writing once, so it
	// cannot overtake the remembering.
	noticing sync.RWMutex
	sessions *bounded.Map[sessionKey, cachedSession]
	notices  *notifyLimiter
	// failed remembers which sessions' last turn failed, for the state
	// /sessions shows: opencode's status says only busy or idle. A session
	// that did not fail is put as false rather than deleted: the map
	// forgets the oldest first either way.
	failed *bounded.Map[string, bool]

	// owedTurn is held (a value in it) while SendOwed runs, so calls take
	// turns instead of sending every owed edit twice at once.
	owedTurn chan struct{}

	pruneMu   sync.Mutex
	lastPrune time.Time

	// live is each busy session's live status (live.go).
	liveMu sync.Mutex
	live   map[liveKey]frontend.LiveStatus

	// stored, when set, is called once a new question is stored with its
	// message ID; benchmarks time the window a crash would post it twice.
	stored func(e *pending.Entry)

	// Tests shorten these.
	now            func() time.Time
	lockWait       time.Duration
	sessionTimeout time.Duration
	expireRetryFor time.Duration
	excerptTimeout time.Duration
}

// NewBridge returns a Bridge showing every request through each of fes
// (at least one, their names distinct) and keeping them in store. It
// does no I/O.
func NewBridge(cfg Config, store *pending.Store, fes []frontend.Frontend, log zerolog.Logger) *Bridge {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Notify.SessionGap <= 0 {
		cfg.Notify.SessionGap = DefaultNotifySessionGap
	}
	if cfg.Notify.PerMinute <= 0 {
		cfg.Notify.PerMinute = DefaultNotifyPerMinute
	}
	return &Bridge{
		cfg:            cfg,
		text:           i18n.For(cfg.Lang),
		store:          store,
		fes:            fes,
		log:            log,
		now:            time.Now,
		lockWait:       lockWait,
		sessionTimeout: sessionTimeout,
		expireRetryFor: expireRetryFor,
		excerptTimeout: excerptTimeout,
		closed:         bounded.New[string, pending.ClosedRequest](closedMemory),
		owedTurn:       make(chan struct{}, 1),
		sessions:       bounded.New[sessionKey, cachedSession](maxCachedSessions),
		notices:        newNotifyLimiter(),
		failed:         bounded.New[string, bool](maxFailedSessions),
		live:           map[liveKey]frontend.LiveStatus{},
		locks:          keyedMutex{locks: map[string]*keyLock{}},
	}
}

// withEntry is log with e's fields: the logger for everything about one
// request, so one grep follows it from event to answer.
func withEntry(log zerolog.Logger, e *pending.Entry) zerolog.Logger {
	return withServer(log, e.Server).
		Str("uid", e.UID).
		Str("requestID", e.RequestID).
		Str("sessionID", e.SessionID).
		Str("directory", e.Directory).
		Logger()
}

// withServer is log's context with the server's name, when it has one:
// a single server's log lines stay as they were.
func withServer(log zerolog.Logger, server string) zerolog.Context {
	c := log.With()
	if server != "" {
		c = c.Str("server", server)
	}
	return c
}

// HandleEvent acts on one opencode event. The watcher calls it for every
// event, in stream order; it blocks until the event is handled and logs
// what fails, since the stream goes on regardless.
func (b *Bridge) HandleEvent(ctx context.Context, ev opencode.Event) {
	stream := ctx
	// Like an update, an event being handled when the stream stops (at
	// shutdown) finishes its edits instead of being cut off halfway.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handlerTimeout)
	defer cancel()
	if b.liveEvent(ctx, ev) {
		return
	}
	// An event of opencode's /api surface (question.v2.asked, …) is handled
	// as its original kind; the request remembers its surface.
	switch ev.Kind() {
	case opencode.TypeQuestionAsked:
		if ev.QuestionAsked != nil {
			b.questionAsked(ctx, ev)
		}
	case opencode.TypeQuestionReplied:
		if r := ev.QuestionReplied; r != nil {
			b.closedElsewhere(ctx, ev.Server, r.RequestID, frontend.Outcome{How: frontend.AnsweredElsewhere, Answers: r.Answers}, i18n.ToastAnsweredElsewhere)
		}
	case opencode.TypeQuestionRejected:
		if r := ev.QuestionRejected; r != nil {
			b.closedElsewhere(ctx, ev.Server, r.RequestID, frontend.Outcome{How: frontend.Dismissed}, i18n.ToastDismissed)
		}
	case opencode.TypeFormCreated:
		if ev.FormAsked != nil {
			b.formCreated(ctx, ev)
		}
	case opencode.TypeFormReplied:
		if r := ev.FormReplied; r != nil {
			o := frontend.Outcome{How: frontend.AnsweredElsewhere}
			if e, err := b.store.ByRequestID(ev.Server, r.ID); err == nil {
				o.Answers = shownAnswers(e, r.Answer)
			}
			b.closedElsewhere(ctx, ev.Server, r.ID, o, i18n.ToastAnsweredElsewhere)
		}
	case opencode.TypeFormCancelled:
		if r := ev.FormCancelled; r != nil {
			b.closedElsewhere(ctx, ev.Server, r.ID, frontend.Outcome{How: frontend.Dismissed}, i18n.ToastDismissed)
		}
	case opencode.TypeServerConnected:
		// A message that failed to post (Telegram down, say) gets another
		// chance on every connect, not only at start-up.
		if err := b.SendUnsent(ctx); err != nil {
			b.log.Warn().Err(err).Msg("sending stored requests after connect failed; will retry after the next connect")
		}
		// So do the closing edits a failure left owed. Paced, they can take
		// a while, so they go beside the listing that follows the connect
		// rather than before it; Wait waits for them, and a stop ends
		// them (the next start, or the stop's own SendOwed, sends the rest).
		b.running.Add()
		go func() {
			defer b.running.Done()
			octx, cancel := context.WithTimeout(stream, handlerTimeout)
			defer cancel()
			b.SendOwed(octx)
		}()
	case opencode.TypePermissionAsked:
		if ev.PermissionAsked != nil {
			b.permissionAsked(ctx, ev)
		}
	case opencode.TypePermissionReplied:
		if r := ev.PermissionReplied; r != nil {
			b.permissionReplied(ctx, ev.Server, r)
		}
	case opencode.TypeSessionIdle:
		if ev.SessionIdle != nil {
			b.sessionIdle(ctx, ev)
		}
	case opencode.TypeSessionError:
		if ev.SessionError != nil {
			b.sessionError(ctx, ev)
		}
	}
}

// newEntry starts the entry of a request of session sessionID asked in
// ev, with what questions and permissions have alike: where the request
// comes from, the tool call that asked (tool may be nil), the chat it goes
// to, and when it was made and expires. The caller adds what is asked.
func (b *Bridge) newEntry(kind pending.Kind, ev opencode.Event, surface opencode.Surface, sessionID, requestID string, tool *opencode.ToolRef) *pending.Entry {
	now := b.now()
	e := &pending.Entry{
		Kind:       kind,
		Server:     ev.Server,
		Directory:  ev.Directory,
		Project:    ev.Project,
		SessionID:  sessionID,
		RequestID:  requestID,
		Surface:    storedSurface(surface),
		Generation: ev.Generation,
		CreatedAt:  now,
		ExpiresAt:  now.Add(b.cfg.TTL),
	}
	if tool != nil {
		e.CallID, e.ToolMessageID = tool.CallID, tool.MessageID
	}
	return e
}

// questionAsked posts a new request, then stores it. A request already
// held is skipped: this is the dedupe check of every path that can see a
// request twice. The paths that can see one request twice (its event, a
// listing after a connect) never run at the same time: events of one
// session are handled in order (see Lanes) and a listing waits for them.
func (b *Bridge) questionAsked(ctx context.Context, ev opencode.Event) {
	q := ev.QuestionAsked
	e := b.newEntry(pending.KindQuestion, ev, q.Surface, q.SessionID, q.ID, q.Tool)
	for _, oq := range q.Questions {
		pq := pending.Question{
			Text:     oq.Question,
			Header:   oq.Header,
			Multiple: oq.Multiple,
			Custom:   oq.AllowsCustom(),
		}
		for _, o := range oq.Options {
			pq.Options = append(pq.Options, pending.Option{Label: o.Label, Description: o.Description})
		}
		e.Questions = append(e.Questions, pq)
	}
	log := withEntry(b.log, e)
	if q.ID == "" || len(e.Questions) == 0 {
		log.Warn().Int("questions", len(e.Questions)).Msg("ignoring question request without an ID or questions")
		return
	}
	b.postNew(ctx, log, ev, e, "question")
}

// postNew posts new question request (or form) e, which ev asked, then
// stores it, unless it is held or was closed lately; what names it in the
// log.
func (b *Bridge) postNew(ctx context.Context, log zerolog.Logger, ev opencode.Event, e *pending.Entry, what string) {
	if b.closedBefore(log, ev, e.RequestID) {
		return
	}
	switch _, err := b.store.ByRequestID(ev.Server, e.RequestID); {
	case err == nil:
		log.Debug().Bool("listed", ev.Listed).Msg(what + " request already held")
		return
	case !errors.Is(err, pending.ErrNotFound):
		log.Error().Err(err).Msg("could not read the store to check whether the " + what + " request is held; it is not posted")
		return
	}
	e.UID = b.uidFor(ev.Server, e.RequestID)
	log = withEntry(b.log, e)
	log.Info().Bool("listed", ev.Listed).Int("questions", len(e.Questions)).Msg(what + " asked")
	b.readContext(ctx, log, e)

	// The entry is stored after its message is sent, with the message ID,
	// in one write: a write before the send would make every question wait
	// for the disk (an fsync) before it shows. The request's lock is held
	// until the entry is stored, so a press on the new message waits for
	// it. A crash in between loses nothing: opencode lists the question
	// again at the next start, and it is posted again.
	unlock, err := b.locks.lock(ctx, e.UID)
	if err != nil {
		log.Error().Err(err).Msg("could not lock the new question request; it is not posted")
		return
	}
	defer unlock()
	b.posting.Add()
	defer b.posting.Done()
	posted, sendErr := b.sendQuestion(ctx, log, e, b.fes)
	b.place(e, posted)
	if err := b.store.Create(e); err != nil {
		ev := log.Error().Err(err)
		if len(posted) > 0 {
			ev.Msg("posted question but could not store it; its buttons answer that it is closed, and it is posted again at the next start")
		} else {
			ev.Msg("could not store question request; it is posted at the next start")
		}
		return
	}
	if len(posted) == 0 {
		return // logged; stored unsent, so SendUnsent tries again
	}
	if b.stored != nil {
		b.stored(e)
	}
	log.Info().Interface("places", posted).Bool("everywhere", sendErr == nil).Msg("question posted")
	b.cfg.Metrics.requestPosted(b.now().Sub(e.CreatedAt))
}

// uidFor is the UID of the entry for request requestID of opencode server
// server: derived from it and the server (pending.UIDFor: the URL of the
// unnamed server, the name of a named one), so a message posted before a
// crash and the one the restart posts carry the same UID, and either's
// buttons answer. A UID another request's entry holds (a rare collision)
// gives way to a random one.
func (b *Bridge) uidFor(server, requestID string) string {
	id := b.cfg.URL
	if server != "" {
		// A prefix no URL has: the unnamed server's UIDs stay as they were.
		id = "server:" + server
	}
	uid := pending.UIDFor(id, requestID)
	if e, err := b.store.Get(uid); err == nil && (e.RequestID != requestID || e.Server != server) {
		return pending.NewUID()
	}
	return uid
}

// closedBefore reports whether the request an asked event announces was
// closed here lately. Its event can come after it was answered: asked
// while the bridge listed requests after a connect, it is listed, posted
// and answered before the event is read. Posting it again would show it
// twice. A listed request is not refused: opencode says it is pending
// now (a reject that kept failing, say), and it is checked again before
// it is posted (see HandleSnapshot).
func (b *Bridge) closedBefore(log zerolog.Logger, ev opencode.Event, requestID string) bool {
	if ev.Listed {
		return false
	}
	uid, c, ok, err := b.store.ClosedByRequestID(ev.Server, requestID)
	if err != nil {
		log.Warn().Err(err).Msg("could not check whether the request was closed already; posting it")
		return false
	}
	if ok {
		log.Debug().Str("closedUID", uid).Str("outcome", c.Toast).Msg("ignoring asked event of a request already closed")
	}
	return ok
}

// post sends the message of entry uid to the front-ends still owed it,
// and saves where each put it. A permission request sharing the message
// of an identical one is not sent again: it gets that message's place
// (and the message is sent, for the whole group, where it never was).
// Failures are logged and returned; the entry stays owed there, so
// SendUnsent tries again.
func (b *Bridge) post(ctx context.Context, uid string) error {
	e, err := b.store.Get(uid)
	if errors.Is(err, pending.ErrNotFound) {
		return nil
	}
	if err != nil {
		b.log.Error().Err(err).Str("uid", uid).Msg("could not read entry to post it")
		return fmt.Errorf("post %s: %w", uid, err)
	}
	if e.Kind == pending.KindPermission {
		return b.postPermission(ctx, uid, lockKey(e))
	}
	unlock, err := b.locks.lock(ctx, uid)
	if err != nil {
		return fmt.Errorf("post %s: %w", uid, err)
	}
	defer unlock()
	e, err = b.store.Get(uid)
	if errors.Is(err, pending.ErrNotFound) {
		return nil
	}
	if err != nil {
		b.log.Error().Err(err).Str("uid", uid).Msg("could not read entry to post it")
		return fmt.Errorf("post %s: %w", uid, err)
	}
	log := withEntry(b.log, e)
	owing := b.owing(e)
	if len(owing) == 0 || e.Kind != pending.KindQuestion || e.ExpiredNotified {
		return nil
	}
	first := !e.Shown()
	posted, sendErr := b.sendQuestion(ctx, log, e, owing)
	if len(posted) > 0 {
		ctxFrom := *e
		if _, err := b.store.Update(uid, func(x *pending.Entry) error {
			b.place(x, posted)
			copyContext(x, &ctxFrom)
			return nil
		}); err != nil {
			log.Error().Err(err).Msg("posted question but could not save where")
			return fmt.Errorf("post %s: %w", uid, err)
		}
		log.Info().Interface("places", posted).Msg("question posted")
		if first {
			b.cfg.Metrics.requestPosted(b.now().Sub(e.CreatedAt))
		}
	}
	if sendErr != nil {
		return fmt.Errorf("post %s: %w", uid, sendErr)
	}
	return nil
}

// sendQuestion looks up the session context of question e (setting e's
// context fields) and shows it in fes, returning where. Failures are
// logged.
func (b *Bridge) sendQuestion(ctx context.Context, log zerolog.Logger, e *pending.Entry, fes []frontend.Frontend) (map[string]pending.Place, error) {
	b.addContext(ctx, e)
	return b.postTo(ctx, log, "question", requestOf(e), fes)
}

// SendUnsent posts every stored request whose message was never sent.
// Call it at start-up and after each reconnect. It goes through all of
// them and returns every failure joined.
func (b *Bridge) SendUnsent(ctx context.Context) error {
	entries, err := b.store.Unsent()
	if err != nil {
		return fmt.Errorf("send unsent: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if e.Kind != pending.KindQuestion && e.Kind != pending.KindPermission {
			continue
		}
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		if err := b.post(ctx, e.UID); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("send unsent: %w", err)
	}
	return nil
}

// closedElsewhere handles a request answered or dismissed outside
// Telegram: its message shows the outcome and the entry goes. Our own
// reply's echo finds no entry.
func (b *Bridge) closedElsewhere(ctx context.Context, server, requestID string, o frontend.Outcome, toast i18n.Toast) {
	e, err := b.store.ByRequestID(server, requestID)
	if errors.Is(err, pending.ErrNotFound) {
		b.log.Debug().Str("requestID", requestID).Msg("request closed in opencode is not held (our own answer, or never seen)")
		return
	}
	if err != nil {
		b.log.Error().Err(err).Str("requestID", requestID).Msg("could not look up request closed in opencode")
		return
	}
	unlock, err := b.locks.lock(ctx, e.UID)
	if err != nil {
		log := withEntry(b.log, e)
		log.Warn().Err(err).Msg("gave up waiting to close request answered in opencode")
		return
	}
	defer unlock()
	// Read again: a press may have answered it while we waited.
	if e, err = b.store.Get(e.UID); err != nil {
		if !errors.Is(err, pending.ErrNotFound) {
			b.log.Error().Err(err).Str("requestID", requestID).Msg("could not read request closed in opencode")
		}
		return
	}
	log := withEntry(b.log, e)
	log.Info().Str("outcome", string(toast)).Msg("request closed in opencode")
	b.closeRequest(ctx, log, e, o, toast, nil)
}

// Wait blocks until the work the bridge started beside its callers has
// returned (terminal toasts, forgetting owed edits, the owed edits a
// connect sends: see SendOwed), or ctx ends. Call it after the
// front-end's input and the event stream stopped.
func (b *Bridge) Wait(ctx context.Context) error {
	return b.running.Wait(ctx)
}

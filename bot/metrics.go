package bot

import (
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/internal/prom"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// OpencodeStatus tells how the opencode event stream is doing.
// *opencode.Client satisfies it.
type OpencodeStatus interface {
	State() opencode.WatchState
}

var _ OpencodeStatus = (*opencode.Client)(nil)

// ServerStream is the event stream of one opencode server; Name is ""
// for the server of a bare OPENCODE_URL.
type ServerStream struct {
	Name   string
	Stream OpencodeStatus
}

// Metrics counts what the bridge and the outbox do, for a Prometheus
// scrape (WriteTo); package bot/internal/prom writes the format.
//
// A nil *Metrics is valid and records nothing, so the bridge and the
// outbox call it unconditionally. Make one with NewMetrics; every method
// is safe for concurrent use.
type Metrics struct {
	// Streams report each opencode server's event stream: the events,
	// connect and connected series, labelled server="name" for a named
	// server and unlabelled for the unnamed one. Set it before the first
	// WriteTo.
	Streams []ServerStream

	chatsMu sync.Mutex // guards chats, which Chat adds to
	chats   []*ChatMetrics

	started time.Time

	posted    atomic.Uint64
	closed    [numOutcomes]atomic.Uint64
	postDelay prom.Histogram // asked → posted
	answerLat prom.Histogram // press → delivered to opencode
	waitLat   prom.Histogram // asked → answered in the chat
}

// outcome is how a request closed, a label of hermes_requests_closed_total.
type outcome int

const (
	outcomeAnswered outcome = iota
	outcomeAnsweredElsewhere
	outcomeDismissed
	outcomeExpired
	outcomeGone
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"answered", "answered_elsewhere", "dismissed", "expired", "gone"}

// outcomeOf maps the toast a closed request is remembered with to its
// outcome.
var outcomeOf = map[i18n.Toast]outcome{
	i18n.ToastAnswered:          outcomeAnswered,
	i18n.ToastAnsweredElsewhere: outcomeAnsweredElsewhere,
	i18n.ToastDismissed:         outcomeDismissed,
	i18n.ToastExpired:           outcomeExpired,
	i18n.ToastGone:              outcomeGone,
}

// Bucket upper bounds, in seconds. Posting and answering take a second or
// two when the chat and opencode are well, and much longer behind a 429;
// people take minutes to answer.
var (
	fastBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}
	waitBuckets = []float64{5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600}
)

// NewMetrics returns Metrics with every counter at zero.
func NewMetrics() *Metrics {
	m := &Metrics{started: time.Now()}
	m.postDelay.Init(fastBuckets)
	m.answerLat.Init(fastBuckets)
	m.waitLat.Init(waitBuckets)
	return m
}

// requestPosted records a request's message posted, delay after it was
// asked (a request posted after a restart or an outage counts its wait).
func (m *Metrics) requestPosted(delay time.Duration) {
	if m == nil {
		return
	}
	m.posted.Add(1)
	m.postDelay.Observe(delay)
}

// requestClosed records a request closed with toast, waited after it was
// asked. Only answers from a chat feed the wait histogram.
func (m *Metrics) requestClosed(toast i18n.Toast, waited time.Duration) {
	if m == nil {
		return
	}
	o, ok := outcomeOf[toast]
	if !ok {
		return
	}
	m.closed[o].Add(1)
	if o == outcomeAnswered {
		m.waitLat.Observe(waited)
	}
}

// answerDelivered records an answer delivered to opencode, timed from
// the press (or typed reply) received at at; a zero at is not timed.
func (m *Metrics) answerDelivered(at, now time.Time) {
	if m == nil || at.IsZero() {
		return
	}
	m.answerLat.Observe(now.Sub(at))
}

// ChatMetrics counts what one chat's transport meets, in the series
// labelled with its frontend name. A nil *ChatMetrics records nothing.
type ChatMetrics struct {
	name     string
	lastPoll func() time.Time
	limited  atomic.Uint64 // 429s
	retries  atomic.Uint64 // 5xx or network failures retried
}

// Chat adds the series of the chat named name (its front-end's name);
// lastPoll, if not nil, says when it last answered a poll for updates
// (zero if never). Call it before the first WriteTo.
func (m *Metrics) Chat(name string, lastPoll func() time.Time) *ChatMetrics {
	if m == nil {
		return nil
	}
	c := &ChatMetrics{name: name, lastPoll: lastPoll}
	m.chatsMu.Lock()
	m.chats = append(m.chats, c)
	m.chatsMu.Unlock()
	return c
}

// RateLimited records a call to the chat answered 429.
func (c *ChatMetrics) RateLimited() {
	if c != nil {
		c.limited.Add(1)
	}
}

// Retried records a call to the chat retried after a 5xx or network error.
func (c *ChatMetrics) Retried() {
	if c != nil {
		c.retries.Add(1)
	}
}

// WriteTo writes every metric in the Prometheus text exposition format
// (version 0.0.4). A nil *Metrics writes nothing.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	if m == nil {
		return 0, nil
	}
	pw := prom.NewWriter(w)
	if streams := m.Streams; len(streams) > 0 {
		states := make([]opencode.WatchState, len(streams))
		labels := make([]string, len(streams))
		for i, s := range streams {
			states[i] = s.Stream.State()
			if s.Name != "" {
				labels[i] = `server="` + s.Name + `"`
			}
		}
		series := func(name, kind, help string, v func(opencode.WatchState) float64) {
			pw.Family(name, kind, help)
			for i := range streams {
				pw.Sample(name, labels[i], v(states[i]))
			}
		}
		series("hermes_opencode_events_total", "counter", "Records read from the opencode event stream, heartbeats included.",
			func(st opencode.WatchState) float64 { return float64(st.Events) })
		series("hermes_opencode_connects_total", "counter", "Connections made to the opencode event stream; every one after the first is a reconnect.",
			func(st opencode.WatchState) float64 { return float64(st.Connects) })
		series("hermes_opencode_reconnects_total", "counter", "Reconnections to the opencode event stream.",
			func(st opencode.WatchState) float64 { return float64(max(st.Connects, 1) - 1) })
		series("hermes_opencode_connected", "gauge", "1 while the opencode event stream is up.",
			func(st opencode.WatchState) float64 { return prom.Bool(st.Connected) })
		pw.Family("hermes_opencode_info", "gauge", "1, labelled with the generation (1 or 2) and version each opencode server reported at its last connect.")
		for i, st := range states {
			if st.Generation == 0 {
				continue
			}
			l := `generation="` + strconv.Itoa(st.Generation) + `",version="` + prom.Escape(st.Version) + `"`
			if labels[i] != "" {
				l = labels[i] + "," + l
			}
			pw.Sample("hermes_opencode_info", l, 1)
		}
	}
	m.chatsMu.Lock()
	chats := slices.Clone(m.chats)
	m.chatsMu.Unlock()
	label := func(c *ChatMetrics) string { return `frontend="` + prom.Escape(c.name) + `"` }
	pw.Family("hermes_frontend_last_poll_timestamp_seconds", "gauge", "When the chat last answered a poll for updates, as a Unix time; 0 if never.")
	for _, c := range chats {
		if c.lastPoll != nil {
			pw.Sample("hermes_frontend_last_poll_timestamp_seconds", label(c), prom.UnixSeconds(c.lastPoll()))
		}
	}
	pw.Family("hermes_requests_posted_total", "counter", "Request messages posted to the chat.")
	pw.Sample("hermes_requests_posted_total", "", float64(m.posted.Load()))
	pw.Family("hermes_requests_closed_total", "counter", "Requests closed, by outcome.")
	for o := range numOutcomes {
		pw.Sample("hermes_requests_closed_total", `outcome="`+outcomeNames[o]+`"`, float64(m.closed[o].Load()))
	}
	pw.Family("hermes_frontend_rate_limited_total", "counter", "Calls to the chat answered with 429 Too Many Requests.")
	for _, c := range chats {
		pw.Sample("hermes_frontend_rate_limited_total", label(c), float64(c.limited.Load()))
	}
	pw.Family("hermes_frontend_retries_total", "counter", "Calls to the chat retried after a 5xx or a network error.")
	for _, c := range chats {
		pw.Sample("hermes_frontend_retries_total", label(c), float64(c.retries.Load()))
	}
	pw.Histogram("hermes_request_post_delay_seconds", "Time from a request being asked to its message being posted.", &m.postDelay)
	pw.Histogram("hermes_answer_delivery_seconds", "Time from a press or typed answer to the answer being delivered to opencode.", &m.answerLat)
	pw.Histogram("hermes_request_answer_wait_seconds", "Time from a request being asked to its answer in the chat.", &m.waitLat)
	pw.Family("hermes_start_time_seconds", "gauge", "When hermes-bot started, as a Unix time.")
	pw.Sample("hermes_start_time_seconds", "", prom.UnixSeconds(m.started))
	return pw.Result()
}

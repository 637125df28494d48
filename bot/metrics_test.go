package bot

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// parseMetrics reads the text exposition format back into a map from
// `name{labels}` to value, checking what a Prometheus scraper would: every
// sample belongs to a family declared by a TYPE line before it, and
// histogram buckets are cumulative and end with +Inf equal to _count.
func parseMetrics(t *testing.T, text string) map[string]float64 {
	t.Helper()
	samples := make(map[string]float64)
	types := make(map[string]string)
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# TYPE ") {
			f := strings.Fields(line)
			if len(f) != 4 {
				t.Fatalf("bad TYPE line %q", line)
			}
			types[f[2]] = f[3]
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("bad sample line %q", line)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatalf("bad value in %q: %v", line, err)
		}
		name, _, _ := strings.Cut(key, "{")
		family := name
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suf); ok && types[base] == "histogram" {
				family = base
			}
		}
		if types[family] == "" {
			t.Fatalf("sample %q before its TYPE line", line)
		}
		if _, dup := samples[key]; dup {
			t.Fatalf("sample %q written twice", key)
		}
		samples[key] = v
	}
	for name, typ := range types {
		if typ != "histogram" {
			continue
		}
		prev := -1.0
		// Buckets in the order written must not decrease.
		for _, line := range strings.Split(text, "\n") {
			if !strings.HasPrefix(line, name+"_bucket{") {
				continue
			}
			v := samples[strings.Fields(line)[0]]
			if v < prev {
				t.Fatalf("%s buckets decrease at %q", name, line)
			}
			prev = v
		}
		if inf, count := samples[name+`_bucket{le="+Inf"}`], samples[name+"_count"]; inf != count {
			t.Fatalf("%s: +Inf bucket %v != count %v", name, inf, count)
		}
	}
	return samples
}

func scrape(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	var buf bytes.Buffer
	n, err := m.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo reported %d bytes, wrote %d", n, buf.Len())
	}
	return parseMetrics(t, buf.String())
}

func TestMetricsZero(t *testing.T) {
	m := NewMetrics()
	got := scrape(t, m)
	for _, k := range []string{
		"hermes_requests_posted_total",
		`hermes_requests_closed_total{outcome="answered"}`,
		`hermes_requests_closed_total{outcome="expired"}`,
		"hermes_answer_delivery_seconds_count",
	} {
		if v, ok := got[k]; !ok || v != 0 {
			t.Errorf("%s = %v (present %v), want 0", k, v, ok)
		}
	}
	if _, ok := got["hermes_opencode_events_total"]; ok {
		t.Error("opencode series written without Streams")
	}
	for k := range got {
		if strings.HasPrefix(k, "hermes_frontend_") {
			t.Errorf("%s written with no chat", k)
		}
	}
}

// TestMetricsPerChat: each chat's series carry its name, and one chat's
// 429s and retries are not another's.
func TestMetricsPerChat(t *testing.T) {
	m := NewMetrics()
	polled := time.Unix(1700000000, 500_000_000)
	tg := m.Chat("telegram", func() time.Time { return polled })
	mx := m.Chat("matrix", nil)
	tg.RateLimited()
	tg.RateLimited()
	mx.Retried()
	got := scrape(t, m)
	want := map[string]float64{
		`hermes_frontend_rate_limited_total{frontend="telegram"}`:          2,
		`hermes_frontend_rate_limited_total{frontend="matrix"}`:            0,
		`hermes_frontend_retries_total{frontend="telegram"}`:               0,
		`hermes_frontend_retries_total{frontend="matrix"}`:                 1,
		`hermes_frontend_last_poll_timestamp_seconds{frontend="telegram"}`: 1700000000.5,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if _, ok := got[`hermes_frontend_last_poll_timestamp_seconds{frontend="matrix"}`]; ok {
		t.Error("a last-poll sample for a chat that gave no clock")
	}
}

func TestMetricsNilIsSafe(t *testing.T) {
	var m *Metrics
	m.requestPosted(time.Second)
	m.requestClosed(i18n.ToastAnswered, time.Second)
	m.answerDelivered(time.Now(), time.Now())
	c := m.Chat("telegram", time.Now)
	c.RateLimited()
	c.Retried()
	var buf bytes.Buffer
	if n, err := m.WriteTo(&buf); n != 0 || err != nil || buf.Len() != 0 {
		t.Fatalf("nil WriteTo = %d, %v, %q", n, err, buf.String())
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestMetricsWriteError(t *testing.T) {
	if _, err := NewMetrics().WriteTo(errWriter{}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the writer's", err)
	}
}

type stateFunc func() opencode.WatchState

func (f stateFunc) State() opencode.WatchState { return f() }

func TestMetricsStream(t *testing.T) {
	m := NewMetrics()
	m.Streams = []ServerStream{{Stream: stateFunc(func() opencode.WatchState {
		return opencode.WatchState{Connected: true, Connects: 3, Events: 42}
	})}}
	got := scrape(t, m)
	want := map[string]float64{
		"hermes_opencode_events_total":     42,
		"hermes_opencode_connects_total":   3,
		"hermes_opencode_reconnects_total": 2,
		"hermes_opencode_connected":        1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// TestMetricsCountBridgeEvents drives the bridge through posting, an
// answer by a press, an answer in opencode and an expiry, and reads each
// back from a scrape.
func TestMetricsCountBridgeEvents(t *testing.T) {
	m := NewMetrics()
	c := newCore(t, Config{TTL: time.Minute, Metrics: m})
	start := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	c.now = start
	m1 := c.ask("que_1", dbQuestion())
	c.ask("que_2", dbQuestion())
	c.ask("que_3", dbQuestion())
	if got := scrape(t, m)["hermes_requests_posted_total"]; got != 3 {
		t.Fatalf("posted = %v, want 3", got)
	}

	// A press 30 s after the question.
	c.now = start.Add(30 * time.Second)
	p := c.fe.Press(m1.Request.Key, frontend.Pick, 0, 1, ann, m1.ID, nil)
	p.At = c.now
	c.b.HandlePress(context.Background(), zerolog.Nop(), p)
	if r := c.oc.Replies(); len(r) != 1 {
		t.Fatalf("replies %+v, want the press's", r)
	}

	c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypeQuestionReplied,
		QuestionReplied: &opencode.QuestionReplied{RequestID: "que_2", Answers: [][]string{{"SQLite"}}}})

	c.now = start.Add(2 * time.Minute)
	if err := c.b.ExpireDue(context.Background()); err != nil {
		t.Fatal(err)
	}

	got := scrape(t, m)
	want := map[string]float64{
		"hermes_requests_posted_total":                               3,
		`hermes_requests_closed_total{outcome="answered"}`:           1,
		`hermes_requests_closed_total{outcome="answered_elsewhere"}`: 1,
		`hermes_requests_closed_total{outcome="expired"}`:            1,
		`hermes_requests_closed_total{outcome="gone"}`:               0,
		"hermes_request_post_delay_seconds_count":                    3,
		"hermes_answer_delivery_seconds_count":                       1,
		// Only the press counts towards the wait: 30 s.
		"hermes_request_answer_wait_seconds_count":             1,
		"hermes_request_answer_wait_seconds_sum":               30,
		`hermes_request_answer_wait_seconds_bucket{le="15"}`:   0,
		`hermes_request_answer_wait_seconds_bucket{le="30"}`:   1,
		`hermes_request_answer_wait_seconds_bucket{le="+Inf"}`: 1,
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}

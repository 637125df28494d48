package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
)

type fixedStream opencode.WatchState

func (s fixedStream) State() opencode.WatchState { return opencode.WatchState(s) }

// scriptedTransport answers every request with the next status, or an
// error when the status is 0.
type scriptedTransport struct{ statuses []int }

func (s *scriptedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	code := s.statuses[0]
	s.statuses = s.statuses[1:]
	if code == 0 {
		return nil, errors.New("connection refused")
	}
	return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

func TestHealthz(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	up := fixedStream{Connected: true, Since: t0}
	down := fixedStream{Since: t0, LastError: "unauthorized"}
	const window = 80 * time.Second
	poll := func(statuses ...int) *pollTracker {
		p := newPollTracker()
		p.next = &scriptedTransport{statuses: statuses}
		p.now = func() time.Time { return t0 }
		for range statuses {
			req := httptest.NewRequest(http.MethodPost, "https://api.telegram.org/bot1:SECRET/getUpdates", nil)
			if resp, err := p.RoundTrip(req); err == nil {
				resp.Body.Close()
			}
		}
		return p
	}
	cases := []struct {
		name   string
		stream fixedStream
		poll   *pollTracker
		at     time.Time
		code   int
		want   string
	}{
		{"all up", up, poll(200), t0.Add(time.Minute), 200, "ok"},
		{"stream down", down, poll(200), t0, 503, "opencode event stream down since 2030-01-01T12:00:00Z (unauthorized)"},
		{"never polled", up, poll(), t0, 503, "telegram polling has not started"},
		{"poll failing", up, poll(200, 0), t0, 503, "telegram polling failing since"},
		{"poll refused", up, poll(200, 409), t0, 503, "telegram polling failing since 2030-01-01T12:00:00Z: another process polls this bot token (409 Conflict)"},
		{"recovered", up, poll(0, 200), t0, 200, "ok"},
		{"poll silent", up, poll(200), t0.Add(window + time.Second), 503, "telegram polling silent since"},
		{"no chat polls", up, nil, t0, 200, "ok"},
		{"both down", down, poll(), t0, 503, "opencode event stream down since 2030-01-01T12:00:00Z (unauthorized)\ntelegram polling has not started"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var chats []watchedChat
			if tc.poll != nil {
				chats = append(chats, watchedChat{"telegram", tc.poll, window})
			}
			h := healthHandler([]bot.ServerStream{{Stream: tc.stream}}, chats, func() time.Time { return tc.at })
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
				t.Fatalf("/healthz = %d %q, want %d with %q", rec.Code, rec.Body.String(), tc.code, tc.want)
			}
			if strings.Contains(rec.Body.String(), "SECRET") {
				t.Fatalf("/healthz shows the token: %q", rec.Body.String())
			}
		})
	}
}

// With Matrix configured, /healthz is down while its sync has not
// succeeded within the window: before the first sync, once syncs stop,
// and up again once one succeeds. Telegram's poll is watched beside it.
func TestHealthzMatrixSync(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	const window = time.Minute
	var last time.Time // the sync's, as the test moves it
	now := t0
	tg := newPollTracker()
	tg.next = &scriptedTransport{statuses: []int{200}}
	tg.now = func() time.Time { return t0 }
	if resp, err := tg.RoundTrip(httptest.NewRequest(http.MethodPost, "https://api.telegram.org/bot1:SECRET/getUpdates", nil)); err == nil {
		resp.Body.Close()
	}
	h := healthHandler([]bot.ServerStream{{Stream: fixedStream{Connected: true}}}, []watchedChat{
		{"telegram", tg, time.Hour},
		{"matrix", syncWatch{last: func() time.Time { return last }, since: t0}, window},
	}, func() time.Time { return now })
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		return rec.Code, rec.Body.String()
	}
	for _, step := range []struct {
		name      string
		now, last time.Time
		code      int
		want      string
	}{
		{"starting, no sync yet", t0.Add(window), time.Time{}, 200, "ok\n"},
		{"no sync since the start", t0.Add(window + time.Second), time.Time{}, 503,
			"matrix sync has not succeeded since the start at 2030-01-01T12:00:00Z\n"},
		{"synced", t0.Add(2 * window), t0.Add(2 * window), 200, "ok\n"},
		{"within the window", t0.Add(3 * window), t0.Add(2 * window), 200, "ok\n"},
		{"failing since", t0.Add(3*window + time.Second), t0.Add(2 * window), 503,
			"matrix sync has not succeeded since 2030-01-01T12:02:00Z\n"},
		{"synced again", t0.Add(4 * window), t0.Add(4*window - time.Second), 200, "ok\n"},
	} {
		now, last = step.now, step.last
		if code, body := get(); code != step.code || body != step.want {
			t.Errorf("%s: /healthz = %d %q, want %d %q", step.name, code, body, step.code, step.want)
		}
	}
}

func TestPollTrackerIgnoresOtherMethods(t *testing.T) {
	p := newPollTracker()
	p.next = &scriptedTransport{statuses: []int{200}}
	resp, err := p.RoundTrip(httptest.NewRequest(http.MethodPost, "https://api.telegram.org/bot1:x/sendMessage", nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := p.down(time.Now(), time.Minute); got != "polling has not started" {
		t.Fatalf("after a sendMessage: %q, want polling not started", got)
	}
	if !p.LastOK().IsZero() {
		t.Fatalf("LastOK = %v after a sendMessage", p.LastOK())
	}
}

// TestPollConflictBacksOffAndLogsOnce: with a second process polling the
// same token, Telegram answers 409 again and again. hermes-bot says so
// once, plainly, asks Telegram less and less often, and says when it is
// over; /healthz says 503 meanwhile.
func TestPollConflictBacksOffAndLogsOnce(t *testing.T) {
	var logs bytes.Buffer
	script := &scriptedTransport{statuses: []int{409, 409, 409, 409, 409, 409, 0, 200, 409, 200}}
	p := newPollTracker()
	p.next = script
	p.log = zerolog.New(&logs)
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }

	// poll is one getUpdates of go-telegram/bot; it reports whether
	// Telegram was asked, and the status the library got.
	poll := func() (asked bool, status int) {
		t.Helper()
		left := len(script.statuses)
		req := httptest.NewRequest(http.MethodPost, "https://api.telegram.org/bot1:SECRET/getUpdates", nil)
		resp, err := p.RoundTrip(req)
		if err != nil {
			return true, 0
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(script.statuses) == left { // answered here: as Telegram would, for the library
			var r struct {
				OK          bool   `json:"ok"`
				ErrorCode   int    `json:"error_code"`
				Description string `json:"description"`
			}
			if err := json.Unmarshal(body, &r); err != nil || r.OK || r.ErrorCode != 409 || !strings.HasPrefix(r.Description, "Conflict: ") {
				t.Fatalf("answer while waiting: %d %s (%v)", resp.StatusCode, body, err)
			}
		}
		return len(script.statuses) < left, resp.StatusCode
	}
	// waitOut polls every 5 s, as the library retries after an error, until
	// a poll reaches Telegram; it returns how long that took.
	waitOut := func() time.Duration {
		t.Helper()
		start := now
		for {
			if asked, _ := poll(); asked {
				return now.Sub(start)
			}
			if now.Sub(start) > time.Hour {
				t.Fatal("no poll reached Telegram within an hour")
			}
			now = now.Add(5 * time.Second)
		}
	}

	var waited []time.Duration
	for range 6 { // six 409s
		waited = append(waited, waitOut())
	}
	if got := p.down(now, time.Hour); !strings.Contains(got, "another process polls this bot token") {
		t.Errorf("during the conflict /healthz says %q", got)
	}
	for range 4 { // a network error, a 200, a 409, a 200
		waited = append(waited, waitOut())
	}
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	// The first poll at once; after a 409, 10 s, doubling up to 2 min;
	// after a network error at once (the library backs off on its own),
	// and a 200 ends the doubling.
	want := []time.Duration{0, s(10), s(20), s(40), s(80), s(120), s(120), s(0), s(0), s(10)}
	if fmt.Sprint(waited) != fmt.Sprint(want) {
		t.Errorf("time before each poll reached Telegram = %v, want %v", waited, want)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	var conflicts, recovered int
	for _, l := range lines {
		switch {
		case strings.Contains(l, "another process is polling Telegram with this bot token (409 Conflict)"):
			conflicts++
			if !strings.Contains(l, `"level":"error"`) || !strings.Contains(l, "Stop the other one") {
				t.Errorf("conflict line: %s", l)
			}
		case strings.Contains(l, "telegram polling works again"):
			recovered++
		}
	}
	// Two conflicts (six 409s, then one), each said once, each end once.
	if conflicts != 2 || recovered != 2 || len(lines) != 4 {
		t.Errorf("log: %d conflict lines, %d recovered, want 2 and 2, nothing else:\n%s", conflicts, recovered, logs.String())
	}
	if strings.Contains(logs.String(), "SECRET") {
		t.Errorf("log shows the token:\n%s", logs.String())
	}
}

// TestPollConflictWithTelegramFake: the fake Telegram, like Telegram,
// ends a long poll with 409 when another getUpdates for the same bot
// comes; the tracker takes that answer as another poller's.
func TestPollConflictWithTelegramFake(t *testing.T) {
	tg := telegramtest.NewServer("111:conflict-token")
	defer tg.Close()
	var logs testlog.Buffer
	p := newPollTracker()
	p.log = zerolog.New(&logs)
	client := &http.Client{Transport: p}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	mine := make(chan int, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tg.URL+"/bot111:conflict-token/getUpdates",
			strings.NewReader(`{"timeout":50}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			mine <- 0
			return
		}
		resp.Body.Close()
		mine <- resp.StatusCode
	}()
	if err := tg.WaitPolls(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// The other process's poll, which ends ours.
	other, cancelOther := context.WithCancel(ctx)
	defer cancelOther()
	go func() {
		req, _ := http.NewRequestWithContext(other, http.MethodPost, tg.URL+"/bot111:conflict-token/getUpdates",
			strings.NewReader(`{"timeout":50}`))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	if code := <-mine; code != http.StatusConflict {
		t.Fatalf("our poll ended with %d, want 409", code)
	}
	if !strings.Contains(logs.String(), "another process is polling Telegram with this bot token") {
		t.Errorf("no conflict logged:\n%s", logs.String())
	}
	if got := p.down(time.Now(), time.Hour); !strings.Contains(got, "409 Conflict") {
		t.Errorf("/healthz reason %q", got)
	}
}

// With named servers, /healthz names the server whose stream is down and
// /metrics labels each server's series.
func TestHealthAndMetricsPerServer(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	streams := []bot.ServerStream{
		{Name: "laptop", Stream: fixedStream{Connected: true, Since: t0, Connects: 1, Events: 7, Version: "2.0.1", Generation: 2}},
		{Name: "ci", Stream: fixedStream{Since: t0, LastError: "connection refused", Connects: 3}},
	}
	p := newPollTracker()
	p.next = &scriptedTransport{statuses: []int{200}}
	p.now = func() time.Time { return t0 }
	if resp, err := p.RoundTrip(httptest.NewRequest(http.MethodPost, "https://api.telegram.org/bot1:SECRET/getUpdates", nil)); err == nil {
		resp.Body.Close()
	}
	rec := httptest.NewRecorder()
	healthHandler(streams, []watchedChat{{"telegram", p, time.Minute}}, func() time.Time { return t0 }).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if want := "opencode event stream of server ci down since 2030-01-01T12:00:00Z (connection refused)\n"; rec.Code != 503 || rec.Body.String() != want {
		t.Errorf("/healthz = %d %q, want 503 %q", rec.Code, rec.Body.String(), want)
	}

	m := bot.NewMetrics()
	m.Streams = streams
	var out bytes.Buffer
	if _, err := m.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`hermes_opencode_connected{server="laptop"} 1`,
		`hermes_opencode_connected{server="ci"} 0`,
		`hermes_opencode_events_total{server="laptop"} 7`,
		`hermes_opencode_reconnects_total{server="ci"} 2`,
		`hermes_opencode_info{server="laptop",generation="2",version="2.0.1"} 1`,
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("/metrics lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), `hermes_opencode_info{server="ci"`) {
		t.Errorf("/metrics names a generation for ci, which never connected:\n%s", out.String())
	}
	if n := strings.Count(out.String(), "# TYPE hermes_opencode_connected "); n != 1 {
		t.Errorf("hermes_opencode_connected declared %d times, want once", n)
	}
}

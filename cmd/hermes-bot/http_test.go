package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// httpAddrOf returns the address hermes-bot logged it serves /healthz on.
func httpAddrOf(t *testing.T, in *instance) string {
	t.Helper()
	line := in.out.WaitLines(t, 1, "serving /healthz and /metrics")[0]
	var v struct{ Addr string }
	if err := json.Unmarshal([]byte(line), &v); err != nil || v.Addr == "" {
		t.Fatalf("no addr in %q: %v", line, err)
	}
	return v.Addr
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// samples reads a /metrics body into name{labels} → value.
func samples(t *testing.T, body string) map[string]float64 {
	t.Helper()
	out := make(map[string]float64)
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			t.Fatalf("bad sample line %q", line)
		}
		out[k] = f
	}
	return out
}

// TestHealthAndMetricsServed runs hermes-bot with HERMES_HTTP_ADDR=:0,
// answers one question, and reads /healthz and /metrics; the listener
// must be on loopback and gone after shutdown.
func TestHealthAndMetricsServed(t *testing.T) {
	r := newRig(t)
	in := start(t, r.with("HERMES_HTTP_ADDR", ":0"))
	addr := httpAddrOf(t, in)
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" {
		t.Fatalf("a bare :0 listens on %s, want loopback", addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	in.out.WaitLines(t, 1, "connected to opencode event stream")
	if _, err := r.tg.WaitRequests(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, "http://"+addr+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz = %d %q, want 200 ok", code, body)
	}

	// Asked once the listing after the connect is done, so the question
	// comes as an event (counted below), not in the listing.
	in.out.WaitLines(t, 1, "listed pending opencode requests", faultDir)
	r.oc.AddQuestion(faultDir, testQuestion("que_m1", "ses_m", "Counted by the metrics"))
	m := r.waitMessage(t, "Counted by the metrics")
	if _, err := r.tg.PressButtonText(faultChatID, m.ID, dana, "alpha"); err != nil {
		t.Fatal(err)
	}
	// The outcome is shown after the request is counted as answered.
	if _, err := r.tg.WaitMessage(ctx, faultChatID, func(x telegramtest.Message) bool {
		return x.ID == m.ID && len(x.Keyboard) == 0 && strings.Contains(x.PlainText, "alpha")
	}); err != nil {
		t.Fatal(err)
	}

	code, body := get(t, "http://"+addr+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	got := samples(t, body)
	for k, want := range map[string]float64{
		"hermes_requests_posted_total":                     1,
		`hermes_requests_closed_total{outcome="answered"}`: 1,
		"hermes_answer_delivery_seconds_count":             1,
		"hermes_opencode_connected":                        1,
		"hermes_opencode_reconnects_total":                 0,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if _, ok := got[`hermes_frontend_rate_limited_total{frontend="telegram"}`]; !ok {
		t.Errorf("/metrics lacks the front-end series labelled frontend=\"telegram\":\n%s", body)
	}
	if strings.Contains(body, "hermes_telegram_") {
		t.Errorf("/metrics still names a series after Telegram:\n%s", body)
	}
	if got["hermes_opencode_events_total"] < 2 {
		t.Errorf("events = %v, want at least server.connected and question.asked", got["hermes_opencode_events_total"])
	}
	if strings.Contains(body, faultToken) || strings.Contains(body, faultPassword) {
		t.Error("/metrics shows a secret")
	}

	if err := in.stop(t); err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after shutdown", addr)
	}
}

func TestHTTPListenFailureStopsStartup(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := newRig(t)
	code, out := runOnce(t, r.with("HERMES_HTTP_ADDR", ln.Addr().String()))
	if code != 1 || !strings.Contains(out, "HERMES_HTTP_ADDR="+ln.Addr().String()) {
		t.Fatalf("exit %d, output:\n%s\nwant 1 naming HERMES_HTTP_ADDR", code, out)
	}
	if n := len(r.tg.RequestsFor("getUpdates")); n > 0 {
		t.Errorf("polled Telegram %d times though the listener failed", n)
	}
}

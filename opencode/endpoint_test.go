package opencode_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"

	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// closedURL is an http URL where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// countingLookup returns lookup, counting its calls in *n.
func countingLookup(n *int, lookup func() (opencode.Endpoint, error)) func() (opencode.Endpoint, error) {
	return func() (opencode.Endpoint, error) { *n++; return lookup() }
}

// TestEndpointFollowsServiceFile: the service restarts on another port
// with a new password and rewrites its file; the next request fails at
// the old address, the file is read again, and the request is sent there.
func TestEndpointFollowsServiceFile(t *testing.T) {
	ctx := testContext(t)
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state")
	getenv := envOf(map[string]string{"HOME": home})
	register := func(url, pw string) {
		writeServiceFile(t, state, `{"url":"`+url+`","pid":1,"password":"`+pw+`"}`, 0o600)
	}
	first := opencodetest.NewServer(opencodetest.WithAuth("", "pw-one-secret"))
	defer first.Close()
	register(first.URL, "pw-one-secret")

	lookups := 0
	lookup := countingLookup(&lookups, func() (opencode.Endpoint, error) {
		sf, _, err := opencode.ReadServiceFile(getenv)
		return opencode.Endpoint{URL: sf.URL, User: opencode.ServiceUser, Password: sf.Password}, err
	})
	logs := newLogBuffer()
	c, err := opencode.NewClient(first.URL, opencode.WithBasicAuth("", "pw-one-secret"),
		opencode.WithEndpoint(time.Hour, lookup), opencode.WithLogger(logs.logger()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Health(ctx); err != nil || lookups != 0 {
		t.Fatalf("health at the first address: %v, %d lookups; want no error, no lookup", err, lookups)
	}

	first.Close()
	second := opencodetest.NewServer(opencodetest.WithAuth("", "pw-two-secret"), opencodetest.WithVersion("1.18.40"))
	defer second.Close()
	register(second.URL, "pw-two-secret")
	h, err := c.Health(ctx)
	if err != nil || h.Version != "1.18.40" {
		t.Fatalf("health after the move: %+v, %v; want the second server's", h, err)
	}
	if _, err := c.Health(ctx); err != nil || lookups != 1 {
		t.Errorf("health once moved: %v after %d lookups; want it sent straight to the new address after 1", err, lookups)
	}
	logs.waitFor(t, "opencode server moved")
	if log := logs.String(); !strings.Contains(log, second.URL) || strings.Contains(log, "secret") {
		t.Errorf("log should name the new URL and no password:\n%s", log)
	}
}

// TestEndpointNewPassword: a 401 from the same address makes the client
// look up the credentials again.
func TestEndpointNewPassword(t *testing.T) {
	ctx := testContext(t)
	srv := opencodetest.NewServer(opencodetest.WithAuth("", "pw-two-secret"))
	defer srv.Close()
	lookups := 0
	logs := newLogBuffer()
	c, err := opencode.NewClient(srv.URL, opencode.WithBasicAuth("", "pw-one-secret"), opencode.WithLogger(logs.logger()),
		opencode.WithEndpoint(0, countingLookup(&lookups, func() (opencode.Endpoint, error) {
			return opencode.Endpoint{URL: srv.URL + "/", Password: "pw-two-secret"}, nil
		})))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListProjects(ctx); err != nil || lookups != 1 {
		t.Fatalf("list projects: %v after %d lookups; want success after 1", err, lookups)
	}
	logs.waitFor(t, "opencode server has new credentials")
	if strings.Contains(logs.String(), "secret") {
		t.Errorf("log shows a password:\n%s", logs)
	}
}

// TestEndpointLookupRateLimited: a lookup that finds the same endpoint
// changes nothing, and the next failure within the interval asks no more.
func TestEndpointLookupRateLimited(t *testing.T) {
	ctx := testContext(t)
	down := closedURL(t)
	now := time.Unix(1_000_000, 0)
	lookups := 0
	c, err := opencode.NewClient(down, opencode.WithBasicAuth("", "pw"), opencode.WithClock(func() time.Time { return now }),
		opencode.WithEndpoint(10*time.Second, countingLookup(&lookups, func() (opencode.Endpoint, error) {
			return opencode.Endpoint{URL: down, User: "opencode", Password: "pw"}, nil
		})))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 1, 2} {
		if i == 2 {
			now = now.Add(10 * time.Second)
		}
		if _, err := c.Health(ctx); !errors.Is(err, opencode.ErrTransient) {
			t.Fatalf("health %d: %v, want ErrTransient", i, err)
		}
		if lookups != want {
			t.Errorf("after health %d: %d lookups, want %d", i, lookups, want)
		}
	}
}

// TestEndpointLookupFails: a failed lookup leaves the request's own error
// and is logged.
func TestEndpointLookupFails(t *testing.T) {
	ctx := testContext(t)
	logs := newLogBuffer()
	c, err := opencode.NewClient(closedURL(t), opencode.WithLogger(logs.logger()),
		opencode.WithEndpoint(0, func() (opencode.Endpoint, error) {
			return opencode.Endpoint{}, errors.New("no service file here")
		}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Health(ctx); !errors.Is(err, opencode.ErrTransient) || !strings.Contains(err.Error(), "connect") {
		t.Errorf("health: %v, want the connection error", err)
	}
	logs.waitFor(t, "no service file here")
}

// TestEndpointNotAskedForAnswers: an answer, even an error, shows the
// server is where the client thinks; only 401 and 403 ask again.
func TestEndpointNotAskedForAnswers(t *testing.T) {
	ctx := testContext(t)
	for _, status := range []int{http.StatusNotFound, http.StatusInternalServerError, http.StatusBadRequest} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", status)
		}))
		lookups := 0
		c, err := opencode.NewClient(srv.URL, opencode.WithEndpoint(0, countingLookup(&lookups, func() (opencode.Endpoint, error) {
			return opencode.Endpoint{URL: "http://127.0.0.1:1"}, nil
		})))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Health(ctx); err == nil || lookups != 0 {
			t.Errorf("HTTP %d: %v after %d lookups, want the error and none", status, err, lookups)
		}
		srv.Close()
	}
}

// TestWatchFollowsEndpoint: the event stream, failing to connect, looks
// the server up and connects where it is.
func TestWatchFollowsEndpoint(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	c, err := opencode.NewClient(closedURL(t), append(fastOptions(logs),
		opencode.WithEndpoint(time.Millisecond, func() (opencode.Endpoint, error) {
			return opencode.Endpoint{URL: srv.URL, Password: password}, nil
		}))...)
	if err != nil {
		t.Fatal(err)
	}
	evs := make(events, 100)
	startWatch(t, c, evs, func(context.Context) []string { return nil })
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
	logs.waitFor(t, "opencode server moved")
}

func TestEndpointPrintsNoPassword(t *testing.T) {
	e := opencode.Endpoint{URL: "http://h:1", User: "opencode", Password: "pw-secret"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(verb, e); strings.Contains(s, "pw-secret") || !strings.Contains(s, "http://h:1") {
			t.Errorf("%s prints %q", verb, s)
		}
	}
}

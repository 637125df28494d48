package opencode_test

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// newServer2 starts a fake OpenCode 2 closed with the test, and a client
// of it with fast reconnects.
func newServer2(t *testing.T, logs *logBuffer) (*opencodetest.Server, *opencode.Client) {
	t.Helper()
	srv := opencodetest.NewServer(opencodetest.WithOpencode2())
	t.Cleanup(srv.Close)
	c, err := opencode.NewClient(srv.URL, append(fastOptions(logs), opencode.WithBasicAuth("", srv.Password))...)
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// watch2 runs c.Watch with known sessions until the test ends.
func watch2(t *testing.T, c *opencode.Client, h opencode.Handler, sessions ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	known := func(context.Context) opencode.Known { return opencode.Known{Sessions: sessions} }
	go func() { done <- c.Watch(ctx, h, known) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch = %v, want nil after cancel", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Watch did not return after cancel")
		}
	})
}

// untilConnected2 returns the snapshots, by session, handed over before
// the next server.connected, checking each is OpenCode 2's.
func (s snapshots) untilConnected2(t *testing.T) map[string]opencode.Snapshot {
	t.Helper()
	got := make(map[string]opencode.Snapshot)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v := <-s:
			switch v := v.(type) {
			case opencode.Snapshot:
				if v.Generation != 2 || v.Directory != "" || v.SessionID == "" {
					t.Errorf("snapshot %+v, want generation 2, a session and no directory", v)
				}
				got[v.SessionID] = v
			case opencode.Event:
				if v.Generation != 2 {
					t.Errorf("event %+v, want generation 2", v)
				}
				if v.Type == opencode.TypeServerConnected {
					return got
				}
			}
		case <-deadline:
			t.Fatalf("no server.connected; snapshots so far: %v", got)
		}
	}
}

// nextEvent returns the next event of type typ, dropping what comes
// before it.
func (s snapshots) nextEvent(t *testing.T, typ string) opencode.Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v := <-s:
			if ev, ok := v.(opencode.Event); ok && ev.Type == typ {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event", typ)
		}
	}
}

func fullyListed(s opencode.Snapshot) bool {
	for _, sf := range opencode.Surfaces {
		for _, k := range []string{opencode.KindQuestions, opencode.KindPermissions} {
			if !s.Listed(sf, k) {
				return false
			}
		}
	}
	return s.Listed(opencode.SurfaceAPI, opencode.KindForms) && !s.Listed(opencode.SurfaceLegacy, opencode.KindForms)
}

// What waits before the connect reaches the handler as snapshots, before
// any event; what comes later, as events.
func TestWatch2SnapshotThenEvents(t *testing.T) {
	logs := newLogBuffer()
	srv, c := newServer2(t, logs)
	f := srv.AddForm("ses_f", opencodetest.Form{Title: "Deploy", Fields: []opencodetest.FormField{{Key: "target", Type: "string"}}})
	srv.AddQuestion("", question("que_1", "ses_q", "call_1"))
	srv.AddPermission("", opencode.PermissionRequest{ID: "per_1", SessionID: "ses_q", Permission: "bash", Patterns: []string{"ls"}})

	h := make(snapshots, 100)
	watch2(t, c, h, "ses_known")
	got := h.untilConnected2(t)
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"ses_f", "ses_known", "ses_q"}) {
		t.Fatalf("snapshots of %q, want ses_f, ses_known, ses_q", keys)
	}
	for sid, s := range got {
		if !fullyListed(s) {
			t.Errorf("%s: not all listed: %+v", sid, s)
		}
	}
	if fs := got["ses_f"].Forms; len(fs) != 1 || fs[0].ID != f.ID || fs[0].Title != "Deploy" || len(fs[0].Fields) != 1 {
		t.Errorf("forms of ses_f %+v, want %s", fs, f.ID)
	}
	q := got["ses_q"]
	if len(q.Questions) != 1 || q.Questions[0].Surface != opencode.SurfaceAPI ||
		len(q.Permissions) != 1 || q.Permissions[0].Permission != "bash" || q.Permissions[0].Surface != opencode.SurfaceAPI {
		t.Errorf("ses_q %+v", q)
	}
	if evs := got["ses_f"].Events(); len(evs) != 1 || evs[0].Type != opencode.TypeFormCreated || evs[0].Generation != 2 || !evs[0].Listed {
		t.Errorf("listed events of ses_f %+v", evs)
	}
	if c.Generation() != 2 || !c.State().Connected {
		t.Errorf("generation %d, state %+v", c.Generation(), c.State())
	}

	f2 := srv.AddForm("ses_g", opencodetest.Form{Mode: "url", URL: "https://example.com/login"})
	ev := h.nextEvent(t, opencode.TypeFormCreated)
	if ev.FormAsked == nil || ev.FormAsked.ID != f2.ID || ev.FormAsked.URL != f2.URL || ev.SessionID() != "ses_g" ||
		ev.Generation != 2 || ev.Surface != opencode.SurfaceAPI || ev.Listed {
		t.Errorf("form.created %+v (form %+v)", ev, ev.FormAsked)
	}
	if err := c.CancelForm(testContext(t), "ses_g", f2.ID); err != nil {
		t.Fatal(err)
	}
	if ev := h.nextEvent(t, opencode.TypeFormCancelled); ev.FormCancelled.ID != f2.ID {
		t.Errorf("form.cancelled %+v", ev.FormCancelled)
	}
}

// gate is a Handler that passes everything on, but holds the watcher in
// HandleEvent on the first event of session hold until released.
type gate struct {
	snapshots
	hold    string
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (g *gate) HandleEvent(ctx context.Context, ev opencode.Event) {
	g.snapshots.HandleEvent(ctx, ev)
	if ev.SessionID() != g.hold {
		return
	}
	g.once.Do(func() {
		close(g.held)
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	})
}

// A form created while the stream was down is in the snapshot after the
// reconnect.
func TestWatch2FormCreatedWhileDown(t *testing.T) {
	logs := newLogBuffer()
	srv, c := newServer2(t, logs)
	g := &gate{snapshots: make(snapshots, 100), hold: "ses_gate", held: make(chan struct{}), release: make(chan struct{})}
	watch2(t, c, g)
	g.untilConnected2(t)

	// The watcher waits in the handler, so it cannot reconnect before the
	// form is there.
	srv.Send(opencodetest.Event2{Type: "session.execution.succeeded", Data: map[string]string{"sessionID": "ses_gate"}})
	<-g.held
	srv.DropStreams()
	f := srv.AddForm("ses_down", opencodetest.Form{Fields: []opencodetest.FormField{{Key: "ok", Type: "boolean"}}})
	close(g.release)

	ctx := testContext(t)
	if err := srv.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	found := false
	for !found {
		select {
		case v := <-g.snapshots:
			switch v := v.(type) {
			case opencode.Snapshot:
				found = v.SessionID == "ses_down" && len(v.Forms) == 1 && v.Forms[0].ID == f.ID && v.FormsListed
			case opencode.Event:
				if v.Type == opencode.TypeFormCreated {
					t.Fatalf("form.created %+v: it was sent while nobody listened", v)
				}
			}
		case <-ctx.Done():
			t.Fatal("no snapshot of ses_down with its form")
		}
	}
}

// log.sweep_required on the changes stream brings a new snapshot of every
// session: known ones, those events named, those the server runs.
func TestWatch2SweepRequired(t *testing.T) {
	logs := newLogBuffer()
	srv, c := newServer2(t, logs)
	h := make(snapshots, 100)
	watch2(t, c, h, "ses_k1", "ses_k2")
	if got := h.untilConnected2(t); len(got) != 2 {
		t.Fatalf("connect snapshots %v, want ses_k1 and ses_k2", got)
	}
	// Named by an event, then answered: still swept, as nothing said it
	// was listed empty since.
	q := question("que_e", "ses_event", "")
	srv.AddQuestion("", q)
	h.nextEvent(t, opencode.TypeQuestionV2Asked)
	srv.AddForm("ses_form", opencodetest.Form{Fields: []opencodetest.FormField{{Key: "k", Type: "string"}}})
	h.nextEvent(t, opencode.TypeFormCreated)
	if err := c.API().RejectQuestion(testContext(t), "", "ses_event", "que_e"); err != nil {
		t.Fatal(err)
	}

	ctx := testContext(t)
	if err := srv.WaitChangesConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	srv.SweepRequired()
	want := []string{"ses_event", "ses_form", "ses_k1", "ses_k2"}
	got := map[string]opencode.Snapshot{}
	for len(got) < len(want) {
		select {
		case v := <-h:
			if s, ok := v.(opencode.Snapshot); ok {
				if !slices.Contains(want, s.SessionID) {
					t.Errorf("snapshot of %s", s.SessionID)
				}
				got[s.SessionID] = s
			}
		case <-ctx.Done():
			t.Fatalf("sweep snapshots %v, want %q", got, want)
		}
	}
	if s := got["ses_event"]; len(s.Questions) != 0 || !fullyListed(s) {
		t.Errorf("ses_event %+v, want listed empty", s)
	}
	if s := got["ses_form"]; len(s.Forms) != 1 || s.Generation != 2 {
		t.Errorf("ses_form %+v, want its form", s)
	}
}

// overlap is a Handler that notes any call made while another runs.
type overlap struct {
	in      atomic.Int32
	overlap atomic.Bool
	forms   chan string
}

func (o *overlap) enter() {
	if o.in.Add(1) > 1 {
		o.overlap.Store(true)
	}
	runtime.Gosched() // give a concurrent call the chance to show
	o.in.Add(-1)
}

func (o *overlap) HandleEvent(_ context.Context, ev opencode.Event) {
	o.enter()
	if ev.Type == opencode.TypeFormCreated {
		o.forms <- ev.FormAsked.ID
	}
}

func (o *overlap) HandleSnapshot(context.Context, opencode.Snapshot) { o.enter() }

// Sweeps and events reach the handler from one goroutine, never at once.
func TestWatch2HandlerNeverConcurrent(t *testing.T) {
	logs := newLogBuffer()
	srv, c := newServer2(t, logs)
	const n = 30
	h := &overlap{forms: make(chan string, n)}
	watch2(t, c, h, "ses_a", "ses_b", "ses_c", "ses_d", "ses_e")
	ctx := testContext(t)
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitChangesConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for range n {
		srv.AddForm("ses_x", opencodetest.Form{Fields: []opencodetest.FormField{{Key: "k", Type: "string"}}})
		srv.SweepRequired()
	}
	for i := range n {
		select {
		case <-h.forms:
		case <-ctx.Done():
			t.Fatalf("%d of %d forms handed over", i, n)
		}
	}
	if h.overlap.Load() {
		t.Error("the handler was called while another call ran")
	}
}

// A session the server does not have is listed empty, every list
// counting as listed: nothing waits there.
func TestWatch2SessionNotFound(t *testing.T) {
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, `{"healthy":true,"version":"2.0.0"}`)
	})
	mux.HandleFunc("GET /api/session/active", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 200, `{"data":{}}`)
	})
	mux.HandleFunc("/api/session/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, 404, `{"_tag":"SessionNotFoundError","sessionID":"ses_gone","message":"Session not found"}`)
	})
	stream := func(first string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: " + first + "\n\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}
	mux.HandleFunc("GET /api/event", stream(`{"id":"evt_1","type":"server.connected","data":{}}`))
	mux.HandleFunc("GET /api/event/changes", stream(`{"type":"log.sweep_required"}`))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	logs := newLogBuffer()
	c, err := opencode.NewClient(srv.URL, fastOptions(logs)...)
	if err != nil {
		t.Fatal(err)
	}
	h := make(snapshots, 100)
	watch2(t, c, h, "ses_gone")
	got := h.untilConnected2(t)
	s, ok := got["ses_gone"]
	if !ok || !fullyListed(s) || len(s.Forms)+len(s.Questions)+len(s.Permissions) != 0 {
		t.Errorf("snapshot %+v, want ses_gone listed empty", s)
	}
	if w := atLevel(logs, "warn", "listing"); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

package opencode_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// TestListRoundTrip checks that the lists decode to what was served, and
// exactly as json.Unmarshal of the whole answer does.
func TestListRoundTrip(t *testing.T) {
	ctx := testContext(t)
	s := newListServer(t, 300, 3, 4)
	for _, chunked := range []bool{false, true} {
		s.chunked = chunked
		c := s.client(t)
		for d := range 3 {
			dir := listDir(d)
			qs, err := c.ListQuestions(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			var want []opencode.QuestionRequest
			if err := json.Unmarshal(s.questions[dir], &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(qs, want) || !reflect.DeepEqual(qs, genQuestions(100, uint64(d+1))) {
				t.Errorf("chunked %v, %s: listed questions differ from those served", chunked, dir)
			}
			ps, err := c.ListPermissions(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			var wantPs []opencode.PermissionRequest
			if err := json.Unmarshal(s.permissions[dir], &wantPs); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ps, wantPs) || len(ps) != 4 || ps[3].ID != genPermissions(4, uint64(d+1))[3].ID {
				t.Errorf("chunked %v, %s: listed permissions %+v, want %+v", chunked, dir, ps, wantPs)
			}
		}
	}
}

func TestListBadAnswers(t *testing.T) {
	ctx := testContext(t)
	s := newListServer(t, 0, 1, 0)
	s.chunked = true
	c := s.client(t)
	for _, tc := range []struct {
		body string
		want string // in the error; empty: no error, nothing listed
	}{
		{`[]`, ""},
		{`null`, ""},
		{" \n[ ]\n", ""},
		{``, "unexpected EOF"},
		{`{"id":"que_1"}`, "want a JSON array, got an object"},
		{`"que_1"`, "want a JSON array, got a string"},
		{`[{"id":"que_1"}`, "unexpected EOF"},
		{`[{"id":"que_1"},]`, "invalid character"},
		{`[{"id":"que_1"} {"id":"que_2"}]`, "expected comma"},
		{`[{"id":1}]`, "cannot unmarshal number"},
		{`<html>proxy login</html>`, "invalid character '<'"},
	} {
		s.questions["/d"] = []byte(tc.body)
		qs, err := c.ListQuestions(ctx, "/d")
		if tc.want == "" {
			if err != nil || len(qs) != 0 {
				t.Errorf("%q: %v %+v, want nothing listed", tc.body, err, qs)
			}
			continue
		}
		if err == nil || !errors.Is(err, opencode.ErrTransient) ||
			!strings.Contains(err.Error(), "list questions in /d: decode answer") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want ErrTransient naming the call and saying %q", tc.body, err, tc.want)
		}
		if qs != nil {
			t.Errorf("%q: listed %+v with the error", tc.body, qs)
		}
	}
}

// listProbe is a listServer hook that records the list calls and can hold
// the question list of a directory until its gate is closed.
type listProbe struct {
	mu       sync.Mutex
	gates    map[string]chan struct{}
	arrived  map[string]time.Time // first list call of each directory
	inFlight int
	maxIn    int
	calls    chan string // "<path> <directory>" of each list call, as it arrives
	done     chan struct{}
}

func newListProbe(s *listServer) *listProbe {
	p := &listProbe{gates: map[string]chan struct{}{}, arrived: map[string]time.Time{}, calls: make(chan string, 100), done: s.done}
	s.hook = p.hook
	return p
}

func (p *listProbe) hook(_ http.ResponseWriter, r *http.Request) bool {
	dir := r.URL.Query().Get("directory")
	p.mu.Lock()
	if _, ok := p.arrived[dir]; !ok {
		p.arrived[dir] = time.Now()
	}
	p.inFlight++
	p.maxIn = max(p.maxIn, p.inFlight)
	gate := p.gates[dir]
	p.mu.Unlock()
	p.calls <- r.URL.Path + " " + dir
	if gate != nil && r.URL.Path == "/question" {
		select {
		case <-gate:
		case <-r.Context().Done():
		case <-p.done:
		}
	}
	p.mu.Lock()
	p.inFlight--
	p.mu.Unlock()
	return false
}

// hold makes the question list of dir wait until release(dir).
func (p *listProbe) hold(dir string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gates[dir] = make(chan struct{})
}

func (p *listProbe) release(dir string) { close(p.gates[dir]) }

// await waits for the next n list calls and returns them.
func (p *listProbe) await(tb testing.TB, n int) []string {
	tb.Helper()
	var got []string
	deadline := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case c := <-p.calls:
			got = append(got, c)
		case <-deadline:
			tb.Fatalf("%d list calls, want %d: %q", len(got), n, got)
		}
	}
	return got
}

// snapshotsInOrder returns the snapshots h receives until server.connected.
func snapshotsInOrder(tb testing.TB, h snapshots) []opencode.Snapshot {
	tb.Helper()
	var got []opencode.Snapshot
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v := <-h:
			switch v := v.(type) {
			case opencode.Snapshot:
				got = append(got, v)
			case opencode.Event:
				if v.Type == opencode.TypeServerConnected {
					return got
				}
				tb.Errorf("event %+v before server.connected", v)
			}
		case <-deadline:
			tb.Fatalf("no server.connected after %d snapshots", len(got))
		}
	}
}

func dirsFunc(n int) func(context.Context) []string {
	return func(context.Context) []string {
		dirs := make([]string, n)
		for i := range dirs {
			dirs[n-1-i] = listDir(i) // unsorted on purpose
		}
		return dirs
	}
}

func TestWatchListsConcurrentlyInOrder(t *testing.T) {
	const dirs = 9
	s := newListServer(t, 9*20, dirs, 1)
	p := newListProbe(s)
	for i := range 4 {
		p.hold(listDir(i))
	}
	h := make(snapshots, 100)
	start := time.Now()
	startWatch(t, s.client(t), h, dirsFunc(dirs))

	// The first four directories are listed at once: with their question
	// lists held, a listing one at a time would never get there.
	first := p.await(t, 4)
	for i := range 4 {
		want := "/question " + listDir(i)
		if !strings.Contains(strings.Join(first, "\n"), want) {
			t.Errorf("first list calls %q, want %q among them", first, want)
		}
	}
	// Let them finish last first: the handler must still get them in
	// order, the first one first.
	released := time.Now()
	for i := 3; i > 0; i-- {
		p.release(listDir(i))
	}
	// Once their permission lists are asked for, their question lists
	// are done; only then is the first one let go.
	for waiting := 3; waiting > 0; {
		c := p.await(t, 1)[0]
		if strings.HasPrefix(c, "/permission ") && c != "/permission "+listDir(0) {
			waiting--
		}
	}
	p.release(listDir(0))

	got := snapshotsInOrder(t, h)
	if len(got) != dirs {
		t.Fatalf("%d snapshots, want %d", len(got), dirs)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, sn := range got {
		if sn.Directory != listDir(i) {
			t.Errorf("snapshot %d is of %s, want %s: snapshots go in sorted order", i, sn.Directory, listDir(i))
			continue
		}
		if !sn.QuestionsListed || !sn.PermissionsListed || len(sn.Questions) != 20 || len(sn.Permissions) != 1 {
			t.Errorf("%s: listed %v %v, %d questions %d permissions, want 20 and 1",
				sn.Directory, sn.QuestionsListed, sn.PermissionsListed, len(sn.Questions), len(sn.Permissions))
		}
		// Taken is when this directory's listing began: before its first
		// list call, and for the directories that had to wait for a
		// free slot, after that slot was freed.
		if arrived := p.arrived[sn.Directory]; sn.Taken.Before(start) || sn.Taken.After(arrived) {
			t.Errorf("%s: Taken %v, want between the start %v and its first list call %v", sn.Directory, sn.Taken, start, arrived)
		}
		if i >= 4 && sn.Taken.Before(released) {
			t.Errorf("%s: Taken %v, before its listing could begin (%v)", sn.Directory, sn.Taken, released)
		}
	}
	if p.maxIn > 4 {
		t.Errorf("%d list calls at once, want at most 4", p.maxIn)
	}
}

func TestWatchListingFailureAmongSeveral(t *testing.T) {
	const dirs = 6
	s := newListServer(t, 6*3, dirs, 2)
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		dir := r.URL.Query().Get("directory")
		if (r.URL.Path == "/question" && dir == listDir(2)) || (r.URL.Path == "/permission" && dir == listDir(4)) {
			http.Error(w, `{"name":"UnknownError"}`, http.StatusInternalServerError)
			return true
		}
		return false
	}
	logs := newLogBuffer()
	h := make(snapshots, 100)
	startWatch(t, s.client(t, fastOptions(logs)...), h, dirsFunc(dirs))

	got := snapshotsInOrder(t, h)
	if len(got) != dirs {
		t.Fatalf("%d snapshots, want %d: a failed list must not cost the others", len(got), dirs)
	}
	for i, sn := range got {
		wantQ, wantP := i != 2, i != 4
		if sn.Directory != listDir(i) || sn.QuestionsListed != wantQ || sn.PermissionsListed != wantP {
			t.Errorf("snapshot %d: %s listed %v %v, want %s %v %v",
				i, sn.Directory, sn.QuestionsListed, sn.PermissionsListed, listDir(i), wantQ, wantP)
		}
		if (wantQ && len(sn.Questions) != 3) || (!wantQ && len(sn.Questions) != 0) ||
			(wantP && len(sn.Permissions) != 2) || (!wantP && len(sn.Permissions) != 0) {
			t.Errorf("%s: %d questions %d permissions", sn.Directory, len(sn.Questions), len(sn.Permissions))
		}
	}
	for _, want := range []string{
		"listing pending opencode questions failed", "listing pending opencode permissions failed",
	} {
		lines := atLevel(logs, "warn", want)
		if len(lines) != 1 {
			t.Errorf("%d warnings %q, want 1:\n%s", len(lines), want, logs.String())
		}
	}
	if l := atLevel(logs, "warn", "questions failed"); len(l) == 1 && !strings.Contains(l[0], listDir(2)) {
		t.Errorf("warning does not name the directory: %s", l[0])
	}
	if l := atLevel(logs, "warn", "permissions failed"); len(l) == 1 && !strings.Contains(l[0], listDir(4)) {
		t.Errorf("warning does not name the directory: %s", l[0])
	}
}

func TestWatchCancelledMidListing(t *testing.T) {
	const dirs = 8
	s := newListServer(t, 8, dirs, 0)
	p := newListProbe(s)
	for i := range dirs {
		p.hold(listDir(i)) // never released
	}
	logs := newLogBuffer()
	h := make(snapshots, 100)
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() { done <- s.client(t, fastOptions(logs)...).Watch(ctx, h, knownDirs(dirsFunc(dirs))) }()

	p.await(t, 4)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Watch = %v, want nil after cancel", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return after cancel while listing")
	}
	// Watch has returned: whatever it handed over is in h already.
	for len(h) > 0 {
		t.Errorf("%T handed over after cancel: no list finished", <-h)
	}
	if l := atLevel(logs, "warn", "listing pending"); len(l) != 0 {
		t.Errorf("cancelled lists logged as failures:\n%s", strings.Join(l, "\n"))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.arrived) != 4 {
		t.Errorf("%d directories listed, want the 4 begun before the cancel", len(p.arrived))
	}
}

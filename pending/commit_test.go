package pending_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// wait is how long a test waits for what must happen before it gives up;
// only a broken store ever waits that long.
const wait = 10 * time.Second

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("gave up waiting for %s", what)
		panic("unreachable")
	}
}

// gate holds the store's first commit inside its transaction until
// release, so the writers that come meanwhile queue behind it.
type gate struct {
	entered, queued chan struct{}
	release         func()

	mu    sync.Mutex
	sizes []int // of the groups committed
}

func holdFirstCommit(t *testing.T, s *pending.Store) *gate {
	release := make(chan struct{})
	g := &gate{entered: make(chan struct{}), queued: make(chan struct{}, 100)}
	g.release = sync.OnceFunc(func() { close(release) })
	t.Cleanup(g.release) // before the store's Close, which waits for it
	pending.SetCommitHooks(s, func() { g.queued <- struct{}{} }, func(n int) {
		g.mu.Lock()
		g.sizes = append(g.sizes, n)
		first := len(g.sizes) == 1
		g.mu.Unlock()
		if first {
			close(g.entered)
			<-release
		}
	})
	return g
}

func (g *gate) waitQueued(t *testing.T, n int) {
	t.Helper()
	for range n {
		recv(t, g.queued, "a writer to queue")
	}
}

func (g *gate) groups() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.sizes)
}

func TestConcurrentWritersAllCommitted(t *testing.T) {
	s := mustOpenStore(t)
	const n = 50
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		go func() {
			<-start
			e := &pending.Entry{RequestID: fmt.Sprintf("que_%d", i), Places: shown("")}
			if err := s.Create(e); err != nil {
				errs <- err
				return
			}
			_, err := s.Update(e.UID, func(e *pending.Entry) error {
				e.Places = shown(fmt.Sprint(i + 1))
				return nil
			})
			errs <- err
		}()
	}
	close(start)
	for range n {
		if err := recv(t, errs, "a writer"); err != nil {
			t.Error(err)
		}
	}
	for i := range n {
		e, err := s.ByRequestID("", fmt.Sprintf("que_%d", i))
		if err != nil || e.Places["t"] != pending.Place(fmt.Sprint(i+1)) {
			t.Errorf("que_%d: %+v, %v; want MessageID %d", i, e, err, i+1)
		}
	}
	mustCheckIndexes(t, s, "concurrent writes")
}

// queueBehindFirstCommit starts a Create of que_first and holds its
// commit, then k Creates of que_0… that queue behind it; each writer's
// error arrives on errs. Release the commit with g.release.
func queueBehindFirstCommit(t *testing.T, s *pending.Store, k int) (g *gate, errs chan error) {
	t.Helper()
	g = holdFirstCommit(t, s)
	errs = make(chan error, k+1)
	go func() { errs <- s.Create(&pending.Entry{RequestID: "que_first"}) }()
	recv(t, g.entered, "the first commit")
	for i := range k {
		go func() { errs <- s.Create(&pending.Entry{RequestID: fmt.Sprintf("que_%d", i)}) }()
	}
	g.waitQueued(t, k)
	return g, errs
}

func TestWritersQueuedBehindACommitShareTheNext(t *testing.T) {
	s := mustOpenStore(t)
	const k = 10
	g, errs := queueBehindFirstCommit(t, s, k)
	g.release()
	for range k + 1 {
		if err := recv(t, errs, "a writer"); err != nil {
			t.Error(err)
		}
	}
	if got, want := g.groups(), []int{1, k}; !slices.Equal(got, want) {
		t.Errorf("groups committed: %v, want %v: %d writes in 2 commits", got, want, k+1)
	}
	if all, err := s.List(); err != nil || len(all) != k+1 {
		t.Errorf("List: %d entries, %v; want %d", len(all), err, k+1)
	}
	mustCheckIndexes(t, s, "grouped writes")
}

func TestFailureInAGroupStaysWithItsCaller(t *testing.T) {
	s := mustOpenStore(t)
	held := mustCreate(t, s, &pending.Entry{RequestID: "que_held"})
	g := holdFirstCommit(t, s)
	first := make(chan error, 1)
	go func() { first <- s.Create(&pending.Entry{RequestID: "que_first"}) }()
	recv(t, g.entered, "the first commit")

	boom := errors.New("boom")
	writes := map[string]func() error{
		"create": func() error { return s.Create(&pending.Entry{RequestID: "que_new"}) },
		"update": func() error {
			_, err := s.Update(held.UID, func(e *pending.Entry) error { e.Places = shown("9"); return nil })
			return err
		},
		"duplicate": func() error { return s.Create(&pending.Entry{RequestID: "que_held"}) },
		"missing": func() error {
			_, err := s.Update("nosuch01", func(*pending.Entry) error { return nil })
			return err
		},
		"half": func() error { return pending.PutRawThenFail(s, "halfdone", []byte("{}"), boom) },
	}
	type result struct {
		name string
		err  error
	}
	results := make(chan result, len(writes))
	for name, write := range writes {
		go func() { results <- result{name, write()} }()
	}
	g.waitQueued(t, len(writes))
	g.release()
	if err := recv(t, first, "the first writer"); err != nil {
		t.Error(err)
	}
	got := map[string]error{}
	for range writes {
		r := recv(t, results, "a writer")
		got[r.name] = r.err
	}
	for name, want := range map[string]error{
		"create": nil, "update": nil, "duplicate": pending.ErrExists, "missing": pending.ErrNotFound, "half": boom,
	} {
		if err := got[name]; !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	// The failing writes ran alone; the rest were committed together.
	if got, want := g.groups(), []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("groups committed: %v, want %v", got, want)
	}
	if _, err := s.ByRequestID("", "que_new"); err != nil {
		t.Errorf("the entry created beside the failures: %v", err)
	}
	if e, err := s.Get(held.UID); err != nil || e.Places["t"] != "9" {
		t.Errorf("the entry updated beside the failures: %+v, %v", e, err)
	}
	if _, err := s.Get("halfdone"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("the write of a function that then failed is visible: %v", err)
	}
	mustCheckIndexes(t, s, "a group with failures")
}

func TestPanicInAGroupStaysWithItsCaller(t *testing.T) {
	s := mustOpenStore(t)
	held := mustCreate(t, s, &pending.Entry{RequestID: "que_held"})
	panicky := func(e *pending.Entry) error {
		e.Places = shown("7")
		panic("boom")
	}
	g := holdFirstCommit(t, s)
	first := make(chan error, 1)
	go func() { first <- s.Create(&pending.Entry{RequestID: "que_first"}) }()
	recv(t, g.entered, "the first commit")
	recovered := make(chan any, 1)
	other := make(chan error, 1)
	go func() {
		defer func() { recovered <- recover() }()
		_, _ = s.Update(held.UID, panicky)
	}()
	go func() { other <- s.Create(&pending.Entry{RequestID: "que_other"}) }()
	g.waitQueued(t, 2)
	g.release()
	if err := recv(t, first, "the first writer"); err != nil {
		t.Error(err)
	}
	if err := recv(t, other, "the writer beside the panic"); err != nil {
		t.Errorf("the writer beside the panic: %v", err)
	}
	if v := recv(t, recovered, "the panic"); v != "boom" {
		t.Errorf("the caller whose function panicked recovered %v, want boom", v)
	}

	// Alone, too, the panic reaches the caller and the store goes on.
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v, want boom", v)
			}
		}()
		_, _ = s.Update(held.UID, panicky)
	}()
	mustCreate(t, s, &pending.Entry{RequestID: "que_after"})
	if e, err := s.Get(held.UID); err != nil || e.Places["t"] != "" {
		t.Errorf("the entry whose update panicked: %+v, %v; want it unchanged", e, err)
	}
	if _, err := s.ByRequestID("", "que_other"); err != nil {
		t.Error(err)
	}
}

// A write queued when Close is called is committed before the file is
// closed; one begun after gets ErrClosed.
func TestCloseCommitsQueuedWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	const k = 5
	g, errs := queueBehindFirstCommit(t, s, k)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	deadline := time.Now().Add(wait)
	for !pending.Closing(s) {
		if time.Now().After(deadline) {
			t.Fatal("Close did not begin")
		}
		runtime.Gosched()
	}
	if err := s.Create(&pending.Entry{RequestID: "que_late"}); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("Create after Close began: %v, want ErrClosed", err)
	}
	g.release()
	for range k + 1 {
		if err := recv(t, errs, "a queued writer"); err != nil {
			t.Errorf("a writer queued before Close: %v", err)
		}
	}
	if err := recv(t, closed, "Close"); err != nil {
		t.Fatal(err)
	}
	s, err = pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if all, err := s.List(); err != nil || len(all) != k+1 {
		t.Errorf("after reopening: %d entries, %v; want the %d written before Close", len(all), err, k+1)
	}
}

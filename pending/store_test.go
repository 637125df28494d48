package pending_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/pending"
)

// base is the fixed time the tests' clock returns.
var base = time.Date(2025, 3, 4, 5, 6, 7, 8, time.UTC)

// mustOpenStore opens a store in a fresh temporary folder with a fixed
// clock and closes it when the test ends.
func mustOpenStore(tb testing.TB, opts ...pending.OpenOption) *pending.Store {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "pending.db")
	opts = append([]pending.OpenOption{pending.WithClock(func() time.Time { return base })}, opts...)
	s, err := pending.Open(path, opts...)
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close store: %v", err)
		}
	})
	return s
}

func mustCreate(tb testing.TB, s *pending.Store, e *pending.Entry) *pending.Entry {
	tb.Helper()
	if err := s.Create(e); err != nil {
		tb.Fatalf("create %+v: %v", e, err)
	}
	return e
}

// fullEntry has every field set to a value other than its zero value.
func fullEntry() *pending.Entry {
	return &pending.Entry{
		UID:           "abcDEF12",
		Kind:          pending.KindPermission,
		Directory:     "/home/me/project",
		Project:       "project",
		SessionID:     "ses_1",
		CallID:        "call_1",
		ToolMessageID: "msg_1",
		RequestID:     "per_1",
		Server:        "ci",
		Surface:       "api",
		Questions: []pending.Question{{
			Text:     "Which <b>colour</b>?",
			Header:   "Colour",
			Options:  []pending.Option{{Label: "red", Description: "warm"}, {Label: "blue"}},
			Multiple: true,
			Custom:   true,
		}, {
			Text: "How many?", Header: "Count", Key: "count", Type: pending.TypeInteger, Required: true,
			When:   []pending.Condition{{Key: "colour", Op: "eq", Value: json.RawMessage(`"red"`)}},
			Format: "email", Pattern: "^a", Placeholder: "3",
			MinLength: ptr(1), MaxLength: ptr(9), Minimum: ptr(1.5), Maximum: ptr(9.5), MinItems: ptr(0), MaxItems: ptr(2),
			Default: json.RawMessage(`3`),
			Options: []pending.Option{{Label: "Three", Value: "3"}},
		}},
		Form:       &pending.Form{Mode: "form", URL: "https://example.com", Title: "Setup"},
		Generation: 2,
		Permission: &pending.Permission{
			Kind:     "bash",
			Patterns: []string{"ls *"},
			Always:   []string{"ls"},
			Metadata: json.RawMessage(`{"command":"ls -la"}`),
		},
		Places:           shown("-100123:42"),
		Current:          1,
		Answers:          [][]string{{"red", "blue"}},
		Selected:         []string{"red"},
		AwaitingText:     true,
		AwaitingQuestion: 1,
		AwaitingReason:   true,
		SessionTitle:     "Fix the login bug",
		ParentSessionID:  "ses_parent",
		ParentTitle:      "Plan the release",
		SharedWith:       "zyxWVU98",
		Context:          []pending.ContextLine{{Text: "I will run the tests."}, {Tool: "bash", Text: "go test ./..."}},
		ExpiredNotified:  true,
		CreatedAt:        base.Add(-time.Minute),
		ExpiresAt:        base.Add(30 * time.Minute),
	}
}

func ptr[T any](v T) *T { return &v }

func TestRoundTripEveryField(t *testing.T) {
	want := fullEntry()
	// A field added to Entry without a value here would not be proven to
	// survive the round trip.
	v := reflect.ValueOf(*want)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("fullEntry leaves field %s zero; give it a value", v.Type().Field(i).Name)
		}
	}
	s := mustOpenStore(t)
	mustCreate(t, s, want)

	for name, get := range map[string]func() (*pending.Entry, error){
		"Get":         func() (*pending.Entry, error) { return s.Get(want.UID) },
		"ByRequestID": func() (*pending.Entry, error) { return s.ByRequestID(want.Server, want.RequestID) },
	} {
		got, err := get()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

func TestCreateAssignsUIDAndCreatedAt(t *testing.T) {
	s := mustOpenStore(t)
	seen := map[string]bool{}
	for i := range 20 {
		e := mustCreate(t, s, &pending.Entry{RequestID: fmt.Sprintf("que_%d", i)})
		if len(e.UID) != 8 || strings.Trim(e.UID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
			t.Errorf("UID %q: want 8 characters of [a-zA-Z0-9]", e.UID)
		}
		if seen[e.UID] {
			t.Errorf("UID %q given twice", e.UID)
		}
		seen[e.UID] = true
		if !e.CreatedAt.Equal(base) {
			t.Errorf("CreatedAt %v, want the clock's %v", e.CreatedAt, base)
		}
	}
}

func TestCreateRejects(t *testing.T) {
	s := mustOpenStore(t)
	first := mustCreate(t, s, &pending.Entry{RequestID: "que_1", Directory: "/a"})

	dup := &pending.Entry{RequestID: "que_1", Directory: "/b"}
	if err := s.Create(dup); !errors.Is(err, pending.ErrExists) {
		t.Fatalf("second create of que_1: %v, want ErrExists", err)
	}
	if dup.UID != "" || !dup.CreatedAt.IsZero() {
		t.Errorf("failed create changed the entry: %+v", dup)
	}
	if err := s.Create(&pending.Entry{UID: first.UID, RequestID: "que_2"}); !errors.Is(err, pending.ErrExists) {
		t.Errorf("create with a taken UID: %v, want ErrExists", err)
	}
	if err := s.Create(nil); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("create nil: %v, want ErrInvalid", err)
	}
	if err := s.Create(&pending.Entry{UID: "no:colons"}); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("create with UID %q: %v, want ErrInvalid", "no:colons", err)
	}

	all, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Directory != "/a" {
		t.Errorf("after rejected creates the store holds %+v, want only the first entry", all)
	}
	if _, err := s.ByRequestID("", "que_2"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("ByRequestID(que_2) after a rejected create: %v, want ErrNotFound", err)
	}
}

func TestCreateSameRequestConcurrently(t *testing.T) {
	s := mustOpenStore(t)
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() { errs <- s.Create(&pending.Entry{RequestID: "que_same"}) }()
	}
	won := 0
	for range n {
		switch err := <-errs; {
		case err == nil:
			won++
		case !errors.Is(err, pending.ErrExists):
			t.Errorf("create: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d creates of one request succeeded, want 1", won)
	}
}

func TestUpdateReindexes(t *testing.T) {
	s := mustOpenStore(t)
	e := mustCreate(t, s, &pending.Entry{RequestID: "que_old", Places: shown("")})
	other := mustCreate(t, s, &pending.Entry{RequestID: "que_other", Places: shown("")})

	got, err := s.Update(e.UID, func(e *pending.Entry) error {
		e.RequestID = "que_new"
		e.Places = shown("99")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.RequestID != "que_new" || got.Places["t"] != "99" {
		t.Errorf("Update returned %+v", got)
	}
	if _, err := s.ByRequestID("", "que_old"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("old request key: %v, want ErrNotFound", err)
	}
	for name, get := range map[string]func() (*pending.Entry, error){
		"new request": func() (*pending.Entry, error) { return s.ByRequestID("", "que_new") },
	} {
		if found, err := get(); err != nil || found.UID != e.UID || found.Places["t"] != "99" {
			t.Errorf("%s: %+v, %v", name, found, err)
		}
	}

	// Taking another entry's keys fails and changes nothing.
	for name, fn := range map[string]func(*pending.Entry){
		"request": func(x *pending.Entry) { x.RequestID = other.RequestID },
	} {
		_, err := s.Update(e.UID, func(x *pending.Entry) error { fn(x); x.Directory = "/changed"; return nil })
		if !errors.Is(err, pending.ErrExists) {
			t.Errorf("taking the other entry's %s: %v, want ErrExists", name, err)
		}
	}
	if found, err := s.ByRequestID("", other.RequestID); err != nil || found.UID != other.UID {
		t.Errorf("other entry's request key: %+v, %v", found, err)
	}
	if found, err := s.Get(e.UID); err != nil || found.Directory != "" {
		t.Errorf("entry after failed updates: %+v, %v", found, err)
	}
}

func TestUpdateAborts(t *testing.T) {
	s := mustOpenStore(t)
	e := mustCreate(t, s, &pending.Entry{RequestID: "que_1", Directory: "/a"})

	boom := errors.New("boom")
	_, err := s.Update(e.UID, func(e *pending.Entry) error { e.Directory = "/b"; return boom })
	if !errors.Is(err, boom) {
		t.Errorf("Update with failing fn: %v, want it to wrap fn's error", err)
	}
	_, err = s.Update(e.UID, func(e *pending.Entry) error { e.UID = "other123"; return nil })
	if !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("Update changing the UID: %v, want ErrInvalid", err)
	}
	if got, err := s.Get(e.UID); err != nil || got.Directory != "/a" {
		t.Errorf("after aborted updates: %+v, %v; want it unchanged", got, err)
	}
	if _, err := s.Get("other123"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("Get(other123): %v, want ErrNotFound", err)
	}
	if _, err := s.Update("missing1", func(*pending.Entry) error { return nil }); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("Update of a missing entry: %v, want ErrNotFound", err)
	}
}

func TestDelete(t *testing.T) {
	s := mustOpenStore(t)
	e := mustCreate(t, s, &pending.Entry{RequestID: "que_1", Places: shown("")})
	keep := mustCreate(t, s, &pending.Entry{RequestID: "que_2", Places: shown("")})

	if err := s.Delete(e.UID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(e.UID); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if _, err := s.ByRequestID("", "que_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("ByRequestID after Delete: %v, want ErrNotFound", err)
	}
	if err := s.Delete(e.UID); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	if got, err := s.Get(keep.UID); err != nil || got.UID != keep.UID {
		t.Errorf("other entry after Delete: %+v, %v", got, err)
	}
	// The request can be created again once its entry is gone.
	mustCreate(t, s, &pending.Entry{RequestID: "que_1"})
}

func TestQueries(t *testing.T) {
	s := mustOpenStore(t)
	now := base.Add(time.Hour)
	// Created out of order, so List must sort.
	late := mustCreate(t, s, &pending.Entry{Directory: "/b", CreatedAt: base.Add(3 * time.Second), ExpiresAt: now, Places: shown("1:1")})
	early := mustCreate(t, s, &pending.Entry{Directory: "/a", CreatedAt: base.Add(1 * time.Second), ExpiresAt: now.Add(-time.Second), Places: shown(""), AwaitingText: true})
	mid := mustCreate(t, s, &pending.Entry{Directory: "/b", CreatedAt: base.Add(2 * time.Second), ExpiresAt: now.Add(time.Nanosecond), Places: shown("2:2"), AwaitingText: true})
	never := mustCreate(t, s, &pending.Entry{CreatedAt: base.Add(4 * time.Second), Places: shown("1:3"), AwaitingText: true})

	check := func(name string, got []*pending.Entry, err error, want ...*pending.Entry) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var gotUIDs, wantUIDs []string
		for _, e := range got {
			gotUIDs = append(gotUIDs, e.UID)
		}
		for _, e := range want {
			wantUIDs = append(wantUIDs, e.UID)
		}
		if !reflect.DeepEqual(gotUIDs, wantUIDs) {
			t.Errorf("%s: got %v, want %v", name, gotUIDs, wantUIDs)
		}
	}
	all, err := s.List()
	check("List", all, err, early, mid, late, never)
	expired, err := s.Expired(now)
	check("Expired", expired, err, early, late)
	unsent, err := s.Unsent()
	check("Unsent", unsent, err, early)

	dirs, err := s.Directories()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/a", "/b"}; !reflect.DeepEqual(dirs, want) {
		t.Errorf("Directories: %q, want %q", dirs, want)
	}
}

func TestOpenCreatesFolderAndFilePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "hermes-bot")
	path := filepath.Join(dir, "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s has mode %v, want %v", p, got, want)
		}
	}
}

func TestOpenLeavesExistingFolderMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	s, err := pending.Open(filepath.Join(dir, "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o750 {
		t.Errorf("existing folder's mode became %v, want it left at 0750", got)
	}
}

func TestOpenLockedInProcess(t *testing.T) {
	s := mustOpenStore(t)
	_, err := pending.Open(s.Path(), pending.WithLockTimeout(200*time.Millisecond))
	if !errors.Is(err, pending.ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	if want := "another hermes-bot holds " + s.Path(); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := pending.Open(s.Path(), pending.WithLockTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	again.Close()
}

const helperEnv = "PENDING_TEST_HELPER_DB"

// TestHelperProcess is not a test: TestOpenLockedByAnotherProcess runs the
// test binary again with helperEnv set, and this opens the store from that
// second process. Exit code 3 means ErrLocked.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestOpenLockedByAnotherProcess")
	}
	s, err := pending.Open(path, pending.WithLockTimeout(200*time.Millisecond))
	if err != nil {
		fmt.Fprint(os.Stderr, err)
		if errors.Is(err, pending.ErrLocked) {
			os.Exit(3)
		}
		os.Exit(4)
	}
	// Returning lets the test binary exit 0 the ordinary way.
	s.Close()
}

func TestOpenLockedByAnotherProcess(t *testing.T) {
	s := mustOpenStore(t)
	run := func() (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+s.Path())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("run helper: %v", err)
		}
		return cmd.ProcessState.ExitCode(), stderr.String()
	}

	code, stderr := run()
	if code != 3 {
		t.Fatalf("helper exited %d, want 3 (ErrLocked); stderr: %s", code, stderr)
	}
	if want := "another hermes-bot holds " + s.Path(); !strings.Contains(stderr, want) {
		t.Errorf("helper's error %q does not say %q", stderr, want)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run(); code != 0 {
		t.Errorf("helper after Close exited %d, want 0; stderr: %s", code, stderr)
	}
}

func TestOpenCorrupt(t *testing.T) {
	// A real store whose pages after the two meta pages are overwritten:
	// the meta pages still validate, so bbolt reads on and panics.
	valid := filepath.Join(t.TempDir(), "valid.db")
	s, err := pending.Open(valid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		mustCreate(t, s, &pending.Entry{RequestID: fmt.Sprintf("que_%d", i)})
	}
	s.Close()
	validBytes, err := os.ReadFile(valid)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(validBytes)
	for i := 2 * os.Getpagesize(); i < len(damaged); i++ {
		damaged[i] = byte(i * 7)
	}

	for name, content := range map[string][]byte{
		"text":          bytes.Repeat([]byte("this is not a bbolt file\n"), 1000),
		"tiny":          []byte("hello"),
		"damaged pages": damaged,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pending.db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := pending.Open(path, pending.WithLockTimeout(200*time.Millisecond))
			if err == nil {
				s.Close()
				t.Fatal("Open of a corrupt file succeeded")
			}
			if !errors.Is(err, pending.ErrCorrupt) {
				t.Errorf("error %v does not wrap ErrCorrupt", err)
			}
			for _, want := range []string{path, "move it aside"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			// The failed Open let go of the file: once repaired in place
			// it opens without waiting for a lock.
			if err := os.WriteFile(path, validBytes, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err = pending.Open(path, pending.WithLockTimeout(200*time.Millisecond))
			if err != nil {
				t.Fatalf("Open after repair: %v", err)
			}
			s.Close()
		})
	}
}

func TestUndecodableEntrySkipped(t *testing.T) {
	var logs bytes.Buffer
	s := mustOpenStore(t, pending.WithLogger(zerolog.New(&logs)))
	good := mustCreate(t, s, &pending.Entry{RequestID: "que_1", Directory: "/a", ExpiresAt: base, AwaitingText: true, Places: shown("")})
	if err := pending.PutRaw(s, "broken01", []byte("{not json")); err != nil {
		t.Fatal(err)
	}

	all, err := s.List()
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(all) != 1 || all[0].UID != good.UID {
		t.Errorf("List: %+v, want only the good entry", all)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"level":"warn"`) || !strings.Contains(lines[0], "broken01") {
		t.Errorf("logged %q, want one warning naming broken01", logs.String())
	}

	for name, call := range map[string]func() (int, error){
		"Expired":     func() (int, error) { l, err := s.Expired(base); return len(l), err },
		"Unsent":      func() (int, error) { l, err := s.Unsent(); return len(l), err },
		"Directories": func() (int, error) { l, err := s.Directories(); return len(l), err },
	} {
		if n, err := call(); err != nil || n != 1 {
			t.Errorf("%s: %d results, %v; want the one good entry", name, n, err)
		}
	}

	if _, err := s.Get("broken01"); !errors.Is(err, pending.ErrCorrupt) {
		t.Errorf("Get of the broken entry: %v, want ErrCorrupt", err)
	}
	if _, err := s.Update("broken01", func(*pending.Entry) error { return nil }); !errors.Is(err, pending.ErrCorrupt) {
		t.Errorf("Update of the broken entry: %v, want ErrCorrupt", err)
	}
	if err := s.Delete("broken01"); err != nil {
		t.Fatalf("Delete of the broken entry: %v", err)
	}
	logs.Reset()
	if all, err := s.List(); err != nil || len(all) != 1 {
		t.Errorf("List after Delete: %+v, %v", all, err)
	}
	if logs.Len() != 0 {
		t.Errorf("List after Delete still warns: %s", logs.String())
	}
}

func TestCloseIdempotentThenErrClosed(t *testing.T) {
	s := mustOpenStore(t)
	e := mustCreate(t, s, &pending.Entry{RequestID: "que_1"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Get(e.UID); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("Get after Close: %v, want ErrClosed", err)
	}
	if err := s.Create(&pending.Entry{}); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("Create after Close: %v, want ErrClosed", err)
	}
	if _, err := s.List(); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("List after Close: %v, want ErrClosed", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := mustOpenStore(t)
	const workers, rounds = 6, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*4+workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				e := &pending.Entry{RequestID: fmt.Sprintf("que_%d_%d", w, r), Places: shown("")}
				if err := s.Create(e); err != nil {
					errs <- err
					return
				}
				if _, err := s.Update(e.UID, func(e *pending.Entry) error {
					e.Places = shown(fmt.Sprint(w, ":", r+1))
					return nil
				}); err != nil {
					errs <- err
				}
				if r%2 == 0 {
					if err := s.Delete(e.UID); err != nil {
						errs <- err
					}
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range rounds {
			if _, err := s.List(); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	all, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if want := workers * rounds / 2; len(all) != want {
		t.Errorf("%d entries left, want %d", len(all), want)
	}
	for _, e := range all {
		if got, err := s.ByRequestID("", e.RequestID); err != nil || got.UID != e.UID {
			t.Errorf("ByRequestID(%s): %+v, %v", e.RequestID, got, err)
		}
	}
}

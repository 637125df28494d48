package pending_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/pending"
)

func mustCheckIndexes(t *testing.T, s *pending.Store, after string) {
	t.Helper()
	if err := pending.CheckIndexes(s); err != nil {
		t.Fatalf("after %s: %v", after, err)
	}
}

func uids(es []*pending.Entry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.UID)
	}
	return out
}

func TestIndexesFollowEveryWrite(t *testing.T) {
	s := mustOpenStore(t)
	a := mustCreate(t, s, &pending.Entry{RequestID: "que_a", Directory: "/a", ExpiresAt: base.Add(time.Hour)})
	b := mustCreate(t, s, &pending.Entry{RequestID: "per_b", Directory: "/b", Places: shown("-5:10")})
	c := mustCreate(t, s, &pending.Entry{RequestID: "que_c", Directory: "/a", Places: shown("-5:11"), AwaitingText: true})
	mustCheckIndexes(t, s, "Create")

	if err := s.Create(&pending.Entry{RequestID: "que_a", Directory: "/z"}); !errors.Is(err, pending.ErrExists) {
		t.Fatalf("Create of a held request: %v, want ErrExists", err)
	}
	mustCheckIndexes(t, s, "a refused Create")

	if err := pending.CreateAll(s, []*pending.Entry{{RequestID: "que_d", Directory: "/d", ExpiresAt: base}, {Directory: "/d"}}); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "CreateAll")

	steps := []struct {
		name string
		uid  string
		fn   func(*pending.Entry) error
	}{
		{"post", a.UID, func(e *pending.Entry) error { e.Places = shown("-5:20"); return nil }},
		{"move directory and request", a.UID, func(e *pending.Entry) error { e.Directory, e.RequestID = "/c", "que_a2"; return nil }},
		{"move expiry", a.UID, func(e *pending.Entry) error { e.ExpiresAt = base.Add(-time.Hour); return nil }},
		{"clear expiry", a.UID, func(e *pending.Entry) error { e.ExpiresAt = time.Time{}; return nil }},
		{"set expiry", b.UID, func(e *pending.Entry) error { e.ExpiresAt = base; return nil }},
		{"lose message", b.UID, func(e *pending.Entry) error { e.Places = shown(""); return nil }},
		{"drop request ID", b.UID, func(e *pending.Entry) error { e.RequestID = ""; return nil }},
		{"aborted", c.UID, func(e *pending.Entry) error { e.Directory = "/x"; return errors.New("no") }},
		{"taken request", c.UID, func(e *pending.Entry) error { e.Directory, e.RequestID = "/x", "que_d"; return nil }},
	}
	for _, st := range steps {
		_, _ = s.Update(st.uid, st.fn)
		mustCheckIndexes(t, s, "Update: "+st.name)
	}
	if e, err := s.Get(c.UID); err != nil || e.Directory != "/a" {
		t.Fatalf("refused updates changed the entry: %+v, %v", e, err)
	}

	if err := s.Delete(a.UID); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Delete")

	// An entry damaged after it was indexed: Delete cannot decode it to
	// find its keys, and must still leave none behind.
	if err := pending.PutRaw(s, c.UID, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(c.UID); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Delete of an undecodable entry")

	d := mustCreate(t, s, &pending.Entry{RequestID: "que_e", Directory: "/e", ExpiresAt: base, Places: shown("")})
	if err := s.DeleteClosed(d.UID, pending.ClosedRequest{Toast: "done", At: base}); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "DeleteClosed")
	f := mustCreate(t, s, &pending.Entry{RequestID: "que_f", Directory: "/f", ExpiresAt: base})
	if err := pending.PutRaw(s, f.UID, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteClosed(f.UID, pending.ClosedRequest{Toast: "done", At: base}); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "DeleteClosed of an undecodable entry")

	g := mustCreate(t, s, &pending.Entry{RequestID: "que_g", Directory: "/g", Places: shown("-5:30"), AwaitingText: true})
	if err := s.Unpost("t", func(at pending.Place) bool { return strings.HasPrefix(string(at), "-5:") }); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Unpost")
	unsent, err := s.Unsent()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(uids(unsent), g.UID) {
		t.Errorf("Unsent after a chat migration: %v, want it to hold %s", uids(unsent), g.UID)
	}
}

func TestUnsentAfterPost(t *testing.T) {
	s := mustOpenStore(t)
	e1 := mustCreate(t, s, &pending.Entry{RequestID: "que_1", CreatedAt: base})
	e2 := mustCreate(t, s, &pending.Entry{RequestID: "que_2", CreatedAt: base.Add(-time.Second)})
	mustCreate(t, s, &pending.Entry{RequestID: "que_3", Places: shown("-5:9")})

	want := func(step string, want ...string) {
		t.Helper()
		got, err := s.Unsent()
		if err != nil {
			t.Fatalf("%s: Unsent: %v", step, err)
		}
		if !slices.Equal(uids(got), want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%s: Unsent = %v, want %v", step, uids(got), want)
		}
	}
	want("created", e2.UID, e1.UID) // oldest first
	if _, err := s.Update(e2.UID, func(e *pending.Entry) error { e.Places = shown("-5:10"); return nil }); err != nil {
		t.Fatal(err)
	}
	want("one posted", e1.UID)
	if _, err := s.Update(e1.UID, func(e *pending.Entry) error { e.Places = shown("-5:11"); return nil }); err != nil {
		t.Fatal(err)
	}
	want("both posted")
	if _, err := s.Update(e1.UID, func(e *pending.Entry) error { e.Places = shown(""); return nil }); err != nil {
		t.Fatal(err)
	}
	want("message lost", e1.UID)
}

func TestExpiredBoundary(t *testing.T) {
	s := mustOpenStore(t)
	now := base.Add(time.Hour)
	mk := func(at time.Time, created time.Duration) *pending.Entry {
		return mustCreate(t, s, &pending.Entry{Directory: "/a", ExpiresAt: at, CreatedAt: base.Add(created)})
	}
	before := mk(now.Add(-time.Nanosecond), 3)
	exact := mk(now, 2)
	longAgo := mk(time.Date(1950, 1, 1, 0, 0, 0, 0, time.UTC), 4) // before 1970: negative nanoseconds
	mk(now.Add(time.Nanosecond), 0)
	mk(time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), 1) // past what UnixNano can say
	mk(time.Time{}, 5)                                 // never expires
	mk(now.In(time.FixedZone("later", 3600)).Add(time.Nanosecond), 6)

	for _, tc := range []struct {
		at   time.Time
		want []string
	}{
		{now, []string{exact.UID, before.UID, longAgo.UID}},
		{now.Add(-time.Nanosecond), []string{before.UID, longAgo.UID}},
		{time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), []string{longAgo.UID}},
		{time.Date(1940, 1, 1, 0, 0, 0, 0, time.UTC), nil},
	} {
		got, err := s.Expired(tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(uids(got), append([]string{}, tc.want...)) {
			t.Errorf("Expired(%v) = %v, want %v", tc.at, uids(got), tc.want)
		}
	}
	all, err := s.Expired(time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Errorf("Expired in 2400: %d entries, want the 6 with an expiry", len(all))
	}
}

func TestDirectoriesAndCompareListed(t *testing.T) {
	var logs bytes.Buffer
	s := mustOpenStore(t, pending.WithLogger(zerolog.New(&logs)))
	a1 := mustCreate(t, s, &pending.Entry{RequestID: "que_a1", Directory: "/a", CreatedAt: base.Add(2)})
	a2 := mustCreate(t, s, &pending.Entry{RequestID: "per_a2", Directory: "/a", CreatedAt: base.Add(1)})
	a3 := mustCreate(t, s, &pending.Entry{RequestID: "que_a3", Directory: "/a", CreatedAt: base.Add(3)})
	mustCreate(t, s, &pending.Entry{RequestID: "que_ab", Directory: "/a/b"})
	mustCreate(t, s, &pending.Entry{RequestID: "que_ab2", Directory: "/ab"})
	mustCreate(t, s, &pending.Entry{RequestID: "que_none"})

	dirs, err := s.Directories()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/a", "/a/b", "/ab"}; !slices.Equal(dirs, want) {
		t.Errorf("Directories = %q, want %q", dirs, want)
	}

	listed := map[string]bool{"que_a1": true, "que_ab": true, "que_new": true}
	held, unlisted, err := s.CompareListed("", "/a", listed)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]bool{"que_a1": true, "que_ab": true}; !reflect.DeepEqual(held, want) {
		t.Errorf("held = %v, want %v", held, want)
	}
	if want := []string{a2.UID, a3.UID}; !slices.Equal(uids(unlisted), want) {
		t.Errorf("unlisted = %v, want %v (oldest first, only /a)", uids(unlisted), want)
	}

	if err := pending.PutRaw(s, a3.UID, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	held, unlisted, err = s.CompareListed("", "/a", map[string]bool{"que_a3": true})
	if err != nil {
		t.Fatal(err)
	}
	if !held["que_a3"] || !slices.Equal(uids(unlisted), []string{a2.UID, a1.UID}) {
		t.Errorf("with %s damaged: held %v, unlisted %v", a3.UID, held, uids(unlisted))
	}
	if logs.Len() != 0 {
		t.Errorf("a listed damaged entry was decoded: %s", logs.String())
	}
	if _, unlisted, err = s.CompareListed("", "/a", nil); err != nil || len(unlisted) != 2 {
		t.Errorf("CompareListed with nothing listed: %v, %v; want the 2 decodable entries", uids(unlisted), err)
	}
	if !strings.Contains(logs.String(), a3.UID) {
		t.Errorf("no warning names the damaged entry: %s", logs.String())
	}
	held, unlisted, err = s.CompareListed("", "/nowhere", map[string]bool{"que_a1": true})
	if err != nil || !held["que_a1"] || len(unlisted) != 0 {
		t.Errorf("CompareListed of an unknown directory: %v, %v, %v", held, uids(unlisted), err)
	}
}

// dropIndexes edits the closed file at path with bbolt directly, so as
// to take away or spoil its listing indexes.
func dropIndexes(t *testing.T, path string, edit func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(edit); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// A file without its listing indexes, or holding another version of
// them, gets them built again from its entries on Open.
func TestIndexesRebuiltOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path, pending.WithClock(func() time.Time { return base }))
	if err != nil {
		t.Fatal(err)
	}
	due := &pending.Entry{RequestID: "que_1", Directory: "/a", ExpiresAt: base}
	posted := &pending.Entry{RequestID: "que_2", Directory: "/b", Places: shown("-5:3"), ExpiresAt: base.Add(time.Hour)}
	for _, e := range []*pending.Entry{due, posted} {
		if err := s.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := pending.PutRaw(s, "broken01", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	reopen := func(step string) (*pending.Store, string) {
		t.Helper()
		var logs bytes.Buffer
		s, err := pending.Open(path, pending.WithLogger(zerolog.New(&logs)))
		if err != nil {
			t.Fatalf("%s: reopen: %v", step, err)
		}
		t.Cleanup(func() { _ = s.Close() })
		mustCheckIndexes(t, s, step)
		return s, logs.String()
	}
	wantListings := func(step string, s *pending.Store) {
		t.Helper()
		if dirs, err := s.Directories(); err != nil || !slices.Equal(dirs, []string{"/a", "/b"}) {
			t.Errorf("%s: Directories = %q, %v", step, dirs, err)
		}
		if got, err := s.Expired(base); err != nil || !slices.Equal(uids(got), []string{due.UID}) {
			t.Errorf("%s: Expired = %v, %v; want %s", step, uids(got), err, due.UID)
		}
		if got, err := s.Unsent(); err != nil || !slices.Equal(uids(got), []string{due.UID}) {
			t.Errorf("%s: Unsent = %v, %v; want %s", step, uids(got), err, due.UID)
		}
	}

	dropIndexes(t, path, func(tx *bolt.Tx) error {
		for _, name := range pending.IndexBuckets {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
	s1, logs := reopen("reopen without the index buckets")
	wantListings("buckets dropped", s1)
	if !strings.Contains(logs, "broken01") || !strings.Contains(logs, "built the indexes") {
		t.Errorf("rebuild logged %q, want a warning naming broken01 and a note of the rebuild", logs)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}

	// A reopen of a file already indexed builds nothing.
	s2, logs := reopen("second reopen")
	if logs != "" {
		t.Errorf("second reopen logged %q, want nothing", logs)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}

	// Buckets present but of no known version (say, written by a build
	// that got them wrong) are built again, stale keys and all.
	dropIndexes(t, path, func(tx *bolt.Tx) error {
		if err := tx.Bucket([]byte("meta")).Delete(pending.IndexVersionKey); err != nil {
			return err
		}
		for _, name := range pending.IndexBuckets {
			if err := tx.Bucket(name).Put([]byte("stale\x00zzzzzzzz"), []byte{}); err != nil {
				return err
			}
		}
		return nil
	})
	s3, _ := reopen("reopen without the index version")
	wantListings("version dropped", s3)
}

// reopenEdited closes s, edits its file with bbolt directly, and opens it
// again.
func reopenEdited(t *testing.T, s *pending.Store, edit func(tx *bolt.Tx) error) *pending.Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dropIndexes(t, s.Path(), edit)
	s, err := pending.Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestDirectoriesSkipsStaleKeys(t *testing.T) {
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, &pending.Entry{UID: "bbbbbbbb", RequestID: "que_a", Directory: "/a"})
	mustCreate(t, s, &pending.Entry{UID: "cccccccc", RequestID: "que_b", Directory: "/b"})
	// Keys whose entry is gone: one before the live key of /a, and all
	// of /gone's.
	s = reopenEdited(t, s, func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte("byDirectory"))
		for _, k := range []string{"/a\x00AAAAAAAA", "/gone\x00AAAAAAAA", "/gone\x00zzzzzzzz"} {
			if err := bk.Put([]byte(k), []byte("que_x")); err != nil {
				return err
			}
		}
		return nil
	})
	if dirs, err := s.Directories(); err != nil || !slices.Equal(dirs, []string{"/a", "/b"}) {
		t.Errorf("Directories = %q, %v; want /a and /b", dirs, err)
	}
}

func TestDirectoriesManyEntriesFewDirectories(t *testing.T) {
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{"/p/one", "/p/three", "/p/two", ""}
	var es []*pending.Entry
	for i := range 2000 {
		es = append(es, &pending.Entry{RequestID: fmt.Sprintf("que_%d", i), Directory: dirs[i%len(dirs)]})
	}
	if err := pending.CreateAll(s, es); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Directories(); err != nil || !slices.Equal(got, dirs[:3]) {
		t.Errorf("Directories = %q, %v; want %q", got, err, dirs[:3])
	}
	// Every entry of /p/two gone but its index keys, and of /p/one all
	// but the last: only /p/two is no longer listed.
	var lastOne string
	for _, e := range es {
		if e.Directory == "/p/one" && e.UID > lastOne {
			lastOne = e.UID
		}
	}
	s = reopenEdited(t, s, func(tx *bolt.Tx) error {
		for _, e := range es {
			if (e.Directory == "/p/one" && e.UID != lastOne) || e.Directory == "/p/two" {
				if err := tx.Bucket([]byte("entries")).Delete([]byte(e.UID)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if got, err := s.Directories(); err != nil || !slices.Equal(got, []string{"/p/one", "/p/three"}) {
		t.Errorf("Directories after entries went = %q, %v; want /p/one and /p/three", got, err)
	}
}

// A directory holding a NUL has keys among another's: "/a\x00b\x00…"
// sits between "/a\x00AAAAAAA1" and "/a\x00zzzzzzz1".
func TestDirectoriesWithNUL(t *testing.T) {
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range []struct{ uid, dir string }{
		{"AAAAAAA1", "/a"}, {"BBBBBBB1", "/a\x00b"}, {"zzzzzzz1", "/a"}, {"CCCCCCC1", "/a\x00"},
	} {
		mustCreate(t, s, &pending.Entry{UID: e.uid, RequestID: fmt.Sprint("que_", i), Directory: e.dir})
	}
	want := []string{"/a", "/a\x00", "/a\x00b"}
	if got, err := s.Directories(); err != nil || !slices.Equal(got, want) {
		t.Errorf("Directories = %q, %v; want %q", got, err, want)
	}
	// A rebuild of the indexes notes the NULs again.
	s = reopenEdited(t, s, func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		if err := meta.Delete(pending.NulDirectoryKey); err != nil {
			return err
		}
		return meta.Delete(pending.IndexVersionKey)
	})
	if got, err := s.Directories(); err != nil || !slices.Equal(got, want) {
		t.Errorf("Directories after a rebuild = %q, %v; want %q", got, err, want)
	}
}

func TestSessionsOf(t *testing.T) {
	s := mustOpenStore(t)
	mustCreate(t, s, &pending.Entry{RequestID: "que_1", SessionID: "ses_b"})
	mustCreate(t, s, &pending.Entry{RequestID: "que_2", SessionID: "ses_a"})
	mustCreate(t, s, &pending.Entry{RequestID: "que_3", SessionID: "ses_a"})
	// A subagent's request: its parent holds none of its own.
	mustCreate(t, s, &pending.Entry{RequestID: "que_4", SessionID: "ses_child", ParentSessionID: "ses_parent"})
	mustCreate(t, s, &pending.Entry{RequestID: "que_5"})
	mustCreate(t, s, &pending.Entry{RequestID: "que_6", SessionID: "ses_other", Server: "work"})
	mustCreate(t, s, &pending.Entry{RequestID: "que_7", SessionID: "ses_a", Server: "work"})

	if got, err := s.SessionsOf(""); err != nil || !slices.Equal(got, []string{"ses_a", "ses_b", "ses_child"}) {
		t.Errorf("SessionsOf(\"\") = %q, %v", got, err)
	}
	if got, err := s.SessionsOf("work"); err != nil || !slices.Equal(got, []string{"ses_a", "ses_other"}) {
		t.Errorf("SessionsOf(work) = %q, %v", got, err)
	}
	if got, err := s.SessionsOf("none"); err != nil || len(got) != 0 {
		t.Errorf("SessionsOf(none) = %q, %v", got, err)
	}
}

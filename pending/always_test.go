package pending_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/pending"
)

func TestRememberAlways(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s := openMetaStore(t, path)
	if _, ok, err := s.AlwaysGiven("", "/a"); ok || err != nil {
		t.Fatalf("AlwaysGiven before any = %v, %v", ok, err)
	}
	if added, err := s.RememberAlways("", "/a", "edit"); !added || err != nil {
		t.Fatalf("RememberAlways = %v, %v; want it added", added, err)
	}
	// The first record stays: a later always in the same directory adds nothing.
	if added, err := s.RememberAlways("", "/a", "external_directory"); added || err != nil {
		t.Errorf("RememberAlways again = %v, %v; want nothing added", added, err)
	}
	if _, err := s.RememberAlways("", "", "edit"); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("no directory: err = %v, want ErrInvalid", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMetaStore(t, path)
	if v, ok, err := s.AlwaysGiven("", "/a"); !ok || err != nil || !strings.HasPrefix(v, "edit ") {
		t.Errorf("AlwaysGiven after reopen = %q, %v, %v; want edit", v, ok, err)
	}
	// Another server, or another directory, is another record.
	for _, k := range [][2]string{{"work", "/a"}, {"", "/a/b"}, {"", "/"}} {
		if _, ok, err := s.AlwaysGiven(k[0], k[1]); ok || err != nil {
			t.Errorf("AlwaysGiven(%q, %q) = %v, %v; want nothing", k[0], k[1], ok, err)
		}
	}
}

// ForgetAlways ends a record and AlwaysList lists what is left, across a
// reopen, with servers and directories that need quoting.
func TestForgetAlways(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	clock := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	open := func() *pending.Store {
		s, err := pending.Open(path, pending.WithClock(func() time.Time { return clock }))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	s := open()
	want := []pending.Always{
		{Server: "", Directory: "/home/u/demo", Kind: "edit"},
		{Server: `we"ird:1`, Directory: "/home/u/demo", Kind: "external_directory"},
		{Server: "ci", Directory: `/srv/a b/\"x`, Kind: "write"},
	}
	for i := range want {
		want[i].At = clock
		if _, err := s.RememberAlways(want[i].Server, want[i].Directory, want[i].Kind); err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Minute)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open()
	got, err := s.AlwaysList()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("AlwaysList after reopen = %+v, %v\nwant %+v", got, err, want)
	}
	if had, err := s.ForgetAlways(`we"ird:1`, "/home/u/demo"); !had || err != nil {
		t.Fatalf("ForgetAlways = %v, %v; want a record forgotten", had, err)
	}
	if had, err := s.ForgetAlways(`we"ird:1`, "/home/u/demo"); had || err != nil {
		t.Errorf("ForgetAlways again = %v, %v; want nothing", had, err)
	}
	if _, ok, _ := s.AlwaysGiven(`we"ird:1`, "/home/u/demo"); ok {
		t.Error("AlwaysGiven still finds the forgotten record")
	}
	if _, ok, _ := s.AlwaysGiven("", "/home/u/demo"); !ok {
		t.Error("forgetting one server's record forgot the other's")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open()
	got, err = s.AlwaysList()
	if want := []pending.Always{want[0], want[2]}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("AlwaysList after forgetting and reopening = %+v, %v\nwant %+v", got, err, want)
	}
	// A record after a forget is new again.
	if added, err := s.RememberAlways(`we"ird:1`, "/home/u/demo", "edit"); !added || err != nil {
		t.Errorf("RememberAlways after ForgetAlways = %v, %v; want it added", added, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AlwaysList(); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("AlwaysList after Close: %v, want ErrClosed", err)
	}
	if _, err := s.ForgetAlways("", "/home/u/demo"); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("ForgetAlways after Close: %v, want ErrClosed", err)
	}
}

// A record written by hand is listed as far as it can be read: one whose
// key names no server is skipped with a warning, one without a time is
// listed without one. Neither stops the listing.
func TestAlwaysListOddRecords(t *testing.T) {
	var logs strings.Builder
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"), pending.WithLogger(zerolog.New(&logs)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.RememberAlways("", "/a", "edit"); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{`always:no-quote/b`: "edit 2026-01-02T15:04:05Z", `always:""`: "edit", `always:"x"/c`: "edit"} {
		if err := pending.PutMetaRaw(s, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.AlwaysList()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (pending.Always{Server: "x", Directory: "/c", Kind: "edit"}) || got[1].Directory != "/a" || got[1].At.IsZero() {
		t.Errorf("AlwaysList = %+v; want x's /c without a time, then /a", got)
	}
	if n := strings.Count(logs.String(), "cannot be read"); n != 2 {
		t.Errorf("%d warnings, want one for each unreadable key:\n%s", n, logs.String())
	}
}

// A permission whose call could not be read is stored without Run and
// reads with none; one with Run keeps it.
func TestPermissionRunJSON(t *testing.T) {
	var old pending.Entry
	if err := json.Unmarshal([]byte(`{"uid":"u","kind":"permission","permission":{"kind":"bash","patterns":["ls"]}}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Permission == nil || old.Permission.Run != nil {
		t.Fatalf("old entry's permission = %+v, want one without Run", old.Permission)
	}
	e := pending.Entry{UID: "u", Permission: &pending.Permission{Kind: "bash", Run: &pending.Run{Read: true, Workdir: "/p/.git", Elsewhere: true, Timeout: 5}}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back pending.Entry
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if *back.Permission.Run != *e.Permission.Run {
		t.Errorf("Run = %+v, want %+v", back.Permission.Run, e.Permission.Run)
	}
}

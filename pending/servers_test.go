package pending_test

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// Two opencode servers may each have a request que_1: both are held, each
// found under its own server, and closing one leaves the other.
func TestSameRequestIDOnTwoServers(t *testing.T) {
	s := mustOpenStore(t)
	a := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, Server: "laptop", Directory: "/p", RequestID: "que_1"})
	b := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, Server: "ci", Directory: "/p", RequestID: "que_1"})
	for _, tc := range []struct {
		server, uid string
	}{{"laptop", a.UID}, {"ci", b.UID}} {
		got, err := s.ByRequestID(tc.server, "que_1")
		if err != nil || got.UID != tc.uid || got.Server != tc.server {
			t.Errorf("ByRequestID(%s, que_1) = %+v, %v; want entry %s", tc.server, got, err, tc.uid)
		}
	}
	if _, err := s.ByRequestID("", "que_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("ByRequestID of the unnamed server found a named server's request: %v", err)
	}
	// The same request ID on the same server is still refused.
	if err := s.Create(&pending.Entry{Kind: pending.KindQuestion, Server: "ci", RequestID: "que_1"}); !errors.Is(err, pending.ErrExists) {
		t.Errorf("second que_1 of ci: %v, want ErrExists", err)
	}

	held, unlisted, err := s.CompareListed("ci", "/p", map[string]bool{"que_1": true})
	if err != nil || !held["que_1"] || len(unlisted) != 0 {
		t.Errorf("CompareListed(ci) listing que_1 = %v, %v, %v; want it held and nothing unlisted", held, unlisted, err)
	}
	_, unlisted, err = s.CompareListed("ci", "/p", map[string]bool{})
	if err != nil || len(unlisted) != 1 || unlisted[0].UID != b.UID {
		t.Errorf("CompareListed(ci) listing nothing = %v, %v; want only ci's entry %s", unlisted, err, b.UID)
	}

	if err := s.DeleteClosed(a.UID, pending.ClosedRequest{Toast: "answered", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if uid, c, ok, err := s.ClosedByRequestID("laptop", "que_1"); err != nil || !ok || uid != a.UID || c.Server != "laptop" {
		t.Errorf("ClosedByRequestID(laptop) = %q, %+v, %v, %v; want %s", uid, c, ok, err, a.UID)
	}
	if _, _, ok, err := s.ClosedByRequestID("ci", "que_1"); ok || err != nil {
		t.Errorf("ClosedByRequestID(ci) = %v, %v; ci's que_1 is still open", ok, err)
	}
	if got, err := s.ByRequestID("ci", "que_1"); err != nil || got.UID != b.UID {
		t.Errorf("ci's que_1 after laptop's closed = %+v, %v", got, err)
	}
}

// The unnamed server's requests are indexed by their request ID alone, a
// named server's by name and ID; both are found again after a reopen.
func TestUnnamedServerKeepsItsKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1"})
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, Server: "ci", RequestID: "que_2"})
	keys := pending.RequestIndexKeys(s)
	if !slices.Contains(keys, "que_1") || !slices.Contains(keys, "ci\x00que_2") {
		t.Errorf("request index keys = %q; want que_1 bare and ci's keyed by name", keys)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMetaStore(t, path)
	if got, err := s.ByRequestID("", "que_1"); err != nil || got.Server != "" {
		t.Errorf("ByRequestID after reopen = %+v, %v", got, err)
	}
}

func TestDirectoriesOf(t *testing.T) {
	s := mustOpenStore(t)
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, Server: "laptop", Directory: "/a", RequestID: "que_1"})
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, Server: "ci", Directory: "/a", RequestID: "que_1"})
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, Server: "ci", Directory: "/b", RequestID: "que_2"})
	for server, want := range map[string][]string{"laptop": {"/a"}, "ci": {"/a", "/b"}, "": nil} {
		if got, err := s.DirectoriesOf(server); err != nil || !slices.Equal(got, want) {
			t.Errorf("DirectoriesOf(%q) = %q, %v; want %q", server, got, err, want)
		}
	}
	if got, err := s.Directories(); err != nil || !slices.Equal(got, []string{"/a", "/b"}) {
		t.Errorf("Directories = %q, %v", got, err)
	}
}

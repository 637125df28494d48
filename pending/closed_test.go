package pending_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

func TestClosedRememberedAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	e := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1", Places: shown("-5:7")})
	at := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	want := pending.ClosedRequest{Toast: "answered", At: at, Places: shown("-5:7")}
	if err := s.DeleteClosed(e.UID, want); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(e.UID); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("entry still there after DeleteClosed: %v", err)
	}
	if _, err := s.ByRequestID("", "que_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("request index kept: %v", err)
	}
	// The request ID is free again.
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openMetaStore(t, path)
	got, ok, err := s.Closed(e.UID)
	if err != nil || !ok || got.Toast != want.Toast || !got.At.Equal(at) || got.Places["t"] != "-5:7" || got.RequestID != "que_1" {
		t.Fatalf("Closed after reopen = %+v, %v, %v; want %+v for request que_1", got, ok, err, want)
	}
	if uid, got, ok, err := s.ClosedByRequestID("", "que_1"); err != nil || !ok || uid != e.UID || got.Toast != want.Toast {
		t.Fatalf("ClosedByRequestID = %q, %+v, %v, %v; want %s", uid, got, ok, err, e.UID)
	}
	if _, _, ok, err := s.ClosedByRequestID("", "que_2"); ok || err != nil {
		t.Errorf("ClosedByRequestID of a request never closed = %v, %v", ok, err)
	}
	if _, ok, err := s.Closed("nEver1"); ok || err != nil {
		t.Errorf("Closed of an unknown UID = %v, %v", ok, err)
	}
	if _, ok, err := s.Closed("not a uid!"); ok || err != nil {
		t.Errorf("Closed of a bad UID = %v, %v", ok, err)
	}
}

func TestRememberClosedWithoutEntry(t *testing.T) {
	s := mustOpenStore(t)
	at := time.Now()
	if err := s.RememberClosed("grp1", pending.ClosedRequest{Toast: "expired", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.RememberClosed("grp1", pending.ClosedRequest{Toast: "answered", At: at}); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.Closed("grp1"); !ok || err != nil || got.Toast != "answered" {
		t.Errorf("Closed = %+v, %v, %v; want the newer toast", got, ok, err)
	}
	// Remembering a request deleted closed again keeps its request ID.
	e := mustCreate(t, s, &pending.Entry{Kind: pending.KindPermission, RequestID: "per_1"})
	if err := s.DeleteClosed(e.UID, pending.ClosedRequest{Toast: "elsewhere", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.RememberClosed(e.UID, pending.ClosedRequest{Toast: "answered", At: at}); err != nil {
		t.Fatal(err)
	}
	if uid, got, ok, _ := s.ClosedByRequestID("", "per_1"); !ok || uid != e.UID || got.Toast != "answered" || got.RequestID != "per_1" {
		t.Errorf("ClosedByRequestID after RememberClosed = %q, %+v, %v", uid, got, ok)
	}
	// DeleteClosed of an entry already gone still remembers it.
	if err := s.DeleteClosed("gone1", pending.ClosedRequest{Toast: "gone", At: at}); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.Closed("gone1"); !ok || got.Toast != "gone" {
		t.Errorf("Closed of a deleted-before entry = %+v, %v", got, ok)
	}
	for _, bad := range []string{"", "a:b", "ü"} {
		if err := s.RememberClosed(bad, pending.ClosedRequest{}); !errors.Is(err, pending.ErrInvalid) {
			t.Errorf("RememberClosed(%q) = %v, want ErrInvalid", bad, err)
		}
		if err := s.DeleteClosed(bad, pending.ClosedRequest{}); !errors.Is(err, pending.ErrInvalid) {
			t.Errorf("DeleteClosed(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestPruneClosed(t *testing.T) {
	s := mustOpenStore(t)
	now := time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	for uid, age := range map[string]time.Duration{"old1": 25 * time.Hour, "old2": 48 * time.Hour, "new1": time.Hour, "new2": 0} {
		if err := s.RememberClosed(uid, pending.ClosedRequest{Toast: uid, At: now.Add(-age)}); err != nil {
			t.Fatal(err)
		}
	}
	// Other meta keys are left alone.
	if _, err := s.RememberAlways("", "/p", "edit"); err != nil {
		t.Fatal(err)
	}
	// Closed through DeleteClosed, so also found by request ID.
	old := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_old"})
	if err := s.DeleteClosed(old.UID, pending.ClosedRequest{Toast: "old", At: now.Add(-30 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	recent := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_new"})
	if err := s.DeleteClosed(recent.UID, pending.ClosedRequest{Toast: "new", At: now}); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneClosed(now.Add(-24 * time.Hour))
	if err != nil || n != 3 {
		t.Fatalf("PruneClosed = %d, %v; want 3", n, err)
	}
	if _, _, ok, err := s.ClosedByRequestID("", "que_old"); ok || err != nil {
		t.Errorf("pruned request still found by request ID: %v, %v", ok, err)
	}
	if _, _, ok, err := s.ClosedByRequestID("", "que_new"); !ok || err != nil {
		t.Errorf("recent request not found by request ID: %v, %v", ok, err)
	}
	for uid, want := range map[string]bool{"old1": false, "old2": false, "new1": true, "new2": true} {
		if _, ok, err := s.Closed(uid); ok != want || err != nil {
			t.Errorf("Closed(%s) after prune = %v, %v; want %v", uid, ok, err, want)
		}
	}
	if n, err := s.PruneClosed(now.Add(-24 * time.Hour)); n != 0 || err != nil {
		t.Errorf("second PruneClosed = %d, %v; want 0", n, err)
	}
	if _, ok, err := s.AlwaysGiven("", "/p"); !ok || err != nil {
		t.Errorf("always answer lost by prune: %v, %v", ok, err)
	}
}

func TestClosedAfterClose(t *testing.T) {
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := s.RememberClosed("abc", pending.ClosedRequest{}); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("RememberClosed after Close = %v", err)
	}
	if _, _, err := s.Closed("abc"); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("Closed after Close = %v", err)
	}
	if _, err := s.PruneClosed(time.Now()); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("PruneClosed after Close = %v", err)
	}
}

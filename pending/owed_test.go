package pending_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

// A closing edit recorded with the close outlives a restart, until it is
// reported taken; one owed since with another text stays.
func TestOwedEditsSurviveReopenUntilEdited(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	q := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1", Places: shown("-5:7")})
	p := mustCreate(t, s, &pending.Entry{Kind: pending.KindPermission, RequestID: "per_1", Places: shown("-5:8")})
	answered := pending.Edit{Frontend: "t", Place: "-5:7", Text: "✅ answered", At: at}
	if err := s.DeleteClosed(q.UID, pending.ClosedRequest{Toast: "answered", At: at}, answered); err != nil {
		t.Fatal(err)
	}
	expired := pending.Edit{Frontend: "t", Place: "-5:8", Text: "⌛ expired", At: at.Add(time.Second)}
	if _, err := s.Update(p.UID, func(e *pending.Entry) error {
		e.ExpiredNotified = true
		return nil
	}, expired); err != nil {
		t.Fatal(err)
	}
	// A request never posted owes nothing.
	u := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_2", Places: shown("")})
	if err := s.DeleteClosed(u.UID, pending.ClosedRequest{Toast: "gone", At: at}, pending.Edit{Frontend: "t", Place: "", Text: "x", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openMetaStore(t, path)
	got, err := s.OwedEdits()
	if err != nil || len(got) != 2 || got[0] != answered || got[1] != expired {
		t.Fatalf("OwedEdits after reopen = %+v, %v; want %+v then %+v", got, err, answered, expired)
	}
	// An edit reported with an older text leaves the newer one owed.
	if err := s.Edited(pending.Edit{Frontend: "t", Place: "-5:8", Text: "⌛ expired, not told"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Edited(answered); err != nil {
		t.Fatal(err)
	}
	if err := s.Edited(answered); err != nil {
		t.Errorf("Edited twice: %v", err)
	}
	if got, err := s.OwedEdits(); err != nil || len(got) != 1 || got[0] != expired {
		t.Fatalf("OwedEdits after Edited = %+v, %v; want only %+v", got, err, expired)
	}
}

func TestPruneClosedForgetsOldOwedEdits(t *testing.T) {
	s := mustOpenStore(t)
	at := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	old := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1", Places: shown("-5:7")})
	recent := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_2", Places: shown("-5:9")})
	if err := s.DeleteClosed(old.UID, pending.ClosedRequest{Toast: "a", At: at}, pending.Edit{Frontend: "t", Place: "-5:7", Text: "old", At: at}); err != nil {
		t.Fatal(err)
	}
	keep := pending.Edit{Frontend: "t", Place: "-5:9", Text: "new", At: at.Add(time.Hour)}
	if err := s.DeleteClosed(recent.UID, pending.ClosedRequest{Toast: "a", At: keep.At}, keep); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PruneClosed(at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.OwedEdits(); err != nil || len(got) != 1 || got[0] != keep {
		t.Fatalf("OwedEdits after prune = %+v, %v; want only %+v", got, err, keep)
	}
}

func TestUIDFor(t *testing.T) {
	a := pending.UIDFor("http://127.0.0.1:4096", "que_1")
	if len(a) != 8 || strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
		t.Fatalf("UIDFor = %q, want 8 characters of [a-zA-Z0-9]", a)
	}
	if b := pending.UIDFor("http://127.0.0.1:4096", "que_1"); b != a {
		t.Errorf("UIDFor differs between calls: %q, %q", a, b)
	}
	seen := map[string]bool{a: true}
	for _, other := range []string{pending.UIDFor("http://127.0.0.1:4097", "que_1"), pending.UIDFor("http://127.0.0.1:4096", "que_2")} {
		if seen[other] {
			t.Errorf("UIDFor gave %q to another request or server", other)
		}
		seen[other] = true
	}
	// The UID is one Create accepts.
	s := mustOpenStore(t)
	mustCreate(t, s, &pending.Entry{UID: a, Kind: pending.KindQuestion, RequestID: "que_1"})
}

// An edit owed without a time is stamped with the store's clock when it is
// recorded, so pruning the closed requests of long ago keeps it. Unstamped,
// it read as owed since the year 1, and the first prune after a crash
// dropped it before the restart could send it.
func TestOwedEditWithoutTimeIsStampedAndSurvivesPrune(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"), pending.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	q := mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1", Places: shown("-5:7")})
	p := mustCreate(t, s, &pending.Entry{Kind: pending.KindPermission, RequestID: "per_1", Places: shown("-5:8")})
	if err := s.DeleteClosed(q.UID, pending.ClosedRequest{Toast: "answered", At: now}, pending.Edit{Frontend: "t", Place: "-5:7", Text: "✅"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(p.UID, func(e *pending.Entry) error { e.ExpiredNotified = true; return nil },
		pending.Edit{Frontend: "t", Place: "-5:8", Text: "⌛"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PruneClosed(now.Add(-24 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err := s.OwedEdits()
	if err != nil || len(got) != 2 {
		t.Fatalf("OwedEdits after prune = %+v, %v; want both edits", got, err)
	}
	for _, e := range got {
		if !e.At.Equal(now) {
			t.Errorf("edit of message %s owed at %v, want the store's clock %v", e.Place, e.At, now)
		}
	}
}

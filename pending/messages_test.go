package pending_test

import (
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/pending"
)

func TestMessageSessionRoundTripAndPrune(t *testing.T) {
	var now atomic.Int64
	base := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	now.Store(base.UnixNano())
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"),
		pending.WithClock(func() time.Time { return time.Unix(0, now.Load()).UTC() }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	ref := pending.SessionRef{Directory: "/p", ID: "ses_1"}
	if _, ok, err := s.MessageSession("t", "-100:5"); ok || err != nil {
		t.Fatalf("MessageSession before = %v, %v; want nothing", ok, err)
	}
	if err := s.RememberMessage("t", "-100:5", ref); err != nil {
		t.Fatal(err)
	}
	if err := s.RememberMessage("t", "-100:9", ref); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.MessageSession("t", "-100:5")
	if err != nil || !ok || got != ref {
		t.Fatalf("MessageSession = %+v, %v, %v; want %+v", got, ok, err, ref)
	}
	if _, ok, _ := s.MessageSession("t", "-10:5"); ok {
		t.Fatal("another chat's message 5 found")
	}
	at, gotRef, ok, err := s.LatestMessage("t", "ses_1")
	if err != nil || !ok || at != "-100:9" || gotRef != ref {
		t.Fatalf("LatestMessage = %+v, %+v, %v, %v; want message 9", at, gotRef, ok, err)
	}
	// A prompt for a new session names only a directory: no latest message.
	if err := s.RememberMessage("t", "-100:11", pending.SessionRef{Directory: "/q"}); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.MessageSession("t", "-100:11"); !ok || got.ID != "" || got.Directory != "/q" {
		t.Fatalf("new-session prompt = %+v, %v", got, ok)
	}

	if dirs, err := s.RecentDirectories(); err != nil || len(dirs) != 2 || dirs[0].ID != "" {
		t.Fatalf("RecentDirectories = %q, %v; want /p and /q", dirs, err)
	}

	// A day later they are forgotten.
	now.Store(base.Add(25 * time.Hour).UnixNano())
	if _, err := s.PruneClosed(base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.MessageSession("t", "-100:5"); ok {
		t.Fatal("message remembered after prune")
	}
	if _, _, ok, _ := s.LatestMessage("t", "ses_1"); ok {
		t.Fatal("latest message remembered after prune")
	}
}

func TestRememberMessageRejects(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	for _, at := range [][2]string{{"", "1"}, {"t", ""}} {
		if err := s.RememberMessage(at[0], pending.Place(at[1]), pending.SessionRef{Directory: "/p", ID: "s"}); !errors.Is(err, pending.ErrInvalid) {
			t.Errorf("RememberMessage(%q) = %v, want ErrInvalid", at, err)
		}
	}
	if err := s.RememberMessage("t", "-1:1", pending.SessionRef{ID: "s"}); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("RememberMessage without directory = %v, want ErrInvalid", err)
	}
}

func TestClosedRequestMessageKeepsItsSession(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	e := &pending.Entry{UID: "abc12345", Kind: pending.KindQuestion, Directory: "/p", SessionID: "ses_q", RequestID: "que_1",
		Places:    shown("-100:42"),
		Questions: []pending.Question{{Text: "?"}}, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	if err := s.Create(e); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.MessageSession("t", "-100:42"); ok {
		t.Fatal("an open request's message is already remembered as a session message")
	}
	if err := s.DeleteClosed(e.UID, pending.ClosedRequest{Toast: "answered", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.MessageSession("t", "-100:42")
	if err != nil || !ok || got != (pending.SessionRef{Directory: "/p", ID: "ses_q"}) {
		t.Fatalf("MessageSession after close = %+v, %v, %v", got, ok, err)
	}
}

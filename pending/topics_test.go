package pending_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/hermes-bot/hermes-bot/pending"
)

func wantTopic(t *testing.T, s *pending.Store, chat int64, dir string, want int, wantOK bool) {
	t.Helper()
	got, ok, err := s.ThreadFor(chat, dir)
	if err != nil || got != want || ok != wantOK {
		t.Fatalf("ThreadFor(%d, %q) = %d, %v, %v; want %d, %v, nil", chat, dir, got, ok, err, want, wantOK)
	}
}

func TestThreadRoundTrip(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	wantTopic(t, s, -100, "/a", 0, false)
	if err := s.RememberThread(-100, "/a", 7); err != nil {
		t.Fatal(err)
	}
	// A colon in a directory must not make it collide with another chat's key.
	if err := s.RememberThread(-10, "0:/a", 9); err != nil {
		t.Fatal(err)
	}
	wantTopic(t, s, -100, "/a", 7, true)
	wantTopic(t, s, -10, "0:/a", 9, true)
	wantTopic(t, s, -100, "/b", 0, false)
	wantTopic(t, s, -200, "/a", 0, false)
	if err := s.RememberThread(-100, "/a", 11); err != nil {
		t.Fatal(err)
	}
	wantTopic(t, s, -100, "/a", 11, true)
}

func TestThreadSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RememberThread(-100, "/home/me/p", 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wantTopic(t, openMetaStore(t, path), -100, "/home/me/p", 3, true)
}

func TestRememberThreadRejects(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	for _, c := range []struct {
		chat   int64
		dir    string
		thread int
	}{{0, "/a", 1}, {-1, "", 1}, {-1, "/a", 0}, {-1, "/a", -3}} {
		if err := s.RememberThread(c.chat, c.dir, c.thread); !errors.Is(err, pending.ErrInvalid) {
			t.Errorf("RememberThread(%d, %q, %d) = %v, want ErrInvalid", c.chat, c.dir, c.thread, err)
		}
	}
	wantTopic(t, s, -1, "/a", 0, false)
}

func TestThreadAfterClose(t *testing.T) {
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ThreadFor(-1, "/a"); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("ThreadFor after Close: %v, want ErrClosed", err)
	}
	if err := s.RememberThread(-1, "/a", 1); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("RememberThread after Close: %v, want ErrClosed", err)
	}
}

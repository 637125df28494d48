package pending_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/hermes-bot/hermes-bot/pending"
)

// openMetaStore opens a store at path and closes it when the test ends.
func openMetaStore(t *testing.T, path string) *pending.Store {
	t.Helper()
	s, err := pending.Open(path)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

func TestMovePlacesRefusesBadIDs(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	for _, ids := range [][2]int64{{0, -1}, {-1, 0}, {-1, -1}} {
		if err := s.MovePlaces(ids[0], ids[1]); !errors.Is(err, pending.ErrInvalid) {
			t.Errorf("MovePlaces(%d, %d) = %v, want ErrInvalid", ids[0], ids[1], err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.MovePlaces(-1, -2); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("MovePlaces after Close: %v", err)
	}
}

func TestMovePlacesMovesEntries(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	posted := &pending.Entry{RequestID: "que_posted", Place: pending.Place{Chat: -5, Message: 42}}
	prompting := &pending.Entry{RequestID: "que_prompt", Place: pending.Place{Chat: -5, Message: 43},
		AwaitingText: true, AwaitingQuestion: 1, AwaitingUserID: 7, Prompt: 44,
		Answers: [][]string{{"yes"}}, Current: 1}
	elsewhere := &pending.Entry{RequestID: "que_other", Place: pending.Place{Chat: -6, Message: 50}, AwaitingText: true, Prompt: 51}
	for _, e := range []*pending.Entry{posted, prompting, elsewhere} {
		if err := s.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := pending.PutRaw(s, "broken", []byte("{not json")); err != nil {
		t.Fatal(err)
	}

	if err := s.MovePlaces(-5, -100999); err != nil {
		t.Fatal(err)
	}
	if err := s.MovePlaces(-5, -100999); err != nil {
		t.Fatalf("moving again: %v", err)
	}

	for _, uid := range []string{posted.UID, prompting.UID} {
		e, err := s.Get(uid)
		if err != nil {
			t.Fatal(err)
		}
		if e.Place.Chat != -100999 || e.Place.Message != 0 || e.Prompt != 0 || e.AwaitingText || e.AwaitingUserID != 0 {
			t.Fatalf("entry %s after migration: %+v", uid, e)
		}
	}
	e, err := s.Get(prompting.UID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Current != 1 || len(e.Answers) != 1 {
		t.Fatalf("answers so far were lost: %+v", e)
	}
	if _, err := s.ByPrompt(-5, 44); !errors.Is(err, pending.ErrNotFound) {
		t.Fatalf("stale prompt still indexed: %v", err)
	}
	if _, err := s.ByRequestID("", "que_prompt"); err != nil {
		t.Fatalf("request index lost: %v", err)
	}
	unsent, err := s.Unsent()
	if err != nil {
		t.Fatal(err)
	}
	if len(unsent) != 2 {
		t.Fatalf("%d unsent entries after migration, want the 2 moved", len(unsent))
	}
	other, err := s.Get(elsewhere.UID)
	if err != nil {
		t.Fatal(err)
	}
	if other.Place.Chat != -6 || other.Place.Message != 50 || !other.AwaitingText || other.Prompt != 51 {
		t.Fatalf("entry of another chat changed: %+v", other)
	}
	if _, err := s.ByPrompt(-6, 51); err != nil {
		t.Fatalf("prompt of another chat lost: %v", err)
	}
	if waiting, err := s.AwaitingText(-100999); err != nil || len(waiting) != 0 {
		t.Fatalf("AwaitingText in the new chat: %d, %v", len(waiting), err)
	}
}

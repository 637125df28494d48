package pending_test

import (
	"errors"
	"path/filepath"
	"strings"
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

// Unpost forgets the places a front-end lost: the entries are owed their
// message there again and no longer await text; others are left alone.
func TestUnpost(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	if err := s.Unpost("", func(pending.Place) bool { return true }); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("Unpost of no front-end = %v, want ErrInvalid", err)
	}
	two := map[string]pending.Place{"t": "-5:42", "m": "$ev"}
	posted := &pending.Entry{RequestID: "que_posted", Places: two}
	prompting := &pending.Entry{RequestID: "que_prompt", Places: shown("-5:43"),
		AwaitingText: true, AwaitingQuestion: 1, Answers: [][]string{{"yes"}}, Current: 1}
	elsewhere := &pending.Entry{RequestID: "que_other", Places: shown("-6:50"), AwaitingText: true}
	for _, e := range []*pending.Entry{posted, prompting, elsewhere} {
		if err := s.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := pending.PutRaw(s, "broken", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	gone := func(at pending.Place) bool { return strings.HasPrefix(string(at), "-5:") }
	for range 2 {
		if err := s.Unpost("t", gone); err != nil {
			t.Fatal(err)
		}
	}
	for _, uid := range []string{posted.UID, prompting.UID} {
		e, err := s.Get(uid)
		if err != nil {
			t.Fatal(err)
		}
		if at, ok := e.Places["t"]; !ok || at != "" || e.AwaitingText {
			t.Fatalf("entry %s after Unpost: %+v", uid, e)
		}
	}
	if e, err := s.Get(posted.UID); err != nil || e.Places["m"] != "$ev" {
		t.Fatalf("another front-end's place changed: %+v, %v", e, err)
	}
	if e, err := s.Get(prompting.UID); err != nil || e.Current != 1 || len(e.Answers) != 1 {
		t.Fatalf("answers so far were lost: %+v, %v", e, err)
	}
	unsent, err := s.Unsent()
	if err != nil || len(unsent) != 2 {
		t.Fatalf("%d unsent entries after Unpost (%v), want the 2 unposted", len(unsent), err)
	}
	if other, err := s.Get(elsewhere.UID); err != nil || other.Places["t"] != "-6:50" || !other.AwaitingText {
		t.Fatalf("entry of another chat changed: %+v, %v", other, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Unpost("t", gone); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("Unpost after Close: %v", err)
	}
}

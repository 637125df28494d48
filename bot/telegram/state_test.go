package telegram_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/pending"
)

// openState opens a store at path, closed when the test ends, and
// returns it with the front-end's state in it.
func openState(t *testing.T, path string) (*pending.Store, *telegram.State) {
	t.Helper()
	s, err := pending.Open(path)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, telegram.StateOf(s)
}

func wantChatFor(t *testing.T, st *telegram.State, configured, want int64) {
	t.Helper()
	got, err := st.ChatFor(configured)
	if err != nil || got != want {
		t.Fatalf("ChatFor(%d) = %d, %v; want %d", configured, got, err, want)
	}
}

func TestMoveChatRoundTrip(t *testing.T) {
	_, st := openState(t, filepath.Join(t.TempDir(), "pending.db"))
	wantChatFor(t, st, -5, -5)
	if err := st.MoveChat(-5, -100999); err != nil {
		t.Fatal(err)
	}
	wantChatFor(t, st, -5, -100999)
	wantChatFor(t, st, -100999, -100999)
	wantChatFor(t, st, -6, -6)
	if err := st.MoveChat(-5, -100999); err != nil {
		t.Fatalf("remembering twice: %v", err)
	}
	wantChatFor(t, st, -5, -100999)
}

func TestMoveChatSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := telegram.StateOf(s).MoveChat(-5, -100999); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, st := openState(t, path)
	wantChatFor(t, st, -5, -100999)
}

func TestMoveChatChains(t *testing.T) {
	_, st := openState(t, filepath.Join(t.TempDir(), "pending.db"))
	// b → c first, then a → b: a ends at c.
	if err := st.MoveChat(-2, -3); err != nil {
		t.Fatal(err)
	}
	if err := st.MoveChat(-1, -2); err != nil {
		t.Fatal(err)
	}
	wantChatFor(t, st, -1, -3)
	// And c → d moves both on.
	if err := st.MoveChat(-3, -4); err != nil {
		t.Fatal(err)
	}
	wantChatFor(t, st, -1, -4)
	wantChatFor(t, st, -2, -4)
	if err := st.MoveChat(-4, -1); !errors.Is(err, pending.ErrInvalid) {
		t.Fatalf("a loop was accepted: %v", err)
	}
}

func TestMoveChatRefusesBadIDs(t *testing.T) {
	s, st := openState(t, filepath.Join(t.TempDir(), "pending.db"))
	for _, ids := range [][2]int64{{0, -1}, {-1, 0}, {-1, -1}} {
		if err := st.MoveChat(ids[0], ids[1]); !errors.Is(err, pending.ErrInvalid) {
			t.Errorf("MoveChat(%d, %d) = %v, want ErrInvalid", ids[0], ids[1], err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ChatFor(-1); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("ChatFor after Close: %v", err)
	}
	if err := st.MoveChat(-1, -2); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("MoveChat after Close: %v", err)
	}
}

func TestMoveChatMovesEntries(t *testing.T) {
	s, st := openState(t, filepath.Join(t.TempDir(), "pending.db"))
	posted := &pending.Entry{RequestID: "que_posted", Places: map[string]pending.Place{telegram.Name: telegram.PlaceFor(-5, 42)}, AwaitingText: true}
	elsewhere := &pending.Entry{RequestID: "que_other", Places: map[string]pending.Place{telegram.Name: telegram.PlaceFor(-6, 50)}}
	for _, e := range []*pending.Entry{posted, elsewhere} {
		if err := s.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	// -2 moved to -5 earlier: the entries move straight to the end.
	if err := st.MoveChat(-2, -5); err != nil {
		t.Fatal(err)
	}
	if err := st.MoveChat(-5, -100999); err != nil {
		t.Fatal(err)
	}
	wantChatFor(t, st, -2, -100999)
	e, err := s.Get(posted.UID)
	if at, ok := e.Places[telegram.Name]; err != nil || !ok || at != "" || e.AwaitingText {
		t.Fatalf("entry after migration: %+v, %v", e, err)
	}
	if e, err := s.Get(elsewhere.UID); err != nil || e.Places[telegram.Name] != telegram.PlaceFor(-6, 50) {
		t.Fatalf("entry of another chat: %+v, %v", e, err)
	}
}

func TestInputCursorRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st := telegram.StateOf(s)
	if id, at, err := st.InputCursor(123); id != 0 || !at.IsZero() || err != nil {
		t.Fatalf("InputCursor of a new store = %d, %v, %v", id, at, err)
	}
	at := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	if err := st.SetInputCursor(123, 900, at); err != nil {
		t.Fatal(err)
	}
	if err := st.SetInputCursor(123, 901, at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := st.SetInputCursor(456, 5, at); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.SetInputCursor(1, 2, at); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("SetInputCursor after Close = %v", err)
	}
	_, st = openState(t, path)
	if id, got, err := st.InputCursor(123); id != 901 || !got.Equal(at.Add(time.Second)) || err != nil {
		t.Errorf("InputCursor(123) after reopen = %d, %v, %v; want 901", id, got, err)
	}
	if id, _, err := st.InputCursor(456); id != 5 || err != nil {
		t.Errorf("InputCursor(456) = %d, %v; want 5: update IDs count per bot", id, err)
	}
	if id, _, err := st.InputCursor(789); id != 0 || err != nil {
		t.Errorf("InputCursor of another bot = %d, %v", id, err)
	}
}

func TestStateCorruptRecords(t *testing.T) {
	s, st := openState(t, filepath.Join(t.TempDir(), "pending.db"))
	kv := s.FrontendState("telegram")
	for k, v := range map[string]string{"updateOffset:1": "{not json", "chatMigration:-1": "x", "topic:-1:/a": "-3"} {
		if err := kv.Put(k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := st.InputCursor(1); !errors.Is(err, pending.ErrCorrupt) {
		t.Errorf("InputCursor of a broken record = %v, want ErrCorrupt", err)
	}
	if _, err := st.ChatFor(-1); !errors.Is(err, pending.ErrCorrupt) {
		t.Errorf("ChatFor of a broken record = %v, want ErrCorrupt", err)
	}
	if _, _, err := st.ThreadFor(-1, "/a"); !errors.Is(err, pending.ErrCorrupt) {
		t.Errorf("ThreadFor of a broken record = %v, want ErrCorrupt", err)
	}
}

func wantTopic(t *testing.T, st *telegram.State, chat int64, dir string, want int, wantOK bool) {
	t.Helper()
	got, ok, err := st.ThreadFor(chat, dir)
	if err != nil || got != want || ok != wantOK {
		t.Fatalf("ThreadFor(%d, %q) = %d, %v, %v; want %d, %v, nil", chat, dir, got, ok, err, want, wantOK)
	}
}

func TestThreadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st := telegram.StateOf(s)
	wantTopic(t, st, -100, "/a", 0, false)
	if err := st.RememberThread(-100, "/a", 7); err != nil {
		t.Fatal(err)
	}
	// A colon in a directory must not make it collide with another chat's key.
	if err := st.RememberThread(-10, "0:/a", 9); err != nil {
		t.Fatal(err)
	}
	wantTopic(t, st, -100, "/a", 7, true)
	wantTopic(t, st, -10, "0:/a", 9, true)
	wantTopic(t, st, -100, "/b", 0, false)
	wantTopic(t, st, -200, "/a", 0, false)
	if err := st.RememberThread(-100, "/a", 11); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.ThreadFor(-1, "/a"); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("ThreadFor after Close: %v, want ErrClosed", err)
	}
	if err := st.RememberThread(-1, "/a", 1); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("RememberThread after Close: %v, want ErrClosed", err)
	}
	_, st = openState(t, path)
	wantTopic(t, st, -100, "/a", 11, true)
}

func TestRememberThreadRejects(t *testing.T) {
	_, st := openState(t, filepath.Join(t.TempDir(), "pending.db"))
	for _, c := range []struct {
		chat   int64
		dir    string
		thread int
	}{{0, "/a", 1}, {-1, "", 1}, {-1, "/a", 0}, {-1, "/a", -3}} {
		if err := st.RememberThread(c.chat, c.dir, c.thread); !errors.Is(err, pending.ErrInvalid) {
			t.Errorf("RememberThread(%d, %q, %d) = %v, want ErrInvalid", c.chat, c.dir, c.thread, err)
		}
	}
	wantTopic(t, st, -1, "/a", 0, false)
}

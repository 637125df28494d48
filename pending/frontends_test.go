package pending_test

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/pending"
)

func wantState(t *testing.T, st *pending.State, key, want string, wantOK bool) {
	t.Helper()
	got, ok, err := st.Get(key)
	if err != nil || ok != wantOK || string(got) != want {
		t.Fatalf("Get(%q) = %q, %v, %v; want %q, %v", key, got, ok, err, want, wantOK)
	}
}

func TestFrontendStateRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.FrontendState("a"), s.FrontendState("b")
	wantState(t, a, "k", "", false)
	if err := a.Put("k", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := a.Put("k", []byte("2")); err != nil {
		t.Fatal(err)
	}
	if err := a.Put("gone", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete("gone"); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete("never"); err != nil {
		t.Fatalf("deleting a missing key: %v", err)
	}
	if err := a.Put("empty", nil); err != nil {
		t.Fatal(err)
	}
	wantState(t, a, "k", "2", true)
	wantState(t, a, "gone", "", false)
	wantState(t, a, "empty", "", true)
	wantState(t, b, "k", "", false) // each front-end has its own space
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openMetaStore(t, path)
	wantState(t, s.FrontendState("a"), "k", "2", true)
}

func TestFrontendStateUpdateAndForEach(t *testing.T) {
	s := openMetaStore(t, filepath.Join(t.TempDir(), "pending.db"))
	st := s.FrontendState("fe")
	err := st.Update(func(kv pending.KV) error {
		for _, k := range []string{"p:2", "p:1", "q:1", "p"} {
			if err := kv.Put(k, []byte(k)); err != nil {
				return err
			}
		}
		if v, ok := kv.Get("p:1"); !ok || string(v) != "p:1" {
			t.Errorf("Get inside the transaction = %q, %v", v, ok)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	err = st.View(func(kv pending.KV) error {
		return kv.ForEach("p:", func(k string, v []byte) error {
			if k != string(v) {
				t.Errorf("%q holds %q", k, v)
			}
			keys = append(keys, k)
			return nil
		})
	})
	if err != nil || !slices.Equal(keys, []string{"p:1", "p:2"}) {
		t.Fatalf("ForEach(p:) = %q, %v", keys, err)
	}
	// A failing Update writes nothing.
	boom := errors.New("boom")
	err = st.Update(func(kv pending.KV) error {
		if err := kv.Put("p:3", []byte("x")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	wantState(t, st, "p:3", "", false)
	// View does not write.
	err = st.View(func(kv pending.KV) error { return kv.Put("x", []byte("y")) })
	if !errors.Is(err, pending.ErrInvalid) {
		t.Fatalf("Put in View = %v, want ErrInvalid", err)
	}
	// A state never written reads empty.
	err = s.FrontendState("new").View(func(kv pending.KV) error {
		if _, ok := kv.Get("x"); ok {
			t.Error("a key in a state never written")
		}
		return kv.ForEach("", func(string, []byte) error { t.Error("a key in a state never written"); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFrontendStateRefuses(t *testing.T) {
	s, err := pending.Open(filepath.Join(t.TempDir(), "pending.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FrontendState("").Put("k", nil); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("Put on a nameless state = %v, want ErrInvalid", err)
	}
	if err := s.FrontendState("a").Put("", nil); !errors.Is(err, pending.ErrInvalid) {
		t.Errorf("Put of an empty key = %v, want ErrInvalid", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.FrontendState("a").Get("k"); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("Get after Close = %v, want ErrClosed", err)
	}
	if err := s.FrontendState("a").Put("k", nil); !errors.Is(err, pending.ErrClosed) {
		t.Errorf("Put after Close = %v, want ErrClosed", err)
	}
}

// TestOpenMovesTelegramStateOfOldRelease checks that the Telegram
// bookkeeping a file of 03d8d17 kept in the meta bucket is moved,
// verbatim, to the Telegram front-end's state on open, and only it.
func TestOpenMovesTelegramStateOfOldRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	old := map[string]string{
		"updateOffset:123":     `{"updateID":900,"at":"2030-01-01T12:00:00Z"}`,
		"chatMigration:-5":     "-100999",
		"topic:-100999:/a:b/c": "7",
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		// As 03d8d17 wrote them: no frontends bucket, the keys in meta.
		if err := tx.DeleteBucket([]byte("frontends")); err != nil {
			return err
		}
		if err := tx.Bucket([]byte("meta")).Put([]byte("schema"), []byte("place")); err != nil {
			return err
		}
		for k, v := range old {
			if err := tx.Bucket([]byte("meta")).Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err2 := db.Close(); err == nil {
		err = err2
	}
	if err != nil {
		t.Fatal(err)
	}

	s, err = pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tg := s.FrontendState("telegram")
	for k, v := range old {
		wantState(t, tg, k, v, true)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		for k := range old {
			if meta.Get([]byte(k)) != nil {
				t.Errorf("%s is still in the meta bucket", k)
			}
		}
		for _, k := range []string{"schema", "indexVersion"} {
			if meta.Get([]byte(k)) == nil {
				t.Errorf("%s was moved out of the meta bucket", k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package pending_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/pending"
)

// rawEdit runs edit on the closed store file at path with bbolt directly.
func rawEdit(t *testing.T, path string, edit func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(edit); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// rawGet returns the bytes under key in bucket of the closed store file at
// path; nil when there are none.
func rawGet(t *testing.T, path, bucket, key string) []byte {
	t.Helper()
	var out []byte
	rawEdit(t, path, func(tx *bolt.Tx) error {
		out = bytes.Clone(tx.Bucket([]byte(bucket)).Get([]byte(key)))
		return nil
	})
	return out
}

// A file of the last release, with one place per record (Telegram's),
// is rewritten once with a place per front-end: the entry, its closed
// record, an owed edit and a remembered message all name the place of
// "telegram", whose encoding is the old place's JSON.
func TestOpenUpgradesOneTelegramPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	const at = `{"chat":-5,"message":7,"thread":3}`
	rawEdit(t, path, func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		for k, v := range map[string]string{
			"schema":           "place",
			"owed:-5:7":        `{"place":` + at + `,"text":"✅ done","at":"2030-01-01T12:00:00Z"}`,
			"msgSession:-5:7":  `{"ref":{"directory":"/p","session":"ses_1"},"place":` + at + `,"at":"2030-01-01T12:00:00Z"}`,
			"sessionMsg:ses_1": `{"ref":{"directory":"/p","session":"ses_1"},"place":` + at + `,"at":"2030-01-01T12:00:00Z"}`,
			"closed:closed01":  `{"toast":"answered","at":"2030-01-01T12:00:00Z","place":` + at + `,"text":"✅ done"}`,
		} {
			if err := meta.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		entries := tx.Bucket([]byte("entries"))
		if err := entries.Put([]byte("posted01"), []byte(`{"uid":"posted01","kind":"question","requestID":"que_1","place":`+at+`,"prompt":9,"awaitingText":true}`)); err != nil {
			return err
		}
		return entries.Put([]byte("unsent01"), []byte(`{"uid":"unsent01","kind":"question","requestID":"que_2","place":{"chat":-5}}`))
	})
	s = openMetaStore(t, path)
	if e, err := s.Get("posted01"); err != nil || e.Places["telegram"] != at || !e.AwaitingText {
		t.Errorf("posted entry after the upgrade: %+v, %v", e, err)
	}
	if unsent, err := s.Unsent(); err != nil || len(unsent) != 1 || unsent[0].UID != "unsent01" {
		t.Errorf("Unsent after the upgrade: %+v, %v", unsent, err)
	}
	if owed, err := s.OwedEdits(); err != nil || len(owed) != 1 || owed[0].Frontend != "telegram" || owed[0].Place != at || owed[0].Text != "✅ done" {
		t.Errorf("owed edits after the upgrade: %+v, %v", owed, err)
	}
	if ref, ok, err := s.MessageSession("telegram", at); err != nil || !ok || ref.ID != "ses_1" {
		t.Errorf("message session after the upgrade: %+v, %v, %v", ref, ok, err)
	}
	if p, _, ok, err := s.LatestMessage("telegram", "ses_1"); err != nil || !ok || p != at {
		t.Errorf("latest message after the upgrade: %q, %v, %v", p, ok, err)
	}
	if c, ok, err := s.Closed("closed01"); err != nil || !ok || c.Places["telegram"] != at || c.Texts["telegram"] != "✅ done" {
		t.Errorf("closed request after the upgrade: %+v, %v, %v", c, ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(rawGet(t, path, "meta", "schema")); got != "places" {
		t.Errorf("schema after the upgrade %q", got)
	}
}

// A new file is marked with today's shape at once.
func TestNewStoreIsMarked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(rawGet(t, path, "meta", "schema")); got != "places" {
		t.Errorf("schema marker of a new file %q, want %q", got, "places")
	}
}

// A file holding the store's buckets but no schema marker was written by
// a release older than pending.OldestRelease: Open refuses it, naming the
// file and the release to open it with, and writes nothing to it. A
// marker of a shape this release does not know is refused as well.
func TestOpenRefusesFileOfAnotherShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1", Places: shown("-5:7")})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		marker []byte // nil: none
		want   error
		says   []string
	}{
		{nil, pending.ErrTooOld, []string{"older than " + pending.OldestRelease, "open it once with hermes-bot " + pending.OldestRelease, "mv " + path}},
		{[]byte("forms"), pending.ErrCorrupt, []string{`marked "forms"`, "mv " + path}},
	} {
		rawEdit(t, path, func(tx *bolt.Tx) error {
			meta := tx.Bucket([]byte("meta"))
			if c.marker == nil {
				return meta.Delete([]byte("schema"))
			}
			return meta.Put([]byte("schema"), c.marker)
		})
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the refusal leaves the file unlocked
			s, err := pending.Open(path, pending.WithLockTimeout(100*time.Millisecond))
			if err == nil {
				_ = s.Close()
				t.Fatalf("marker %q: the file opened", c.marker)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("marker %q: Open = %v, want %v", c.marker, err, c.want)
			}
			for _, want := range append(c.says, path) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("marker %q: the error does not say %q: %v", c.marker, want, err)
				}
			}
		}
		if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
			t.Errorf("marker %q: the refused file changed (%v)", c.marker, err)
		}
	}
	if errors.Is(pending.ErrTooOld, pending.ErrCorrupt) {
		t.Error("ErrTooOld is taken for a damaged file")
	}
}

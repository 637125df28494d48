package pending_test

import (
	"bytes"
	"encoding/json"
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

func TestPlaceJSON(t *testing.T) {
	raw, err := json.Marshal(pending.Entry{UID: "u1", Place: pending.Place{Chat: -5, Message: 7, Thread: 3}, Prompt: 9})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"place":{"chat":-5,"message":7,"thread":3}`) || !strings.Contains(string(raw), `"prompt":9`) {
		t.Errorf("entry encodes as %s", raw)
	}
	raw, err = json.Marshal(pending.ClosedRequest{Toast: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "place") {
		t.Errorf("a closed request shown nowhere encodes a place: %s", raw)
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
	if got := string(rawGet(t, path, "meta", "schema")); got != "place" {
		t.Errorf("schema marker of a new file %q, want %q", got, "place")
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
	mustCreate(t, s, &pending.Entry{Kind: pending.KindQuestion, RequestID: "que_1", Place: pending.Place{Chat: -5, Message: 7}})
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

package pending_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
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

// jsonKeys returns the top-level keys of the JSON object raw.
func jsonKeys(t *testing.T, raw []byte) map[string]bool {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s is not a JSON object: %v", raw, err)
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return keys
}

// wantNewShape fails unless raw holds key "place" (when place) and none of
// the keys of the shape before Place.
func wantNewShape(t *testing.T, what string, raw []byte, place bool) {
	t.Helper()
	keys := jsonKeys(t, raw)
	for _, old := range []string{"chatID", "messageID", "threadID", "promptMessageID"} {
		if keys[old] {
			t.Errorf("%s still holds %q after Open: %s", what, old, raw)
		}
	}
	if keys["place"] != place {
		t.Errorf("%s: holds \"place\" %v, want %v: %s", what, keys["place"], place, raw)
	}
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

// Records in the shape before Place are rewritten by the first Open, read
// the same before and after, and a second Open rewrites nothing.
func TestOpenUpgradesOldShapeOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.db")
	s, err := pending.Open(path, pending.WithClock(func() time.Time { return base }))
	if err != nil {
		t.Fatal(err)
	}
	// Created in today's shape, so the indexes are right, then put back
	// below in the old one: the index keys are made of the same numbers.
	mustCreate(t, s, &pending.Entry{UID: "posted", Kind: pending.KindQuestion, RequestID: "que_1",
		Place: pending.Place{Chat: -5, Message: 7, Thread: 3}, Prompt: 9, AwaitingText: true, CreatedAt: base})
	mustCreate(t, s, &pending.Entry{UID: "unsent", Kind: pending.KindPermission, RequestID: "per_1",
		Place: pending.Place{Chat: -5}, CreatedAt: base.Add(time.Second)})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	old := map[string]string{
		"entries/posted": `{"uid":"posted","kind":"question","directory":"","sessionID":"","requestID":"que_1","chatID":-5,"messageID":7,"threadID":3,"awaitingText":true,"promptMessageID":9,"createdAt":"2025-03-04T05:06:07.000000008Z","expiresAt":"0001-01-01T00:00:00Z"}`,
		"entries/unsent": `{"uid":"unsent","kind":"permission","directory":"","sessionID":"","requestID":"per_1","chatID":-5,"createdAt":"2025-03-04T05:06:08.000000008Z","expiresAt":"0001-01-01T00:00:00Z"}`,
		// A record of the old shape that cannot be decoded: left alone.
		"entries/broken":   `{"uid":"broken","chatID":"not a number"}`,
		"meta/closed:gone": `{"toast":"answered","at":"2025-03-04T05:06:07Z","chatID":-5,"messageID":11,"requestID":"que_0","text":"done"}`,
		"meta/owed:-5:11":  `{"chatID":-5,"messageID":11,"text":"done","at":"2025-03-04T05:06:07Z"}`,
	}
	put := func(tx *bolt.Tx) error {
		for k, v := range old {
			bucket, key, _ := strings.Cut(k, "/")
			if err := tx.Bucket([]byte(bucket)).Put([]byte(key), []byte(v)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("meta")).Delete([]byte("schema"))
	}
	rawEdit(t, path, put)

	// check reads every record back as it was written.
	check := func(s *pending.Store) {
		t.Helper()
		e, err := s.Get("posted")
		if err != nil || e.Place != (pending.Place{Chat: -5, Message: 7, Thread: 3}) || e.Prompt != 9 || !e.AwaitingText {
			t.Errorf("posted entry %+v, %v", e, err)
		}
		if e, err := s.ByPrompt(-5, 9); err != nil || e.UID != "posted" {
			t.Errorf("ByPrompt(-5, 9) = %+v, %v", e, err)
		}
		if got, err := s.Unsent(); err != nil || len(got) != 1 || got[0].UID != "unsent" || got[0].Place != (pending.Place{Chat: -5}) {
			t.Errorf("Unsent = %+v, %v", got, err)
		}
		c, ok, err := s.Closed("gone")
		if err != nil || !ok || c.Place != (pending.Place{Chat: -5, Message: 11}) || c.RequestID != "que_0" || c.Text != "done" {
			t.Errorf("closed request %+v, %v, %v", c, ok, err)
		}
		owed, err := s.OwedEdits()
		if err != nil || len(owed) != 1 || owed[0].Place != (pending.Place{Chat: -5, Message: 11}) || owed[0].Text != "done" {
			t.Errorf("owed edits %+v, %v", owed, err)
		}
	}

	var logs bytes.Buffer
	s, err = pending.Open(path, pending.WithLogger(zerolog.New(&logs)))
	if err != nil {
		t.Fatal(err)
	}
	check(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `"key":"broken"`) {
		t.Errorf("the undecodable entry is not named in the logs: %s", logs.String())
	}
	wantNewShape(t, "entry posted", rawGet(t, path, "entries", "posted"), true)
	wantNewShape(t, "entry unsent", rawGet(t, path, "entries", "unsent"), true)
	wantNewShape(t, "closed request", rawGet(t, path, "meta", "closed:gone"), true)
	wantNewShape(t, "owed edit", rawGet(t, path, "meta", "owed:-5:11"), true)
	if got := string(rawGet(t, path, "entries", "broken")); got != old["entries/broken"] {
		t.Errorf("the undecodable entry was rewritten: %s", got)
	}
	if got := string(rawGet(t, path, "meta", "schema")); got != "place" {
		t.Errorf("schema marker %q, want %q", got, "place")
	}
	raw, _ := json.Marshal(pending.Edit{Place: pending.Place{Chat: -5, Message: 11}, Text: "done", At: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)})
	if got := rawGet(t, path, "meta", "owed:-5:11"); !bytes.Equal(got, raw) {
		t.Errorf("owed edit stored as %s, want %s", got, raw)
	}

	// Put the old records back: with the marker there, Open leaves them
	// (it upgrades a file once, and nothing writes the old shape since).
	rawEdit(t, path, func(tx *bolt.Tx) error {
		for k, v := range old {
			bucket, key, _ := strings.Cut(k, "/")
			if err := tx.Bucket([]byte(bucket)).Put([]byte(key), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	})
	s, err = pending.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for k, v := range old {
		bucket, key, _ := strings.Cut(k, "/")
		if got := string(rawGet(t, path, bucket, key)); got != v {
			t.Errorf("the second Open rewrote %s: %s", k, got)
		}
	}
}

// A new file is marked at once: it holds nothing of the old shape.
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

// testdata/store-2b254d6.db was written by the pending package of
// hermes-bot 2b254d6, the last release before Place, whose records name
// the place after Telegram (chatID, messageID, threadID, promptMessageID).
// A throwaway test of that release made it, with a fixed clock of
// 2026-11-30T12:00:00Z: Create of a question (UID qPlace, request
// que_place, in chat -1005551234, message 41, thread 7, awaiting a typed
// answer from user 4242 to its prompt, message 42) and of a permission
// request (pPlace, per_place, "make test", message 43, thread 7); Create
// of cPlace (que_closed, message 44) and DeleteClosed of it with toast
// "answered", its message and text "<b>Go on?</b> Yes", owing that edit;
// RememberTopic(-1005551234, "/srv/app", 7) and
// SetLastUpdateID(777000, 900123, the clock).
func TestStoreWrittenBy2b254d6(t *testing.T) {
	const chat = -1005551234
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	raw, err := os.ReadFile("testdata/store-2b254d6.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pending.db")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := pending.Open(path)
	if err != nil {
		t.Fatalf("the store of 2b254d6 does not open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })

	q, err := s.Get("qPlace")
	if err != nil {
		t.Fatal(err)
	}
	wantQ := &pending.Entry{
		UID: "qPlace", Kind: pending.KindQuestion, Directory: "/srv/app", Project: "app",
		SessionID: "ses_q", RequestID: "que_place",
		Questions: []pending.Question{{Text: "Which database?", Header: "DB", Custom: true,
			Options: []pending.Option{{Label: "Postgres"}, {Label: "SQLite", Description: "a file"}}}},
		Place:        pending.Place{Chat: chat, Message: 41, Thread: 7},
		AwaitingText: true, AwaitingUserID: 4242, Prompt: 42,
		CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour),
	}
	if !reflect.DeepEqual(q, wantQ) {
		t.Errorf("question\n got %+v\nwant %+v", q, wantQ)
	}
	p, err := s.ByRequestID("", "per_place")
	if err != nil {
		t.Fatal(err)
	}
	wantP := &pending.Entry{
		UID: "pPlace", Kind: pending.KindPermission, Directory: "/srv/app", Project: "app",
		SessionID: "ses_p", RequestID: "per_place",
		Permission: &pending.Permission{Kind: "bash", Patterns: []string{"make test"}},
		Place:      pending.Place{Chat: chat, Message: 43, Thread: 7},
		CreatedAt:  at, ExpiresAt: at.Add(24 * time.Hour),
	}
	if !reflect.DeepEqual(p, wantP) {
		t.Errorf("permission\n got %+v\nwant %+v", p, wantP)
	}
	if e, err := s.ByPrompt(chat, 42); err != nil || e.UID != "qPlace" {
		t.Errorf("ByPrompt(%d, 42) = %+v, %v", chat, e, err)
	}
	if es, err := s.AwaitingText(chat); err != nil || len(es) != 1 || es[0].UID != "qPlace" {
		t.Errorf("AwaitingText = %v, %v", es, err)
	}
	if es, err := s.Unsent(); err != nil || len(es) != 0 {
		t.Errorf("Unsent = %v, %v; want none", es, err)
	}

	text := "<b>Go on?</b> Yes"
	c, ok, err := s.Closed("cPlace")
	wantC := pending.ClosedRequest{Toast: "answered", At: at, Place: pending.Place{Chat: chat, Message: 44}, RequestID: "que_closed", Text: text}
	if err != nil || !ok || !c.At.Equal(at) {
		t.Fatalf("closed request %+v, %v, %v", c, ok, err)
	}
	c.At = at
	if c != wantC {
		t.Errorf("closed request\n got %+v\nwant %+v", c, wantC)
	}
	if uid, _, ok, err := s.ClosedByRequestID("", "que_closed"); err != nil || !ok || uid != "cPlace" {
		t.Errorf("ClosedByRequestID = %q, %v, %v", uid, ok, err)
	}
	owed, err := s.OwedEdits()
	if err != nil || len(owed) != 1 {
		t.Fatalf("owed edits %+v, %v", owed, err)
	}
	if owed[0].Place != (pending.Place{Chat: chat, Message: 44}) || owed[0].Text != text || !owed[0].At.Equal(at) {
		t.Errorf("owed edit %+v", owed[0])
	}

	if thread, ok, err := s.ThreadFor(chat, "/srv/app"); err != nil || !ok || thread != 7 {
		t.Errorf("ThreadFor = %d, %v, %v; want 7", thread, ok, err)
	}
	if cursor, when, err := s.InputCursor(777000); err != nil || cursor != 900123 || !when.Equal(at) {
		t.Errorf("InputCursor = %d, %v, %v; want 900123 at %v", cursor, when, err, at)
	}
	if got, err := s.ChatFor(chat); err != nil || got != chat {
		t.Errorf("ChatFor = %d, %v; want the chat itself", got, err)
	}

	// Upgraded in place: the file now holds today's shape.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wantNewShape(t, "entry qPlace", rawGet(t, path, "entries", "qPlace"), true)
	wantNewShape(t, "entry pPlace", rawGet(t, path, "entries", "pPlace"), true)
	wantNewShape(t, "closed request", rawGet(t, path, "meta", "closed:cPlace"), true)
	wantNewShape(t, "owed edit", rawGet(t, path, "meta", "owed:-1005551234:44"), true)
	if got := string(rawGet(t, path, "meta", "schema")); got != "place" {
		t.Errorf("schema marker %q, want %q", got, "place")
	}
	// The committed file is the older release's, untouched.
	if again, err := os.ReadFile("testdata/store-2b254d6.db"); err != nil || !bytes.Equal(again, raw) {
		t.Errorf("the committed fixture changed (%v)", err)
	}
}

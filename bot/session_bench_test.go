package bot

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/frontend/frontendtest"
	"github.com/hermes-bot/hermes-bot/pending"
)

// benchBacklog is how many requests of other sessions the store holds.
const benchBacklog = 10_000

// sessionBenchBridge is a bridge on a store holding benchBacklog
// requests of 100 other sessions, and three of testSession: two
// permissions sharing one message and a question.
//
// The file is written with bbolt in one transaction, entries and schema
// but no indexes (a Create each would wait for 10,000 fsyncs); Open then
// builds the indexes from the entries.
func sessionBenchBridge(b *testing.B) (*Bridge, *pending.Entry) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "pending.db")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	meta, _ := json.Marshal(map[string]string{"command": "go test ./..."})
	entry := func(i int, session string) *pending.Entry {
		e := &pending.Entry{
			UID: fmt.Sprintf("b%07d", i), Kind: pending.KindPermission,
			Directory: fmt.Sprintf("/home/user/projects/p%d", i%7), Project: "global",
			SessionID: session, RequestID: fmt.Sprintf("per_%07d", i),
			CallID: "call_" + fmt.Sprint(i), ToolMessageID: "msg_1",
			Places: map[string]pending.Place{"test": frontendtest.Place(i + 1)}, SessionTitle: "Fix the login bug",
			Permission: &pending.Permission{Kind: "bash", Patterns: []string{"go test ./..."}, Always: []string{"go *"}, Metadata: meta},
			CreatedAt:  now.Add(time.Duration(i) * time.Second), ExpiresAt: now.Add(time.Hour),
		}
		if i%3 == 0 {
			e.Kind, e.Permission = pending.KindQuestion, nil
			e.RequestID = fmt.Sprintf("que_%07d", i)
			e.Questions = []pending.Question{{Text: "Which database should I use?", Header: "Database",
				Options: []pending.Option{{Label: "Postgres"}, {Label: "SQLite"}}, Custom: true}}
		}
		return e
	}
	var es []*pending.Entry
	for i := range benchBacklog {
		es = append(es, entry(i, fmt.Sprintf("ses_other%03d", i%100)))
	}
	// Every third entry is a question.
	first, q, twin := entry(benchBacklog+1, testSession), entry(benchBacklog+2, testSession), entry(benchBacklog+4, testSession)
	first.Directory, twin.Directory = "/home/user/projects/demo", "/home/user/projects/demo"
	twin.SharedWith = first.UID
	es = append(es, first, twin, q)

	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		if err := meta.Put([]byte("schema"), []byte("places")); err != nil {
			return err
		}
		bk, err := tx.CreateBucket([]byte("entries"))
		if err != nil {
			return err
		}
		for _, e := range es {
			raw, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if err := bk.Put([]byte(e.UID), raw); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	store, err := pending.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close() })
	br := NewBridge(Config{Servers: map[string]Opencode{"": &fakeOpencode{}}}, store, []frontend.Frontend{&frontendtest.Frontend{}}, zerolog.Nop())
	if n, err := store.List(); err != nil || len(n) != len(es) {
		b.Fatalf("store holds %d entries (%v), want %d", len(n), err, len(es))
	}
	return br, first
}

// BenchmarkSessionLookups is what the bridge reads of the store on each
// permission asked (findTwin), each press on a permission (group) and
// each session's end (waitingIn), with 10,000 requests of other sessions
// stored beside the three of the session looked at.
//
//	go test -run='^$' -bench=SessionLookups -benchmem ./bot/
func BenchmarkSessionLookups(b *testing.B) {
	br, first := sessionBenchBridge(b)
	probe := &pending.Entry{Kind: pending.KindPermission, Directory: first.Directory, SessionID: testSession,
		Permission: first.Permission}
	b.Run("findTwin", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if key, ok := br.findTwin(probe); !ok || key != first.UID {
				b.Fatalf("findTwin = %q, %v; want %q", key, ok, first.UID)
			}
		}
	})
	b.Run("group", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if m, err := br.group(first.UID); err != nil || len(m) != 2 {
				b.Fatalf("group = %d members, %v; want 2", len(m), err)
			}
		}
	})
	b.Run("waitingIn", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := br.waitingIn(testSession); err != nil || !ok {
				b.Fatalf("waitingIn = %v, %v; want true", ok, err)
			}
		}
	})
	b.Run("waitingIn/none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := br.waitingIn("ses_idle"); err != nil || ok {
				b.Fatalf("waitingIn = %v, %v; want false", ok, err)
			}
		}
	})
}

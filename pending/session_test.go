package pending_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/pending"
)

func wantSession(t *testing.T, s *pending.Store, step, session string, want ...string) {
	t.Helper()
	got, err := s.BySession(session)
	if err != nil {
		t.Fatalf("%s: BySession(%q): %v", step, session, err)
	}
	if !slices.Equal(uids(got), want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s: BySession(%q) = %v, want %v", step, session, uids(got), want)
	}
}

func wantGroup(t *testing.T, s *pending.Store, step, key string, want ...string) {
	t.Helper()
	got, err := s.Group(key)
	if err != nil {
		t.Fatalf("%s: Group(%q): %v", step, key, err)
	}
	if !slices.Equal(uids(got), want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s: Group(%q) = %v, want %v", step, key, uids(got), want)
	}
}

func TestBySessionFollowsWrites(t *testing.T) {
	var logs bytes.Buffer
	s := mustOpenStore(t, pending.WithLogger(zerolog.New(&logs)))
	mk := func(uid, session, parent string, created int) *pending.Entry {
		return mustCreate(t, s, &pending.Entry{UID: uid, RequestID: "per_" + uid, SessionID: session,
			ParentSessionID: parent, CreatedAt: base.Add(time.Duration(created))})
	}
	a := mk("aaaaaaaa", "ses_1", "", 2)
	child := mk("bbbbbbbb", "ses_2", "ses_1", 1)
	self := mk("cccccccc", "ses_1", "ses_1", 3) // parent the same: one key
	other := mk("dddddddd", "ses_other", "", 0)
	none := mk("eeeeeeee", "", "", 4)
	nul := mk("ffffffff", "ses_1\x00x", "", 5) // its keys sit among ses_1's
	mustCheckIndexes(t, s, "Create")

	wantSession(t, s, "created", "ses_1", child.UID, a.UID, self.UID)
	wantSession(t, s, "created", "ses_2", child.UID)
	wantSession(t, s, "created", "ses_other", other.UID)
	wantSession(t, s, "created", "ses_1\x00x", nul.UID)
	wantSession(t, s, "created", "", none.UID)
	wantSession(t, s, "created", "ses_nobody")

	update := func(step, uid string, fn func(*pending.Entry)) {
		t.Helper()
		if _, err := s.Update(uid, func(e *pending.Entry) error { fn(e); return nil }); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		mustCheckIndexes(t, s, step)
	}
	update("parent learnt later", other.UID, func(e *pending.Entry) { e.ParentSessionID = "ses_1" })
	wantSession(t, s, "parent learnt later", "ses_1", other.UID, child.UID, a.UID, self.UID)
	wantSession(t, s, "parent learnt later", "ses_other", other.UID)
	update("parent changed", other.UID, func(e *pending.Entry) { e.ParentSessionID = "ses_9" })
	wantSession(t, s, "parent changed", "ses_1", child.UID, a.UID, self.UID)
	wantSession(t, s, "parent changed", "ses_9", other.UID)
	update("parent dropped", other.UID, func(e *pending.Entry) { e.ParentSessionID = "" })
	wantSession(t, s, "parent dropped", "ses_9")
	update("session moved", a.UID, func(e *pending.Entry) { e.SessionID = "ses_3" })
	wantSession(t, s, "session moved", "ses_1", child.UID, self.UID)
	wantSession(t, s, "session moved", "ses_3", a.UID)
	update("parent no longer the session", self.UID, func(e *pending.Entry) { e.SessionID = "ses_4" })
	wantSession(t, s, "parent no longer the session", "ses_1", child.UID, self.UID)
	wantSession(t, s, "parent no longer the session", "ses_4", self.UID)

	if err := s.Delete(child.UID); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Delete")
	wantSession(t, s, "deleted", "ses_1", self.UID)
	wantSession(t, s, "deleted", "ses_2")

	if err := pending.PutRaw(s, self.UID, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	wantSession(t, s, "damaged", "ses_1")
	if !strings.Contains(logs.String(), self.UID) {
		t.Errorf("no warning names the damaged entry: %s", logs.String())
	}
	if err := s.Delete(self.UID); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Delete of a damaged entry")
}

func TestGroupFollowsWrites(t *testing.T) {
	s := mustOpenStore(t)
	mk := func(uid, shared string, created int) *pending.Entry {
		return mustCreate(t, s, &pending.Entry{UID: uid, RequestID: "per_" + uid, SessionID: "ses_1",
			SharedWith: shared, CreatedAt: base.Add(time.Duration(created))})
	}
	key := mk("kkkkkkkk", "", 1)
	m2 := mk("mmmmmmm2", key.UID, 3)
	m1 := mk("mmmmmmm1", key.UID, 2)
	elsewhere := mk("oooooooo", "kkkkkkk2", 0)
	mk("kkkkkkk2", "", 4)
	mustCheckIndexes(t, s, "Create")

	wantGroup(t, s, "created", key.UID, key.UID, m1.UID, m2.UID)
	wantGroup(t, s, "created", m1.UID, m1.UID) // a member is not a key
	wantGroup(t, s, "created", "nobody00")
	wantGroup(t, s, "created", "")

	if err := s.Delete(key.UID); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Delete of the key")
	wantGroup(t, s, "key closed", key.UID, m1.UID, m2.UID)

	if _, err := s.Update(elsewhere.UID, func(e *pending.Entry) error { e.SharedWith = key.UID; return nil }); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Update of SharedWith")
	wantGroup(t, s, "moved", key.UID, elsewhere.UID, m1.UID, m2.UID)
	wantGroup(t, s, "moved", "kkkkkkk2", "kkkkkkk2")

	if err := s.Delete(m1.UID); err != nil {
		t.Fatal(err)
	}
	mustCheckIndexes(t, s, "Delete of a member")
	wantGroup(t, s, "member closed", key.UID, elsewhere.UID, m2.UID)
}

// A file missing bySession and bySharedWith, with another index version,
// gets them built again from the entries on Open, parents and shared
// messages included.
func TestSessionIndexesRebuilt(t *testing.T) {
	s := mustOpenStore(t)
	a := mustCreate(t, s, &pending.Entry{UID: "aaaaaaaa", RequestID: "per_a", SessionID: "ses_1", CreatedAt: base})
	b := mustCreate(t, s, &pending.Entry{UID: "bbbbbbbb", RequestID: "per_b", SessionID: "ses_2", ParentSessionID: "ses_1",
		SharedWith: a.UID, CreatedAt: base.Add(1)})
	mustCreate(t, s, &pending.Entry{UID: "cccccccc", RequestID: "per_c", SessionID: "ses_3"})
	s = reopenEdited(t, s, func(tx *bolt.Tx) error {
		for _, name := range []string{"bySession", "bySharedWith"} {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("meta")).Put(pending.IndexVersionKey, []byte("2"))
	})
	mustCheckIndexes(t, s, "reopen without the session indexes")
	wantSession(t, s, "rebuilt", "ses_1", a.UID, b.UID)
	wantSession(t, s, "rebuilt", "ses_2", b.UID)
	wantGroup(t, s, "rebuilt", a.UID, a.UID, b.UID)
}

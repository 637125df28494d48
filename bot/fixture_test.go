package bot

import (
	"context"
	"os"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/pending"
)

// fixtureChat is the chat of the requests in testdata/store-03d8d17.db.
const fixtureChat = -1001234

// testdata/store-03d8d17.db was written by the pending package of
// hermes-bot 03d8d17, the last release before OpenCode 2's forms: a
// question (qLast, message 7), a multi-select of the /api surface with
// Blue toggled (aLast, message 8) and a shell command's permission request
// whose call was read (pLast, message 9), all in chat fixtureChat. This
// release must read them as they were and answer them.
func TestStoreWrittenByLastReleaseAnswers(t *testing.T) {
	h := newHarness(t, harnessConfig{ChatID: fixtureChat})
	h.replaceStoreFile("testdata/store-03d8d17.db")
	store, err := pending.Open(h.path)
	if err != nil {
		t.Fatalf("the last release's store does not open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	h.store = store
	h.wire(h.tg)

	for _, uid := range []string{"qLast", "aLast", "pLast"} {
		e, err := store.Get(uid)
		if err != nil || e.Form != nil || e.Generation != 0 || e.Questions != nil && e.Questions[0].IsField() {
			t.Fatalf("%s read as %+v, %v: want it as it was written", uid, e, err)
		}
	}
	h.pressIn(fixtureChat, alice, data(t, frontend.Pick, "qLast", 0, 1), 7)
	h.pressIn(fixtureChat, alice, data(t, frontend.Submit, "aLast", 0, 0), 8)
	r := h.oc.Replies()
	if len(r) != 2 || r[0].RequestID != "que_last" || r[0].Answers[0][0] != "SQLite" || r[0].Surface != "" ||
		r[1].RequestID != "que_api" || len(r[1].Answers[0]) != 1 || r[1].Answers[0][0] != "Blue" || r[1].Surface != "api" {
		t.Fatalf("replies %+v: want SQLite for que_last (original routes) and Blue for que_api (/api)", r)
	}
	h.pressIn(fixtureChat, alice, permData(t, frontend.AllowOnce, "pLast"), 9)
	if p := h.oc.PermReplies(); len(p) != 1 || p[0].RequestID != "per_last" || p[0].Reply != "once" {
		t.Fatalf("permission replies %+v: want once for per_last", p)
	}
}

// TestStoreWrittenByLastReleaseKeepsTelegramState opens the last
// release's store with the Telegram bookkeeping 03d8d17 kept in the meta
// bucket added, as it wrote it (the fixture has none): the bot resumes
// after the update recorded, posts to the supergroup the configured group
// became, and reuses the project's forum topic.
func TestStoreWrittenByLastReleaseKeepsTelegramState(t *testing.T) {
	const oldGroup, thread = -1234, 42
	h := newHarness(t, harnessConfig{ChatID: fixtureChat, TopicPerProject: true, BotID: 123})
	h.replaceStoreFile("testdata/store-03d8d17.db")
	handled := time.Now().Add(-time.Hour).UTC().Round(time.Second)
	db, err := bolt.Open(h.path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket([]byte("meta"))
		for k, v := range map[string]string{
			"updateOffset:123":                        `{"updateID":900,"at":"` + handled.Format(time.RFC3339) + `"}`,
			"chatMigration:-1234":                     "-1001234",
			"topic:-1001234:/home/user/projects/demo": "42",
		} {
			if err := meta.Put([]byte(k), []byte(v)); err != nil {
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
	store, err := pending.Open(h.path)
	if err != nil {
		t.Fatalf("the last release's store does not open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	h.store = store
	h.wire(h.tg)

	if offset, err := telegram.InitialOffset(store, 123, time.Now()); offset != 900 || err != nil {
		t.Errorf("InitialOffset = %d, %v; want to resume after update 900", offset, err)
	}
	state := telegram.StateOf(store)
	if chat, err := state.ChatFor(oldGroup); chat != fixtureChat || err != nil {
		t.Errorf("ChatFor(%d) = %d, %v; want the supergroup %d", oldGroup, chat, err, fixtureChat)
	}
	h.b.HandleEvent(context.Background(), askedEvent("que_new", dbQuestion()))
	if got := h.tg.Topics(); len(got) != 0 {
		t.Errorf("topics created %q, want the project's remembered one reused", got)
	}
	wantThreads(t, h, thread)

	// A later migration moves on from the one the last release recorded.
	if err := state.MoveChat(fixtureChat, -1009999); err != nil {
		t.Fatal(err)
	}
	if chat, err := state.ChatFor(oldGroup); chat != -1009999 || err != nil {
		t.Errorf("ChatFor(%d) after a second migration = %d, %v; want -1009999", oldGroup, chat, err)
	}
	if e, err := store.Get("qLast"); err != nil || e.Places[telegram.Name] != "" {
		t.Errorf("qLast after the migration: %+v, %v; want it owed its message, to post again", e, err)
	}
}

// replaceStoreFile closes h's store and puts a copy of fixture in its
// place, for the test to open.
func (h *harness) replaceStoreFile(fixture string) {
	h.t.Helper()
	if err := h.store.Close(); err != nil {
		h.t.Fatal(err)
	}
	raw, err := os.ReadFile(fixture)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(h.path, raw, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

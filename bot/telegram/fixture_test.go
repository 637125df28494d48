package telegram_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// fixtureChat is the chat of the requests in testdata/store-03d8d17.db.
const fixtureChat = -1001234

// fixtureStore is a copy of testdata/store-03d8d17.db in a temporary
// directory, for a test to change and open.
func fixtureStore(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("testdata/store-03d8d17.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pending.db")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixtureBridge opens the store at path and runs a bridge over it, shown
// by a Telegram front-end with cfg over tg.
func fixtureBridge(t *testing.T, path string, cfg telegram.Config, tg telegram.Telegram, oc bot.Opencode) (*telegram.Frontend, *bot.Bridge, *pending.Store) {
	t.Helper()
	store, err := pending.Open(path)
	if err != nil {
		t.Fatalf("the last release's store does not open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	cfg.ChatID = fixtureChat
	fe := telegram.New(cfg, tg, store, zerolog.Nop())
	br := bot.NewBridge(bot.Config{Servers: map[string]bot.Opencode{"": oc}}, store, []frontend.Frontend{fe}, zerolog.Nop())
	t.Cleanup(func() { _ = br.Wait(context.Background()) })
	return fe, br, store
}

// pressAt hands fe alice's press of data on message msg of the chat.
func pressAt(fe *telegram.Frontend, core frontend.Core, data string, msg int) {
	fe.HandleUpdate(context.Background(), core, &models.Update{CallbackQuery: &models.CallbackQuery{
		ID: "cb", From: alice, Data: data,
		Message: models.MaybeInaccessibleMessage{Type: models.MaybeInaccessibleMessageTypeMessage,
			Message: &models.Message{ID: msg, Date: 1700000000, Chat: models.Chat{ID: fixtureChat, Type: "supergroup"}}}}})
}

func buttonData(t *testing.T, a frontend.Action, uid string, qi, oi int) string {
	t.Helper()
	s, err := telegram.ButtonData(a, uid, qi, oi)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testdata/store-03d8d17.db was written by the pending package of
// hermes-bot 03d8d17, the last release before OpenCode 2's forms: a
// question (qLast, message 7), a multi-select of the /api surface with
// Blue toggled (aLast, message 8) and a shell command's permission request
// whose call was read (pLast, message 9), all in chat fixtureChat. This
// release must read them as they were and answer them.
func TestStoreWrittenByLastReleaseAnswers(t *testing.T) {
	oc := newCallsOpencode()
	fe, br, store := fixtureBridge(t, fixtureStore(t), telegram.Config{}, &memTelegram{}, oc)
	for _, uid := range []string{"qLast", "aLast", "pLast"} {
		e, err := store.Get(uid)
		if err != nil || e.Form != nil || e.Generation != 0 || e.Questions != nil && e.Questions[0].IsField() {
			t.Fatalf("%s read as %+v, %v: want it as it was written", uid, e, err)
		}
	}
	pressAt(fe, br, buttonData(t, frontend.Pick, "qLast", 0, 1), 7)
	pressAt(fe, br, buttonData(t, frontend.Submit, "aLast", 0, 0), 8)
	r := oc.Answers()
	if len(r) != 2 || r[0].RequestID != "que_last" || r[0].Answers[0][0] != "SQLite" || r[0].Surface != opencode.SurfaceLegacy ||
		r[1].RequestID != "que_api" || len(r[1].Answers[0]) != 1 || r[1].Answers[0][0] != "Blue" || r[1].Surface != opencode.SurfaceAPI {
		t.Fatalf("replies %+v: want SQLite for que_last (original routes) and Blue for que_api (/api)", r)
	}
	pressAt(fe, br, buttonData(t, frontend.AllowOnce, "pLast", 0, 0), 9)
	if p := oc.Perms(); len(p) != 1 || p[0][0] != "per_last" || p[0][1] != "once" {
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
	path := fixtureStore(t)
	handled := time.Now().Add(-time.Hour).UTC().Round(time.Second)
	db, err := bolt.Open(path, 0o600, nil)
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
	tg := &memTelegram{}
	_, br, store := fixtureBridge(t, path, telegram.Config{TopicPerProject: true, BotID: 123}, tg,
		&recordingOpencode{changed: make(chan struct{}, 1)})

	if offset, err := telegram.InitialOffset(store, 123, time.Now()); offset != 900 || err != nil {
		t.Errorf("InitialOffset = %d, %v; want to resume after update 900", offset, err)
	}
	state := telegram.StateOf(store)
	if chat, err := state.ChatFor(oldGroup); chat != fixtureChat || err != nil {
		t.Errorf("ChatFor(%d) = %d, %v; want the supergroup %d", oldGroup, chat, err, fixtureChat)
	}
	br.HandleEvent(context.Background(), question("que_new"))
	if topics, threads := tg.Topics(), tg.threads(); len(topics) != 0 || !slices.Equal(threads, []int{thread}) {
		t.Errorf("topics created %q, messages sent to threads %v; want the project's remembered topic %d reused", topics, threads, thread)
	}

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

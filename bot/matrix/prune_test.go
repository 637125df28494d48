package matrix

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/pending"
)

// offline is a Frontend without a Client, over a store of its own.
func offline(t *testing.T) (*Frontend, *pending.State) {
	store, err := pending.Open(filepath.Join(t.TempDir(), "hermes.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	st := store.FrontendState(Name)
	return NewFrontend(nil, st, FrontendConfig{}, zerolog.Nop()), st
}

func TestPruneForgetsOldRequests(t *testing.T) {
	f, st := offline(t)
	now := time.Now()
	put := func(key string, v any) {
		t.Helper()
		if err := f.put(key, v); err != nil {
			t.Fatal(err)
		}
	}
	put(keyRequest+"$old", requestRecord{Key: "que_old", At: now.Add(-8 * 24 * time.Hour).UnixMilli(), Polls: []pollRef{{ID: "$oldpoll"}}})
	put(keyEvent+"$old", eventRecord{Msg: "$old"})
	put(keyEvent+"$oldpoll", eventRecord{Msg: "$old", Poll: true})
	put(keyVote+"$oldpoll/@a:x", ballotRecord{At: 1, Answers: []string{"o0"}})
	put(keyRequest+"$new", requestRecord{Key: "que_new", At: now.UnixMilli(), Polls: []pollRef{{ID: "$newpoll"}}})
	put(keyEvent+"$newpoll", eventRecord{Msg: "$new", Poll: true})
	put(keyVote+"$newpoll/@a:x", ballotRecord{At: 1})
	if err := st.Put(keyRequest+"$bad", []byte("{")); err != nil {
		t.Fatal(err)
	}

	n, err := f.prune(now.Add(-keepRecords))
	if err != nil || n != 1 {
		t.Fatalf("prune = %d, %v; want the one old request", n, err)
	}
	for key, want := range map[string]bool{
		keyRequest + "$old": false, keyEvent + "$old": false, keyEvent + "$oldpoll": false, keyVote + "$oldpoll/@a:x": false,
		keyRequest + "$new": true, keyEvent + "$newpoll": true, keyVote + "$newpoll/@a:x": true, keyRequest + "$bad": true,
	} {
		if _, ok, err := st.Get(key); err != nil || ok != want {
			t.Errorf("%s kept %v (%v), want %v", key, ok, err, want)
		}
	}
}

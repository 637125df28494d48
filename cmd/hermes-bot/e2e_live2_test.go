package main_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// Live status against the fake OpenCode 2: a turn that ends while the
// event stream is down has its status finalised at the reconnect, once;
// one still running then stays "working", and at shutdown says it is no
// longer followed.
func TestE2ELiveStatusAcrossGaps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := newRig2(t, "HERMES_LIVE_STATUS=on")
	bot := startBot(t, r.env)
	if err := r.oc.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	oc := r.oc.Client()
	if _, err := oc.Probe(ctx); err != nil {
		t.Fatal(err)
	}
	var shown []int
	busy := func(sid string) int {
		t.Helper()
		r.oc.AddSession(opencode.Session{ID: sid, Directory: "/work/app", Title: sid})
		if err := oc.PromptAsync(ctx, "/work/app", sid, "go"); err != nil {
			t.Fatal(err)
		}
		m, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
			return m.FromBot && contains(m.PlainText, "working for") && !slices.Contains(shown, m.ID)
		})
		if err != nil {
			t.Fatalf("no status message for %s: %v", sid, err)
		}
		shown = append(shown, m.ID)
		return m.ID
	}
	ended, running := busy("ses_ended"), busy("ses_running")

	// The idle is sent while no stream is connected: nobody hears it.
	r.oc.DropStreams()
	if !r.oc.FinishTurn("ses_ended") {
		t.Fatal("ses_ended was not busy")
	}
	if err := r.oc.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.ID == ended && contains(m.PlainText, "turn done in")
	}); err != nil {
		t.Fatalf("the status of the turn that ended while away was not finalised: %v", err)
	}

	// Ended at the reconnect, it would not be live at shutdown.
	finish2(t, r, bot)
	if m, _ := r.message(running); !contains(m.PlainText, "no longer followed") {
		t.Errorf("the status of the turn still running at shutdown: %q", m.PlainText)
	}
	done := 0
	for _, q := range r.tg.RequestsFor("editMessageText") {
		if q.Params["message_id"] == strconv.Itoa(ended) && contains(q.Params["text"], "turn done in") {
			done++
		}
	}
	if done != 1 {
		t.Errorf("the ended turn's status was finalised %d times, want once", done)
	}
}

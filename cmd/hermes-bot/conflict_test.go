package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSecondPollerIsNamedOnce: another process polling the same bot token
// (a service left running, a second hermes-bot started by hand) makes
// Telegram end hermes-bot's long poll with 409 Conflict. hermes-bot says
// what that means once, in words, instead of the library's raw error
// after every retry.
func TestSecondPollerIsNamedOnce(t *testing.T) {
	r := newRig(t)
	in := start(t, r.env)
	in.out.WaitLines(t, 1, "hermes-bot started")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.tg.WaitRequests(ctx, "getUpdates", 1); err != nil {
		t.Fatal(err)
	}

	// The other process's long poll, which ends hermes-bot's.
	rival := make(chan struct{})
	go func() {
		defer close(rival)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.tg.URL+"/bot"+faultToken+"/getUpdates",
			strings.NewReader(`{"timeout":50}`))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	in.out.WaitLines(t, 1, "another process is polling Telegram with this bot token (409 Conflict)", "Stop the other one")
	if err := in.stop(t); err != nil {
		t.Fatalf("run = %v", err)
	}
	cancel()
	<-rival

	if n := len(in.out.Lines("another process is polling Telegram")); n != 1 {
		t.Errorf("%d lines about the other poller, want 1:\n%s", n, in.out)
	}
	if raw := in.out.Lines("onflict", "telegram polling failed"); len(raw) > 0 {
		t.Errorf("the raw library error is logged too: %q", raw)
	}
}

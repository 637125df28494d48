package opencode_test

import (
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

func TestStateAfterConnect(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	logs := newLogBuffer()
	c := srv.Client(fastOptions(logs)...)
	if st := c.State(); st.Connected || !st.Since.IsZero() || st.Version != "" {
		t.Fatalf("state before Watch = %+v, want the zero state", st)
	}
	evs := make(events, 100)
	startWatch(t, c, evs, nil)
	if err := srv.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// server.connected is read after the connect is recorded.
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))
	st := c.State()
	if !st.Connected || st.Since.IsZero() || st.Version != "1.18.33" || st.LastError != "" {
		t.Fatalf("state after connect = %+v, want connected since now, version 1.18.33", st)
	}
	// The event is counted before the handler sees it.
	if st.Connects != 1 || st.Events < 1 {
		t.Fatalf("state after connect = %+v, want 1 connect and at least 1 event counted", st)
	}
}

func TestStateWrongPassword(t *testing.T) {
	srv := newServer(t)
	logs := newLogBuffer()
	c, err := opencode.NewClient(srv.URL, append(fastOptions(logs), opencode.WithBasicAuth("opencode", "not-"+password))...)
	if err != nil {
		t.Fatal(err)
	}
	startWatch(t, c, make(events, 100), nil)
	// The failure is recorded before it is logged.
	logs.waitFor(t, "wrong username or password")
	st := c.State()
	if st.Connected || st.Since.IsZero() || st.LastError != "unauthorized" || st.LastErrorAt.IsZero() {
		t.Fatalf("state after a refused password = %+v, want not connected, unauthorized", st)
	}
}

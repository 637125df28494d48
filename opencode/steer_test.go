package opencode_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// waitFor asks cond until it holds or ctx ends: the state asked about is
// only reachable through opencode's API.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

// The steering calls against a real opencode: a new session, a prompt
// the model receives, a running session stopped, a toast, and the errors
// a person's mistakes get.
func TestSteerRealOpencode(t *testing.T) {
	m := opencodetest.NewModel()
	t.Cleanup(m.Close)
	oc := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: m.URL})
	c, err := opencode.NewClient(oc.URL, opencode.WithBasicAuth(oc.Username, oc.Password), opencode.WithLogger(zerolog.Nop()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := oc.Dir

	s, err := c.CreateSession(ctx, dir, "steered from a phone")
	if err != nil {
		t.Fatal(err)
	}
	if s.ID == "" || s.Title != "steered from a phone" || s.Directory != dir {
		t.Errorf("created session %+v", s)
	}
	list, err := c.ListSessions(ctx, dir)
	if err != nil || !slices.ContainsFunc(list, func(x opencode.Session) bool { return x.ID == s.ID }) {
		t.Errorf("ListSessions = %+v, %v; want it to hold %s", list, err, s.ID)
	}

	m.Say("done as you said")
	if err := c.PromptAsync(ctx, dir, s.ID, "now write the tests"); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the model never received the prompt", func() bool {
		for _, r := range m.Requests() {
			for _, msg := range r.Messages {
				if msg.Role == "user" && strings.Contains(msg.Content, "now write the tests") {
					return true
				}
			}
		}
		return false
	})

	// A session waiting on a question is busy until stopped.
	m.AskQuestion(opencodetest.QuestionArg{Question: "Which one?", Options: []opencodetest.OptionArg{{Label: "A"}, {Label: "B"}}})
	if err := c.PromptAsync(ctx, dir, s.ID, "ask me something"); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the session never asked", func() bool {
		qs, err := c.ListQuestions(ctx, dir)
		return err == nil && len(qs) == 1
	})
	busy, err := c.BusySessions(ctx, dir)
	if err != nil || !busy[s.ID] {
		t.Errorf("BusySessions = %v, %v; want %s busy", busy, err, s.ID)
	}
	if err := c.Abort(ctx, dir, s.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "the session is still busy after Abort", func() bool {
		busy, err := c.BusySessions(ctx, dir)
		return err == nil && !busy[s.ID]
	})

	if err := c.ShowToast(ctx, dir, "answered from Telegram by @alice", opencode.ToastInfo); err != nil {
		t.Errorf("ShowToast: %v", err)
	}
	if err := c.ShowToast(ctx, dir, "x", "sparkly"); !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("ShowToast with an unknown variant: %v, want ErrNotAccepted", err)
	}
	if err := c.PromptAsync(ctx, dir, "ses_nosuchsession", "hello"); !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("PromptAsync to an unknown session: %v, want ErrNotFound", err)
	}
	if err := c.PromptAsync(ctx, dir, s.ID, "  "); !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("PromptAsync without text: %v, want ErrNotAccepted", err)
	}
	if _, err := c.CreateSession(ctx, "", ""); !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("CreateSession without a directory: %v, want ErrNotAccepted", err)
	}
}

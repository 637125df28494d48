package main_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// waitModelSaw waits until a chat request to the model carries a user
// message containing text: the prompt reached the agent.
func waitModelSaw(ctx context.Context, t *testing.T, model *opencodetest.Model, text string) {
	t.Helper()
	for {
		for _, r := range model.Requests() {
			for _, m := range r.Messages {
				if m.Role == "user" && strings.Contains(m.Content, text) {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the model never received a user message with %q", text)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// modelSaw reports whether any chat request so far carried text.
func modelSaw(model *opencodetest.Model, text string) bool {
	for _, r := range model.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, text) {
				return true
			}
		}
	}
	return false
}

func (r *rig) waitText(ctx context.Context, t *testing.T, what string, ok func(m telegramtest.Message) bool) telegramtest.Message {
	t.Helper()
	m, err := r.tg.WaitMessage(ctx, e2eChatID, ok)
	if err != nil {
		t.Fatalf("%s never appeared: %v\nmessages:\n%s", what, err, r.dump())
	}
	return m
}

// Steering from the chat against a real opencode: a reply to a
// "finished" notice continues the session, /new starts one, Stop aborts
// a running session and closes its question, and someone not on the
// allow-list can do none of it.
func TestEndToEndSteering(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newRig(t, opencodetest.OpencodeOptions{}, "HERMES_NOTIFY=idle")
	model, oc, tg := r.model, r.oc, r.tg
	bot := startBot(t, r.env)

	// 1. A session finishes: its notice invites a reply.
	model.Say("Created hello.txt.")
	r.prompt(ctx, t, oc.Dir, "create hello.txt")
	notice := r.waitText(ctx, t, "the finished notice", func(m telegramtest.Message) bool {
		return m.FromBot && strings.Contains(m.PlainText, "Created hello.txt.") && strings.Contains(m.PlainText, "Reply to this message")
	})
	if b := buttonTexts(notice); len(b) != 1 || !strings.Contains(b[0], "Continue") {
		t.Errorf("notice buttons = %q, want Continue", b)
	}

	// Mallory, not on the allow-list, replies: nothing reaches the agent.
	if _, err := tg.Reply(e2eChatID, notice.ID, mallory, "delete everything"); err != nil {
		t.Fatal(err)
	}
	// Alice replies: the model receives it as a new user message.
	model.Say("Added tests.")
	reply, err := tg.Reply(e2eChatID, notice.ID, alice, "now add tests")
	if err != nil {
		t.Fatal(err)
	}
	// Acknowledged with a 👍 on the reply, not with a message.
	if err := tg.WaitReaction(ctx, e2eChatID, reply, "👍"); err != nil {
		t.Fatalf("%v\nmessages:\n%s", err, r.dump())
	}
	waitModelSaw(ctx, t, model, "now add tests")

	// 2. /new → project → text starts a session.
	if _, err := tg.SendText(e2eChatID, mallory, "/new"); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.SendText(e2eChatID, alice, "/new"); err != nil {
		t.Fatal(err)
	}
	choose := r.waitText(ctx, t, "the project choice", func(m telegramtest.Message) bool {
		return m.FromBot && strings.Contains(m.PlainText, "which project") && len(m.Keyboard) > 0
	})
	if cb, err := tg.PressButtonText(e2eChatID, choose.ID, mallory, filepath.Base(oc.Dir)); err != nil {
		t.Fatal(err)
	} else if a, err := tg.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Errorf("Mallory's project press was told %q, %v", a.Text, err)
	}
	if _, err := tg.PressButtonText(e2eChatID, choose.ID, alice, filepath.Base(oc.Dir)); err != nil {
		t.Fatal(err)
	}
	ask := r.waitText(ctx, t, "the prompt for the first words", func(m telegramtest.Message) bool {
		return m.FromBot && m.ForceReply != nil && strings.Contains(m.PlainText, "first prompt")
	})
	model.Say("Haiku written.")
	first, err := tg.Reply(e2eChatID, ask.ID, alice, "write a haiku about ports")
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.WaitReaction(ctx, e2eChatID, first, "👍"); err != nil {
		t.Fatalf("%v\nmessages:\n%s", err, r.dump())
	}
	waitModelSaw(ctx, t, model, "write a haiku about ports")

	// 3. Stop a session waiting on a question: /stop as a reply to it.
	model.AskQuestion(opencodetest.QuestionArg{Question: "Which port?", Header: "Port",
		Options: []opencodetest.OptionArg{{Label: "80"}, {Label: "443"}}})
	r.prompt(ctx, t, oc.Dir, "pick a port")
	q := r.waitPosted(ctx, t, "the question", "Which port?")
	if _, err := tg.Reply(e2eChatID, q.ID, alice, "/stop"); err != nil {
		t.Fatal(err)
	}
	confirm := r.waitText(ctx, t, "the stop confirmation", func(m telegramtest.Message) bool {
		return m.FromBot && strings.HasPrefix(m.PlainText, "⏹ Stop") && len(m.Keyboard) > 0
	})
	if cb, err := tg.PressButtonText(e2eChatID, confirm.ID, mallory, "⏹ Yes, stop it"); err != nil {
		t.Fatal(err)
	} else if a, err := tg.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Errorf("Mallory's stop was told %q, %v", a.Text, err)
	}
	if _, err := tg.PressButtonText(e2eChatID, confirm.ID, alice, "⏹ Yes, stop it"); err != nil {
		t.Fatal(err)
	}
	r.waitClosed(ctx, t, "the stopped question", q.ID, func(text string) bool { return strings.Contains(text, "Session stopped by") })
	r.waitText(ctx, t, "the stop's outcome", func(m telegramtest.Message) bool {
		return m.ID == confirm.ID && strings.Contains(m.PlainText, "stopped by") && len(m.Keyboard) == 0
	})
	var listed []struct {
		ID string `json:"id"`
	}
	if err := oc.Get(ctx, "/question?directory="+url.QueryEscape(oc.Dir), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 0 {
		t.Errorf("opencode still lists %d questions after the stop", len(listed))
	}

	// Mallory never got anything through, nor a reply to /new.
	if modelSaw(model, "delete everything") {
		t.Error("the model received Mallory's reply")
	}
	if n := strings.Count(r.dump(), "Start a session in which project?"); n != 1 {
		t.Errorf("%d project choices posted, want 1 (Alice's; Mallory's /new gets no reply)", n)
	}
	if out := bot.out.String(); !strings.Contains(out, `"user":"Alice"`) || !strings.Contains(out, "steering: session stopped") {
		t.Errorf("steering actions not logged with the user")
	}
	r.finish(t, bot)
}

// While hermes-bot is down Alice taps an answer on a waiting question and
// replies to a notice. Back up, the tap is taken, but the reply, older
// than HERMES_STALE_STEER, waits for a tap on Send; then it goes, once.
func TestEndToEndStaleSteerAfterRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newRig(t, opencodetest.OpencodeOptions{}, "HERMES_NOTIFY=idle", "HERMES_STALE_STEER=1s")
	model, oc, tg := r.model, r.oc, r.tg
	first := startBot(t, r.env)

	model.Say("Created hello.txt.")
	r.prompt(ctx, t, oc.Dir, "create hello.txt")
	notice := r.waitText(ctx, t, "the finished notice", func(m telegramtest.Message) bool {
		return m.FromBot && strings.Contains(m.PlainText, "Created hello.txt.") && strings.Contains(m.PlainText, "Reply to this message")
	})
	const q = "Which branch should I deploy?"
	call := model.AskQuestion(opencodetest.QuestionArg{Question: q, Header: "Branch",
		Options: []opencodetest.OptionArg{{Label: "main", Description: "stable"}, {Label: "develop", Description: "latest"}}})
	r.prompt(ctx, t, oc.Dir, "deploy")
	question := r.waitPosted(ctx, t, "the question", q)
	first.waitLog(ctx, t, 1, fmt.Sprintf(`\"message\":%d}`, question.ID), "posted")
	if err := first.stop(t); err != nil {
		t.Fatalf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}

	// Telegram keeps both while no bot polls.
	r.press(t, question, "develop")
	const text = "written while you were away"
	reply, err := tg.Reply(e2eChatID, notice.ID, alice, text)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := tg.Message(e2eChatID, reply)
	for time.Since(m.Date) <= 2*time.Second { // Telegram's dates are in whole seconds
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}

	second := startBot(t, r.env)
	if res := r.toolResult(ctx, t, "a tap made while hermes-bot was down", call); !strings.Contains(res, "develop") {
		t.Errorf("the model was told %q, want develop", res)
	}
	ask := r.waitText(ctx, t, "the question before sending a stale message", func(m telegramtest.Message) bool {
		return m.FromBot && m.ReplyTo == reply && strings.Contains(m.PlainText, "Send this to the agent now?")
	})
	if modelSaw(model, text) {
		t.Fatal("the stale message was sent before anyone tapped Send")
	}
	model.Say("Back on it.")
	r.press(t, ask, "📤 Send")
	if err := tg.WaitReaction(ctx, e2eChatID, reply, "👍"); err != nil {
		t.Fatalf("%v\nmessages:\n%s", err, r.dump())
	}
	waitModelSaw(ctx, t, model, text)
	r.finish(t, second)
}

package main_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

const (
	e2eToken  = "424242:e2e-bot-token-SECRET"
	e2eChatID = int64(-1009876543210)
)

var (
	alice   = telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
	mallory = telegramtest.User{ID: 6666, FirstName: "Mallory", Username: "mallory"}
)

func TestEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	r := newRig(t, opencodetest.OpencodeOptions{})
	model, oc, tg := r.model, r.oc, r.tg
	bot := startBot(t, r.env)

	session, err := oc.CreateSession(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// 1. The agent asks; the question appears in the group with its buttons.
	call := model.AskQuestion(opencodetest.QuestionArg{
		Question: "Which database should I use?", Header: "Database",
		Options: []opencodetest.OptionArg{{Label: "Postgres", Description: "relational"}, {Label: "SQLite", Description: "embedded"}},
	})
	if err := oc.Prompt(ctx, session, "set up the database"); err != nil {
		t.Fatal(err)
	}
	msg, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Which database should I use?")
	})
	if err != nil {
		t.Fatalf("question never reached the group: %v", err)
	}
	for _, want := range []string{"Postgres", "SQLite", "relational", "embedded", filepath.Base(oc.Dir)} {
		if !strings.Contains(msg.PlainText, want) {
			t.Errorf("question message lacks %q:\n%s", want, msg.PlainText)
		}
	}
	if got := buttonTexts(msg); len(got) != 3 || !strings.Contains(got[0], "Postgres") || !strings.Contains(got[1], "SQLite") {
		t.Fatalf("buttons = %q, want Postgres, SQLite and a custom-answer button", got)
	}

	// 1b. The group's commands: registered at start-up; /pending lists the
	// question with a link to its message; /status shows the connection.
	if reqs := tg.RequestsFor("setMyCommands"); len(reqs) == 0 {
		t.Errorf("setMyCommands was not called")
	}
	id, err := tg.SendText(e2eChatID, alice, "/pending@"+tg.BotUser().Username)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no reply to /pending: %v", err)
	}
	if link := fmt.Sprintf("https://t.me/c/9876543210/%d", msg.ID); !strings.Contains(reply.Text, link) ||
		!strings.Contains(reply.PlainText, "Waiting for you: 1") || !strings.Contains(reply.PlainText, "Which database should I use?") {
		t.Errorf("/pending reply does not list the question with a link to %s:\n%s", link, reply.Text)
	}
	if id, err = tg.SendText(e2eChatID, alice, "/status"); err != nil {
		t.Fatal(err)
	}
	reply, err = tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no reply to /status: %v", err)
	}
	if !strings.Contains(reply.PlainText, "connected for") || !strings.Contains(reply.PlainText, "version 1.18.33") {
		t.Errorf("/status does not show the connection and opencode's version:\n%s", reply.PlainText)
	}

	// 2. Someone outside the allow-list presses: a toast, nothing changes.
	cb, err := tg.PressButtonText(e2eChatID, msg.ID, mallory, msg.Keyboard[0][0].Text)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := tg.WaitAnswer(ctx, cb)
	if err != nil || !strings.Contains(strings.ToLower(ans.Text), "not allowed") {
		t.Fatalf("mallory's press: answer %+v, %v; want a not-allowed toast", ans, err)
	}
	var listed []map[string]any
	if err := oc.Get(ctx, "/question?directory="+oc.Dir, &listed); err != nil || len(listed) != 1 {
		t.Fatalf("after mallory's press opencode lists %d questions (%v), want the question still pending", len(listed), err)
	}

	// 3. Alice picks SQLite: the model receives it, the message shows it.
	cb, err = tg.PressButtonText(e2eChatID, msg.ID, alice, msg.Keyboard[1][0].Text)
	if err != nil {
		t.Fatal(err)
	}
	result, err := model.WaitToolResult(ctx, call)
	if err != nil {
		t.Fatalf("the model never received the answer: %v", err)
	}
	if !strings.Contains(result, "SQLite") {
		t.Fatalf("the model was told %q, want the chosen label SQLite", result)
	}
	edited, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.ID == msg.ID && len(m.Keyboard) == 0 && strings.Contains(m.PlainText, "Alice")
	})
	if err != nil {
		t.Fatalf("the question message was not edited to show the answer: %v", err)
	}
	if !strings.Contains(edited.PlainText, "SQLite") {
		t.Errorf("edited message does not show the answer:\n%s", edited.PlainText)
	}

	// 4. A typed answer: press the custom button, reply to the prompt.
	call = model.AskQuestion(opencodetest.QuestionArg{
		Question: "Name the new table", Header: "Table",
		Options: []opencodetest.OptionArg{{Label: "users", Description: "default"}},
	})
	if err := oc.Prompt(ctx, session, "create a table"); err != nil {
		t.Fatal(err)
	}
	msg, err = tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Name the new table") && len(m.Keyboard) > 0
	})
	if err != nil {
		t.Fatalf("second question never reached the group: %v", err)
	}
	last := msg.Keyboard[len(msg.Keyboard)-1]
	if _, err := tg.PressButtonText(e2eChatID, msg.ID, alice, last[len(last)-1].Text); err != nil {
		t.Fatal(err)
	}
	prompt, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.ForceReply != nil })
	if err != nil {
		t.Fatalf("no force_reply prompt after the custom button: %v", err)
	}
	if !prompt.ForceReply.Selective {
		t.Errorf("force_reply prompt is not selective")
	}
	if _, err := tg.Reply(e2eChatID, prompt.ID, alice, "audit_log & <friends>"); err != nil {
		t.Fatal(err)
	}
	result, err = model.WaitToolResult(ctx, call)
	if err != nil {
		t.Fatalf("the model never received the typed answer: %v", err)
	}
	if !strings.Contains(result, "audit_log & <friends>") {
		t.Fatalf("the model was told %q, want the typed text", result)
	}
	if _, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.ID == msg.ID && len(m.Keyboard) == 0 && strings.Contains(m.PlainText, "audit_log & <friends>")
	}); err != nil {
		t.Fatalf("the second question message was not edited to show the typed answer: %v", err)
	}

	// SIGTERM: a clean exit, every press answered, no secret in the output.
	r.finish(t, bot)
}

package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestEndToEndTwoServers runs one hermes-bot against two real opencode
// servers, laptop and ci, each with a password of its own: a question
// from each is posted naming its server, an answer to ci's reaches ci's
// agent alone, and with ci stopped, laptop's questions are still posted
// and answered, also after a restart of hermes-bot.
func TestEndToEndTwoServers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	laptopModel, ciModel := opencodetest.NewModel(), opencodetest.NewModel()
	t.Cleanup(laptopModel.Close)
	t.Cleanup(ciModel.Close)
	laptop := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: laptopModel.URL})
	if laptop == nil {
		return // skipped: no opencode
	}
	ci := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: ciModel.URL})
	tg := telegramtest.NewServer(e2eToken)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(e2eChatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	env := botEnv(t, tg, "laptop="+laptop.URL+",ci="+ci.URL, laptop.Password,
		"OPENCODE_SERVER_PASSWORD_CI="+ci.Password)
	bot := startBot(t, env)

	ask := func(oc *opencodetest.Opencode, m *opencodetest.Model, question string) string {
		t.Helper()
		call := m.AskQuestion(opencodetest.QuestionArg{Question: question, Header: "Pick",
			Options: []opencodetest.OptionArg{{Label: "Yes"}, {Label: "No"}}})
		session, err := oc.CreateSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := oc.Prompt(ctx, session, "ask me"); err != nil {
			t.Fatal(err)
		}
		return call
	}
	posted := func(question string) telegramtest.Message {
		t.Helper()
		m, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
			return strings.Contains(m.PlainText, question) && len(m.Keyboard) > 0
		})
		if err != nil {
			t.Fatalf("%q never reached the group: %v", question, err)
		}
		return m
	}
	pending := func(oc *opencodetest.Opencode) int {
		t.Helper()
		var listed []map[string]any
		if err := oc.Get(ctx, "/question?directory="+oc.Dir, &listed); err != nil {
			t.Fatal(err)
		}
		return len(listed)
	}

	// Both servers ask; both project folders are named project1, so only
	// the server's name tells the two messages apart.
	laptopCall := ask(laptop, laptopModel, "Deploy from the laptop?")
	ciCall := ask(ci, ciModel, "Run the CI job?")
	laptopMsg, ciMsg := posted("Deploy from the laptop?"), posted("Run the CI job?")
	for _, tc := range []struct {
		m    telegramtest.Message
		want string
	}{{laptopMsg, "❓ 🖥 laptop · project1 · "}, {ciMsg, "❓ 🖥 ci · project1 · "}} {
		if !strings.HasPrefix(tc.m.PlainText, tc.want) {
			t.Errorf("message starts %q, want %q", firstLine(tc.m.PlainText), tc.want)
		}
	}

	// /status has a line per server.
	id, err := tg.SendText(e2eChatID, alice, "/status")
	if err != nil {
		t.Fatal(err)
	}
	reply, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no reply to /status: %v", err)
	}
	for _, want := range []string{"opencode laptop: ✅ connected", "opencode ci: ✅ connected"} {
		if !strings.Contains(reply.PlainText, want) {
			t.Errorf("/status lacks %q:\n%s", want, reply.PlainText)
		}
	}
	// /pending names each request's server.
	if id, err = tg.SendText(e2eChatID, alice, "/pending"); err != nil {
		t.Fatal(err)
	}
	if reply, err = tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.ReplyTo == id }); err != nil {
		t.Fatalf("no reply to /pending: %v", err)
	}
	for _, want := range []string{"🖥 laptop · project1", "🖥 ci · project1", "Waiting for you: 2"} {
		if !strings.Contains(reply.PlainText, want) {
			t.Errorf("/pending lacks %q:\n%s", want, reply.PlainText)
		}
	}

	// Answering ci's question reaches ci's agent; laptop's still waits.
	if _, err := tg.PressButtonText(e2eChatID, ciMsg.ID, alice, ciMsg.Keyboard[1][0].Text); err != nil {
		t.Fatal(err)
	}
	result, err := ciModel.WaitToolResult(ctx, ciCall)
	if err != nil || !strings.Contains(result, "No") {
		t.Fatalf("ci's agent was told %q, %v; want No", result, err)
	}
	if _, err := tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.ID == ciMsg.ID && len(m.Keyboard) == 0 && strings.Contains(m.PlainText, "Alice")
	}); err != nil {
		t.Fatalf("ci's message was not closed with the answer: %v", err)
	}
	if n := pending(laptop); n != 1 {
		t.Fatalf("laptop lists %d questions after ci's was answered, want its own still pending", n)
	}

	// ci goes away: laptop is served all the same, its old question and a
	// new one.
	ci.Stop()
	newCall := ask(laptop, laptopModel, "Tag the release?")
	newMsg := posted("Tag the release?")
	if !strings.HasPrefix(newMsg.PlainText, "❓ 🖥 laptop · ") {
		t.Errorf("new message starts %q, want laptop named", firstLine(newMsg.PlainText))
	}
	for _, tc := range []struct {
		m    telegramtest.Message
		call string
	}{{laptopMsg, laptopCall}, {newMsg, newCall}} {
		if _, err := tg.PressButtonText(e2eChatID, tc.m.ID, alice, tc.m.Keyboard[0][0].Text); err != nil {
			t.Fatal(err)
		}
		if result, err := laptopModel.WaitToolResult(ctx, tc.call); err != nil || !strings.Contains(result, "Yes") {
			t.Fatalf("laptop's agent was told %q, %v; want Yes", result, err)
		}
	}
	if n := pending(laptop); n != 0 {
		t.Errorf("laptop lists %d questions after both were answered", n)
	}

	// A restart, ci still down, while a question of laptop waits: the
	// listing of laptop after the connect re-attaches to its message.
	const acrossQ = "Ship it, across a restart?"
	acrossCall := ask(laptop, laptopModel, acrossQ)
	acrossMsg := posted(acrossQ)
	if err := bot.stop(t); err != nil {
		t.Fatalf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}
	first := bot.out.String()
	bot = startBot(t, env)
	bot.waitLog(ctx, t, 1, `"listed pending opencode requests"`, `"server":"laptop"`)
	if _, err := tg.PressButtonText(e2eChatID, acrossMsg.ID, alice, acrossMsg.Keyboard[1][0].Text); err != nil {
		t.Fatal(err)
	}
	if result, err := laptopModel.WaitToolResult(ctx, acrossCall); err != nil || !strings.Contains(result, "No") {
		t.Fatalf("laptop's agent was told %q, %v after the restart; want No", result, err)
	}
	posts := 0
	for _, m := range tg.Messages(e2eChatID) {
		if strings.Contains(m.PlainText, acrossQ) {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("%q was posted %d times across the restart, want once", acrossQ, posts)
	}

	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}
	if un := tg.UnansweredCallbacks(); len(un) > 0 {
		t.Errorf("callback queries left unanswered: %v", un)
	}
	out := first + bot.out.String()
	for _, secret := range []string{e2eToken, laptop.Password, ci.Password} {
		if strings.Contains(out, secret) {
			t.Errorf("hermes-bot output contains a secret")
		}
	}
	if !strings.Contains(out, `"server":"ci"`) {
		t.Errorf("no log line names server ci")
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

package telegram_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/internal/testlog"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

func newTestClient(t *testing.T, srv *telegramtest.Server, tok string, logs *testlog.Buffer) *telegram.Client {
	t.Helper()
	c, err := telegram.NewClient(telegram.ClientOptions{
		Token: tok, APIURL: srv.URL, PollTimeout: time.Second, Transport: http.DefaultTransport,
	}, telegram.NewRedactor(tok), zerolog.New(logs))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The calls around the front-end's start reach the strict fake as
// Telegram takes them: who the bot is, no webhook, the command menu of
// the chat in the language asked.
func TestClientStartCalls(t *testing.T) {
	srv := telegramtest.NewServer(token)
	defer srv.Close()
	var logs testlog.Buffer
	c := newTestClient(t, srv, token, &logs)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	id, name, err := c.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if me := srv.BotUser(); id != me.ID || name != me.Username {
		t.Fatalf("Me = %d %q, want %d %q", id, name, me.ID, me.Username)
	}

	srv.SetWebhook("https://example.invalid/hook")
	c.DropWebhook(ctx)
	if n := len(srv.RequestsFor("deleteWebhook")); n != 1 {
		t.Fatalf("deleteWebhook called %d times, want 1", n)
	}

	c.RegisterCommands(ctx, chatID, "zh")
	reqs := srv.RequestsFor("setMyCommands")
	if len(reqs) != 1 {
		t.Fatalf("setMyCommands called %d times, want 1 (log: %s)", len(reqs), logs.String())
	}
	var cmds []struct{ Command, Description string }
	if err := json.Unmarshal([]byte(reqs[0].Params["commands"]), &cmds); err != nil {
		t.Fatal(err)
	}
	want := telegram.Commands("zh")
	if len(cmds) != len(want) || cmds[0].Description != want[0].Description {
		t.Fatalf("commands sent %+v, want those of Commands(\"zh\")", cmds)
	}
	if !strings.Contains(reqs[0].Params["scope"], `"chat_id":-1001234567890`) {
		t.Fatalf("scope %s, want the chat", reqs[0].Params["scope"])
	}
	if logs.String() != "" {
		t.Fatalf("calls that worked logged: %s", logs.String())
	}
}

// A token Telegram refuses ends Me at once, with a hint and without the
// token.
func TestClientMeRefusedToken(t *testing.T) {
	srv := telegramtest.NewServer(token)
	defer srv.Close()
	const wrong = "123:not-the-token"
	var logs testlog.Buffer
	c := newTestClient(t, srv, wrong, &logs)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err := c.Me(ctx)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("Me with a refused token: %v (ctx %v), want an error at once", err, ctx.Err())
	}
	if !strings.Contains(err.Error(), "TELEGRAM_BOT_TOKEN") || strings.Contains(err.Error()+logs.String(), "not-the-token") {
		t.Fatalf("error %q, log %q: want a hint and no token", err, logs.String())
	}
}

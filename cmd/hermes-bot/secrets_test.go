package main

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// secretForms are the ways the bot token and the opencode password could
// show up in output: whole, the token's secret half, URL-escaped, and the
// password inside a basic-auth header.
func secretForms() map[string]string {
	half := faultToken[strings.Index(faultToken, ":")+1:]
	return map[string]string{
		"the bot token":                  faultToken,
		"the bot token's secret half":    half,
		"the URL-escaped bot token":      url.PathEscape(faultToken),
		"the query-escaped bot token":    url.QueryEscape(faultToken),
		"the password":                   faultPassword,
		"the query-escaped password":     url.QueryEscape(faultPassword),
		"the basic-auth header":          base64.StdEncoding.EncodeToString([]byte("opencode:" + faultPassword)),
		"the token's distinctive marker": "Zq8vN3wLpRt5",
		"the password's marker":          "Kx7wQm2Hj9",
	}
}

// checkNoSecret fails the test for every secret out shows, without
// printing out: it would carry the secret into the test log.
func checkNoSecret(t *testing.T, what, out string) {
	t.Helper()
	for name, s := range secretForms() {
		if i := strings.Index(out, s); i >= 0 {
			line := out[strings.LastIndex(out[:i], "\n")+1:]
			if j := strings.Index(line, "\n"); j >= 0 {
				line = line[:j]
			}
			t.Errorf("%s: output shows %s, in a line like: %s", what, name, strings.ReplaceAll(line, s, "<SECRET>"))
		}
	}
}

// TestNoSecretInOutput runs hermes-bot at debug level through failures of
// every kind, each of which writes an error somewhere, and looks for the
// secrets in everything it wrote.
func TestNoSecretInOutput(t *testing.T) {
	r := newRig(t)
	// Both sides go through proxies that can make them unreachable: a
	// network error from go-telegram/bot names the request URL, which
	// holds the token.
	tgProxy := newFlakyProxy(t, r.tg.URL)
	tgProxy.setUp(true)
	ocProxy := newFlakyProxy(t, r.oc.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	r.tg.FailNext("getMe", telegramtest.Fault{Code: 500})
	for _, f := range []telegramtest.Fault{
		{Code: 500},
		{Code: 429, RetryAfter: 1},
		{Code: 400, Description: "Bad Request: offset is invalid"},
		{Code: 401},
		{Code: 502, Body: "<html><body>502 Bad Gateway</body></html>"},
	} {
		r.tg.FailNext("getUpdates", f)
	}
	// opencode is unreachable at first, then refuses the password once.
	r.oc.FailNext("/global/event", 401)
	bot := start(t, r.with("TELEGRAM_API_URL", tgProxy.URL(), "OPENCODE_URL", ocProxy.URL()))
	bot.out.WaitLines(t, 1, "opencode event stream failed", "connection reset")
	ocProxy.setUp(true)
	bot.out.WaitLines(t, 1, "connected to opencode event stream")
	bot.out.WaitLines(t, 5, "telegram polling failed")

	// Telegram unreachable for a moment: polling fails with a network error.
	polls := len(bot.out.Lines("telegram polling failed"))
	tgProxy.setUp(false)
	bot.out.WaitLines(t, polls+1, "telegram polling failed")
	tgProxy.setUp(true)

	// A post Telegram refuses, one it fails, an edit it fails.
	r.tg.FailNext("sendMessage", telegramtest.Fault{Code: 400, Description: "Bad Request: chat not found"})
	r.oc.AddQuestion(faultDir, testQuestion("que_s1", "ses_s", "First secret-test question"))
	bot.out.WaitLines(t, 1, "could not post question to the chat")
	r.tg.FailNext("sendMessage", telegramtest.Fault{Code: 500})
	r.oc.AddQuestion(faultDir, testQuestion("que_s2", "ses_s", "Second secret-test question"))
	m := r.waitMessage(t, "Second secret-test question")

	// A press from someone not allowed; an answer to the callback fails.
	r.tg.FailNext("answerCallbackQuery", telegramtest.Fault{Code: 400, Description: "Bad Request: query is too old and response timeout expired or query ID is invalid"})
	if _, err := r.tg.PressButtonText(faultChatID, m.ID, eve, "alpha"); err != nil {
		t.Fatal(err)
	}
	bot.out.WaitLines(t, 1, "could not answer callback query")
	cb, err := r.tg.PressButtonText(faultChatID, m.ID, eve, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.tg.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Fatalf("eve's press: answer %+v, %v", a, err)
	}

	// Presses opencode refuses (401), fails once (500), then accepts; the
	// edit that shows the answer fails once.
	r.oc.FailNext("/question", 401)
	cb, err = r.tg.PressButtonText(faultChatID, m.ID, dana, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.tg.WaitMessage(ctx, faultChatID, func(x telegramtest.Message) bool {
		return x.ReplyTo == m.ID && strings.Contains(x.PlainText, "Could not reach opencode")
	}); err != nil {
		t.Fatalf("the refused press was not reported: %v", err)
	}
	r.oc.FailNext("/question", 500)
	r.tg.FailNext("editMessageText", telegramtest.Fault{Code: 500})
	if _, err := r.tg.PressButtonText(faultChatID, m.ID, dana, "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.oc.WaitReplies(ctx, 1); err != nil {
		t.Fatal(err)
	}

	// The first question, refused by Telegram, is posted again after the
	// next connect.
	r.oc.DropStreams()
	r.waitMessage(t, "First secret-test question")

	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
	out := bot.out.String()
	for _, want := range []string{"polling failed", "error do request for method getUpdates", "HTTP 401", "500 Internal Server Error",
		"chat not found", "not allowed", "connection reset", "Bad Gateway", "query is too old"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run never logged %q: the failure it stands for was not exercised", want)
		}
	}
	checkNoSecret(t, "a run through failures", out)
	if strings.Contains(out, "[REDACTED]") {
		t.Logf("redacted %d times", strings.Count(out, "[REDACTED]"))
	}
}

// TestNoSecretInStartupErrors covers the runs that end early: bad
// settings (including a password put into the URL) and a refused token.
func TestNoSecretInStartupErrors(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"bad chat ID", r.with("TELEGRAM_CHAT_ID", "my-group"), nil},
		{"password in the opencode URL", r.with("OPENCODE_URL", "http://opencode:"+faultPassword+"@127.0.0.1:4096"), nil},
		{"token in the opencode URL", r.with("OPENCODE_URL", "http://127.0.0.1:4096/?token="+faultToken), nil},
		{"bad log level", r.with("HERMES_LOG_LEVEL", "chatty"), nil},
		{"secrets as flags and an unknown flag", map[string]string{},
			[]string{"--telegram-bot-token=" + faultToken, "--opencode-password=" + faultPassword, "--bogus"}},
		{"secrets as flags and a bad chat ID", map[string]string{"HOME": t.TempDir()},
			[]string{"--telegram-bot-token", faultToken, "--opencode-password", faultPassword, "--telegram-chat-id", "x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr logSink
			err := run(context.Background(), tc.args, func(k string) string { return tc.env[k] }, nil, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Errorf("exit %d, want 2 (bad settings)", code)
			}
			if stderr.String() == "" {
				t.Errorf("nothing said about the bad setting")
			}
			checkNoSecret(t, tc.name, stdout.String()+stderr.String())
		})
	}

	t.Run("refused token", func(t *testing.T) {
		other := telegramtest.NewServer("111:another-token")
		defer other.Close()
		code, out := runOnce(t, r.with("TELEGRAM_API_URL", other.URL))
		if code != 1 || !strings.Contains(out, "TELEGRAM_BOT_TOKEN") {
			t.Errorf("exit %d, want 1 and a hint at TELEGRAM_BOT_TOKEN", code)
		}
		checkNoSecret(t, "refused token", out)
	})
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/matrix/matrixtest"
)

// TestCheckMatrix checks a Matrix room beside the Telegram group, against
// a real Dendrite: the homeserver, the token's account, and whether the
// bot is in the room yet; Matrix alone; a wrong token, which serve stops
// at; a homeserver that is not there.
func TestCheckMatrix(t *testing.T) {
	hs := matrixtest.StartDendrite(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bot, err := hs.Register(ctx, "hermes", "")
	if err != nil {
		t.Fatal(err)
	}
	ada, err := hs.Register(ctx, "ada", "")
	if err != nil {
		t.Fatal(err)
	}
	room, err := ada.CreateRoom(ctx, bot.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := newCheckSetup(t, nil)
	for k, v := range map[string]string{
		"MATRIX_HOMESERVER_URL":   hs.URL,
		"MATRIX_USER_ID":          bot.ID,
		"MATRIX_ACCESS_TOKEN":     bot.AccessToken,
		"MATRIX_ROOM_ID":          room,
		"MATRIX_ALLOWED_USER_IDS": ada.ID,
	} {
		s.env[k] = v
	}
	noToken := func(out string) {
		t.Helper()
		if strings.Contains(out, bot.AccessToken) {
			t.Fatalf("check prints the Matrix token:\n%s", out)
		}
	}

	out, code := s.check(t)
	noToken(out)
	wantLines(t, out, "✓ matrix homeserver "+hs.URL+": reachable", "✓ matrix account "+bot.ID,
		"! matrix room "+room+": the bot is not in the room yet", "✓ telegram bot")
	if code != 0 {
		t.Errorf("exit %d with a warning only, want 0:\n%s", code, out)
	}

	if err := bot.Join(ctx, room); err != nil {
		t.Fatal(err)
	}
	out, _ = s.check(t)
	noToken(out)
	wantLines(t, out, "✓ matrix room "+room+": the bot is a member")

	// Matrix alone: Telegram is neither needed nor checked.
	tgEnv := map[string]string{}
	for _, k := range []string{"TELEGRAM_BOT_TOKEN", "TELEGRAM_CHAT_ID", "TELEGRAM_ALLOWED_USER_IDS", "TELEGRAM_API_URL"} {
		tgEnv[k] = s.env[k]
		delete(s.env, k)
	}
	out, code = s.check(t)
	wantLines(t, out, "✓ settings", "✓ matrix room "+room+": the bot is a member")
	if code != 0 || strings.Contains(strings.ToLower(out), "telegram") {
		t.Errorf("Matrix alone: exit %d, want 0 and no Telegram line:\n%s", code, out)
	}
	for k, v := range tgEnv {
		s.env[k] = v
	}

	s.env["MATRIX_ACCESS_TOKEN"] = "syt_not_a_token"
	out, code = s.check(t)
	wantLines(t, out, "✗ matrix account "+bot.ID+": the homeserver refused MATRIX_ACCESS_TOKEN", "- matrix room")
	if code != 1 || strings.Contains(out, "syt_not_a_token") {
		t.Errorf("a refused token: exit %d, want 1, and no token in the report:\n%s", code, out)
	}

	// serve stops at once on a token the homeserver refuses: a restart
	// would not mend it (exit 2), naming the setting, not its value.
	for _, k := range []string{"TELEGRAM_BOT_TOKEN", "TELEGRAM_CHAT_ID", "TELEGRAM_ALLOWED_USER_IDS", "TELEGRAM_API_URL"} {
		delete(s.env, k)
	}
	_, stderr, code := runCmd(t, s.env, "serve")
	if code != 2 || !strings.Contains(stderr, "MATRIX_ACCESS_TOKEN") || strings.Contains(stderr, "syt_not_a_token") {
		t.Errorf("serve with a refused token: exit %d, want 2, naming MATRIX_ACCESS_TOKEN without its value:\n%s", code, stderr)
	}

	s.env["MATRIX_HOMESERVER_URL"] = closedURL(t)
	out, code = s.check(t)
	wantLines(t, out, "✗ matrix homeserver "+s.env["MATRIX_HOMESERVER_URL"]+": unreachable")
	if code != 1 {
		t.Errorf("an unreachable homeserver: exit %d, want 1:\n%s", code, out)
	}
}

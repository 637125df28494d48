package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/config"
)

func runCmd(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, environList(env), &out, &errb)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// environList lists env as the process environment would: KEY=VALUE.
func environList(env map[string]string) func() []string {
	return func() []string {
		var kv []string
		for k, v := range env {
			kv = append(kv, k+"="+v)
		}
		return kv
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		out, _, code := runCmd(t, nil, arg)
		if code != 0 || !strings.HasPrefix(out, "hermes-bot ") {
			t.Fatalf("%s: code %d, out %q", arg, code, out)
		}
	}
	if _, _, code := runCmd(t, nil, "version", "extra"); code != 2 {
		t.Fatalf("version with an argument: code %d, want 2", code)
	}
}

// TestDemoMoved: "hermes-bot demo", as people learned it, says in one
// line where the demo went, and exits 2; --help says it too.
func TestDemoMoved(t *testing.T) {
	for _, args := range [][]string{{"demo"}, {"demo", "--addr", "127.0.0.1:8080"}} {
		stdout, stderr, code := runCmd(t, nil, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "go run ./cmd/hermes-demo") {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want 2 and one line naming go run ./cmd/hermes-demo", args, code, stdout, stderr)
		}
	}
	if stdout, _, _ := runCmd(t, nil, "--help"); !strings.Contains(stdout, "go run ./cmd/hermes-demo") {
		t.Errorf("hermes-bot --help does not say where the demo is:\n%s", stdout)
	}
}

func TestHelpListsEverySettingAndNoSecret(t *testing.T) {
	env := map[string]string{"TELEGRAM_BOT_TOKEN": "1:help-secret", "OPENCODE_SERVER_PASSWORD": "pw-secret"}
	for _, args := range [][]string{{"--help"}, {"help"}, {"serve", "-h"}} {
		// Asked for, help goes to stdout, so "hermes-bot --help | less"
		// shows it.
		stdout, stderr, code := runCmd(t, env, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: code %d, stderr %q; want 0 and help on stdout only", args, code, stderr)
		}
		for _, s := range config.Settings() {
			if !strings.Contains(stdout, s.Env) || !strings.Contains(stdout, "-"+s.Flag) {
				t.Errorf("%v: help does not list %s / --%s", args, s.Env, s.Flag)
			}
		}
		if !strings.Contains(stdout, "--env-file") && !strings.Contains(stdout, "-env-file") {
			t.Errorf("%v: help does not list --env-file", args)
		}
		if strings.Contains(stdout, "secret") {
			t.Errorf("%v: help leaks a secret", args)
		}
	}
}

func TestConfigErrorsExit2(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no token", map[string]string{"HOME": "/h"}, nil, "TELEGRAM_BOT_TOKEN"},
		{"no chat", map[string]string{"HOME": "/h", "TELEGRAM_BOT_TOKEN": "1:tok-secret"}, nil, "TELEGRAM_CHAT_ID"},
		{"bad ttl flag", map[string]string{"HOME": "/h", "TELEGRAM_BOT_TOKEN": "1:tok-secret", "TELEGRAM_CHAT_ID": "-1"},
			[]string{"--question-ttl", "never"}, "HERMES_QUESTION_TTL"},
		{"allowed users without an ID", map[string]string{"HOME": "/h", "TELEGRAM_BOT_TOKEN": "1:tok-secret", "TELEGRAM_CHAT_ID": "-1",
			"TELEGRAM_ALLOWED_USER_IDS": " , "}, nil, "TELEGRAM_ALLOWED_USER_IDS"},
		{"missing env-file", map[string]string{"HOME": "/h"}, []string{"--env-file", "/nonexistent/hermes.env"}, "env-file"},
		{"unknown flag", nil, []string{"--bogus"}, "bogus (try --help)"},
		{"config-error-exit out of range", nil, []string{"--config-error-exit=300"}, "--config-error-exit 300"},
		{"stray argument", nil, []string{"stray"}, "stray"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCmd(t, tc.env, tc.args...)
			if code != 2 {
				t.Fatalf("code %d, want 2; stderr %q", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Fatalf("stderr %q does not name %s", stderr, tc.want)
			}
			if strings.Contains(stderr, "secret") {
				t.Fatalf("stderr leaks a secret: %q", stderr)
			}
		})
	}
}

func TestEnvFileIsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hermes.env")
	// A valid token and chat from the file; the TTL from the file is
	// invalid, which proves the file was read, and stops before any network.
	content := "TELEGRAM_BOT_TOKEN=1:file-secret\nTELEGRAM_CHAT_ID=-100\nHERMES_QUESTION_TTL=forever\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCmd(t, map[string]string{"HOME": "/h"}, "--env-file", path)
	if code != 2 || !strings.Contains(stderr, "HERMES_QUESTION_TTL") || !strings.Contains(stderr, "env-file") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	// The real environment wins over the file.
	_, stderr, code = runCmd(t, map[string]string{"HOME": "/h", "HERMES_QUESTION_TTL": "bad-from-env"}, "--env-file", path)
	if code != 2 || !strings.Contains(stderr, "bad-from-env") {
		t.Fatalf("environment did not win over the env-file: code %d, stderr %q", code, stderr)
	}
}

func TestExitCodes(t *testing.T) {
	var b bytes.Buffer
	if exitCode(nil, &b) != 0 || exitCode(flag.ErrHelp, &b) != 0 {
		t.Fatal("nil and ErrHelp must exit 0")
	}
	if exitCode(errors.New("boom"), &b) != 1 {
		t.Fatal("a runtime error must exit 1")
	}
	if exitCode(usageError{Err: errors.New("bad")}, &b) != 2 {
		t.Fatal("a usage error must exit 2")
	}
}

func serveEnv(t *testing.T, apiURL, token string) map[string]string {
	t.Helper()
	return map[string]string{
		"HOME":                     t.TempDir(),
		"TELEGRAM_BOT_TOKEN":       token,
		"TELEGRAM_CHAT_ID":         "-100200300",
		"TELEGRAM_API_URL":         apiURL,
		"OPENCODE_URL":             "http://127.0.0.1:9",
		"OPENCODE_SERVER_PASSWORD": "pw-secret-xyz",
		"HERMES_LOG_FORMAT":        "json",
		"HERMES_LOG_LEVEL":         "debug",
	}
}

func TestWrongTokenExits1WithoutLeaking(t *testing.T) {
	tg := telegramtest.NewServer("111:right-token")
	defer tg.Close()
	env := serveEnv(t, tg.URL, "111:wrong-secret-token")
	_, stderr, code := runCmd(t, env)
	if code != 1 || !strings.Contains(stderr, "TELEGRAM_BOT_TOKEN") {
		t.Fatalf("code %d, stderr %q; want 1 and a hint at TELEGRAM_BOT_TOKEN", code, stderr)
	}
	if strings.Contains(stderr, "wrong-secret-token") || strings.Contains(stderr, "pw-secret-xyz") {
		t.Fatalf("output leaks a secret: %s", stderr)
	}
}

func TestSignalWhileTelegramUnreachableExits0(t *testing.T) {
	// A closed port: every getMe fails with a network error and is retried.
	env := serveEnv(t, "http://127.0.0.1:9", "111:some-secret-token")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb logSink
	done := make(chan error, 1)
	go func() { done <- run(ctx, nil, func(k string) string { return env[k] }, nil, &out, &errb) }()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(errb.String(), "cannot reach Telegram") {
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\n%s", err, errb.String())
		case <-deadline:
			t.Fatalf("no retry logged:\n%s", errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run = %v, want nil after the signal", err)
	}
	if strings.Contains(errb.String(), "some-secret-token") {
		t.Fatalf("output leaks the token:\n%s", errb.String())
	}
}

// TestMissingEnvFileSaysHowToCreateIt: the README's first command, run
// before copying the example, must say how to get the file, as check does.
func TestMissingEnvFileSaysHowToCreateIt(t *testing.T) {
	_, stderr, code := runCmd(t, map[string]string{"HOME": "/h"}, "--env-file", "hermes-bot.env")
	if code != 2 {
		t.Fatalf("code %d, want 2; stderr %q", code, stderr)
	}
	want := "hermes-bot: read env-file: open hermes-bot.env: no such file or directory\n" +
		"    fix: create it: copy deploy/hermes-bot.env.example (in the source tree) to hermes-bot.env"
	if !strings.HasPrefix(stderr, want) {
		t.Fatalf("stderr %q\nwant it to start with %q", stderr, want)
	}
}

// TestServeWarnsAboutUnknownSettings: a misspelled key is not silently
// ignored; serve says so in one line at start.
func TestServeWarnsAboutUnknownSettings(t *testing.T) {
	tg := telegramtest.NewServer("111:right-token")
	defer tg.Close()
	env := serveEnv(t, tg.URL, "111:wrong-secret-token") // stops after the start-up lines
	env["HERMES_LOG_LEVL"] = "debug"
	path := filepath.Join(t.TempDir(), "hermes.env")
	if err := os.WriteFile(path, []byte("HERMES_LANGG=zh\nTELEGRAM_CHAT_ID=-100200300\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCmd(t, env, "--env-file", path)
	if code != 1 {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "not a setting") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("want one line about unknown settings, got %d:\n%s", len(lines), stderr)
	}
	for _, w := range []string{
		"HERMES_LANGG in the env-file is not a setting, so it is ignored; did you mean HERMES_LANG?",
		"HERMES_LOG_LEVL in the environment is not a setting, so it is ignored; did you mean HERMES_LOG_LEVEL?",
		`"level":"warn"`,
	} {
		if !strings.Contains(lines[0], w) {
			t.Errorf("line lacks %q:\n%s", w, lines[0])
		}
	}
}

// TestUnusableStoreIsAConfigurationError: a HERMES_DB that cannot be
// created is a bad setting, like any other: exit 2, naming the variable,
// with a fix that does not send anyone to chmod /proc.
func TestUnusableStoreIsAConfigurationError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(file, "pending.db"), t.TempDir()} // under a file; a folder
	if runtime.GOOS == "linux" {
		paths = append(paths, "/proc/nope/x.db")
	}
	for _, db := range paths {
		env := serveEnv(t, "http://127.0.0.1:9", "111:some-secret-token")
		env["HERMES_DB"] = db
		_, stderr, code := runCmd(t, env)
		if code != 2 || !strings.Contains(stderr, "hermes-bot: HERMES_DB cannot be used: ") ||
			!strings.Contains(stderr, "\n    fix: set HERMES_DB to an absolute path") {
			t.Errorf("HERMES_DB=%s: code %d, stderr %q; want 2, naming HERMES_DB, with the fix", db, code, stderr)
		}
		if strings.Contains(stderr, "permissions") || strings.Contains(stderr, "secret") {
			t.Errorf("HERMES_DB=%s: stderr %q", db, stderr)
		}
	}
}

// TestMisspellingBehindASettingsError: a misspelled required setting
// shows as that setting missing; the error then names the misspelling.
func TestMisspellingBehindASettingsError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hermes.env")
	if err := os.WriteFile(path, []byte("TELEGRAM_BOT_TOKEN=1:file-secret\nTELEGRAM_CHATID=-100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": "/h"}
	_, stderr, code := runCmd(t, env, "--env-file", path)
	want := "TELEGRAM_CHAT_ID is required: the ID of the group where requests are posted, such as -1001234567890\n" +
		"    fix: set TELEGRAM_CHAT_ID in " + path + "; deploy/hermes-bot.env.example documents every setting\n" +
		"    note: TELEGRAM_CHATID in the env-file is not a setting, so it is ignored; did you mean TELEGRAM_CHAT_ID?\n"
	if code != 2 || !strings.HasSuffix(stderr, want) {
		t.Fatalf("code %d, stderr %q\nwant 2, ending %q", code, stderr, want)
	}

	stdout, _, code := runCmd(t, env, "check", "--env-file", path)
	if code != 1 || !strings.Contains(stdout, "! settings: TELEGRAM_CHATID in the env-file is not a setting, so it is ignored; "+
		"did you mean TELEGRAM_CHAT_ID?\n    fix: rename it to TELEGRAM_CHAT_ID\n") {
		t.Fatalf("check: code %d\n%s", code, stdout)
	}
	if strings.Contains(stderr+stdout, "file-secret") {
		t.Fatal("a secret is shown")
	}
}

// TestServeWarnsOfAReadableEnvFile: an env-file others can read is one
// warning at start, naming the file and the chmod that fixes it.
func TestServeWarnsOfAReadableEnvFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "hermes.env")
	if err := os.WriteFile(path, []byte("TELEGRAM_BOT_TOKEN=111:some-secret-token\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	env := serveEnv(t, "http://127.0.0.1:9", "")
	delete(env, "TELEGRAM_BOT_TOKEN")
	env["HERMES_DB"] = dir // a folder: serve stops at once, after the warning
	_, stderr, _ := runCmd(t, env, "--env-file", path)
	want := `"message":"the env-file ` + path + ` can be read by other users (mode 0644) and holds secrets: chmod 600 ` + path + `"`
	if n := strings.Count(stderr, "can be read by other users"); n != 1 || !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, `{"level":"warn","envFile":"`+path+`"`) {
		t.Errorf("stderr %q\nwant one line with %q", stderr, want)
	}
	if strings.Contains(stderr, "some-secret-token") {
		t.Errorf("stderr leaks the token: %q", stderr)
	}

	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, _ = runCmd(t, env, "--env-file", path); strings.Contains(stderr, "other users") {
		t.Errorf("warned about a 0600 env-file: %q", stderr)
	}
}

// TestServeSettingsMistakes: a shell script's export line, and a bad value
// from the environment, each say what to fix, and where.
func TestServeSettingsMistakes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hermes.env")
	if err := os.WriteFile(path, []byte("export TELEGRAM_BOT_TOKEN=111:some-secret-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := serveEnv(t, "http://127.0.0.1:9", "")
	delete(env, "TELEGRAM_BOT_TOKEN")
	_, stderr, code := runCmd(t, env, "--env-file", path)
	if code != 2 || !strings.Contains(stderr, `line 1: want KEY=VALUE: drop the "export" before TELEGRAM_BOT_TOKEN`) ||
		strings.Contains(stderr, "some-secret-token") {
		t.Errorf("export line: code %d, stderr %q", code, stderr)
	}

	if err := os.WriteFile(path, []byte("TELEGRAM_BOT_TOKEN=111:some-secret-token\nHERMES_LANG=en\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["HERMES_LANG"] = "fr"
	_, stderr, code = runCmd(t, env, "--env-file", path)
	want := "fix: HERMES_LANG comes from the environment, which overrides the env-file: correct or unset it there"
	if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "in "+path) {
		t.Errorf("bad value from the environment: code %d, stderr %q\nwant %q", code, stderr, want)
	}
}

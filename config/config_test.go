package config_test

import (
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/config"
	"github.com/hermes-bot/hermes-bot/opencode"
)

const token = "123456:AAsecret-token-value"

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func minimal() map[string]string {
	return map[string]string{
		"TELEGRAM_BOT_TOKEN": token,
		"TELEGRAM_CHAT_ID":   "-100123",
		"HOME":               "/home/u",
	}
}

func TestLoadDefaults(t *testing.T) {
	c, err := config.Load(config.Sources{Getenv: env(minimal())})
	if err != nil {
		t.Fatal(err)
	}
	want := config.Config{
		BotToken: token, ChatID: -100123,
		TelegramAPIURL: "https://api.telegram.org",
		Servers:        []config.Server{{URL: "http://127.0.0.1:4096", Username: "opencode", Auto: true}},
		DBPath:         "/home/u/.local/state/hermes-bot/pending.db",
		QuestionTTL:    30 * time.Minute, TelegramRate: 20, LogLevel: "info",
		AutoApprove: "off", Lang: "en", StaleSteer: 5 * time.Minute, MaxUpload: 10 << 20, ContextLines: 3,
	}
	if c.String() != want.String() || c.BotToken != token {
		t.Fatalf("got\n%s\nwant\n%s", c, &want)
	}
}

func TestLoadXDGStateHome(t *testing.T) {
	e := minimal()
	e["XDG_STATE_HOME"] = "/var/state"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	if c.DBPath != "/var/state/hermes-bot/pending.db" {
		t.Fatalf("DBPath = %s", c.DBPath)
	}
}

func TestPrecedence(t *testing.T) {
	file := map[string]string{"HERMES_QUESTION_TTL": "5m", "OPENCODE_URL": "http://file:1", "HERMES_TELEGRAM_RATE": "7"}
	e := minimal()
	e["OPENCODE_URL"] = "http://env:2"
	e["HERMES_TELEGRAM_RATE"] = "8"
	c, err := config.Load(config.Sources{EnvFile: file, Getenv: env(e), Flags: map[string]string{"telegram-rate": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.QuestionTTL != 5*time.Minute {
		t.Errorf("env-file value lost: TTL %s", c.QuestionTTL)
	}
	if c.Servers[0].URL != "http://env:2" {
		t.Errorf("environment must win over env-file: %s", c.Servers[0].URL)
	}
	if c.TelegramRate != 0 {
		t.Errorf("flag must win over environment: %d", c.TelegramRate)
	}
}

func TestAllowedUsers(t *testing.T) {
	e := minimal()
	e["TELEGRAM_ALLOWED_USER_IDS"] = " 5, 42 ,,7"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.AllowedUserIDs) != 3 || c.AllowedUserIDs[0] != 5 || c.AllowedUserIDs[1] != 42 || c.AllowedUserIDs[2] != 7 {
		t.Fatalf("AllowedUserIDs = %v", c.AllowedUserIDs)
	}

	// Empty, or blank, still means any member of the chat; a value that
	// holds only commas is refused (TestValidationErrors).
	for _, v := range []string{"", "  "} {
		e["TELEGRAM_ALLOWED_USER_IDS"] = v
		c, err := config.Load(config.Sources{Getenv: env(e), EnvFile: map[string]string{"TELEGRAM_ALLOWED_USER_IDS": v}})
		if err != nil || len(c.AllowedUserIDs) != 0 {
			t.Errorf("TELEGRAM_ALLOWED_USER_IDS=%q: %v, %v; want no restriction", v, c, err)
		}
	}
}

func TestValidationErrors(t *testing.T) {
	cases := []struct {
		name, key, value string
		wantVar          string
		wantErr          error
	}{
		{"missing token", "TELEGRAM_BOT_TOKEN", "", "TELEGRAM_BOT_TOKEN", config.ErrMissing},
		{"malformed token", "TELEGRAM_BOT_TOKEN", "nocolon-secretvalue", "TELEGRAM_BOT_TOKEN", config.ErrInvalid},
		{"missing chat", "TELEGRAM_CHAT_ID", "", "TELEGRAM_CHAT_ID", config.ErrMissing},
		{"bad chat", "TELEGRAM_CHAT_ID", "group", "TELEGRAM_CHAT_ID", config.ErrInvalid},
		{"bad users", "TELEGRAM_ALLOWED_USER_IDS", "5,bob", "TELEGRAM_ALLOWED_USER_IDS", config.ErrInvalid},
		{"users without an ID", "TELEGRAM_ALLOWED_USER_IDS", ",", "TELEGRAM_ALLOWED_USER_IDS", config.ErrInvalid},
		{"users of blanks and commas", "TELEGRAM_ALLOWED_USER_IDS", " , ,", "TELEGRAM_ALLOWED_USER_IDS", config.ErrInvalid},
		{"bad url", "OPENCODE_URL", "localhost:4096", "OPENCODE_URL", config.ErrInvalid},
		{"url with password", "OPENCODE_URL", "http://u:pw-secret@host", "OPENCODE_URL", config.ErrInvalid},
		{"api url with token", "TELEGRAM_API_URL", "https://secret-user@api.example", "TELEGRAM_API_URL", config.ErrInvalid},
		{"bad api url", "TELEGRAM_API_URL", "ftp://x", "TELEGRAM_API_URL", config.ErrInvalid},
		{"bad ttl", "HERMES_QUESTION_TTL", "soon", "HERMES_QUESTION_TTL", config.ErrInvalid},
		{"tiny ttl", "HERMES_QUESTION_TTL", "10ms", "HERMES_QUESTION_TTL", config.ErrInvalid},
		{"bad rate", "HERMES_TELEGRAM_RATE", "-1", "HERMES_TELEGRAM_RATE", config.ErrInvalid},
		{"bad level", "HERMES_LOG_LEVEL", "loud", "HERMES_LOG_LEVEL", config.ErrInvalid},
		{"bad format", "HERMES_LOG_FORMAT", "xml", "HERMES_LOG_FORMAT", config.ErrInvalid},
		{"relative db", "HERMES_DB", "pending.db", "HERMES_DB", config.ErrInvalid},
		{"bad notify", "HERMES_NOTIFY", "idle,done", "HERMES_NOTIFY", config.ErrInvalid},
		{"bad auto-approve", "HERMES_AUTO_APPROVE", "all", "HERMES_AUTO_APPROVE", config.ErrInvalid},
		{"bad http addr", "HERMES_HTTP_ADDR", "9090", "HERMES_HTTP_ADDR", config.ErrInvalid},
		{"bad thread id", "TELEGRAM_THREAD_ID", "general", "TELEGRAM_THREAD_ID", config.ErrInvalid},
		{"negative thread id", "TELEGRAM_THREAD_ID", "-4", "TELEGRAM_THREAD_ID", config.ErrInvalid},
		{"bad topic per project", "HERMES_TOPIC_PER_PROJECT", "yes please", "HERMES_TOPIC_PER_PROJECT", config.ErrInvalid},
		{"bad lang", "HERMES_LANG", "fr", "HERMES_LANG", config.ErrInvalid},
		{"bad stale steer", "HERMES_STALE_STEER", "soon", "HERMES_STALE_STEER", config.ErrInvalid},
		{"negative stale steer", "HERMES_STALE_STEER", "-5m", "HERMES_STALE_STEER", config.ErrInvalid},
		{"tiny stale steer", "HERMES_STALE_STEER", "10ms", "HERMES_STALE_STEER", config.ErrInvalid},
		{"bad max upload", "HERMES_MAX_UPLOAD", "ten megs", "HERMES_MAX_UPLOAD", config.ErrInvalid},
		{"negative max upload", "HERMES_MAX_UPLOAD", "-1", "HERMES_MAX_UPLOAD", config.ErrInvalid},
		{"bad context lines", "HERMES_CONTEXT_LINES", "a few", "HERMES_CONTEXT_LINES", config.ErrInvalid},
		{"negative context lines", "HERMES_CONTEXT_LINES", "-1", "HERMES_CONTEXT_LINES", config.ErrInvalid},
		{"many context lines", "HERMES_CONTEXT_LINES", "11", "HERMES_CONTEXT_LINES", config.ErrInvalid},
		{"empty quick reply", "HERMES_QUICK_REPLIES", "Yes||No", "HERMES_QUICK_REPLIES", config.ErrInvalid},
		{"trailing quick reply separator", "HERMES_QUICK_REPLIES", "Yes|", "HERMES_QUICK_REPLIES", config.ErrInvalid},
		{"long quick reply", "HERMES_QUICK_REPLIES", "Yes|" + strings.Repeat("x", 41), "HERMES_QUICK_REPLIES", config.ErrInvalid},
		{"many quick replies", "HERMES_QUICK_REPLIES", "1|2|3|4|5|6|7", "HERMES_QUICK_REPLIES", config.ErrInvalid},
		{"twice the same quick reply", "HERMES_QUICK_REPLIES", "Yes| Yes", "HERMES_QUICK_REPLIES", config.ErrInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := minimal()
			e[tc.key] = tc.value
			_, err := config.Load(config.Sources{Getenv: env(e)})
			var ve *config.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want *ValidationError", err)
			}
			if ve.Var != tc.wantVar || !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v (var %s), want var %s, %v", err, ve.Var, tc.wantVar, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantVar) {
				t.Fatalf("message %q does not name %s", err, tc.wantVar)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("message leaks a secret: %q", err)
			}
		})
	}
}

func TestNoHomeNoDB(t *testing.T) {
	e := minimal()
	delete(e, "HOME")
	_, err := config.Load(config.Sources{Getenv: env(e)})
	if !errors.Is(err, config.ErrMissing) || !strings.Contains(err.Error(), "HERMES_DB") {
		t.Fatalf("err = %v", err)
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	e := minimal()
	e["OPENCODE_SERVER_PASSWORD"] = "pw-secret-xyz"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	s := c.String()
	if strings.Contains(s, "secret") || !strings.Contains(s, "OPENCODE_SERVER_PASSWORD=[set]") {
		t.Fatalf("String() = %s", s)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	given := config.RegisterFlags(fs)
	var usage strings.Builder
	fs.SetOutput(&usage)
	if err := fs.Parse([]string{"--telegram-bot-token", token}); err != nil {
		t.Fatal(err)
	}
	fs.PrintDefaults()
	if strings.Contains(usage.String(), "secret") {
		t.Fatalf("usage leaks the token: %s", usage.String())
	}
	for _, s := range config.Settings() {
		if !strings.Contains(usage.String(), s.Env) {
			t.Errorf("usage does not mention %s", s.Env)
		}
	}
	if given()["telegram-bot-token"] != token {
		t.Fatalf("given flags = %v", given())
	}
}

func TestEnvFile(t *testing.T) {
	content := `# hermes-bot settings
; another comment

TELEGRAM_BOT_TOKEN=123:abc
TELEGRAM_CHAT_ID = -100555
OPENCODE_SERVER_PASSWORD="p a\"ss"
HERMES_DB='/var/lib/x y/p.db'
HERMES_QUESTION_TTL=1h\
30m
`
	path := filepath.Join(t.TempDir(), "env")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	vars, err := config.ReadEnvFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"TELEGRAM_BOT_TOKEN": "123:abc", "TELEGRAM_CHAT_ID": "-100555",
		"OPENCODE_SERVER_PASSWORD": `p a"ss`, "HERMES_DB": "/var/lib/x y/p.db",
		"HERMES_QUESTION_TTL": "1h30m",
	}
	if len(vars) != len(want) {
		t.Fatalf("vars = %v", vars)
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q", k, vars[k], v)
		}
	}
	c, err := config.Load(config.Sources{EnvFile: vars, Getenv: env(map[string]string{"HOME": "/h"})})
	if err != nil {
		t.Fatal(err)
	}
	if c.QuestionTTL != 90*time.Minute || c.ChatID != -100555 {
		t.Fatalf("config = %s", c)
	}
}

func TestEnvFileErrors(t *testing.T) {
	for _, bad := range []string{"JUSTAKEY\n", "1BAD=x\n", "K=\"unterminated secretvalue\n", "has space=1\n"} {
		_, err := config.ParseEnvFile(strings.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: err = %v, want a line-1 error", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "secretvalue") {
			t.Errorf("%q: error leaks the value: %v", bad, err)
		}
	}
	if _, err := config.ReadEnvFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file: want an error")
	}
}

func TestOperationsSettings(t *testing.T) {
	e := minimal()
	e["HERMES_NOTIFY"] = " idle , error,idle"
	e["HERMES_AUTO_APPROVE"] = "LOW"
	e["HERMES_HTTP_ADDR"] = ":9090"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	if c.AutoApprove != "low" {
		t.Fatalf("config = %s", c)
	}
	if len(c.Notify) != 2 || !c.Notifies(config.NotifyIdle) || !c.Notifies(config.NotifyError) {
		t.Fatalf("Notify = %v", c.Notify)
	}
	if c.HTTPAddr != "127.0.0.1:9090" {
		t.Fatalf("a bare port must bind loopback: HTTPAddr = %q", c.HTTPAddr)
	}
	e["HERMES_HTTP_ADDR"] = "0.0.0.0:9090"
	if c, err = config.Load(config.Sources{Getenv: env(e)}); err != nil || c.HTTPAddr != "0.0.0.0:9090" {
		t.Fatalf("explicit host: %v, %q", err, c.HTTPAddr)
	}
}

func TestLang(t *testing.T) {
	e := minimal()
	e["HERMES_LANG"] = " ZH "
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Lang != "zh" || !strings.Contains(c.String(), "HERMES_LANG=zh") {
		t.Fatalf("config = %s", c)
	}
}

func TestTopicSettings(t *testing.T) {
	e := minimal()
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	if c.ThreadID != 0 || c.TopicPerProject {
		t.Fatalf("defaults: ThreadID %d, TopicPerProject %v; want 0, false", c.ThreadID, c.TopicPerProject)
	}
	e["TELEGRAM_THREAD_ID"] = " 42 "
	e["HERMES_TOPIC_PER_PROJECT"] = "1"
	if c, err = config.Load(config.Sources{Getenv: env(e)}); err != nil {
		t.Fatal(err)
	}
	if c.ThreadID != 42 || !c.TopicPerProject {
		t.Fatalf("ThreadID %d, TopicPerProject %v; want 42, true", c.ThreadID, c.TopicPerProject)
	}
	if s := c.String(); !strings.Contains(s, "TELEGRAM_THREAD_ID=42") || !strings.Contains(s, "HERMES_TOPIC_PER_PROJECT=true") {
		t.Fatalf("String() misses the topic settings:\n%s", s)
	}
	c, err = config.Load(config.Sources{Getenv: env(e), Flags: map[string]string{"topic-per-project": "false"}})
	if err != nil || c.TopicPerProject {
		t.Fatalf("flag --topic-per-project=false: %v, TopicPerProject %v", err, c != nil && c.TopicPerProject)
	}
}

// TestEnvFileExport: a shell script's "export KEY=…" is refused, as
// systemd refuses it, with a hint to drop the export.
func TestEnvFileExport(t *testing.T) {
	_, err := config.ParseEnvFile(strings.NewReader("# ok\nexport TELEGRAM_BOT_TOKEN=1:secretvalue\n"))
	if err == nil || !strings.Contains(err.Error(), `line 2: want KEY=VALUE: drop the "export" before TELEGRAM_BOT_TOKEN`) {
		t.Errorf("err = %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "secretvalue") {
		t.Errorf("error leaks the value: %v", err)
	}
	// A key that merely starts with "export" is a key.
	vars, err := config.ParseEnvFile(strings.NewReader("exported=1\n"))
	if err != nil || vars["exported"] != "1" {
		t.Errorf("exported=1: %v, %v", vars, err)
	}
}

// TestValidationErrorFrom: an error says where its value came from.
func TestValidationErrorFrom(t *testing.T) {
	file := map[string]string{"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_CHAT_ID": "-100", "HOME": "/h"}
	for _, tc := range []struct {
		name       string
		file, envv map[string]string
		flags      map[string]string
		wantVar    string
		want       string
	}{
		{"env-file", map[string]string{"HERMES_LANG": "fr"}, nil, nil, "HERMES_LANG", "env-file"},
		{"environment over env-file", map[string]string{"HERMES_LANG": "zh"}, map[string]string{"HERMES_LANG": "fr"}, nil, "HERMES_LANG", "environment"},
		{"flag", nil, nil, map[string]string{"lang": "fr"}, "HERMES_LANG", "flag --lang"},
		{"token checked after loading", nil, map[string]string{"TELEGRAM_BOT_TOKEN": "nocolon"}, nil, "TELEGRAM_BOT_TOKEN", "environment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := maps.Clone(file)
			maps.Copy(f, tc.file)
			e := map[string]string{"HOME": "/h"}
			maps.Copy(e, tc.envv)
			_, err := config.Load(config.Sources{EnvFile: f, Getenv: env(e), Flags: tc.flags})
			var ve *config.ValidationError
			if !errors.As(err, &ve) || ve.Var != tc.wantVar || ve.From != tc.want {
				t.Fatalf("err = %v (%+v), want %s from %q", err, ve, tc.wantVar, tc.want)
			}
		})
	}
}

// HERMES_STALE_STEER and HERMES_MAX_UPLOAD take their zero (off) and sizes in
// bytes, KB and MB.
func TestLoadSteeringFileSettings(t *testing.T) {
	for _, tc := range []struct {
		stale, upload string
		wantStale     time.Duration
		wantUpload    int64
	}{
		{"0", "0", 0, 0},
		{"90s", "512KB", 90 * time.Second, 512 << 10},
		{"1h", "20mb", time.Hour, 20 << 20},
		{"5m", "1048577", 5 * time.Minute, 1<<20 + 1},
	} {
		e := minimal()
		e["HERMES_STALE_STEER"], e["HERMES_MAX_UPLOAD"] = tc.stale, tc.upload
		c, err := config.Load(config.Sources{Getenv: env(e)})
		if err != nil {
			t.Fatalf("%s, %s: %v", tc.stale, tc.upload, err)
		}
		if c.StaleSteer != tc.wantStale || c.MaxUpload != tc.wantUpload {
			t.Errorf("%s, %s: got %s and %d bytes, want %s and %d", tc.stale, tc.upload, c.StaleSteer, c.MaxUpload, tc.wantStale, tc.wantUpload)
		}
	}
}

// HERMES_CONTEXT_LINES defaults to a few and takes 0 (off);
// HERMES_QUICK_REPLIES defaults to none and keeps the replies in order,
// spaces tidied.
func TestLoadContextAndQuickReplies(t *testing.T) {
	c, err := config.Load(config.Sources{Getenv: env(minimal())})
	if err != nil {
		t.Fatal(err)
	}
	if c.ContextLines != config.DefaultContextLines || c.ContextLines == 0 || c.QuickReplies != nil {
		t.Fatalf("defaults: %d context lines, quick replies %q", c.ContextLines, c.QuickReplies)
	}
	e := minimal()
	e["HERMES_CONTEXT_LINES"], e["HERMES_QUICK_REPLIES"] = "0", "Yes, go ahead| No,  stop |Explain first|4|5|"+strings.Repeat("é", 40)
	if c, err = config.Load(config.Sources{Getenv: env(e)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"Yes, go ahead", "No, stop", "Explain first", "4", "5", strings.Repeat("é", 40)}
	if c.ContextLines != 0 || !slices.Equal(c.QuickReplies, want) {
		t.Errorf("got %d context lines, quick replies %q; want 0 and %q", c.ContextLines, c.QuickReplies, want)
	}
}

// HERMES_MAX_UPLOAD's default is opencode's own cap on one prompt's files.
func TestMaxUploadDefaultIsOpencodes(t *testing.T) {
	if config.DefaultMaxUpload != opencode.DefaultMaxUpload {
		t.Errorf("config.DefaultMaxUpload = %d, opencode.DefaultMaxUpload = %d", config.DefaultMaxUpload, opencode.DefaultMaxUpload)
	}
}

// Telegram's settings are optional one by one, but hermes-bot needs a
// chat: with none configured the error names the settings to set.
func TestNoChatConfigured(t *testing.T) {
	e := minimal()
	delete(e, "TELEGRAM_BOT_TOKEN")
	delete(e, "TELEGRAM_CHAT_ID")
	_, err := config.Load(config.Sources{Getenv: env(e)})
	if !errors.Is(err, config.ErrMissing) || !strings.Contains(err.Error(), "no chat is configured") ||
		!strings.Contains(err.Error(), "TELEGRAM_BOT_TOKEN") || !strings.Contains(err.Error(), "TELEGRAM_CHAT_ID") {
		t.Fatalf("Load without a chat: %v; want it to say no chat is configured, naming the settings", err)
	}
}

func TestMatrixSettings(t *testing.T) {
	matrixOnly := func() map[string]string {
		e := minimal()
		delete(e, "TELEGRAM_BOT_TOKEN")
		delete(e, "TELEGRAM_CHAT_ID")
		e["MATRIX_HOMESERVER_URL"] = "https://matrix.example.org/"
		e["MATRIX_USER_ID"] = "@hermes:example.org"
		e["MATRIX_ACCESS_TOKEN"] = "syt_secret-matrix-token"
		e["MATRIX_ROOM_ID"] = "!room:example.org"
		e["MATRIX_ALLOWED_USER_IDS"] = "@me:example.org, @you:example.org"
		return e
	}
	c, err := config.Load(config.Sources{Getenv: env(matrixOnly())})
	if err != nil {
		t.Fatalf("Matrix without Telegram: %v", err)
	}
	if !c.Matrix() || c.Telegram() || c.MatrixHomeserverURL != "https://matrix.example.org" ||
		len(c.MatrixAllowedUserIDs) != 2 || c.MatrixAllowedUserIDs[1] != "@you:example.org" {
		t.Fatalf("config %+v", c)
	}
	if s := c.String(); strings.Contains(s, "syt_secret") || !strings.Contains(s, "MATRIX_ACCESS_TOKEN=[set]") {
		t.Fatalf("String shows the token, or not that it is set:\n%s", s)
	}
	for _, tc := range []struct{ drop, set, value, want string }{
		{drop: "MATRIX_HOMESERVER_URL", want: "MATRIX_HOMESERVER_URL"},
		{drop: "MATRIX_USER_ID", want: "MATRIX_USER_ID"},
		{drop: "MATRIX_ACCESS_TOKEN", want: "MATRIX_PASSWORD"},
		{drop: "MATRIX_ROOM_ID", want: "MATRIX_ROOM_ID"},
		{drop: "MATRIX_ALLOWED_USER_IDS", want: "MATRIX_ALLOWED_USER_IDS"},
		{set: "MATRIX_USER_ID", value: "hermes", want: "MATRIX_USER_ID"},
		{set: "MATRIX_ROOM_ID", value: "#room:example.org", want: "!AbCdEf:example.org"},
		{set: "MATRIX_ALLOWED_USER_IDS", value: " , ", want: "holds no user ID"},
		{set: "MATRIX_ALLOWED_USER_IDS", value: "@me:example.org,bob", want: `"bob"`},
		{set: "MATRIX_HOMESERVER_URL", value: "matrix.example.org", want: "MATRIX_HOMESERVER_URL"},
	} {
		e := matrixOnly()
		if tc.drop != "" {
			delete(e, tc.drop)
		} else {
			e[tc.set] = tc.value
		}
		_, err := config.Load(config.Sources{Getenv: env(e)})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "syt_secret") {
			t.Errorf("%+v: Load = %v; want an error naming %q, without the token", tc, err, tc.want)
		}
	}
	e := matrixOnly()
	e["MATRIX_PASSWORD"], e["MATRIX_ACCESS_TOKEN"] = "pw-secret", ""
	if _, err := config.Load(config.Sources{Getenv: env(e)}); err != nil {
		t.Fatalf("Matrix with a password: %v", err)
	}
}

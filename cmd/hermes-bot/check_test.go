package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
	"github.com/hermes-bot/hermes-bot/pending"
)

const (
	checkToken          = "4242:check-secret-token"
	checkPassword       = "check-secret-password"
	checkChat     int64 = -1001111
)

var checkUser = telegramtest.User{ID: 77, FirstName: "Ada", Username: "ada"}

// checkSetup is a good set-up: a fake Telegram where the bot and the
// allowed user are members of the group, and a fake opencode with a
// password. Tests break one thing each.
type checkSetup struct {
	tg  *telegramtest.Server
	oc  *opencodetest.Server
	env map[string]string
}

func newCheckSetup(t *testing.T, tgOpts []telegramtest.Option, ocOpts ...opencodetest.ServerOption) *checkSetup {
	t.Helper()
	tg := telegramtest.NewServer(checkToken, tgOpts...)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(checkChat, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	if err := tg.SetMember(checkChat, checkUser, telegramtest.MemberMember); err != nil {
		t.Fatal(err)
	}
	oc := opencodetest.NewServer(append([]opencodetest.ServerOption{opencodetest.WithAuth("", checkPassword)}, ocOpts...)...)
	t.Cleanup(oc.Close)
	return &checkSetup{tg: tg, oc: oc, env: map[string]string{
		"HOME":                      t.TempDir(),
		"TELEGRAM_BOT_TOKEN":        checkToken,
		"TELEGRAM_CHAT_ID":          fmt.Sprint(checkChat),
		"TELEGRAM_ALLOWED_USER_IDS": fmt.Sprint(checkUser.ID),
		"TELEGRAM_API_URL":          tg.URL,
		"OPENCODE_URL":              oc.URL,
		"OPENCODE_SERVER_PASSWORD":  checkPassword,
	}}
}

// check runs "hermes-bot check" and fails the test if a secret shows.
func (s *checkSetup) check(t *testing.T, args ...string) (stdout string, code int) {
	t.Helper()
	stdout, stderr, code := runCmd(t, s.env, append([]string{"check"}, args...)...)
	for _, secret := range []string{checkToken, "check-secret"} {
		if strings.Contains(stdout+stderr, secret) {
			t.Fatalf("check prints a secret:\n%s%s", stdout, stderr)
		}
	}
	if code == 1 && !strings.Contains(stderr, "check failed") {
		t.Errorf("exit 1 without saying check failed: stderr %q", stderr)
	}
	return stdout, code
}

// wantLines fails unless every want is in out, each on a line of its own
// kind: "✓ ", "! " or "✗ " followed by text.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}

// closedURL is an http URL where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestCheckGoodSetup(t *testing.T) {
	s := newCheckSetup(t, nil)
	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("code %d, want 0:\n%s", code, out)
	}
	wantLines(t, out,
		"✓ settings: valid, from the environment\n",
		"✓ telegram bot: @hermes_test_bot (ID 4242)\n",
		fmt.Sprintf("✓ telegram chat %d: \"Chat %d\", a supergroup; the bot is a member\n", checkChat, checkChat),
		"    note: privacy mode is on: the bot receives button presses and replies to its own messages",
		"✓ allowed users: @ada\n",
		"✓ opencode "+s.oc.URL+": healthy, opencode 1.x, version 1.18.33\n",
		"✓ store "+filepath.Join(s.env["HOME"], ".local", "state", "hermes-bot", "pending.db")+": does not exist yet",
		"All good: ready to run.\n",
	)
	if strings.Contains(out, "✗") || strings.Contains(out, "\n! ") {
		t.Errorf("a good set-up reports a problem:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(s.env["HOME"], ".local")); !os.IsNotExist(err) {
		t.Errorf("check created the store's folder: %v", err)
	}
	if len(s.tg.RequestsFor("sendMessage")) != 0 || len(s.oc.Replies()) != 0 {
		t.Error("check sent something")
	}
}

func TestCheckEnvFileAndFlags(t *testing.T) {
	s := newCheckSetup(t, nil)
	path := filepath.Join(t.TempDir(), "hermes.env")
	writeFile(t, path, "OPENCODE_SERVER_PASSWORD=wrong-check-secret\n", 0o600)
	delete(s.env, "OPENCODE_SERVER_PASSWORD")
	out, code := s.check(t, "--env-file", path)
	if code != 1 {
		t.Fatalf("the env-file's password was not used: code %d\n%s", code, out)
	}
	wantLines(t, out, "✓ settings: valid, from the env-file "+path+", the environment\n")
	// A flag wins over the env-file, as with serve.
	out, code = s.check(t, "--env-file", path, "--opencode-password", checkPassword)
	if code != 0 {
		t.Fatalf("flag did not win: code %d\n%s", code, out)
	}
	wantLines(t, out, "✓ settings: valid, from the env-file "+path+", the environment, flags\n")
}

// TestCheckUnknownSettings: a misspelled key is a warning with the name it
// probably means, not "settings: valid" alone.
func TestCheckUnknownSettings(t *testing.T) {
	s := newCheckSetup(t, nil)
	path := filepath.Join(t.TempDir(), "hermes.env")
	writeFile(t, path, "HERMES_LANGG=zh\nOPENCODE_PASSWORD=x\n", 0o600)
	s.env["HERMES_NOTIFI"] = "idle"
	out, code := s.check(t, "--env-file", path)
	if code != 0 {
		t.Fatalf("an unknown key must only warn: code %d\n%s", code, out)
	}
	wantLines(t, out,
		"✓ settings: valid, from the env-file "+path+", the environment\n",
		"! settings: HERMES_LANGG in the env-file is not a setting, so it is ignored; did you mean HERMES_LANG?\n    fix: rename it to HERMES_LANG\n",
		"! settings: HERMES_NOTIFI in the environment is not a setting, so it is ignored; did you mean HERMES_NOTIFY?\n",
		"! settings: OPENCODE_PASSWORD in the env-file is not a setting, so it is ignored; did you mean OPENCODE_SERVER_PASSWORD?\n    fix: rename it to OPENCODE_SERVER_PASSWORD\n",
		"Ready to run, with 3 warnings.\n",
	)
}

func TestCheckShortSecretKeepsReportReadable(t *testing.T) {
	// A redactor would turn every "x" of the report into [REDACTED]; only
	// texts from outside go through it.
	s := newCheckSetup(t, nil)
	s.env["OPENCODE_SERVER_PASSWORD"] = "x"
	s.env["TELEGRAM_API_URL"] = closedURL(t)
	out, _ := s.check(t)
	if strings.Contains(out, "REDACTED") || !strings.Contains(out, "proxy (HTTPS_PROXY)") {
		t.Errorf("report mangled:\n%s", out)
	}
}

func TestCheckWrongPassword(t *testing.T) {
	s := newCheckSetup(t, nil)
	s.env["OPENCODE_SERVER_PASSWORD"] = "wrong-check-secret"
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"✗ opencode "+s.oc.URL+": wrong OPENCODE_SERVER_PASSWORD: opencode refused it (HTTP 401)\n",
		`    fix: use the password opencode serve was started with (and its user: OPENCODE_SERVER_USERNAME is "opencode")`,
		"✓ telegram bot:", // the other checks still run
		"1 problem, 0 warnings.\n",
	)

	delete(s.env, "OPENCODE_SERVER_PASSWORD")
	out, _ = s.check(t)
	wantLines(t, out, "opencode wants a password and OPENCODE_SERVER_PASSWORD is empty")
}

func TestCheckWrongChat(t *testing.T) {
	s := newCheckSetup(t, nil)
	s.env["TELEGRAM_CHAT_ID"] = "-100999"
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"✗ telegram chat -100999: chat not found\n",
		"- allowed users: not checked: needs the chat\n",
		"    fix: is the bot in the group, and is TELEGRAM_CHAT_ID right? Add @hermes_test_bot to the group;",
	)

	s.env["TELEGRAM_CHAT_ID"] = fmt.Sprint(checkChat)
	s.tg.FailNext("getChat", telegramtest.Fault{Code: 400, MigrateToChatID: -100777})
	out, _ = s.check(t)
	wantLines(t, out, "the group became a supergroup with the ID -100777", "fix: set TELEGRAM_CHAT_ID=-100777")

	s.tg.FailNext("getChat", telegramtest.Fault{Code: 403, Description: "Forbidden: bot was kicked from the supergroup chat"})
	out, _ = s.check(t)
	wantLines(t, out, "Telegram says: Forbidden: bot was kicked from the supergroup chat", "fix: add @hermes_test_bot to the group again")
}

func TestCheckBotMembership(t *testing.T) {
	bot := telegramtest.User{ID: 4242, FirstName: "Hermes Test", Username: "hermes_test_bot"}
	cases := []struct {
		name   string
		opts   []telegramtest.Option
		status string
		code   int
		want   string
	}{
		{"admin", nil, telegramtest.MemberAdministrator, 0, "; the bot is an admin and sees every message\n"},
		{"privacy off", []telegramtest.Option{telegramtest.WithPrivacyDisabled()}, telegramtest.MemberMember, 0,
			"; the bot is a member with privacy mode off and sees every message\n"},
		{"left", nil, telegramtest.MemberLeft, 1, "; the bot is not a member (left)\n    fix: add @hermes_test_bot to the group"},
		{"muted", nil, telegramtest.MemberRestricted, 1, "; the bot may not send messages there\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newCheckSetup(t, tc.opts)
			if err := s.tg.SetMember(checkChat, bot, tc.status); err != nil {
				t.Fatal(err)
			}
			out, code := s.check(t)
			if code != tc.code {
				t.Fatalf("code %d, want %d:\n%s", code, tc.code, out)
			}
			wantLines(t, out, tc.want)
			if strings.Contains(out, "privacy mode is on") {
				t.Errorf("privacy note where it does not apply:\n%s", out)
			}
		})
	}
}

func TestCheckWrongToken(t *testing.T) {
	s := newCheckSetup(t, nil)
	s.env["TELEGRAM_BOT_TOKEN"] = "4242:wrong-check-secret"
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out, "✗ telegram bot: Telegram refused the bot token\n", "fix: copy the token again from @BotFather",
		fmt.Sprintf("- telegram chat %d: not checked: needs a bot token Telegram accepts\n", checkChat),
		"- allowed users: not checked: needs a bot token Telegram accepts\n",
		"1 problem, 0 warnings.\n")
	if len(s.tg.RequestsFor("getChat")) != 0 {
		t.Errorf("chat checked without a working token:\n%s", out)
	}
}

// TestCheckChatKindsSkipUserCheck: in a private chat or a channel the
// allowed users are not looked up, and the report says so.
func TestCheckChatKindsSkipUserCheck(t *testing.T) {
	for kind, want := range map[string]string{
		telegramtest.ChatPrivate: "- allowed users: not checked: the chat is a private one\n",
		telegramtest.ChatChannel: "- allowed users: not checked: the chat is a channel\n",
	} {
		s := newCheckSetup(t, nil)
		id := int64(-100777)
		if kind == telegramtest.ChatPrivate {
			id = checkUser.ID
		}
		if err := s.tg.AddChat(id, kind); err != nil {
			t.Fatal(err)
		}
		s.env["TELEGRAM_CHAT_ID"] = fmt.Sprint(id)
		out, _ := s.check(t)
		wantLines(t, out, want)
	}
}

func TestCheckUnreachable(t *testing.T) {
	s := newCheckSetup(t, nil)
	s.env["TELEGRAM_API_URL"] = closedURL(t)
	s.env["OPENCODE_URL"] = closedURL(t)
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"✗ telegram bot: cannot reach Telegram at "+s.env["TELEGRAM_API_URL"]+": dial tcp",
		"connection refused\n    fix: check this machine's network, DNS, firewall or proxy (HTTPS_PROXY), and TELEGRAM_API_URL\n",
		fmt.Sprintf("- telegram chat %d: not checked: Telegram could not be reached\n", checkChat),
		"- allowed users: not checked: Telegram could not be reached\n",
		"✗ opencode "+s.env["OPENCODE_URL"]+": cannot reach opencode: dial tcp",
		"fix: start it, for example: OPENCODE_SERVER_PASSWORD=… opencode serve --port 4096",
		"2 problems, 0 warnings.\n",
	)
}

func TestCheckOpencodeWarnings(t *testing.T) {
	s := newCheckSetup(t, nil, opencodetest.WithVersion("1.19.2"))
	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("another opencode version must only warn: code %d\n%s", code, out)
	}
	wantLines(t, out, "! opencode "+s.oc.URL+": healthy, version 1.19.2; hermes-bot is tested with 1.18.x\n",
		"Ready to run, with 1 warning.\n")

	open := opencodetest.NewServer()
	defer open.Close()
	s.env["OPENCODE_URL"] = open.URL
	delete(s.env, "OPENCODE_SERVER_PASSWORD")
	out, code = s.check(t)
	if code != 0 {
		t.Fatalf("code %d\n%s", code, out)
	}
	wantLines(t, out, "! opencode password: OPENCODE_SERVER_PASSWORD is empty and opencode accepts that")

	nf := opencodetest.NewServer()
	defer nf.Close()
	s.env["OPENCODE_URL"] = nf.URL + "/not-here"
	out, _ = s.check(t)
	wantLines(t, out, "no /global/health there (HTTP 404)")
}

func TestCheckAllowedUsers(t *testing.T) {
	s := newCheckSetup(t, nil)
	s.env["TELEGRAM_ALLOWED_USER_IDS"] = fmt.Sprintf("%d,12345", checkUser.ID)
	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("an unknown allowed user must only warn: code %d\n%s", code, out)
	}
	wantLines(t, out, "! allowed users: not members of the chat: 12345\n")

	s.env["TELEGRAM_ALLOWED_USER_IDS"] = ""
	out, _ = s.check(t)
	wantLines(t, out, "! allowed users: TELEGRAM_ALLOWED_USER_IDS is empty: any member of the chat may answer\n")
	// Steering is off then, in one line saying why.
	wantLines(t, out, "- steering: off: TELEGRAM_ALLOWED_USER_IDS is empty, and continuing, starting or stopping sessions from the chat runs code with the agent's rights, so only the people named there may\n")
}

func TestCheckStore(t *testing.T) {
	s := newCheckSetup(t, nil)
	db := filepath.Join(t.TempDir(), "pending.db")
	s.env["HERMES_DB"] = db

	store, err := pending.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("a store in use must only warn: code %d\n%s", code, out)
	}
	wantLines(t, out, "! store "+db+": in use by a running hermes-bot, so not opened\n", "fine if that is your service")
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	out, code = s.check(t)
	wantLines(t, out, "✓ store "+db+": 0 requests in flight\n")
	if code != 0 {
		t.Fatalf("code %d", code)
	}

	// A file of a release older than the oldest this one reads: its
	// records bear no schema marker.
	markTooOld(t, db)
	out, code = s.check(t)
	if code != 1 {
		t.Fatalf("store too old: code %d\n%s", code, out)
	}
	wantLines(t, out, "✗ store "+db+": written by a hermes-bot older than "+pending.OldestRelease+", whose records this one no longer reads\n",
		"fix: open it once with hermes-bot "+pending.OldestRelease, "(mv "+db)

	writeFile(t, db, strings.Repeat("not a bbolt file ", 1000), 0o600)
	out, code = s.check(t)
	if code != 1 {
		t.Fatalf("damaged store: code %d\n%s", code, out)
	}
	wantLines(t, out, "✗ store "+db+": damaged or not a hermes-bot store\n", "fix: move it aside (mv "+db)

	s.env["HERMES_DB"] = t.TempDir()
	out, _ = s.check(t)
	wantLines(t, out, ": is a folder\n")

	ro := t.TempDir()
	if err := os.Chmod(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o700) })
	if os.Geteuid() != 0 { // root writes anywhere
		s.env["HERMES_DB"] = filepath.Join(ro, "sub", "pending.db")
		out, _ = s.check(t)
		wantLines(t, out, ": cannot be created: ", "fix the permissions of "+ro)
	}
}

// TestCheckStoreInProc: a HERMES_DB where no file can be made, such as
// under /proc, gets the advice to choose another path, not to change the
// permissions of /proc.
func TestCheckStoreInProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	s := newCheckSetup(t, nil)
	s.env["HERMES_DB"] = "/proc/nope/x.db"
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1\n%s", code, out)
	}
	wantLines(t, out, "✗ store /proc/nope/x.db: cannot be created: ", "    fix: set HERMES_DB to an absolute path")
	if strings.Contains(out, "permissions of /proc") {
		t.Errorf("advises changing /proc:\n%s", out)
	}
}

func TestCheckBadSettings(t *testing.T) {
	s := newCheckSetup(t, nil)
	s.env["TELEGRAM_CHAT_ID"] = "my-group"
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out, "✗ settings: TELEGRAM_CHAT_ID is invalid", "fix: TELEGRAM_CHAT_ID comes from the environment, which overrides the env-file: correct or unset it there")
	if strings.Contains(out, "telegram") {
		t.Errorf("went on to call Telegram with bad settings:\n%s", out)
	}

	out, code = s.check(t, "--env-file", filepath.Join(t.TempDir(), "missing.env"))
	if code != 1 {
		t.Fatalf("missing env-file: code %d", code)
	}
	wantLines(t, out, "✗ settings: read env-file", "fix: create it: copy deploy/hermes-bot.env.example (in the source tree) to ", `or "hermes-bot service install" writes one for a service`)

	if _, _, code := runCmd(t, s.env, "check", "--bogus"); code != 2 {
		t.Errorf("unknown flag: code %d, want 2", code)
	}
	if stdout, stderr, code := runCmd(t, s.env, "check", "-h"); code != 0 || !strings.Contains(stdout, "--env-file") || stderr != "" {
		t.Errorf("check -h: code %d, stdout %q, stderr %q; want the help on stdout", code, stdout, stderr)
	}
}

// TestCheckRealOpencode runs check against a real opencode serve, which
// answers a wrong password with its own 401. Skipped where opencode cannot
// be had, unless HERMES_E2E=1.
func TestCheckRealOpencode(t *testing.T) {
	t.Parallel()
	model := opencodetest.NewModel()
	defer model.Close()
	srv := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: model.URL, Password: checkPassword})
	s := newCheckSetup(t, nil)
	s.env["OPENCODE_URL"] = srv.URL

	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("good set-up: code %d\n%s", code, out)
	}
	wantLines(t, out, "✓ opencode "+srv.URL+": healthy, opencode 1.x, version "+opencodetest.OpencodeVersion+"\n")

	s.env["OPENCODE_SERVER_PASSWORD"] = "wrong-check-secret"
	out, code = s.check(t)
	if code != 1 {
		t.Fatalf("wrong password: code %d\n%s", code, out)
	}
	wantLines(t, out, "✗ opencode "+srv.URL+": wrong OPENCODE_SERVER_PASSWORD: opencode refused it (HTTP 401)\n")
}

// serve refuses a store of a release older than the oldest it reads as a
// configuration error (exit 2: a restart cannot help), naming the file
// and the way out, and leaves the file as it was.
func TestServeRefusesTooOldStore(t *testing.T) {
	s := newCheckSetup(t, nil)
	db := filepath.Join(t.TempDir(), "pending.db")
	s.env["HERMES_DB"] = db
	store, err := pending.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	markTooOld(t, db)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCmd(t, s.env)
	if code != 2 || !strings.Contains(stderr, "older than "+pending.OldestRelease) || !strings.Contains(stderr, db) {
		t.Fatalf("serve with a too-old store: code %d, stderr:\n%s", code, stderr)
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the refused store changed (%v)", err)
	}
}

// TestCheckPasswordNotNeeded: hermes-bot sends a password to an opencode
// that asks for none; check says so, as a warning.
func TestCheckPasswordNotNeeded(t *testing.T) {
	s := newCheckSetup(t, nil)
	open := opencodetest.NewServer()
	defer open.Close()
	s.env["OPENCODE_URL"] = open.URL
	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("code %d, want 0 (a warning):\n%s", code, out)
	}
	wantLines(t, out, "! opencode password: opencode accepts requests without a password; the one in OPENCODE_SERVER_PASSWORD is not needed, "+
		"and anyone who can reach "+open.URL+" can drive your agent\n", "Ready to run, with 1 warning.\n")

	// Asking for it, it gets no such warning.
	s.env["OPENCODE_URL"] = s.oc.URL
	if out, _ := s.check(t); strings.Contains(out, "without a password") {
		t.Errorf("warned about an opencode that asks for its password:\n%s", out)
	}
}

// TestCheckBadSettingFromEnvironment: a bad value from the environment,
// with an env-file given, says to fix the environment, not the file.
func TestCheckBadSettingFromEnvironment(t *testing.T) {
	s := newCheckSetup(t, nil)
	path := filepath.Join(t.TempDir(), "hermes.env")
	writeFile(t, path, "HERMES_LANG=zh\n", 0o600)
	s.env["HERMES_LANG"] = "fr"
	out, code := s.check(t, "--env-file", path)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out, "(from environment)",
		"fix: HERMES_LANG comes from the environment, which overrides the env-file: correct or unset it there")
	if strings.Contains(out, "in "+path) {
		t.Errorf("says to fix the env-file:\n%s", out)
	}
}

// TestCheckReadableEnvFile: an env-file others can read is a warning that
// names it and the chmod that fixes it.
func TestCheckReadableEnvFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	s := newCheckSetup(t, nil)
	path := filepath.Join(t.TempDir(), "hermes.env")
	writeFile(t, path, "HERMES_LANG=en\n", 0o640)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	out, code := s.check(t, "--env-file", path)
	if code != 0 {
		t.Fatalf("code %d, want 0 (a warning):\n%s", code, out)
	}
	wantLines(t, out, "! settings: the env-file "+path+" can be read by other users (mode 0640) and holds secrets\n    fix: chmod 600 "+path+"\n",
		"Ready to run, with 1 warning.\n")
}

// markTooOld makes the store at db look written by a release older than
// the oldest this one reads: its meta bucket loses the schema marker.
func markTooOld(t *testing.T, db string) {
	t.Helper()
	raw, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Delete([]byte("schema")) }); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
}

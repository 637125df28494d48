package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/config"
	"github.com/hermes-bot/hermes-bot/deploy"
)

var update = flag.Bool("update", false, "rewrite the files in deploy/ from the templates in service.go")

// serviceEnv is one machine as the service command sees it.
type serviceEnv struct {
	goos   string
	env    map[string]string
	binary string // what os.Executable reports
	root   string // where --system's / is
}

func (e serviceEnv) run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &serviceCommand{
		getenv: func(k string) string { return e.env[k] },
		stdout: &out, stderr: &errb,
		goos:       e.goos,
		executable: func() (string, error) { return e.binary, nil },
		root:       e.root,
	}
	err := c.Run(context.Background(), args)
	code = exitCode(err, &errb)
	return out.String(), errb.String(), code
}

// newServiceEnv makes a temporary home with an executable hermes-bot in
// ~/bin.
func newServiceEnv(t *testing.T, goos string) serviceEnv {
	t.Helper()
	home := t.TempDir()
	bin := filepath.Join(home, "bin", "hermes-bot")
	writeFile(t, bin, "#!/bin/sh\n", 0o755)
	return serviceEnv{goos: goos, env: map[string]string{"HOME": home}, binary: bin, root: t.TempDir()}
}

func writeFile(t *testing.T, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

func mustPrint(t *testing.T, e serviceEnv, args ...string) string {
	t.Helper()
	out, stderr, code := e.run(t, append([]string{"print"}, args...)...)
	if code != 0 {
		t.Fatalf("print %v: code %d, stderr %q", args, code, stderr)
	}
	return out
}

// TestDeployFilesMatchTemplates keeps deploy/ and the generated files one
// and the same: the deploy/ files are the templates filled with the
// defaults a person installing by hand would use.
func TestDeployFilesMatchTemplates(t *testing.T) {
	cases := []struct {
		file string
		e    serviceEnv
		args []string
	}{
		{"hermes-bot.service", serviceEnv{goos: "linux", binary: "/usr/local/bin/hermes-bot"}, []string{"--system"}},
		{"hermes-bot.user.service", serviceEnv{goos: "linux", env: map[string]string{"HOME": "/home/you"},
			binary: "/home/you/go/bin/hermes-bot"}, nil},
		{"io.github.hermes-bot.plist", serviceEnv{goos: "darwin", env: map[string]string{"HOME": "/Users/you"},
			binary: "/Users/you/go/bin/hermes-bot"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			got := mustPrint(t, tc.e, tc.args...)
			if *update {
				if err := os.WriteFile(filepath.Join("..", "..", "deploy", tc.file), []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := fs.ReadFile(deploy.Files, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("deploy/%s differs from what service print generates; if the template is right, run\n"+
					"  go test ./cmd/hermes-bot -run TestDeployFiles -update\ngot:\n%s", tc.file, got)
			}
		})
	}
}

func TestEnvExampleListsEverySetting(t *testing.T) {
	example := string(deploy.EnvExample)
	for _, s := range config.Settings() {
		re := regexp.MustCompile(`(?m)^#?` + regexp.QuoteMeta(s.Env) + `=`)
		if !re.MatchString(example) {
			t.Errorf("deploy/hermes-bot.env.example has no %s= line (commented out or not)", s.Env)
		}
		if s.Secret && regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(s.Env)+`=.`).MatchString(example) {
			t.Errorf("deploy/hermes-bot.env.example gives the secret %s a value", s.Env)
		}
	}
	vars, err := config.ParseEnvFile(bytes.NewReader(deploy.EnvExample))
	if err != nil {
		t.Fatalf("the example is not a valid env-file: %v", err)
	}
	known := map[string]bool{}
	for _, s := range config.Settings() {
		known[s.Env] = true
	}
	for k := range vars {
		if !known[k] {
			t.Errorf("the example sets %s, which is no setting", k)
		}
	}
}

func TestServicePrintLinuxUser(t *testing.T) {
	e := newServiceEnv(t, "linux")
	out := mustPrint(t, e)
	for _, want := range []string{
		"\nExecStart=%h/bin/hermes-bot serve\n",
		"\nEnvironmentFile=%h/.config/hermes-bot/hermes-bot.env\n",
		"\nRestart=on-failure\n",
		"\nNoNewPrivileges=yes\n",
		"\nWantedBy=default.target\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("user unit lacks %q:\n%s", want, out)
		}
	}
	// A user manager may not be allowed the mount namespaces these need.
	for _, bad := range []string{"ProtectSystem=", "PrivateTmp=", "DynamicUser=", "multi-user.target"} {
		if strings.Contains(out, "\n"+bad) {
			t.Errorf("user unit has %s", bad)
		}
	}

	// XDG_CONFIG_HOME moves the env-file (and, see install, the unit).
	e.env["XDG_CONFIG_HOME"] = filepath.Join(e.env["HOME"], "cfg")
	if out := mustPrint(t, e); !strings.Contains(out, "\nEnvironmentFile=%h/cfg/hermes-bot/hermes-bot.env\n") {
		t.Errorf("XDG_CONFIG_HOME ignored:\n%s", out)
	}
}

func TestServicePrintLinuxSystem(t *testing.T) {
	e := newServiceEnv(t, "linux")
	out, stderr, code := e.run(t, "print", "--system", "--binary", "/usr/local/bin/hermes-bot")
	if code != 0 || stderr != "" {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"\nExecStart=/usr/local/bin/hermes-bot serve\n",
		"\nEnvironmentFile=/etc/hermes-bot/hermes-bot.env\n",
		"\nEnvironment=HERMES_DB=/var/lib/hermes-bot/pending.db\n",
		"\nStateDirectory=hermes-bot\n",
		"\nDynamicUser=yes\n",
		"\nNoNewPrivileges=yes\n",
		"\nProtectSystem=strict\n",
		"\nProtectHome=yes\n",
		"\nRestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX\n",
		"\nSystemCallFilter=@system-service\n",
		"\nRestart=on-failure\n",
		"\nWantedBy=multi-user.target\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("system unit lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "%h") {
		t.Error("a system unit must not use %h: it is root's home there")
	}

	// The sandbox hides /home: print warns, install refuses.
	_, stderr, code = e.run(t, "print", "--system")
	if code != 0 || !strings.Contains(stderr, "sandbox hides") {
		t.Errorf("binary under a hidden folder: code %d, stderr %q; want a warning", code, stderr)
	}
}

func TestServicePrintDarwin(t *testing.T) {
	e := newServiceEnv(t, "darwin")
	home := e.env["HOME"]
	check := func(out, wantBinary, wantEnvFile string) {
		t.Helper()
		var p struct {
			Keys   []string `xml:"dict>key"`
			Args   []string `xml:"dict>array>string"`
			Values []string `xml:"dict>string"`
		}
		if err := xml.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("plist is not XML: %v\n%s", err, out)
		}
		for _, k := range []string{"Label", "ProgramArguments", "RunAtLoad", "KeepAlive", "StandardOutPath", "StandardErrorPath"} {
			if !strings.Contains(strings.Join(p.Keys, ","), k) {
				t.Errorf("plist lacks %s: keys %v", k, p.Keys)
			}
		}
		want := []string{wantBinary, "serve", "--env-file", wantEnvFile, "--config-error-exit=0"}
		if strings.Join(p.Args, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("ProgramArguments = %q, want %q", p.Args, want)
		}
		log := filepath.Join(home, "Library", "Logs", "hermes-bot", "hermes-bot.log")
		if strings.Join(p.Values, ",") != launchdLabel+","+log+","+log {
			t.Errorf("Label and log paths = %q", p.Values)
		}
	}
	check(mustPrint(t, e), e.binary, filepath.Join(home, ".config", "hermes-bot", "hermes-bot.env"))

	// XML specials in paths are escaped; --os darwin works from Linux.
	e.goos = "linux"
	odd := filepath.Join(home, "R&D <bots>", "hermes-bot")
	check(mustPrint(t, e, "--os", "darwin", "--binary", odd, "--env-file", "/etc/x&y.env"), odd, "/etc/x&y.env")
}

func TestServicePathsAreEscaped(t *testing.T) {
	e := newServiceEnv(t, "linux")
	dir := t.TempDir()
	t.Chdir(dir)
	out := mustPrint(t, e, "--binary", `/opt/my apps/50%"off"/hermes-bot`, "--env-file", "rel/$HOME%.env")
	if !strings.Contains(out, `ExecStart="/opt/my apps/50%%\"off\"/hermes-bot" serve`) {
		t.Errorf("ExecStart not quoted for systemd:\n%s", out)
	}
	if !strings.Contains(out, "EnvironmentFile="+filepath.Join(dir, "rel", "$HOME%%.env")+"\n") {
		t.Errorf("relative env-file not made absolute, or %% not doubled:\n%s", out)
	}
	if got := execArg("/a/$X"); got != "/a/$$X" {
		t.Errorf("execArg($) = %s", got)
	}
	_, stderr, code := e.run(t, "print", "--binary", "/opt/a\nb")
	if code != 2 || !strings.Contains(stderr, "control character") {
		t.Errorf("newline in a path: code %d, stderr %q", code, stderr)
	}
}

func TestServiceInstallUser(t *testing.T) {
	e := newServiceEnv(t, "linux")
	home := e.env["HOME"]
	unit := filepath.Join(home, ".config", "systemd", "user", "hermes-bot.service")
	envFile := filepath.Join(home, ".config", "hermes-bot", "hermes-bot.env")

	out, stderr, code := e.run(t, "install")
	if code != 0 {
		t.Fatalf("install: code %d, stderr %q", code, stderr)
	}
	st, err := os.Stat(unit)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("unit file: %v, %v; want mode 644", st, err)
	}
	if got, _ := os.ReadFile(unit); string(got) != mustPrint(t, e) {
		t.Errorf("installed unit differs from print:\n%s", got)
	}
	st, err = os.Stat(envFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("env-file: %v, %v; want a template with mode 600", st, err)
	}
	if got, _ := os.ReadFile(envFile); !bytes.Equal(got, deploy.EnvExample) {
		t.Errorf("env-file is not the example")
	}
	for _, want := range []string{
		"Wrote " + unit,
		"Wrote a settings template to " + envFile,
		"hermes-bot check --env-file " + envFile,
		"\nStart the service:  systemctl --user daemon-reload && systemctl --user enable --now hermes-bot\n",
		"loginctl enable-linger",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}

	// Again: nothing changes, and the person's settings are never overwritten.
	writeFile(t, envFile, "TELEGRAM_BOT_TOKEN=1:mine\n", 0o600)
	out, _, code = e.run(t, "install")
	if code != 0 || !strings.Contains(out, "is up to date") || strings.Contains(out, "settings template") {
		t.Errorf("second install: code %d, out %q", code, out)
	}
	if got, _ := os.ReadFile(envFile); string(got) != "TELEGRAM_BOT_TOKEN=1:mine\n" {
		t.Errorf("install overwrote the env-file: %q", got)
	}

	// A new binary path replaces the unit; the running service needs a restart.
	other := filepath.Join(home, "other", "hermes-bot")
	writeFile(t, other, "#!/bin/sh\n", 0o755)
	if err := os.Chmod(envFile, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = e.run(t, "install", "--binary", other)
	if code != 0 || !strings.Contains(out, "Replaced "+unit) || !strings.Contains(out, "systemctl --user restart hermes-bot") {
		t.Errorf("install with another binary: code %d, out %q", code, out)
	}
	if !strings.Contains(stderr, "can be read by other users") {
		t.Errorf("no warning about a readable env-file: %q", stderr)
	}
	if got, _ := os.ReadFile(unit); !strings.Contains(string(got), "ExecStart=%h/other/hermes-bot serve") {
		t.Errorf("unit not rewritten:\n%s", got)
	}
}

func TestServiceInstallDarwin(t *testing.T) {
	e := newServiceEnv(t, "darwin")
	home := e.env["HOME"]
	plist := filepath.Join(home, "Library", "LaunchAgents", "io.github.hermes-bot.plist")
	out, stderr, code := e.run(t, "install")
	if code != 0 {
		t.Fatalf("install: code %d, stderr %q", code, stderr)
	}
	if got, err := os.ReadFile(plist); err != nil || string(got) != mustPrint(t, e) {
		t.Fatalf("plist: %v\n%s", err, got)
	}
	if st, err := os.Stat(filepath.Join(home, "Library", "Logs", "hermes-bot")); err != nil || !st.IsDir() {
		t.Errorf("log folder not created: %v", err)
	}
	if !strings.Contains(out, "Start the service:  launchctl load -w "+plist+"\n") {
		t.Errorf("install output:\n%s", out)
	}
	out, _, code = e.run(t, "uninstall")
	if code != 0 || !strings.Contains(out, "launchctl remove io.github.hermes-bot") {
		t.Errorf("uninstall: code %d, out %q", code, out)
	}
	if _, err := os.Stat(plist); !os.IsNotExist(err) {
		t.Errorf("plist still there: %v", err)
	}
}

func TestServiceInstallSystem(t *testing.T) {
	e := newServiceEnv(t, "linux")
	writeFile(t, filepath.Join(e.root, "usr", "local", "bin", "hermes-bot"), "#!/bin/sh\n", 0o755)

	_, stderr, code := e.run(t, "install", "--system")
	if code != 2 || !strings.Contains(stderr, "sandbox hides") || !strings.Contains(stderr, "--binary /usr/local/bin/hermes-bot") {
		t.Fatalf("install --system of a binary in a home: code %d, stderr %q; want 2 and how to fix it", code, stderr)
	}
	out, stderr, code := e.run(t, "install", "--system", "--binary", "/usr/local/bin/hermes-bot")
	if code != 0 {
		t.Fatalf("install --system: code %d, stderr %q", code, stderr)
	}
	unit := filepath.Join(e.root, "etc", "systemd", "system", "hermes-bot.service")
	if got, err := os.ReadFile(unit); err != nil || !strings.Contains(string(got), "ExecStart=/usr/local/bin/hermes-bot serve\n") {
		t.Fatalf("system unit: %v\n%s", err, got)
	}
	if st, err := os.Stat(filepath.Join(e.root, "etc", "hermes-bot", "hermes-bot.env")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("system env-file: %v, %v", st, err)
	}
	for _, want := range []string{
		"sudo systemctl daemon-reload && sudo systemctl enable --now hermes-bot",
		"sudo HERMES_DB=/var/lib/hermes-bot/pending.db hermes-bot check --env-file /etc/hermes-bot/hermes-bot.env",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// What systemctl enable made goes with the unit.
	wants := filepath.Join(e.root, "etc", "systemd", "system", "multi-user.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/systemd/system/hermes-bot.service", filepath.Join(wants, "hermes-bot.service")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/lib/systemd/system/other.service", filepath.Join(wants, "other.service")); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = e.run(t, "uninstall", "--system")
	if code != 0 || !strings.Contains(out, "sudo systemctl stop hermes-bot; sudo systemctl daemon-reload") {
		t.Fatalf("uninstall --system: code %d, out %q, stderr %q", code, out, stderr)
	}
	for _, gone := range []string{unit, filepath.Join(wants, "hermes-bot.service")} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s still there: %v", gone, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(wants, "other.service")); err != nil {
		t.Errorf("uninstall removed another unit's link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.root, "etc", "hermes-bot", "hermes-bot.env")); err != nil {
		t.Errorf("uninstall removed the settings: %v", err)
	}
	out, _, code = e.run(t, "uninstall", "--system")
	if code != 0 || !strings.Contains(out, "Nothing to remove") {
		t.Errorf("second uninstall: code %d, out %q", code, out)
	}
}

func TestServiceInstallMissingBinary(t *testing.T) {
	e := newServiceEnv(t, "linux")
	_, stderr, code := e.run(t, "install", "--binary", filepath.Join(e.env["HOME"], "nope"))
	if code != 2 || !strings.Contains(stderr, "not an executable file") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(e.env["HOME"], ".config")); !os.IsNotExist(err) {
		t.Errorf("a failed install wrote files: %v", err)
	}
}

func TestServiceUnsupportedOS(t *testing.T) {
	e := newServiceEnv(t, "windows")
	for _, action := range []string{"print", "install", "uninstall"} {
		_, stderr, code := e.run(t, action)
		if code != 1 || !strings.Contains(stderr, "windows is not supported") || !strings.Contains(stderr, "hermes-bot serve --env-file") {
			t.Errorf("%s on windows: code %d, stderr %q", action, code, stderr)
		}
	}
}

func TestServiceUsageErrors(t *testing.T) {
	e := newServiceEnv(t, "linux")
	cases := []struct {
		args []string
		want string
	}{
		{nil, "want install, uninstall or print"},
		{[]string{"start"}, `unknown action "start"`},
		{[]string{"install", "--os", "darwin"}, "--os works with print only"},
		{[]string{"print", "--os", "freebsd"}, `--os "freebsd"`},
		{[]string{"print", "extra"}, `unexpected argument "extra"`},
		{[]string{"print", "--bogus"}, "bogus"},
		{[]string{"print", "--os", "darwin", "--system"}, "--system is for Linux"},
		{[]string{"uninstall", "--binary", "/x"}, "takes --system only"},
	}
	for _, tc := range cases {
		_, stderr, code := e.run(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("service %v: code %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	e.env = map[string]string{}
	if _, stderr, code := e.run(t, "print"); code != 1 || !strings.Contains(stderr, "HOME") {
		t.Errorf("no HOME: code %d, stderr %q", code, stderr)
	}
	for _, help := range []string{"-h", "help"} {
		if stdout, stderr, code := e.run(t, help); code != 0 || !strings.Contains(stdout, "hermes-bot service install") || stderr != "" {
			t.Errorf("service %s: code %d, stdout %q, stderr %q; want the help on stdout", help, code, stdout, stderr)
		}
	}
	// Through run, as main calls it.
	if _, stderr, code := runCmd(t, nil, "service"); code != 2 || !strings.Contains(stderr, "want install") {
		t.Errorf("hermes-bot service: code %d, stderr %q", code, stderr)
	}
}

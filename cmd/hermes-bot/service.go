package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-bot/hermes-bot/cmd/internal/cli"
	"github.com/hermes-bot/hermes-bot/deploy"
)

const (
	// launchdLabel names the launchd agent and its plist file.
	launchdLabel = "io.github.hermes-bot"
	// unitName is the systemd unit, user-level and system-wide alike.
	unitName = "hermes-bot.service"
	// systemStateDB is where the system unit keeps the store: systemd
	// creates /var/lib/hermes-bot for StateDirectory=hermes-bot.
	systemStateDB = "/var/lib/hermes-bot/pending.db"
)

// serviceCommand writes, prints or removes the systemd unit or launchd
// agent that runs "hermes-bot serve". It never runs systemctl or launchctl:
// it tells the person the one command to run.
type serviceCommand struct {
	getenv         func(string) string
	stdout, stderr io.Writer
	goos           string                 // the OS to write for: runtime.GOOS
	executable     func() (string, error) // this binary, symlinks resolved
	root           string                 // where --system's / is: "" but in tests
}

// local returns where path p of target t is on this machine: under c.root
// for a system service, so tests can install one into a folder.
func (c *serviceCommand) local(t *serviceTarget, p string) string {
	if t.system && c.root != "" {
		return filepath.Join(c.root, p)
	}
	return p
}

const serviceUsage = `Usage:
  hermes-bot service print     [--system] [--env-file PATH] [--binary PATH] [--os linux|darwin]
  hermes-bot service install   [--system] [--env-file PATH] [--binary PATH]
  hermes-bot service uninstall [--system]

Runs hermes-bot as a service: a systemd unit on Linux, a launchd agent on macOS.
By default for your user (~/.config/systemd/user/hermes-bot.service,
~/Library/LaunchAgents/` + launchdLabel + `.plist); with --system as a hardened
system service (/etc/systemd/system/hermes-bot.service, as root).

  print      writes the unit or plist to standard output
  install    writes it, and an env-file template when there is no env-file,
             then prints the one command that starts the service
  uninstall  removes it and prints the command that stops the service;
             the env-file and the store are kept

Flags:
`

// serviceFlags are what the person asked for.
type serviceFlags struct {
	action  string
	system  bool
	envFile string
	binary  string
	goos    string
}

func (c *serviceCommand) Run(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("hermes-bot service", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var f serviceFlags
	fs.BoolVar(&f.system, "system", false, "a system-wide service run as a throw-away user (Linux, as root) instead of one for your user")
	fs.StringVar(&f.envFile, "env-file", "", "the settings file the service reads (default ~/.config/hermes-bot/hermes-bot.env; /etc/hermes-bot/hermes-bot.env with --system)")
	fs.StringVar(&f.binary, "binary", "", "the hermes-bot binary the service runs (default: this one)")
	fs.StringVar(&f.goos, "os", "", "print only: write for this OS, linux or darwin (default: this one)")
	fs.Usage = usage(fs, serviceUsage)
	if len(args) == 0 {
		fs.Usage()
		return usageError{Err: errors.New("service: want install, uninstall or print")}
	}
	f.action = args[0]
	switch f.action {
	case "install", "uninstall", "print":
	case "-h", "-help", "--help", "help":
		cli.PrintHelp(fs, c.stdout)
		return flag.ErrHelp
	default:
		return usageError{Err: fmt.Errorf("service: unknown action %q: want install, uninstall or print", f.action)}
	}
	if err := cli.ParseFlags(fs, args[1:], c.stdout); err != nil {
		return err
	}
	if f.goos != "" && f.action != "print" {
		return usageError{Err: errors.New("service: --os works with print only: install and uninstall are for this machine")}
	}
	if f.action == "uninstall" && (f.envFile != "" || f.binary != "") {
		return usageError{Err: errors.New("service uninstall: takes --system only")}
	}

	t, err := c.target(f)
	if err != nil {
		return err
	}
	switch f.action {
	case "print":
		return c.print(t)
	case "install":
		return c.install(t)
	default:
		return c.uninstall(t)
	}
}

// executablePath is this binary's path with symlinks resolved: the unit
// then names the file that really runs, and a link in /usr/local/bin to a
// binary in a home folder, which the system service's sandbox hides, is
// caught at install time rather than at start. Where the link is the
// stable name (a package manager's versioned folders), pass --binary.
func executablePath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(exe)
}

// serviceTarget is one unit or plist, with every path resolved.
type serviceTarget struct {
	manager string // "systemd" or "launchd"
	system  bool
	home    string
	path    string // where the unit or plist goes
	envFile string
	binary  string // empty for uninstall, which needs none
	logFile string // launchd only
	content []byte // empty for uninstall
}

// target resolves the paths for f and renders the file, except for
// uninstall, which needs only the path.
func (c *serviceCommand) target(f serviceFlags) (*serviceTarget, error) {
	goos := c.goos
	if f.goos != "" {
		goos = f.goos
		if goos != "linux" && goos != "darwin" {
			return nil, usageError{Err: fmt.Errorf("service: --os %q: want linux or darwin", goos)}
		}
	}
	t := &serviceTarget{system: f.system}
	switch goos {
	case "linux":
		t.manager = "systemd"
	case "darwin":
		t.manager = "launchd"
		if f.system {
			return nil, usageError{Err: errors.New("service: --system is for Linux (systemd) only; on macOS hermes-bot runs as a launchd agent of your user")}
		}
	default:
		return nil, fmt.Errorf("service: %s is not supported: hermes-bot writes systemd units (Linux) and launchd agents (macOS); "+
			"elsewhere run \"hermes-bot serve --env-file FILE\" under your own service manager", goos)
	}

	if err := c.locate(t, goos); err != nil {
		return nil, err
	}
	if f.action == "uninstall" {
		return t, nil
	}
	if err := c.resolveInputs(t, f); err != nil {
		return nil, err
	}
	content, err := renderService(t)
	if err != nil {
		return nil, err
	}
	t.content = content
	return t, nil
}

// locate sets where t's unit or plist, its env file and (launchd) its log
// go, by the service manager of goos and the user's home and
// XDG_CONFIG_HOME.
func (c *serviceCommand) locate(t *serviceTarget, goos string) error {
	home := c.getenv("HOME")
	if !filepath.IsAbs(home) && !t.system {
		return errors.New("service: HOME is not set to an absolute path: cannot tell where your user's files go")
	}
	t.home = filepath.Clean(home)
	configHome := filepath.Join(t.home, ".config")
	if x := c.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		configHome = filepath.Clean(x)
	}
	switch {
	case t.system:
		t.path = filepath.Join("/etc/systemd/system", unitName)
		t.envFile = "/etc/hermes-bot/hermes-bot.env"
	case goos == "linux":
		// systemd's user manager reads units from $XDG_CONFIG_HOME/systemd/user.
		t.path = filepath.Join(configHome, "systemd", "user", unitName)
		t.envFile = filepath.Join(configHome, "hermes-bot", "hermes-bot.env")
	default:
		t.path = filepath.Join(t.home, "Library", "LaunchAgents", launchdLabel+".plist")
		t.envFile = filepath.Join(configHome, "hermes-bot", "hermes-bot.env")
		t.logFile = filepath.Join(t.home, "Library", "Logs", "hermes-bot", "hermes-bot.log")
	}
	return nil
}

// resolveInputs sets the env file and the binary the service runs, as
// absolute paths, from f or else this binary.
func (c *serviceCommand) resolveInputs(t *serviceTarget, f serviceFlags) error {
	if f.envFile != "" {
		abs, err := filepath.Abs(f.envFile)
		if err != nil {
			return usageError{Err: fmt.Errorf("service: --env-file: %w", err)}
		}
		t.envFile = abs
	}
	if f.binary != "" {
		abs, err := filepath.Abs(f.binary)
		if err != nil {
			return usageError{Err: fmt.Errorf("service: --binary: %w", err)}
		}
		t.binary = abs
	} else {
		exe, err := c.executable()
		if err != nil {
			return fmt.Errorf("service: find this binary (pass --binary PATH): %w", err)
		}
		t.binary = exe
	}
	for _, p := range []string{t.binary, t.envFile, t.home} {
		if strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return usageError{Err: fmt.Errorf("service: path %q holds a control character: a unit file cannot name it", p)}
		}
	}
	return nil
}

// systemHidden lists the folders the system unit's sandbox hides or
// replaces (ProtectHome=yes, PrivateTmp=yes): a binary there cannot start.
var systemHidden = []string{"/home/", "/root/", "/run/user/", "/tmp/", "/var/tmp/"}

// binaryProblem says why the service could not run t.binary, or "".
func (t *serviceTarget) binaryProblem() string {
	if t.system {
		for _, dir := range systemHidden {
			if strings.HasPrefix(t.binary, dir) {
				return fmt.Sprintf("%s is under %s, which the system service's sandbox hides; "+
					"copy it (sudo install -m 755 %s /usr/local/bin/hermes-bot) and pass --binary /usr/local/bin/hermes-bot",
					t.binary, dir, shellQuote(t.binary))
			}
		}
	}
	if strings.Contains(t.binary, string(filepath.Separator)+"go-build") {
		return fmt.Sprintf("%s looks like a temporary binary of \"go run\"; install hermes-bot (go install ./cmd/hermes-bot) and pass --binary", t.binary)
	}
	return ""
}

func (c *serviceCommand) print(t *serviceTarget) error {
	if p := t.binaryProblem(); p != "" {
		fmt.Fprintf(c.stderr, "hermes-bot: warning: %s\n", p)
	}
	if _, err := c.stdout.Write(t.content); err != nil {
		return fmt.Errorf("service print: %w", err)
	}
	return nil
}

func (c *serviceCommand) install(t *serviceTarget) error {
	if p := t.binaryProblem(); p != "" {
		return usageError{Err: fmt.Errorf("service install: %s", p)}
	}
	if st, err := os.Stat(c.local(t, t.binary)); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return usageError{Err: fmt.Errorf("service install: %s is not an executable file (pass --binary PATH)", t.binary)}
	}

	path := c.local(t, t.path)
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("service install: %w", err)
	}
	if !existed || !bytes.Equal(old, t.content) {
		if err := writeFileAtomic(path, t.content, 0o644); err != nil {
			return fmt.Errorf("service install: %w%s", err, sudoHint(t, err))
		}
	}
	switch {
	case !existed:
		fmt.Fprintf(c.stdout, "Wrote %s\n", t.path)
	case bytes.Equal(old, t.content):
		fmt.Fprintf(c.stdout, "%s is up to date\n", t.path)
	default:
		fmt.Fprintf(c.stdout, "Replaced %s\n", t.path)
	}
	if t.logFile != "" {
		// launchd does not create the folder of StandardErrorPath, and the
		// agent does not start without it.
		if err := os.MkdirAll(filepath.Dir(t.logFile), 0o700); err != nil {
			return fmt.Errorf("service install: log folder: %w", err)
		}
	}

	if err := c.ensureEnvFile(t); err != nil {
		return err
	}
	check := "hermes-bot check --env-file " + shellQuote(t.envFile)
	if t.system {
		check = "sudo HERMES_DB=" + systemStateDB + " " + check
	}
	fmt.Fprintf(c.stdout, "Check the settings: %s\n", check)
	fmt.Fprintf(c.stdout, "Start the service:  %s\n", t.startCommand(existed && !bytes.Equal(old, t.content)))
	switch {
	case t.manager == "systemd" && !t.system:
		fmt.Fprintf(c.stdout, "Its log:            journalctl --user -u hermes-bot -f\n")
		fmt.Fprintf(c.stdout, "A user service stops when you log out; to keep it running: loginctl enable-linger $USER\n")
	case t.manager == "systemd":
		fmt.Fprintf(c.stdout, "Its log:            journalctl -u hermes-bot -f\n")
	default:
		fmt.Fprintf(c.stdout, "Its log:            tail -f %s\n", shellQuote(t.logFile))
	}
	return nil
}

// ensureEnvFile writes the example env-file, 0600, when there is no
// env-file yet. An existing one is never touched, only checked for
// permissions that let other users read the secrets.
func (c *serviceCommand) ensureEnvFile(t *serviceTarget) error {
	envFile := c.local(t, t.envFile)
	st, err := os.Stat(envFile)
	if err == nil {
		if st.Mode().Perm()&0o077 != 0 {
			fmt.Fprintf(c.stderr, "hermes-bot: warning: %s can be read by other users and holds secrets: chmod 600 %s\n",
				t.envFile, shellQuote(t.envFile))
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("service install: env-file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(envFile), 0o700); err != nil {
		return fmt.Errorf("service install: env-file folder: %w", err)
	}
	// O_EXCL: if the file appeared since the Stat, it is someone's, and it stays.
	f, err := os.OpenFile(envFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return fmt.Errorf("service install: env-file: %w", err)
	}
	_, err = f.Write(deploy.EnvExample)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("service install: env-file: %w", err)
	}
	fmt.Fprintf(c.stdout, "Wrote a settings template to %s (mode 600): fill in TELEGRAM_BOT_TOKEN, TELEGRAM_CHAT_ID and OPENCODE_SERVER_PASSWORD\n", t.envFile)
	return nil
}

func (c *serviceCommand) uninstall(t *serviceTarget) error {
	path := c.local(t, t.path)
	err := os.Remove(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(c.stdout, "Nothing to remove: %s does not exist\n", t.path)
	case err != nil:
		return fmt.Errorf("service uninstall: %w%s", err, sudoHint(t, err))
	default:
		fmt.Fprintf(c.stdout, "Removed %s\n", t.path)
	}
	if t.manager == "systemd" {
		// What "systemctl disable" would remove; once the unit file is gone
		// systemctl may no longer find the links by the unit's name.
		links, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.wants", unitName))
		for _, l := range links {
			if dest, err := os.Readlink(l); err == nil && filepath.Base(dest) == unitName {
				if err := os.Remove(l); err != nil {
					return fmt.Errorf("service uninstall: %w", err)
				}
				fmt.Fprintf(c.stdout, "Removed %s\n", filepath.Join(filepath.Dir(t.path), filepath.Base(filepath.Dir(l)), unitName))
			}
		}
	}
	fmt.Fprintf(c.stdout, "Stop the service: %s\n", t.stopCommand())
	fmt.Fprintf(c.stdout, "Your settings and the store are kept; delete them by hand if you no longer need them.\n")
	return nil
}

// startCommand is the one line that starts the service once its file is
// written; replaced says a running service must be restarted to see it.
func (t *serviceTarget) startCommand(replaced bool) string {
	switch {
	case t.manager == "launchd" && replaced:
		return fmt.Sprintf("launchctl unload %[1]s 2>/dev/null; launchctl load -w %[1]s", shellQuote(t.path))
	case t.manager == "launchd":
		return "launchctl load -w " + shellQuote(t.path)
	}
	ctl := "systemctl --user"
	if t.system {
		ctl = "sudo systemctl"
	}
	if replaced {
		return fmt.Sprintf("%[1]s daemon-reload && %[1]s enable hermes-bot && %[1]s restart hermes-bot", ctl)
	}
	return fmt.Sprintf("%[1]s daemon-reload && %[1]s enable --now hermes-bot", ctl)
}

func (t *serviceTarget) stopCommand() string {
	if t.manager == "launchd" {
		return "launchctl remove " + launchdLabel
	}
	ctl := "systemctl --user"
	if t.system {
		ctl = "sudo systemctl"
	}
	return fmt.Sprintf("%[1]s stop hermes-bot; %[1]s daemon-reload", ctl)
}

func sudoHint(t *serviceTarget, err error) string {
	if t.system && errors.Is(err, fs.ErrPermission) {
		return " (run it with sudo)"
	}
	return ""
}

// writeFileAtomic replaces path with data, so a service manager never
// reads half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

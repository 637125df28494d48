package risk

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// refusedVars are the variables Trust refuses besides GIT_ ones.
var refusedVars = []string{"RIPGREP_CONFIG_PATH", "POSIXLY_CORRECT", "GREP_OPTIONS", "MAGIC", "DIFF_OPTIONS"}

// plainEnv makes the process environment the plain one Trust proves
// things about, for tests that go through Approve: a fresh HOME, no system
// git configuration, none of the variables Trust refuses. It returns HOME.
func plainEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "XDG_CONFIG_HOME" || slices.Contains(refusedVars, k) ||
			strings.HasPrefix(k, "GIT_") && !slices.Contains(harmlessGitEnv, k) {
			t.Setenv(k, "") // restores the variable after the test
			os.Unsetenv(k)
		}
	}
	return home
}

// plainEnviron is the environment of the tests that call trust directly,
// and of the commands they run.
func plainEnviron(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
}

func plainConfig(home string) trustConfig {
	return trustConfig{environ: plainEnviron(home), maxWalk: maxWalk}
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// run runs a program in dir with env and returns its combined output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, p, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a project that is a clean repository with one commit, as
// `git init` leaves it (sample hooks included), in a fresh folder.
func newRepo(t *testing.T, home string) string {
	t.Helper()
	needGit(t)
	root := filepath.Join(t.TempDir(), "proj")
	writeFile(t, filepath.Join(root, "README.md"), "# demo\nTODO\n", 0o644)
	env := plainEnviron(home)
	run(t, root, env, "git", "init", "-q")
	run(t, root, env, "git", "config", "user.name", "Tester")
	run(t, root, env, "git", "config", "user.email", "t@example.com")
	run(t, root, env, "git", "add", "README.md")
	run(t, root, env, "git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "initial")
	return root
}

// wantRefused fails unless err is a refusal whose text holds every
// substring of want (case-insensitive).
func wantRefused(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: not refused", what)
		return
	}
	if !errors.Is(err, errRefused) {
		t.Errorf("%s: %v does not wrap the refusal error", what, err)
	}
	for _, w := range want {
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(w)) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

func TestTrustGitClean(t *testing.T) {
	home := t.TempDir()
	root := newRepo(t, home)
	r, err := trust(root, "git status && git log --oneline", plainConfig(home))
	if err != nil {
		t.Fatalf("a clean repository refused: %v", err)
	}
	for _, p := range []string{".git/config", ".git/config.worktree", ".git/info/attributes", ".git/info/exclude",
		".git/objects/info/alternates", ".git/objects/info/http-alternates", ".git/commondir",
		".git/hooks/post-index-change", ".git/hooks/fsmonitor-watchman", ".git/hooks/reference-transaction",
		".gitattributes", ".gitmodules"} {
		if !slices.Contains(r.InProject, p) {
			t.Errorf("InProject lacks %s: %v", p, r.InProject)
		}
	}
	for _, p := range []string{"/etc/gitconfig", filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config/git/config"),
		filepath.Join(home, ".config/git/attributes")} {
		if !slices.Contains(r.Outside, p) {
			t.Errorf("Outside lacks %s: %v", p, r.Outside)
		}
	}
	for _, p := range r.InProject {
		if filepath.IsAbs(p) || strings.HasPrefix(p, "..") || strings.Contains(p, `\`) {
			t.Errorf("InProject holds %q, not a path relative to the project", p)
		}
	}

	// A file reached through a link is listed both ways.
	dots := filepath.Join(home, "dotfiles")
	writeFile(t, filepath.Join(dots, "gitconfig"), "[user]\n\tname = Tester\n", 0o644)
	if err := os.Symlink(filepath.Join(dots, "gitconfig"), filepath.Join(home, ".gitconfig")); err != nil {
		t.Skipf("symbolic links not available: %v", err)
	}
	r, err = trust(root, "git status", plainConfig(home))
	if err != nil || !slices.Contains(r.Outside, filepath.Join(home, ".gitconfig")) || !slices.Contains(r.Outside, filepath.Join(dots, "gitconfig")) {
		t.Errorf("a linked ~/.gitconfig: %v, Outside %v", err, r.Outside)
	}

	// XDG_CONFIG_HOME moves the user's git files.
	xdg := filepath.Join(home, "xdg")
	cfg := plainConfig(home)
	cfg.environ = append(cfg.environ, "XDG_CONFIG_HOME="+xdg)
	if r, err := trust(root, "git status", cfg); err != nil || !slices.Contains(r.Outside, filepath.Join(xdg, "git/config")) {
		t.Errorf("with XDG_CONFIG_HOME: %v, Outside %v", err, r.Outside)
	}
}

// Every key the allow-list leaves out that runs a program, fetches or
// reads more is refused, with the key named, wherever it is set.
func TestTrustGitRefusesKeys(t *testing.T) {
	home := t.TempDir()
	root := newRepo(t, home)
	env := plainEnviron(home)
	keys := [][2]string{
		{"core.fsmonitor", "/bin/true"}, {"core.pager", "cat"}, {"pager.log", "cat"}, {"core.hooksPath", "hooks"},
		{"core.sshCommand", "ssh"}, {"core.askPass", "x"}, {"core.worktree", "/tmp"},
		{"diff.external", "x"}, {"diff.x.textconv", "x"}, {"diff.x.command", "x"}, {"filter.x.clean", "x"},
		{"filter.x.smudge", "x"}, {"filter.x.process", "x"}, {"merge.x.driver", "x"}, {"gpg.program", "x"},
		{"gpg.ssh.program", "x"}, {"gpg.format", "ssh"}, {"log.showSignature", "true"},
		{"extensions.partialClone", "origin"}, {"remote.origin.promisor", "true"},
		{"remote.origin.partialCloneFilter", "blob:none"}, {"remote.origin.uploadpack", "x"},
		{"remote.origin.receivepack", "x"}, {"remote.origin.vcs", "x"},
		{"http.proxy", "http://x"}, {"url.https://x/.insteadOf", "y"}, {"format.pretty", "x"}, {"pretty.x", "%H"},
		{"help.autocorrect", "1"}, {"status.submoduleSummary", "true"}, {"submodule.x.url", "y"},
		{"core.attributesFile", "x"}, {"gc.auto", "0"}, {"gc.recentObjectsHook", "x"}, {"core.gitProxy", "x"},
		{"protocol.allow", "always"}, {"color.ui", "!sh"}, {"uploadpack.packObjectsHook", "x"},
	}
	for _, kv := range keys {
		run(t, root, env, "git", "config", "--add", kv[0], kv[1])
		_, err := trust(root, "git status", plainConfig(home))
		wantRefused(t, kv[0], err, kv[0])
		run(t, root, env, "git", "config", "--unset-all", kv[0])
	}
	if _, err := trust(root, "git status", plainConfig(home)); err != nil {
		t.Fatalf("the repository, its keys unset again, is refused: %v", err)
	}

	// Keys the allow-list takes, aliases among them.
	for _, kv := range [][2]string{{"alias.st", "!touch x"}, {"color.diff.meta", "blue bold"}, {"remote.origin.url", "https://x"},
		{"branch.main.remote", "origin"}, {"includeIf.gitdir:~/x/.path", "~/other.cfg"}, {"push.default", "simple"},
		{"credential.helper", "!touch x"}, {"core.editor", "touch x"}, {"sequence.editor", "touch x"}} {
		run(t, root, env, "git", "config", "--add", kv[0], kv[1])
	}
	r, err := trust(root, "git status", plainConfig(home))
	if err != nil {
		t.Fatalf("harmless keys refused: %v", err)
	}
	if !slices.Contains(r.Outside, filepath.Join(home, "other.cfg")) {
		t.Errorf("the included file is not listed: %v", r.Outside)
	}

	// A pager is harmless only where no git of the command can start it.
	run(t, root, env, "git", "config", "core.pager", "touch pager-ran")
	run(t, root, env, "git", "config", "pager.log", "touch pager-ran")
	for cmd, ok := range map[string]bool{"git status": false, "git --no-pager log | git status": false,
		"git --no-pager status": true, "git --no-pager log --oneline | head -n 3 && git --no-pager status": true, "ls": true} {
		if _, err := trust(root, cmd, plainConfig(home)); (err == nil) != ok {
			t.Errorf("with a pager set, %q: %v; want approved %v", cmd, err, ok)
		}
	}
	run(t, root, env, "git", "config", "--unset-all", "core.pager")
	run(t, root, env, "git", "config", "--unset-all", "pager.log")

	// The user's own files are read too.
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config/git/config")} {
		writeFile(t, p, "[core]\n\tpager = less\n", 0o644)
		_, err := trust(root, "git status", plainConfig(home))
		wantRefused(t, p, err, "core.pager", p)
		os.Remove(p)
	}
}

// An include that reaches into the work tree is refused even when the
// file does not exist: the model could write it without asking.
func TestTrustGitIncludeInWorkTree(t *testing.T) {
	home := t.TempDir()
	root := newRepo(t, home)
	env := plainEnviron(home)
	run(t, root, env, "git", "config", "include.path", "../extra.cfg")
	_, err := trust(root, "git status", plainConfig(home))
	wantRefused(t, "include of a missing file", err, "extra.cfg", "work tree")
	run(t, root, env, "git", "config", "--unset", "include.path")
	run(t, root, env, "git", "config", "include.path", "extra.cfg") // .git/extra.cfg
	r, err := trust(root, "git status", plainConfig(home))
	if err != nil || !slices.Contains(r.InProject, ".git/extra.cfg") {
		t.Errorf("include inside the git folder: %v, InProject %v", err, r.InProject)
	}

	// The repository's config, a link to a file of the work tree.
	cfgPath := filepath.Join(root, ".git", "config")
	if err := os.Rename(cfgPath, filepath.Join(root, "team.cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "team.cfg"), cfgPath); err != nil {
		t.Skipf("symbolic links not available: %v", err)
	}
	_, err = trust(root, "git status", plainConfig(home))
	wantRefused(t, "config linked into the work tree", err, "team.cfg", "work tree")
}

func TestTrustGitLayout(t *testing.T) {
	home := t.TempDir()
	cfg := plainConfig(home)
	env := plainEnviron(home)
	for _, tc := range []struct {
		name  string
		setup func(root string)
		want  string
	}{
		{"hook", func(root string) {
			writeFile(t, filepath.Join(root, ".git/hooks/post-index-change"), "#!/bin/sh\n", 0o755)
		}, "hook"},
		{"hook not executable", func(root string) { writeFile(t, filepath.Join(root, ".git/hooks/pre-commit"), "", 0o644) }, "hook"},
		{"submodule file", func(root string) { writeFile(t, filepath.Join(root, ".gitmodules"), "", 0o644) }, "submodules"},
		{"submodule folder", func(root string) { writeFile(t, filepath.Join(root, ".git/modules/x/HEAD"), "", 0o644) }, "modules"},
		{"alternates", func(root string) {
			writeFile(t, filepath.Join(root, ".git/objects/info/alternates"), "/tmp\n", 0o644)
		}, "alternates"},
		{"http alternates", func(root string) {
			writeFile(t, filepath.Join(root, ".git/objects/info/http-alternates"), "", 0o644)
		}, "alternates"},
		{"empty .git inside a repository", func(root string) {
			run(t, filepath.Dir(root), env, "git", "init", "-q")
			os.RemoveAll(filepath.Join(root, ".git"))
			os.Mkdir(filepath.Join(root, ".git"), 0o755)
		}, "git uses"},
		{".git a link", func(root string) {
			os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "..", "gitdir"))
			os.Symlink(filepath.Join(root, "..", "gitdir"), filepath.Join(root, ".git"))
		}, "symbolic link"},
	} {
		root := newRepo(t, home)
		tc.setup(root)
		_, err := trust(root, "git status", cfg)
		wantRefused(t, tc.name, err, tc.want)
	}

	// A project inside a repository, with none of its own, or no repository.
	parent := newRepo(t, home)
	sub := filepath.Join(parent, "sub")
	writeFile(t, filepath.Join(sub, "a.txt"), "a\n", 0o644)
	_, err := trust(sub, "git status", cfg)
	wantRefused(t, "project inside a repository", err, "not the top of a repository")
	_, err = trust(t.TempDir(), "git log", cfg)
	wantRefused(t, "no repository", err, "not the top of a repository")
	for _, dir := range []string{"", "relative/dir", "/nonexistent/hermes-bot/project"} {
		_, err := trust(dir, "git status", cfg)
		wantRefused(t, "project "+dir, err, "git")
	}
}

// A gitfile's repository is checked where it is: a linked worktree's own
// git folder and the main one it shares, a separate git folder.
func TestTrustGitfile(t *testing.T) {
	home := t.TempDir()
	cfg := plainConfig(home)
	env := plainEnviron(home)
	main := newRepo(t, home)
	wt := filepath.Join(filepath.Dir(main), "wt")
	run(t, main, env, "git", "worktree", "add", "-q", wt)
	r, err := trust(wt, "git status", cfg)
	if err != nil {
		t.Fatalf("a clean linked worktree refused: %v", err)
	}
	for _, p := range []string{filepath.Join(main, ".git/config"), filepath.Join(main, ".git/hooks/post-index-change"),
		filepath.Join(main, ".git/worktrees/wt/config.worktree"), filepath.Join(main, ".git/worktrees/wt/commondir")} {
		if !slices.Contains(r.Outside, p) {
			t.Errorf("Outside lacks %s: %v", p, r.Outside)
		}
	}
	if !slices.Contains(r.InProject, ".git") {
		t.Errorf("InProject lacks the gitfile: %v", r.InProject)
	}
	writeFile(t, filepath.Join(main, ".git/hooks/post-index-change"), "#!/bin/sh\n", 0o755)
	_, err = trust(wt, "git status", cfg)
	wantRefused(t, "worktree whose main repository has a hook", err, "hook")

	sep := filepath.Join(t.TempDir(), "proj")
	gd := filepath.Join(filepath.Dir(sep), "gitdir")
	writeFile(t, filepath.Join(sep, "a.txt"), "a\n", 0o644)
	run(t, sep, env, "git", "init", "-q", "--separate-git-dir", gd)
	r, err = trust(sep, "git status", cfg)
	if err != nil || !slices.Contains(r.Outside, filepath.Join(gd, "config")) {
		t.Errorf("separate git folder: %v, Outside %v", err, r.Outside)
	}
}

// danger is a setting that makes an approved command run a program (it
// touches marker) or print a secret.
type danger struct {
	name  string
	cmd   string
	setup func(t *testing.T, root, home, marker string)
	want  string // in Approve's reason
	// shows is what the command prints when the danger is real; "" means
	// it runs the program instead.
	shows string
}

// script writes a program that touches marker and prints its input file.
func script(t *testing.T, home, marker string) string {
	p := filepath.Join(home, "evil.sh")
	writeFile(t, p, "#!/bin/sh\ntouch '"+marker+"'\ncat \"$1\" 2>/dev/null\nexit 0\n", 0o755)
	return p
}

// TestTrustDangersAreReal shows each setting runs a program or reads a
// secret when the approved command runs, and that Approve now refuses it
// without running anything itself.
func TestTrustDangersAreReal(t *testing.T) {
	needGit(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	gitEnv := func(home string) []string { return plainEnviron(home) }
	// touch gives README.md a later time, so git compares its content and
	// rewrites the index; dirty also changes it, for a diff to show.
	touch := func(t *testing.T, root string) {
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(root, "README.md"), later, later); err != nil {
			t.Fatal(err)
		}
	}
	dirty := func(t *testing.T, root string) {
		writeFile(t, filepath.Join(root, "README.md"), "# demo\nchanged\n", 0o644)
		touch(t, root)
	}
	dangers := []danger{
		{"core.fsmonitor", "git status", func(t *testing.T, root, home, marker string) {
			run(t, root, gitEnv(home), "git", "config", "core.fsmonitor", script(t, home, marker))
		}, "core.fsmonitor", ""},
		{"post-index-change hook", "git status", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, ".git/hooks/post-index-change"), "#!/bin/sh\ntouch '"+marker+"'\n", 0o755)
			touch(t, root)
		}, "hook", ""},
		{"diff.external", "git diff", func(t *testing.T, root, home, marker string) {
			run(t, root, gitEnv(home), "git", "config", "diff.external", script(t, home, marker))
			dirty(t, root)
		}, "diff.external", ""},
		{"textconv", "git diff", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, ".gitattributes"), "*.md diff=x\n", 0o644)
			run(t, root, gitEnv(home), "git", "config", "diff.x.textconv", script(t, home, marker))
			dirty(t, root)
		}, "diff.x.textconv", ""},
		{"filter", "git status", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, ".gitattributes"), "*.md filter=x\n", 0o644)
			run(t, root, gitEnv(home), "git", "config", "filter.x.clean", script(t, home, marker))
			touch(t, root)
		}, "filter.x.clean", ""},
		{"include into the work tree", "git status", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, "notes.cfg"), "[core]\n\tfsmonitor = "+script(t, home, marker)+"\n", 0o644)
			run(t, root, gitEnv(home), "git", "config", "include.path", "../notes.cfg")
		}, "include", ""},
		{"rg .ignore negation", "rg TODO", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, ".env"), "TODO="+honeypot+"\n", 0o600)
			writeFile(t, filepath.Join(root, ".ignore"), "!.env\n", 0o644)
		}, ".ignore", honeypot},
		{"rg parent .ignore negation", "rg TODO", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, ".env"), "TODO="+honeypot+"\n", 0o600)
			writeFile(t, filepath.Join(root, "..", ".ignore"), "!.env\n", 0o644)
		}, ".ignore", honeypot},
		{"rg global ignore negation", "rg TODO", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, "src", ".env"), "TODO="+honeypot+"\n", 0o600)
			writeFile(t, filepath.Join(home, ".config/git/ignore"), "!.env\n", 0o644)
		}, "git/ignore", honeypot},
	}
	if fd := lookFd(); fd != "" {
		dangers = append(dangers, danger{"fd .fdignore negation", "fd env", func(t *testing.T, root, home, marker string) {
			writeFile(t, filepath.Join(root, ".env"), "x\n", 0o600)
			writeFile(t, filepath.Join(root, ".fdignore"), "!.env\n", 0o644)
		}, ".fdignore", ".env"})
	}
	for _, d := range dangers {
		t.Run(d.name, func(t *testing.T) {
			home := plainEnv(t)
			root := newRepo(t, home)
			if v := Approve(root, d.cmd); !v.OK {
				t.Fatalf("%q refused before the setting: %s", d.cmd, v.Why)
			}
			marker := filepath.Join(t.TempDir(), "ran")
			d.setup(t, root, home, marker)
			v := Approve(root, d.cmd)
			if v.OK || !strings.Contains(v.Why, d.want) {
				t.Errorf("Approve(%q) = %+v, want refused saying %q", d.cmd, v, d.want)
			}
			if a := Assess(root, "bash", nil, bashMeta(d.cmd)); a.Level == Low {
				t.Errorf("Assess rates %q low, yet Approve refuses it", d.cmd)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("checking ran the program")
			}
			// Run as it would run without the check, fd under its Debian name.
			cmd := exec.Command(bash, "-c", strings.Replace(d.cmd, "fd ", lookFd()+" ", 1))
			cmd.Dir, cmd.Env = root, plainEnviron(home)
			out, _ := cmd.CombinedOutput()
			_, statErr := os.Stat(marker)
			if d.shows == "" && statErr != nil || d.shows != "" && !strings.Contains(string(out), d.shows) {
				t.Errorf("%q ran harmlessly, so the test shows nothing:\n%s", d.cmd, out)
			}
		})
	}
}

// lookFd returns the name fd is installed under, or "".
func lookFd() string {
	for _, n := range []string{"fd", "fdfind"} {
		if _, err := exec.LookPath(n); err == nil {
			return n
		}
	}
	return ""
}

// The git commands the check runs start no fsmonitor and no hook, even
// with both set and the index out of date; git status, run after, does.
func TestTrustGitRunsNothing(t *testing.T) {
	home := t.TempDir()
	root := newRepo(t, home)
	env := plainEnviron(home)
	marker := filepath.Join(t.TempDir(), "ran")
	run(t, root, env, "git", "config", "core.fsmonitor", script(t, home, marker))
	writeFile(t, filepath.Join(root, ".git/hooks/post-index-change"), "#!/bin/sh\ntouch '"+marker+"'\n", 0o755)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "README.md"), later, later); err != nil {
		t.Fatal(err)
	}
	tr := &trustRun{env: map[string]string{"HOME": home, "PATH": os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM": "1"}}
	for _, args := range [][]string{
		{"config", "--list", "--show-origin", "--null", "--includes"},
		{"rev-parse", "--show-toplevel", "--absolute-git-dir", "--path-format=absolute", "--git-common-dir"},
	} {
		if _, err := tr.runGit(root, args...); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git %s ran the fsmonitor or the hook", args[0])
		}
	}
	run(t, root, env, "git", "status")
	if _, err := os.Stat(marker); err != nil {
		t.Error("git status ran neither, so this test shows nothing")
	}
}

// In a partial clone, git log -p fetches what it lacks from the promisor
// remote: Approve refuses it.
func TestTrustPartialCloneFetches(t *testing.T) {
	home := plainEnv(t)
	env := plainEnviron(home)
	src := newRepo(t, home)
	writeFile(t, filepath.Join(src, "README.md"), "# demo\nsecond\n", 0o644)
	run(t, src, env, "git", "-c", "commit.gpgsign=false", "commit", "-q", "-am", "second")
	run(t, src, env, "git", "config", "uploadpack.allowFilter", "true")
	dst := filepath.Join(t.TempDir(), "clone")
	run(t, src, env, "git", "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+src, dst)
	missing := func() int {
		return strings.Count(run(t, dst, env, "git", "rev-list", "--objects", "--all", "--missing=print"), "\n?")
	}
	before := missing()
	if v := Approve(dst, "git log -p"); v.OK || !strings.Contains(v.Why, "promisor") {
		t.Errorf("Approve = %+v, want refused for the promisor remote", v)
	}
	if missing() != before {
		t.Fatal("checking fetched")
	}
	run(t, dst, env, "git", "log", "-p")
	if after := missing(); before == 0 || after >= before {
		t.Errorf("git log -p fetched nothing (%d missing objects, then %d), so this test shows nothing", before, after)
	}
}

// An alias never shadows a builtin: git status with alias.status set runs
// git's own status, which is why the allow-list takes aliases.
func TestGitAliasDoesNotShadow(t *testing.T) {
	home := t.TempDir()
	root := newRepo(t, home)
	marker := filepath.Join(t.TempDir(), "ran")
	run(t, root, plainEnviron(home), "git", "config", "alias.status", "!touch '"+marker+"'")
	run(t, root, plainEnviron(home), "git", "status")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git status ran the alias")
	}
	if _, err := trust(root, "git status", plainConfig(home)); err != nil {
		t.Errorf("alias refused: %v", err)
	}
}

func TestHarmlessNegation(t *testing.T) {
	for line, want := range map[string]bool{
		"": true, "# !.env": true, "*.env": true, `\!.env`: true, ".env": true,
		"!build": true, "!/docs/": true, "!src/app.go": true, "! notes": true,
		"!.env": false, "  !.env": false, "\ufeff!.env": false, "!*.md": false, "!a/.b": false, "!id_rsa": false,
		"!env": false, "!deploy/prod.env": false, "!{a,b}": false, "!": false, "!/": false, "!a//b": false,
		"!a?": false, "![ab]": false, `!a\b`: false, "!../x": false, "!secrets/x": false,
	} {
		if got := harmlessNegation(line); got != want {
			t.Errorf("harmlessNegation(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestTrustIgnoreFiles(t *testing.T) {
	home := t.TempDir()
	cfg := plainConfig(home)
	root := filepath.Join(t.TempDir(), "proj")
	writeFile(t, filepath.Join(root, "src", "app.go"), "TODO\n", 0o644)
	writeFile(t, filepath.Join(root, ".gitignore"), "*.env\n!build\n", 0o644)
	writeFile(t, filepath.Join(root, ".hidden", ".ignore"), "!.env\n", 0o644) // never entered
	for _, prog := range []string{"rg", "fd"} {
		r, err := trust(root, prog+" TODO", cfg)
		if err != nil {
			t.Fatalf("%s: %v", prog, err)
		}
		own := "." + prog + "ignore"
		for _, p := range []string{".gitignore", ".ignore", own, "src/.gitignore", "src/" + own, ".git/info/exclude"} {
			if !slices.Contains(r.InProject, p) {
				t.Errorf("%s: InProject lacks %s: %v", prog, p, r.InProject)
			}
		}
		if slices.Contains(r.InProject, ".hidden/.ignore") {
			t.Errorf("%s: InProject lists a hidden folder's file", prog)
		}
		for _, p := range []string{filepath.Join(filepath.Dir(root), ".ignore"), "/" + own, filepath.Join(home, ".config/git/ignore")} {
			if !slices.Contains(r.Outside, p) {
				t.Errorf("%s: Outside lacks %s: %v", prog, p, r.Outside)
			}
		}
		if has := slices.Contains(r.Outside, filepath.Join(home, ".config/fd/ignore")); has != (prog == "fd") {
			t.Errorf("%s: Outside lists fd's global ignore: %v", prog, has)
		}
	}

	// A negation found anywhere it is read is refused.
	for _, tc := range []struct{ file, prog string }{
		{filepath.Join(root, "src", ".ignore"), "rg"},
		{filepath.Join(root, "src", ".rgignore"), "rg"},
		{filepath.Join(root, "src", ".fdignore"), "fd"},
		{filepath.Join(home, ".config", "fd", "ignore"), "fd"},
		{filepath.Join(home, "my-ignore"), "rg"}, // named by excludesfile below
	} {
		writeFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\texcludesFile = ~/my-ignore\n", 0o644)
		writeFile(t, tc.file, "!.ssh\n", 0o644)
		_, err := trust(root, tc.prog+" TODO", cfg)
		wantRefused(t, tc.file, err, tc.file, "!.ssh")
		os.Remove(tc.file)
	}
	// Not read by the other program.
	writeFile(t, filepath.Join(root, ".fdignore"), "!.env\n", 0o644)
	if _, err := trust(root, "rg TODO", cfg); err != nil {
		t.Errorf("rg refused for fd's ignore file: %v", err)
	}
	os.Remove(filepath.Join(root, ".fdignore"))

	rgCfg := cfg
	rgCfg.environ = append(slices.Clone(cfg.environ), "RIPGREP_CONFIG_PATH="+filepath.Join(home, "rgrc"))
	_, err := trust(root, "rg TODO", rgCfg)
	wantRefused(t, "RIPGREP_CONFIG_PATH", err, "RIPGREP_CONFIG_PATH")

	small := cfg
	small.maxWalk = 3
	_, err = trust(root, "rg TODO", small)
	wantRefused(t, "a large project", err, "more than 3 entries")

	_, err = trust("", "rg TODO", cfg)
	wantRefused(t, "no project", err, "unknown")

	// A named pipe is refused at once, not waited on.
	if _, err := exec.LookPath("mkfifo"); err == nil {
		run(t, root, nil, "mkfifo", filepath.Join(root, "src", ".ignore"))
		_, err = trust(root, "rg TODO", cfg)
		wantRefused(t, "a named pipe", err, "not a regular file")
	}
}

// Every program of the grammar has its entry in Trust's table; the
// variables that change what the simple ones do are refused.
func TestTrustPrograms(t *testing.T) {
	home := t.TempDir()
	root := newRepo(t, home)
	cfg := plainConfig(home)
	for name := range grammarTable() {
		if _, err := trust(root, name, cfg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := trust(root, "awk x", cfg)
	wantRefused(t, "awk", err, "not written down")
	for _, tc := range []struct{ cmd, env string }{
		{"ls", "POSIXLY_CORRECT=1"}, {"file README.md", "MAGIC=/tmp/m"}, {"grep x README.md", "GREP_OPTIONS=-r"},
		{"diff README.md README.md", "DIFF_OPTIONS=-r"}, {"git status", "GIT_DIR=/tmp"}, {"git status", "GIT_EXTERNAL_DIFF=x"},
		{"git status", "GIT_CONFIG_GLOBAL=/tmp/x"}, {"git status", "HOME=relative"},
	} {
		c := cfg
		c.environ = append(slices.Clone(cfg.environ), tc.env)
		_, err := trust(root, tc.cmd, c)
		wantRefused(t, tc.cmd+" with "+tc.env, err, strings.Split(tc.env, "=")[0])
	}
	c := cfg
	c.environ = append(slices.Clone(cfg.environ), "GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt")
	if _, err := trust(root, "git status", c); err != nil {
		t.Errorf("GIT_SSL_CAINFO refused: %v", err)
	}
	r, err := trust(root, "jq .a package.json | file -", cfg)
	if err != nil || !slices.Contains(r.Outside, filepath.Join(home, ".jq")) || !slices.Contains(r.Outside, filepath.Join(home, ".magic")) {
		t.Errorf("jq and file: %v, Outside %v", err, r.Outside)
	}
	if r, err := trust("", "ls -la | wc -l", cfg); err != nil || len(r.InProject)+len(r.Outside) != 0 {
		t.Errorf("ls and wc read nothing, yet %v, %+v", err, r)
	}
}

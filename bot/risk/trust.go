package risk

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// What a program of the grammar reads besides its operands, and when Trust
// refuses it. A file the model could write without asking turns an approved
// read into running code or reading secrets, so each is either proven
// harmless now or refused, and returned so the caller can make sure its
// later change is asked. Paths assume hermes-bot runs as opencode's user on
// the same file system, with the same HOME, XDG_CONFIG_HOME and PATH.
//
//	program  reads                                          refused when
//	git      /etc/gitconfig, ~/.gitconfig,                  the project root is not the top of a
//	         $XDG_CONFIG_HOME/git/config and attributes,    repository; a config key is not on
//	         .git/config, .git/config.worktree and what     gitAllowed's list; a config file or
//	         they include; .git/hooks, .git/info/           include lies in the work tree; a hook,
//	         attributes and exclude, .git/commondir,        submodule or alternate exists; a
//	         alternates, .gitattributes, .gitmodules        GIT_* variable other than a few is set;
//	                                                        a pager is set and a git lacks --no-pager
//	rg, fd   .gitignore, .ignore, .rgignore (rg),           an ignore file holds a negation that is
//	         .fdignore (fd) in every folder walked and      not a plain, visible, non-secret name,
//	         every parent up to /; .git/info/exclude;       cannot be read, or the project has more
//	         git's core.excludesFile; ~/.config/fd/ignore   than maxWalk entries; rg:
//	         (fd)                                           RIPGREP_CONFIG_PATH is set
//	jq       ~/.jq (definitions it loads)                   -
//	file     ~/.magic, ~/.magic.mgc                         MAGIC is set
//	grep     -                                              GREP_OPTIONS is set (old grep obeys it)
//	diff     -                                              DIFF_OPTIONS is set
//	others   nothing that changes what they do: ls reads   -
//	         LS_COLORS, date TZ, sort writes temporary
//	         files under TMPDIR
//	every    -                                              POSIXLY_CORRECT is set: options after
//	                                                        an operand become file names

// Reads names the files, besides a command's own operands, whose contents
// change what the command does when run in the project: configuration,
// ignore files, hooks. A file listed may not exist yet: creating it
// matters as much as changing it.
type Reads struct {
	// InProject are paths relative to the project root, slash-separated, as
	// opencode's edit permission patterns name them (".git/config",
	// "src/.gitignore"). Ignore files are named in every folder that exists
	// today: one in a folder made later can bring back only what was
	// written there since.
	InProject []string
	// Outside are absolute paths of files outside the project
	// (~/.gitconfig, /etc/gitconfig).
	Outside []string
}

// Trust checks the configuration that the programs of command would read
// when run in the project root: it refuses (an error wrapping the package's
// refusal error, as Approve's reasons do) when any of it runs a program,
// reaches the network or widens what is read, and otherwise returns the
// files whose later change would matter, so the caller can make sure nobody
// changes them without a person. It reads files and may run `git config`
// and `git rev-parse`; it never runs anything the command names. It takes
// the environment from hermes-bot's own, as the one opencode runs commands
// in.
func Trust(root, command string) (Reads, error) {
	return trust(root, command, trustConfig{environ: os.Environ(), maxWalk: maxWalk})
}

// trustConfig is what trust takes from outside: the environment, and the
// walk's bound, which tests lower.
type trustConfig struct {
	environ []string
	maxWalk int
}

const (
	// maxWalk bounds the entries of the project read to find ignore files.
	maxWalk = 20000
	// maxConfigBytes bounds an ignore file, a gitfile and git's output.
	maxConfigBytes = 1 << 20
	// gitTimeout bounds each git run of the check.
	gitTimeout = 5 * time.Second
)

// trustRun is one call of trust: what it found so far.
type trustRun struct {
	cfg  trustConfig
	env  map[string]string
	root string // the project root, symbolic links followed; "" until needed
	in   map[string]bool
	out  map[string]bool
	// noPager: every git of the command has --no-pager, so a pager set
	// in git's configuration never starts.
	noPager bool
}

func trust(root, command string, cfg trustConfig) (Reads, error) {
	cmds, err := lex(command)
	if err != nil {
		return Reads{}, err
	}
	t := &trustRun{cfg: cfg, env: map[string]string{}, in: map[string]bool{}, out: map[string]bool{}}
	for _, kv := range cfg.environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			t.env[k] = v
		}
	}
	if root != "" {
		// Known early, so every file is classified against it; the programs
		// that need it report its error.
		_, _ = t.projectRoot(root, "")
	}
	if _, ok := t.env["POSIXLY_CORRECT"]; ok {
		return Reads{}, refuse("POSIXLY_CORRECT is set: options after an operand would be read as files")
	}
	t.noPager = !slices.ContainsFunc(cmds, func(c simpleCmd) bool {
		return c.words[0] == "git" && !slices.Contains(c.words[1:], "--no-pager")
	})
	done := map[string]bool{}
	for _, c := range cmds {
		name := c.words[0]
		if done[name] {
			continue
		}
		done[name] = true
		if err := t.program(root, name); err != nil {
			return Reads{}, err
		}
	}
	return Reads{InProject: sortedSet(t.in), Outside: sortedSet(t.out)}, nil
}

// program checks what one program reads; this is the table above as code.
func (t *trustRun) program(root, name string) error {
	switch name {
	case "git":
		return t.git(root)
	case "rg":
		if t.env["RIPGREP_CONFIG_PATH"] != "" {
			return refuse("rg: RIPGREP_CONFIG_PATH is set, and its file can add options that run programs")
		}
		return t.ignoreFiles(root, "rg", ".rgignore")
	case "fd":
		return t.ignoreFiles(root, "fd", ".fdignore")
	case "jq":
		if home := t.env["HOME"]; filepath.IsAbs(home) {
			t.add(filepath.Join(home, ".jq"))
		}
		return nil
	case "file":
		if _, ok := t.env["MAGIC"]; ok {
			return refuse("file: MAGIC is set")
		}
		if home := t.env["HOME"]; filepath.IsAbs(home) {
			t.add(filepath.Join(home, ".magic"))
			t.add(filepath.Join(home, ".magic.mgc"))
		}
		return nil
	case "grep", "diff":
		v := strings.ToUpper(name) + "_OPTIONS"
		if _, ok := t.env[v]; ok {
			return refuse("%s: %s is set", name, v)
		}
		return nil
	case "ls", "cat", "head", "tail", "wc", "nl", "tac", "rev", "stat", "du", "realpath", "tree",
		"sort", "uniq", "cut", "tr", "sed", "md5sum", "sha1sum", "sha256sum", "sha512sum",
		"echo", "pwd", "basename", "dirname", "whoami", "nproc", "true", "false", "uname", "date", "which":
		return nil
	}
	return refuse("what %s reads besides its operands is not written down", quoteWord(name))
}

// projectRoot is the project root with symbolic links followed; every
// path is classified against it.
func (t *trustRun) projectRoot(root, prog string) (string, error) {
	if t.root != "" {
		return t.root, nil
	}
	if root == "" {
		return "", refuse("%s: the project directory is unknown, so what it reads there cannot be checked", prog)
	}
	if !filepath.IsAbs(root) {
		return "", refuse("%s: the project directory %s is not absolute", prog, quoteWord(root))
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", refuse("%s: the project is not on this machine, so what it reads there cannot be checked", prog)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", refuse("%s: the project directory %s is not a folder", prog, quoteWord(root))
	}
	t.root = real
	return real, nil
}

// home returns HOME and the XDG configuration folder git, rg and fd use.
func (t *trustRun) home(prog string) (home, xdg string, err error) {
	home = t.env["HOME"]
	if !filepath.IsAbs(home) {
		return "", "", refuse("%s: HOME is not an absolute path, so its configuration cannot be found", prog)
	}
	xdg = t.env["XDG_CONFIG_HOME"]
	switch {
	case xdg == "":
		xdg = filepath.Join(home, ".config")
	case !filepath.IsAbs(xdg):
		return "", "", refuse("%s: XDG_CONFIG_HOME is not an absolute path", prog)
	}
	return home, xdg, nil
}

// add records a file: in the project (relative) or outside (absolute).
// A path through a symbolic link is recorded as written and as followed:
// an edit may name either.
func (t *trustRun) add(p string) {
	p = filepath.Clean(p)
	t.record(p)
	if real := followExisting(p); real != p {
		t.record(real)
	}
}

func (t *trustRun) record(p string) {
	if t.root != "" {
		if rel, ok := within(t.root, p); ok {
			t.in[filepath.ToSlash(rel)] = true
			return
		}
	}
	t.out[p] = true
}

// followExisting follows symbolic links along the longest prefix of p that
// exists, and keeps the rest as written.
func followExisting(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for q := p; ; q = filepath.Dir(q) {
		if real, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(q) == q {
			return p
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

// within reports whether p is dir or inside it, and p relative to dir.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

func sortedSet(m map[string]bool) []string {
	out := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m))
	slices.Sort(out)
	return out
}

// readSmall reads a configuration file of at most maxConfigBytes; a
// missing file is empty.
func readSmall(p string) ([]byte, bool, error) {
	// Stat first: opening a named pipe would wait for a writer.
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", p, err)
	}
	if len(b) > maxConfigBytes {
		return nil, false, fmt.Errorf("%s is larger than %d bytes", p, maxConfigBytes)
	}
	return b, true, nil
}

// gitDirOf resolves a .git entry: the folder itself, or the folder a
// gitfile names; and its common folder (a linked worktree's main git dir).
func gitDirOf(dotgit string) (gitDir, common string, err error) {
	fi, err := os.Stat(dotgit)
	if err != nil {
		return "", "", err
	}
	gitDir = dotgit
	if !fi.IsDir() {
		b, _, err := readSmall(dotgit)
		if err != nil {
			return "", "", err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		d, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok || strings.TrimSpace(d) == "" {
			return "", "", fmt.Errorf("%s is neither a folder nor a gitfile", dotgit)
		}
		gitDir = strings.TrimSpace(d)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(filepath.Dir(dotgit), gitDir)
		}
	}
	common = gitDir
	b, ok, err := readSmall(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return "", "", err
	}
	if ok {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	return followExisting(gitDir), followExisting(common), nil
}

// ignoreFiles checks what rg or fd reads to decide which files it skips:
// a negation there can bring back hidden or ignored files, which they
// then read or list.
func (t *trustRun) ignoreFiles(root, prog, own string) error {
	root, err := t.projectRoot(root, prog)
	if err != nil {
		return err
	}
	home, xdg, err := t.home(prog)
	if err != nil {
		return err
	}
	names := []string{".gitignore", ".ignore", own}
	// Git's global excludes file, found as the ignore crate of rg and fd
	// finds it: any excludesfile line of the user's git config, else the
	// XDG default. All are checked.
	global := []string{filepath.Join(xdg, "git", "ignore")}
	for _, cfgFile := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		b, _, err := readSmall(cfgFile)
		if err != nil {
			return refuse("%s: git's configuration %s cannot be read: %v", prog, cfgFile, err)
		}
		for _, v := range excludesFiles(b) {
			switch {
			case strings.HasPrefix(v, "~/"):
				v = filepath.Join(home, v[2:])
			case !filepath.IsAbs(v):
				v = filepath.Join(root, v)
			}
			global = append(global, v)
		}
	}
	if prog == "fd" {
		global = append(global, filepath.Join(xdg, "fd", "ignore"))
	}
	for _, p := range global {
		if err := t.checkIgnoreFile(prog, p); err != nil {
			return err
		}
	}
	t.add(filepath.Join(root, ".git", "info", "exclude"))
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if err := t.checkIgnoreDir(prog, d, names); err != nil {
			return err
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	queue, seen := []string{root}, 0
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if err := t.checkIgnoreDir(prog, d, names); err != nil {
			return err
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return refuse("%s: cannot list %s: %v", prog, d, err)
		}
		seen += len(entries)
		if seen > t.cfg.maxWalk {
			return refuse("%s: the project has more than %d entries outside hidden folders, too many to check its ignore files", prog, t.cfg.maxWalk)
		}
		for _, e := range entries {
			// rg and fd follow no links and enter no hidden folder by default.
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				queue = append(queue, filepath.Join(d, e.Name()))
			}
		}
	}
	return nil
}

// checkIgnoreDir checks the ignore files rg or fd reads in folder d,
// including the exclude file of a repository whose top d is.
func (t *trustRun) checkIgnoreDir(prog, d string, names []string) error {
	for _, n := range names {
		if err := t.checkIgnoreFile(prog, filepath.Join(d, n)); err != nil {
			return err
		}
	}
	dotgit := filepath.Join(d, ".git")
	if _, err := os.Lstat(dotgit); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	_, common, err := gitDirOf(dotgit)
	if err != nil {
		return refuse("%s: cannot resolve %s: %v", prog, dotgit, err)
	}
	return t.checkIgnoreFile(prog, filepath.Join(common, "info", "exclude"))
}

// checkIgnoreFile records an ignore file and refuses it when it holds a
// negation that could bring back a hidden or secret file.
func (t *trustRun) checkIgnoreFile(prog, p string) error {
	t.add(p)
	b, _, err := readSmall(p)
	if err != nil {
		return refuse("%s: ignore file %s cannot be read: %v", prog, p, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxConfigBytes+1)
	for n := 1; sc.Scan(); n++ {
		if !harmlessNegation(sc.Text()) {
			return refuse("%s: ignore file %s line %d, %s, could bring back hidden or secret files", prog, p, n, quoteWord(sc.Text()))
		}
	}
	if err := sc.Err(); err != nil {
		return refuse("%s: ignore file %s cannot be read: %v", prog, p, err)
	}
	return nil
}

// harmlessNegation reports a line that is no negation, or one whose
// pattern is a plain path of visible, non-secret names. Leading blanks are
// skipped, which is stricter than git.
func harmlessNegation(line string) bool {
	l := strings.TrimLeft(line, " \t\r\v\f\ufeff")
	pat, neg := strings.CutPrefix(l, "!")
	if !neg {
		return true
	}
	pat = strings.TrimRight(pat, " \t\r")
	pat = strings.TrimSuffix(strings.TrimPrefix(pat, "/"), "/")
	return pat != "" && !strings.ContainsAny(pat, `*?[]{}\`) && !strings.Contains(pat, "//") && !hasHiddenOrSecret(pat)
}

// excludesFiles returns every excludesfile value of a git config file, as
// the ignore crate reads them: by line, in any section.
func excludesFiles(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "excludesfile") {
			continue
		}
		if v = strings.Trim(strings.TrimSpace(v), `"`); v != "" {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// harmlessGitEnv are the GIT_ variables allowed in the environment: TLS
// settings no approved command uses, and reading no system config.
var harmlessGitEnv = []string{"GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_TERMINAL_PROMPT", "GIT_CONFIG_NOSYSTEM"}

// gitHooks are the hooks git runs, listed so the caller can check that
// creating one is asked; Trust refuses any hook that exists.
var gitHooks = []string{
	"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
	"pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
	"fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
	"p4-pre-submit", "post-index-change",
}

// git checks the repository git would use in the project, and all the
// configuration it reads there.
func (t *trustRun) git(root string) error {
	root, err := t.projectRoot(root, "git")
	if err != nil {
		return err
	}
	for k := range t.env {
		if strings.HasPrefix(k, "GIT_") && !slices.Contains(harmlessGitEnv, k) {
			return refuse("git: %s is set, so git would not read the repository and configuration checked here", k)
		}
	}
	home, xdg, err := t.home("git")
	if err != nil {
		return err
	}
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse("git: the project is not the top of a repository: git would look for one in the folders above it")
	case err != nil:
		return refuse("git: %v", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return refuse("git: .git is a symbolic link")
	case !fi.IsDir():
		t.add(dotgit)
	}
	gitDir, common, err := gitDirOf(dotgit)
	if err != nil {
		return refuse("git: cannot resolve .git: %v", err)
	}
	dirs := []string{gitDir}
	if common != gitDir {
		dirs = append(dirs, common)
	}
	for _, p := range []string{"/etc/gitconfig", filepath.Join(home, ".gitconfig"),
		filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "attributes"),
		filepath.Join(root, ".gitattributes"), filepath.Join(root, ".gitmodules"),
		filepath.Join(gitDir, "commondir"), filepath.Join(gitDir, "config.worktree")} {
		t.add(p)
	}
	for _, d := range dirs {
		for _, f := range []string{"config", "config.worktree", "info/attributes", "info/exclude",
			"objects/info/alternates", "objects/info/http-alternates"} {
			t.add(filepath.Join(d, filepath.FromSlash(f)))
		}
		for _, h := range gitHooks {
			t.add(filepath.Join(d, "hooks", h))
		}
	}
	if err := t.gitDirs(root, dirs); err != nil {
		return err
	}
	if err := t.gitConfig(root, home, dirs); err != nil {
		return err
	}
	// git itself must find this repository at the project root: a broken
	// .git makes it look in the folders above.
	out, err := t.runGit(root, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return err
	}
	got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	want := []string{root, gitDir, common}
	if len(got) != len(want) {
		return refuse("git: rev-parse answered %q", out)
	}
	for i := range want {
		if followExisting(got[i]) != want[i] {
			return refuse("git uses %s, not %s", got[i], want[i])
		}
	}
	return nil
}

// gitDirs refuses what in the git folders runs programs or reads beyond
// the repository: hooks, submodules, alternates.
func (t *trustRun) gitDirs(root string, dirs []string) error {
	if _, err := os.Lstat(filepath.Join(root, ".gitmodules")); !errors.Is(err, fs.ErrNotExist) {
		return refuse("git: the repository has submodules (.gitmodules)")
	}
	for _, d := range dirs {
		hooks, err := os.ReadDir(filepath.Join(d, "hooks"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return refuse("git: cannot list its hooks: %v", err)
		}
		for _, h := range hooks {
			if !strings.HasSuffix(h.Name(), ".sample") {
				// git status writes the index, which runs post-index-change.
				return refuse("git: the repository has a hook, %s", quoteWord(h.Name()))
			}
		}
		for _, f := range []string{"modules", "objects/info/alternates", "objects/info/http-alternates"} {
			if _, err := os.Lstat(filepath.Join(d, filepath.FromSlash(f))); !errors.Is(err, fs.ErrNotExist) {
				return refuse("git: the repository has %s (submodules or objects read from elsewhere)", f)
			}
		}
	}
	return nil
}

// gitConfig reads the effective configuration, as git would in the
// project, and accepts only keys known to run nothing and fetch nothing.
func (t *trustRun) gitConfig(root, home string, dirs []string) error {
	out, err := t.runGit(root, "config", "--list", "--show-origin", "--null", "--includes")
	if err != nil {
		return err
	}
	var fields []string
	if len(out) > 0 {
		fields = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	}
	if len(fields)%2 != 0 {
		return refuse("git: cannot read its configuration listing")
	}
	inGitDir := func(p string) bool {
		for _, d := range dirs {
			if _, ok := within(d, p); ok {
				return true
			}
		}
		return false
	}
	checkFile := func(p, what string) error {
		t.add(p)
		p = followExisting(p)
		if rel, ok := within(root, p); ok && !inGitDir(p) {
			return refuse("git: %s %s is in the work tree, which the model may edit", what, quoteWord(filepath.ToSlash(rel)))
		}
		return nil
	}
	for i := 0; i+1 < len(fields); i += 2 {
		origin, kv := fields[i], fields[i+1]
		file, ok := strings.CutPrefix(origin, "file:")
		if !ok {
			return refuse("git: configuration from %s", quoteWord(origin))
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(root, file)
		}
		if err := checkFile(file, "configuration file"); err != nil {
			return err
		}
		key, value, _ := strings.Cut(kv, "\n")
		if !gitAllowed(key, value) && !(t.noPager && gitPager(key)) {
			return refuse("git: configuration %s in %s may run a program, fetch or read more", quoteWord(key), file)
		}
		if section, _, name := splitGitKey(key); name == "path" && (section == "include" || section == "includeif") {
			target, err := includeTarget(value, file, home)
			if err != nil {
				return err
			}
			if err := checkFile(target, "included file"); err != nil {
				return err
			}
		}
	}
	return nil
}

// includeTarget resolves an include path as git does: ~/ is HOME, a
// relative path is relative to the including file.
func includeTarget(v, from, home string) (string, error) {
	switch {
	case strings.HasPrefix(v, "~/"):
		return filepath.Join(home, v[2:]), nil
	case strings.HasPrefix(v, "~") || strings.HasPrefix(v, "%("):
		return "", refuse("git: include path %s", quoteWord(v))
	case filepath.IsAbs(v):
		return v, nil
	}
	return filepath.Join(filepath.Dir(from), v), nil
}

// runGit runs git in the project with only the environment that decides
// which configuration it reads: no prompt, no terminal, no input.
func (t *trustRun) runGit(root string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = root
	cmd.Env = []string{"GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "HOME=" + t.env["HOME"], "PATH=" + t.env["PATH"]}
	for _, k := range []string{"XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM"} {
		if v, ok := t.env[k]; ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var out, errOut capped
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		return nil, refuse("git %s: %v: %s", args[0], err, strings.TrimSpace(errOut.b.String()))
	}
	if out.over {
		return nil, refuse("git %s: more than %d bytes of output", args[0], maxConfigBytes)
	}
	return out.b.Bytes(), nil
}

// capped keeps the first maxConfigBytes written to it.
type capped struct {
	b    bytes.Buffer
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxConfigBytes - c.b.Len(); len(p) > room {
		c.over = true
		c.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.b.Write(p)
}

// splitGitKey splits section.subsection.name; the subsection may hold dots.
func splitGitKey(key string) (section, sub, name string) {
	i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if i < 0 {
		return key, "", ""
	}
	if i == j {
		return key[:i], "", key[i+1:]
	}
	return key[:i], key[i+1 : j], key[j+1:]
}

// gitAllowed reports a configuration key known to run no program, reach no
// network and widen no read in the commands of the grammar. Fail closed:
// an unknown key is refused.
func gitAllowed(key, value string) bool {
	section, sub, name := splitGitKey(key)
	switch section {
	case "user", "author", "committer", "push", "advice":
		return true
	case "credential":
		// Helpers run only to reach a remote: no command of the grammar
		// does, and a partial clone, which would, is refused.
		return true
	case "alias":
		// An alias never shadows a builtin, and the grammar runs builtins only.
		return true
	case "color":
		return colorValue(value)
	}
	if sub != "" {
		switch section + ".*." + name {
		case "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push", "remote.*.tagopt",
			"remote.*.prune", "branch.*.remote", "branch.*.merge", "branch.*.rebase",
			"branch.*.pushremote", "branch.*.description", "includeif.*.path":
			return true
		}
		return false
	}
	switch key {
	case "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
		"core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
		"core.safecrlf", "core.quotepath", "core.abbrev", "core.whitespace", "core.checkstat",
		"core.trustctime", "core.untrackedcache", "core.preloadindex", "core.excludesfile",
		"init.defaultbranch", "branch.autosetupmerge", "branch.autosetuprebase",
		"pull.rebase", "pull.ff", "fetch.prune", "fetch.prunetags",
		"rebase.autosquash", "rebase.autostash", "rebase.updaterefs", "merge.ff", "merge.conflictstyle",
		"commit.gpgsign", "commit.verbose", "tag.gpgsign", "tag.sort",
		"status.showuntrackedfiles", "status.short", "status.branch",
		"diff.renames", "diff.algorithm", "diff.colormoved", "diff.mnemonicprefix", "diff.noprefix",
		"diff.context", "diff.interhunkcontext", "log.date", "log.decorate", "log.abbrevcommit",
		"extensions.objectformat", "extensions.refstorage", "extensions.worktreeconfig",
		"include.path", "safe.directory", "rerere.enabled", "rerere.autoupdate",
		// Editors open only for commands that write (commit, rebase -i).
		"core.editor", "sequence.editor",
		// Housekeeping no command of the grammar starts; gc.* is left out
		// because one of its keys names a program.
		"maintenance.repo", "maintenance.strategy", "maintenance.auto",
		// What this repository serves to others' fetches; no hook.
		"uploadpack.allowfilter", "uploadpack.allowtipsha1inwant", "uploadpack.allowreachablesha1inwant",
		"uploadpack.allowanysha1inwant":
		return true
	}
	return false
}

// gitPager reports a key naming a pager, which runs only when git's
// output goes to a terminal and never with --no-pager.
func gitPager(key string) bool {
	section, _, _ := splitGitKey(key)
	return key == "core.pager" || section == "pager"
}

// colorValue reports a color setting: words, numbers and #rgb only.
func colorValue(v string) bool {
	for _, r := range v {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(" #-_", r)) {
			return false
		}
	}
	return true
}

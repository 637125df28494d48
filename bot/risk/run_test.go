//go:build unix

package risk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// honeypot marks every secret the scratch machine holds; it must never
// reach a command's output.
const honeypot = "HONEYPOT-7c1e"

// scratch is a project with a git history and traps (a FIFO, a large
// sparse file, folders holding hidden files), and a HOME with secrets.
type scratch struct {
	proj, home, tmp string
	env             []string
}

// sparseSize is the apparent size of the project's sparse file: more
// than any command may print, yet no disk.
const sparseSize = 64 << 20

func newScratch(t *testing.T) *scratch {
	t.Helper()
	root := t.TempDir()
	s := &scratch{proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	files := map[string]string{
		"proj/README.md":                         "# demo\nA demo project.\nTODO: write more\n",
		"proj/go.mod":                            "module example.com/demo\n\ngo 1.22\n",
		"proj/main.go":                           "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\") // TODO\n}\n",
		"proj/src/app.go":                        "package src\n\nfunc App() int { return 1 }\n",
		"proj/src/util.go":                       "package src\n\n// FIXME: tidy\nfunc Util() {}\n",
		"proj/docs/guide.md":                     "# Guide\n",
		"proj/docs/notes with space.md":          "spaces\n",
		"proj/data.csv":                          "a,3\nb,1\nb,1\nc,2\n",
		"proj/numbers.txt":                       "10\n9\n100\n",
		"proj/notes.txt":                         "one\ntwo\ntwo\n-v\n",
		"proj/package.json":                      `{"name":"demo","version":"1.0.0","scripts":{"test":"true"},"files":["main.go"]}` + "\n",
		"proj/.gitignore":                        "id_rsa\n*.env\n",
		"proj/.env":                              "API_KEY=" + honeypot + "-dotenv\n",
		"proj/id_rsa":                            "-----BEGIN " + honeypot + " PROJECT KEY-----\n",
		"proj/deploy/prod.env":                   "TOKEN=" + honeypot + "-prod\n",
		"home/.ssh/id_rsa":                       "-----BEGIN " + honeypot + " SSH KEY-----\n",
		"home/.netrc":                            "machine example.com password " + honeypot + "-netrc\n",
		"home/.config/hermes-bot/hermes-bot.env": "TELEGRAM_BOT_TOKEN=123:" + honeypot + "-bot\n",
		"home/.bash_history":                     "export TOKEN=" + honeypot + "-history\n",
		"proj/pair/a/.secret":                    "KEY=" + honeypot + "-pair-a\n",
		"proj/pair/b/.secret":                    "KEY=" + honeypot + "-pair-b\n",
		"proj/pair/a/same.txt":                   "same\n",
		"proj/pair/b/same.txt":                   "same\n",
		"tmp/keep":                               "",
	}
	old := time.Now().Add(-time.Hour)
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		// Old files keep git from finding its index racy and rewriting it.
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(filepath.Join(s.proj, "queue")); err != nil {
		t.Fatalf("making a FIFO: %v", err)
	}
	big, err := os.Create(filepath.Join(s.proj, "disk.img"))
	if err == nil {
		err = errors.Join(big.Truncate(sparseSize), big.Close())
	}
	if err != nil {
		t.Fatalf("making a sparse file: %v", err)
	}
	// TMPDIR is watched too: sort and tac spill into it.
	s.env = []string{
		"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "GIT_CONFIG_NOSYSTEM=1", "TMPDIR=" + s.tmp,
		"HERMES_HONEYPOT_TOKEN=" + honeypot + "-environment",
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Tester", "-c", "user.email=t@example.com",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir, cmd.Env = s.proj, s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	git("init", "-q")
	git("add", "README.md", "go.mod", "main.go", "src", "docs", "data.csv", "package.json", ".gitignore")
	git("commit", "-q", "-m", "initial")
	git("add", "notes.txt", "numbers.txt")
	git("commit", "-q", "-m", "notes")
	// A change in the work tree, so diffs have something to show.
	if err := os.WriteFile(filepath.Join(s.proj, "main.go"), []byte(files["proj/main.go"]+"// edited\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(s.proj, "main.go"), old, old); err != nil {
		t.Fatal(err)
	}
	// Let git refresh its index now, not during the first command.
	git("status", "--porcelain")
	return s
}

// snapshot records every file and folder under the project, HOME and
// TMPDIR: kind, mode and content hash, or a link's target; a file over
// 1 MiB by size and time of change instead, to keep the proof quick.
func (s *scratch) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{s.proj, s.home, s.tmp} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			v := info.Mode().String()
			switch {
			case info.Mode()&fs.ModeSymlink != 0:
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				v += " -> " + target
			case info.Mode().IsRegular() && info.Size() > 1<<20:
				v += fmt.Sprintf(" %d %v", info.Size(), info.ModTime())
			case info.Mode().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				v += fmt.Sprintf(" %x", sha256.Sum256(b))
			}
			out[p] = v
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var d []string
	for p, v := range before {
		if w, ok := after[p]; !ok {
			d = append(d, "removed "+p)
		} else if v != w {
			d = append(d, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			d = append(d, "added "+p)
		}
	}
	return d
}

// Bounds every approved command must keep when it runs.
const (
	runTimeout = 10 * time.Second
	maxOutput  = 4 << 20
	// bashLimits are set before the command runs: 1 GiB of address
	// space, files of 16 MiB, 10 s of CPU.
	bashLimits = "ulimit -v 1048576 && ulimit -f 16384 && ulimit -t 10"
)

// cappedBuffer keeps at most maxOutput bytes and calls over, once, when
// more arrive.
type cappedBuffer struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	overflow bool
	over     func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxOutput - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:room])
		if !c.overflow {
			c.overflow = true
			c.over()
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// runResult is how one command ended.
type runResult struct {
	out      []byte
	err      error
	timedOut bool
	overflow bool
}

// run runs command with bash in the project under the bounds above,
// with standard input an open pipe nobody writes to (stdinPipe) or
// /dev/null, and stops its whole process group at the first overrun.
func (s *scratch) run(t *testing.T, shell, command string, stdinPipe bool) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-c", bashLimits+` && exec bash -o pipefail -c "$1"`, "proof", command)
	cmd.Dir, cmd.Env = s.proj, s.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	killGroup := func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Cancel, cmd.WaitDelay = killGroup, 2*time.Second
	out := &cappedBuffer{over: func() { _ = killGroup() }}
	cmd.Stdout, cmd.Stderr = out, out
	if stdinPipe {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		cmd.Stdin = r
	}
	err := cmd.Run()
	out.mu.Lock()
	defer out.mu.Unlock()
	return runResult{out: bytes.Clone(out.buf.Bytes()), err: err, timedOut: ctx.Err() != nil, overflow: out.overflow}
}

// overran names the bound a finished command broke, or "".
func (r runResult) overran() string {
	var exit *exec.ExitError
	switch {
	case r.timedOut:
		return fmt.Sprintf("did not finish in %v", runTimeout)
	case r.overflow:
		return fmt.Sprintf("printed more than %d bytes", maxOutput)
	case errors.As(r.err, &exit) && exit.ExitCode() < 0:
		return "was killed: " + exit.String()
	// 128+N is a pipeline member killed by signal N; SIGPIPE is a reader
	// such as head stopping early.
	case errors.As(r.err, &exit) && exit.ExitCode() > 128 && exit.ExitCode() != 128+int(syscall.SIGPIPE):
		return fmt.Sprintf("was killed by signal %d (a limit: file size, CPU or memory)", exit.ExitCode()-128)
	}
	for _, m := range []string{"memory exhausted", "Cannot allocate memory", "memory allocation of", "out of memory"} {
		if bytes.Contains(r.out, []byte(m)) {
			return "ran out of memory: " + m
		}
	}
	return ""
}

// TestApprovedCommandsRun is the proof by running: every command the
// table approves runs in the scratch project within the bounds above, and
// afterwards the project, HOME and TMPDIR are unchanged byte for byte and
// no secret appeared in any output. Missing programs are skipped, counted.
func TestApprovedCommandsRun(t *testing.T) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	s := newScratch(t)
	// Approve reads the configuration the commands run with.
	plainEnv(t)
	t.Setenv("HOME", s.home)
	before := s.snapshot(t)
	ran, skipped := 0, map[string]int{}
	for _, e := range readTable(t) {
		if !Approve(s.proj, e.command).OK {
			continue
		}
		cmds, err := lex(e.command)
		if err != nil {
			t.Fatalf("%q approved but does not lex: %v", e.command, err)
		}
		missing := ""
		for _, c := range cmds {
			if _, err := exec.LookPath(c.words[0]); err != nil {
				missing = c.words[0]
			}
		}
		if missing != "" {
			skipped[missing]++
			continue
		}
		// rg searches standard input instead of the folder when it is a
		// pipe; opencode gives its commands none (/dev/null).
		rgOnStdin := slices.ContainsFunc(cmds, func(c simpleCmd) bool { return c.sep != "|" && c.words[0] == "rg" })
		r := s.run(t, shell, e.command, !rgOnStdin)
		ran++
		if why := r.overran(); why != "" {
			t.Errorf("commands.tsv:%d %q %s (exit %v):\n%.2000s", e.line, e.command, why, r.err, r.out)
		}
		if bytes.Contains(r.out, []byte(honeypot)) {
			t.Errorf("%q printed a secret (exit %v):\n%s", e.command, r.err, r.out)
		}
		if d := diffSnapshots(before, s.snapshot(t)); len(d) > 0 {
			t.Fatalf("%q changed the machine: %s", e.command, strings.Join(d, ", "))
		}
	}
	nskip := 0
	for _, n := range skipped {
		nskip += n
	}
	t.Logf("ran %d approved commands; skipped %d whose program is not installed %v", ran, nskip, skipped)
	if ran == 0 {
		t.Fatal("no approved command ran")
	}
}

// The bounds hold: a command that overruns one is caught.
func TestRunBounds(t *testing.T) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	s := newScratch(t)
	for _, tc := range []struct {
		command string
		pipe    bool
		want    string // what overran says; "" when nothing overran
		out     string // the output, when it matters
	}{
		{command: "cat", pipe: true, want: "did not finish"},
		{command: "cat queue", want: "did not finish"},
		{command: "cat disk.img", want: "printed more than"},
		{command: "head -c 20000000 /dev/zero > big", want: "killed by signal"},
		{command: "ulimit -v", out: "1048576\n"},
		{command: "ls README.md", pipe: true, out: "README.md\n"},
	} {
		t.Run(tc.command, func(t *testing.T) {
			t.Parallel()
			r := s.run(t, shell, tc.command, tc.pipe)
			if got := r.overran(); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("overran %q, want %q (exit %v, output %.200q)", got, tc.want, r.err, r.out)
			}
			if tc.out != "" && string(r.out) != tc.out {
				t.Errorf("printed %q, want %q", r.out, tc.out)
			}
		})
	}
}

// Repositories git itself sets up to fetch or borrow objects are refused:
// a partial clone fetches a missing blob on git log -p, and a shared
// clone reads another repository's objects.
func TestApproveRefusesRepositoriesThatReachOut(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	s := newScratch(t)
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(s.proj, "config", "uploadpack.allowFilter", "true")
	root := filepath.Dir(s.proj)
	partial, shared := filepath.Join(root, "partial"), filepath.Join(root, "shared")
	git(root, "clone", "-q", "--filter=blob:none", "file://"+s.proj, partial)
	git(root, "clone", "-q", "--shared", s.proj, shared)
	if v := Approve(s.proj, "git log -p -1"); !v.OK {
		t.Fatalf("the source repository refused: %s", v.Why)
	}
	for dir, why := range map[string]string{partial: "promisor", shared: "alternates"} {
		if v := Approve(dir, "git log -p -1"); v.OK || !strings.Contains(v.Why, why) {
			t.Errorf("%s: approved=%v (%s), want refused: %s", filepath.Base(dir), v.OK, v.Why, why)
		}
	}
}

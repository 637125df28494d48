package risk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// honeypot marks every secret the scratch machine holds; it must never
// reach a command's output.
const honeypot = "HONEYPOT-7c1e"

// scratch is a project with a git history, and a HOME with secrets
// beside it, laid out as an agent's machine would be.
type scratch struct {
	proj, home string
	env        []string
}

func newScratch(t *testing.T) *scratch {
	t.Helper()
	root := t.TempDir()
	s := &scratch{proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
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
	s.env = []string{
		"HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TERM=dumb", "GIT_CONFIG_NOSYSTEM=1",
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

// snapshot records every file and folder under the project and HOME:
// kind, mode and content hash, or a link's target.
func (s *scratch) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{s.proj, s.home} {
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

// TestApprovedCommandsRun is the proof by running: every command of the
// table that the grammar approves runs in the scratch project, and
// afterwards the project and HOME are unchanged byte for byte and no
// secret appeared in any output. A command whose program is not
// installed is skipped and counted.
func TestApprovedCommandsRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the commands are POSIX shell commands")
	}
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
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, shell, "-c", e.command)
		cmd.Dir, cmd.Env = s.proj, s.env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
		if ctx.Err() != nil {
			t.Errorf("%q did not finish: %v", e.command, ctx.Err())
		}
		cancel()
		ran++
		if bytes.Contains(out.Bytes(), []byte(honeypot)) {
			t.Errorf("%q printed a secret (exit %v):\n%s", e.command, err, out.String())
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

package risk

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkApprove measures one decision in a clean repository: a command
// that names a path, one that makes Trust read git's configuration (two
// git runs), and one that makes it walk the project's ignore files.
func BenchmarkApprove(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	root := benchRepo(b, home)
	for i := range 200 {
		dir := filepath.Join(root, "src", "pkg"+strconv.Itoa(i%20))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".go"), []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, cmd := range []string{"cat README.md", "git status", "rg TODO"} {
		if v := Approve(root, cmd); !v.OK {
			b.Fatalf("%q refused: %s", cmd, v.Why)
		}
		b.Run(cmd, func(b *testing.B) {
			for b.Loop() {
				Approve(root, cmd)
			}
		})
	}
}

// benchRepo is newRepo for a benchmark: a repository with one commit.
func benchRepo(b *testing.B, home string) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	root := filepath.Join(b.TempDir(), "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("# demo\nTODO\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "README.md"},
		{"-c", "user.name=B", "-c", "user.email=b@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = root, plainEnviron(home)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

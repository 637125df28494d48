package main_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// binary builds hermes-bot once per test run.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "hermes-bot-e2e-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "hermes-bot")
	out, err := exec.Command("go", "build", "-race", "-o", path, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return path, nil
})

// syncBuffer collects a process's output safely while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// botProcess is a running hermes-bot binary.
type botProcess struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan error
}

func startBot(t *testing.T, env []string) *botProcess {
	t.Helper()
	path, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	p := &botProcess{out: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(path)
	p.cmd.Env = env
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("hermes-bot output:\n%s", p.out)
		}
	})
	return p
}

// stop sends SIGTERM and returns the exit error.
func (p *botProcess) stop(t *testing.T) error {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("hermes-bot did not stop within 30s of SIGTERM")
		return nil
	}
}

// kill sends SIGKILL, as a crash or the OOM killer would, and waits for
// the process to be gone.
func (p *botProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		p.done <- err
	case <-time.After(30 * time.Second):
		t.Fatal("hermes-bot still running 30s after SIGKILL")
	}
}

func buttonTexts(m telegramtest.Message) []string {
	var out []string
	for _, row := range m.Keyboard {
		for _, b := range row {
			out = append(out, b.Text)
		}
	}
	return out
}

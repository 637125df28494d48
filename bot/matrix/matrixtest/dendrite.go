package matrixtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// DendriteVersion is the Dendrite release the harness installs, from
// github.com/matrix-org/dendrite (Apache-2.0; not the AGPL element-hq fork).
const DendriteVersion = "v0.13.8"

// dendriteModule is what go install builds the binaries from.
const dendriteModule = "github.com/matrix-org/dendrite/cmd/"

// dendriteCommands are the binaries the harness needs (create-account is
// installed for people poking at a test server by hand).
var dendriteCommands = []string{"dendrite", "generate-keys", "generate-config", "create-account"}

// Environment variables the harness reads, the same as opencodetest's.
const (
	// EnvCacheDir is the folder the binaries are cached in, under
	// dendrite-<version>; default $HOME/.cache/hermes-bot.
	EnvCacheDir = "HERMES_CACHE_DIR"
	// EnvE2E set to 1 makes a missing Dendrite a failure; set to 0 it skips
	// the tests that need one without installing it.
	EnvE2E = "HERMES_E2E"
)

const (
	installTimeout = 10 * time.Minute
	startTimeout   = 60 * time.Second
	stopTimeout    = 5 * time.Second
	requestTimeout = 30 * time.Second
)

// DendriteDir returns the folder holding the DendriteVersion binaries,
// installing them with go install when they are missing (saying so in one
// line, as it takes minutes with a cold module cache). When they cannot
// be had the test is skipped with the reason, or fails if HERMES_E2E=1.
func DendriteDir(tb testing.TB) string {
	tb.Helper()
	if os.Getenv(EnvE2E) == "0" {
		tb.Skipf("end-to-end tests off (%s=0)", EnvE2E)
		return ""
	}
	dir, err := dendriteDir(os.Getenv)
	if err == nil && !installed(dir) {
		notice(fmt.Sprintf("matrixtest: installing Dendrite %s into %s with go install (minutes with a cold module cache)", DendriteVersion, dir))
		err = install(dir)
	}
	if err != nil {
		if os.Getenv(EnvE2E) == "1" {
			tb.Fatalf("Dendrite %s is required (%s=1): %v", DendriteVersion, EnvE2E, err)
		} else {
			tb.Skipf("Dendrite %s not available, skipping (set %s=1 to make this a failure): %v", DendriteVersion, EnvE2E, err)
		}
		return ""
	}
	return dir
}

// notice writes a line to the terminal, which go test does not capture;
// where there is none (CI), to stderr, which go test -v shows.
func notice(line string) {
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprintln(w, line)
}

func dendriteDir(getenv func(string) string) (string, error) {
	root := getenv(EnvCacheDir)
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find cache folder (set %s): %w", EnvCacheDir, err)
		}
		root = filepath.Join(home, ".cache", "hermes-bot")
	}
	return filepath.Join(root, "dendrite-"+DendriteVersion), nil
}

func installed(dir string) bool {
	for _, c := range dendriteCommands {
		fi, err := os.Stat(filepath.Join(dir, c))
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// install builds into a fresh folder beside dir and renames it into
// place, so parallel test binaries never see half an install.
func install(dir string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("install Dendrite: go not found: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("install Dendrite: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".dendrite-install-")
	if err != nil {
		return fmt.Errorf("install Dendrite: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("install Dendrite: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	args := []string{"install"}
	for _, c := range dendriteCommands {
		args = append(args, dendriteModule+c+"@"+DendriteVersion)
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("install Dendrite: go %s: %w\n%s", strings.Join(args, " "), err, tail(out, 2048))
	}
	if err := os.Rename(tmp, dir); err != nil {
		if installed(dir) {
			return nil // another test binary was first
		}
		return fmt.Errorf("install Dendrite: move into place: %w", err)
	}
	return nil
}

// Homeserver is a real Dendrite on a loopback port with SQLite,
// federation off and shared-secret registration, in a temporary folder
// removed after the test. It is stopped when the test ends.
type Homeserver struct {
	// URL is the client-server API base, no trailing slash.
	URL string
	// ServerName is the part after the colon of its IDs: "localhost".
	ServerName string
	// Dir holds its configuration and databases; LogFile its output.
	Dir     string
	LogFile string

	secret string
	client *http.Client
	stop   func()
}

// StartDendrite starts a Dendrite for tb and waits until
// /_matrix/client/versions answers.
func StartDendrite(tb testing.TB) *Homeserver {
	tb.Helper()
	bin := DendriteDir(tb)
	if bin == "" {
		return nil
	}
	dir := tb.TempDir()
	hs := &Homeserver{ServerName: "localhost", Dir: dir, LogFile: filepath.Join(dir, "dendrite.log"),
		secret: randomHex(16),
		client: &http.Client{Timeout: requestTimeout, Transport: http.DefaultTransport.(*http.Transport).Clone()}}
	if err := hs.configure(bin); err != nil {
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	port, err := freePort()
	if err != nil {
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	hs.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	logf, err := os.Create(hs.LogFile)
	if err != nil {
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	cmd := exec.Command(filepath.Join(bin, "dendrite"), "-config", filepath.Join(dir, "dendrite.yaml"),
		"-http-bind-address", "127.0.0.1:"+strconv.Itoa(port))
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	hs.stop = func() { stopProcess(cmd.Process, exited) }
	tb.Cleanup(func() {
		hs.stop()
		hs.client.CloseIdleConnections()
		if tb.Failed() {
			b, _ := os.ReadFile(hs.LogFile)
			tb.Logf("Dendrite output (%s), last lines:\n%s", hs.LogFile, tail(b, 8192))
		}
	})
	if err := hs.waitUp(exited); err != nil {
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	return hs
}

// Stop stops the server before the test ends and waits until it is gone.
func (hs *Homeserver) Stop() { hs.stop() }

// configure writes the signing key and a generated dendrite.yaml,
// changed for a test: federation off, no stats, shared-secret
// registration, no rate limits, cheap password hashes, in-memory queues,
// and no key servers on the internet.
func (hs *Homeserver) configure(bin string) error {
	gen := exec.Command(filepath.Join(bin, "generate-keys"), "--private-key", "matrix_key.pem")
	gen.Dir = hs.Dir
	if out, err := gen.CombinedOutput(); err != nil {
		return fmt.Errorf("generate-keys: %w\n%s", err, out)
	}
	cfg := exec.Command(filepath.Join(bin, "generate-config"), "-dir", hs.Dir, "-server", hs.ServerName)
	cfg.Dir = hs.Dir
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	yaml, err := cfg.Output()
	if err != nil {
		return fmt.Errorf("generate-config: %w\n%s", err, stderr.Bytes())
	}
	text, err := adjustConfig(string(yaml), hs.secret)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(hs.Dir, "dendrite.yaml"), []byte(text), 0o600); err != nil {
		return fmt.Errorf("write dendrite.yaml: %w", err)
	}
	return nil
}

// adjustConfig edits generate-config's YAML (SQLite already, with -dir)
// in place; each edit must find its line, so a changed template fails
// loudly instead of running a server with the wrong settings.
func adjustConfig(yaml, secret string) (string, error) {
	edits := []struct{ old, new string }{
		{"  disable_federation: false\n", "  disable_federation: true\n"},
		{"  registration_shared_secret: \"\"\n", "  registration_shared_secret: \"" + secret + "\"\n"},
		{"  rate_limiting:\n    enabled: true\n", "  rate_limiting:\n    enabled: false\n"},
		{"  bcrypt_cost: 10\n", "  bcrypt_cost: 4\n"},
		{"    topic_prefix: Dendrite\n    in_memory: false\n", "    topic_prefix: Dendrite\n    in_memory: true\n"},
		{"  trusted_third_party_id_servers:\n  - matrix.org\n  - vector.im\n", "  trusted_third_party_id_servers: []\n"},
	}
	for _, e := range edits {
		if !strings.Contains(yaml, e.old) {
			return "", fmt.Errorf("dendrite.yaml: %q not found in generate-config's output", strings.TrimSpace(e.old))
		}
		yaml = strings.Replace(yaml, e.old, e.new, 1)
	}
	// The key perspectives name matrix.org, asked for server keys.
	start := strings.Index(yaml, "  key_perspectives:\n")
	end := strings.Index(yaml, "  prefer_direct_fetch:")
	if start < 0 || end < start {
		return "", errors.New("dendrite.yaml: key_perspectives not found in generate-config's output")
	}
	return yaml[:start] + "  key_perspectives: []\n" + yaml[end:], nil
}

func (hs *Homeserver) waitUp(exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/_matrix/client/versions", nil)
		resp, err := hs.client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("versions: %s", resp.Status)
		}
		last = err
		select {
		case <-exited:
			return errors.New("dendrite exited before it answered")
		case <-ctx.Done():
			return fmt.Errorf("dendrite not up after %s: %v", startTimeout, last)
		case <-tick.C:
		}
	}
}

func stopProcess(p *os.Process, exited <-chan struct{}) {
	select {
	case <-exited:
		return
	default:
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		_ = p.Kill()
	}
	select {
	case <-exited:
		return
	case <-time.After(stopTimeout):
	}
	_ = p.Kill()
	<-exited
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns at most the last n bytes of b, cut at a line start.
func tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	b = b[len(b)-n:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return string(b)
}

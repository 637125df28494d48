package matrixtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// DendriteVersion is the Dendrite release the harness installs, from
// github.com/matrix-org/dendrite (Apache-2.0; not the AGPL element-hq fork).
const DendriteVersion = "v0.13.8"

// dendriteModule is what go install builds the binaries from.
const dendriteModule = "github.com/matrix-org/dendrite/cmd/"

// dendriteCommands are the binaries the harness needs (create-account is
// installed for people poking at a test server by hand).
var dendriteCommands = []string{"dendrite", "generate-keys", "generate-config", "create-account"}

const (
	installTimeout = 10 * time.Minute
	requestTimeout = 30 * time.Second
)

// DendriteDir returns the folder holding the DendriteVersion binaries, in
// dendrite-<version> under opencodetest's cache folder ($HERMES_CACHE_DIR,
// default $HOME/.cache/hermes-bot), installing them with go install when
// they are missing (saying so in one line, as it takes minutes with a
// cold module cache). When they cannot be had the test is skipped with
// the reason, or fails if HERMES_E2E=1; HERMES_E2E=0 skips at once.
func DendriteDir(tb testing.TB) string {
	tb.Helper()
	return opencodetest.NeedProgram(tb, "Dendrite "+DendriteVersion, func() (string, error) {
		dir, err := dendriteDir()
		if err == nil && !installed(dir) {
			opencodetest.ToTerminal(fmt.Sprintf("matrixtest: installing Dendrite %s into %s with go install (minutes with a cold module cache)", DendriteVersion, dir))
			err = install(dir)
		}
		return dir, err
	})
}

func dendriteDir() (string, error) {
	root := os.Getenv(opencodetest.EnvCacheDir)
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find cache folder (set %s): %w", opencodetest.EnvCacheDir, err)
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
		return fmt.Errorf("install Dendrite: go %s: %w\n%s", strings.Join(args, " "), err, opencodetest.Tail(out, 2048))
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
	port, err := opencodetest.FreePort()
	if err != nil {
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	hs.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(filepath.Join(bin, "dendrite"), "-config", filepath.Join(dir, "dendrite.yaml"),
		"-http-bind-address", "127.0.0.1:"+strconv.Itoa(port))
	cmd.Dir = dir
	tb.Cleanup(hs.client.CloseIdleConnections) // registered first, so run after the process stopped
	proc, err := opencodetest.StartProcess(tb, "Dendrite", cmd, hs.LogFile)
	if err != nil {
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	err = proc.WaitReady("dendrite", 50*time.Millisecond, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/_matrix/client/versions", nil)
		resp, err := hs.client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("versions: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("StartDendrite: %v", err)
		return nil
	}
	return hs
}

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

package opencodetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// OpencodeVersion is the opencode release the harness installs and that
// hermes-bot is checked against.
const OpencodeVersion = opencode.TestedVersion

// Environment variables the harness reads.
const (
	// EnvOpencodeBin names an opencode binary to use instead of the cached
	// install.
	EnvOpencodeBin = "OPENCODE_BIN"
	// EnvCacheDir is the folder the opencode install is cached in;
	// default $HOME/.cache/hermes-bot.
	EnvCacheDir = "HERMES_CACHE_DIR"
	// EnvE2E set to 1 turns "opencode cannot be had" from a skip into a
	// failure, so CI cannot pass without running the real thing; set to 0
	// it skips the tests that need opencode without installing it, for a
	// machine without npm, network or the disk space.
	EnvE2E = "HERMES_E2E"
)

// Timeouts of the harness. Start-up is slow on a cold disk: the binary is
// about 180 MB.
const (
	npmInstallTimeout  = 5 * time.Minute
	startTimeout       = 60 * time.Second
	stopTimeout        = 5 * time.Second
	requestTimeout     = 30 * time.Second
	healthProbeTimeout = time.Second
)

// OpencodeBinary returns the path of an opencode OpencodeVersion binary:
// $OPENCODE_BIN if set, else the one cached under $HERMES_CACHE_DIR
// (default $HOME/.cache/hermes-bot), installing it there with npm when it
// is missing. When it cannot be had the test is skipped with the reason,
// or fails if HERMES_E2E=1.
//
// Parallel test binaries may call it at once: each installs into its own
// temporary folder and renames it into place, so a half-written install is
// never seen and the first finished one wins.
func OpencodeBinary(tb testing.TB) string {
	tb.Helper()
	return NeedProgram(tb, "opencode "+OpencodeVersion, func() (string, error) {
		return locateOpencode(context.Background(), os.Getenv, ToTerminal)
	})
}

// NeedProgram returns what get finds (a binary, or a folder of them) of
// the program what names with its version. HERMES_E2E=0 skips tb without
// calling get; when get fails, tb is skipped with the reason, or fails if
// HERMES_E2E=1. matrixtest's Dendrite harness shares it.
func NeedProgram(tb testing.TB, what string, get func() (string, error)) string {
	tb.Helper()
	if os.Getenv(EnvE2E) == "0" {
		tb.Skipf("end-to-end tests off (%s=0)", EnvE2E)
		return ""
	}
	found, err := get()
	switch {
	case err == nil:
		return found
	case os.Getenv(EnvE2E) == "1":
		tb.Fatalf("%s is required (%s=1): %v", what, EnvE2E, err)
	default:
		tb.Skipf("%s not available, skipping (set %s=1 to make this a failure): %v", what, EnvE2E, err)
	}
	return ""
}

// locateOpencode finds or installs the binary, telling say when it
// installs; see OpencodeBinary.
func locateOpencode(ctx context.Context, getenv func(string) string, say func(string)) (string, error) {
	bin, root, dir, err := findOpencode(getenv)
	if err != nil || bin != "" {
		return bin, err
	}
	if err := installOpencode(ctx, root, dir, say); err != nil {
		return "", err
	}
	bin, ok := findInstalled(dir)
	if !ok {
		return "", fmt.Errorf("no opencode binary for %s/%s in %s (remove the folder to reinstall)",
			runtime.GOOS, runtime.GOARCH, dir)
	}
	return bin, nil
}

// findOpencode returns $OPENCODE_BIN, or the binary installed in the
// cache: bin is "" when it is not installed yet, and dir is where it goes,
// under root.
func findOpencode(getenv func(string) string) (bin, root, dir string, err error) {
	if bin := getenv(EnvOpencodeBin); bin != "" {
		if err := checkExecutable(bin); err != nil {
			return "", "", "", fmt.Errorf("%s: %w", EnvOpencodeBin, err)
		}
		return bin, "", "", nil
	}
	root = getenv(EnvCacheDir)
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", "", "", fmt.Errorf("find cache folder (set %s): %w", EnvCacheDir, err)
		}
		root = filepath.Join(home, ".cache", "hermes-bot")
	}
	dir = filepath.Join(root, "opencode-"+OpencodeVersion)
	bin, _ = findInstalled(dir)
	return bin, root, dir, nil
}

// AnnounceUnavailable is for the TestMain of a package whose tests use a
// real opencode, after m.Run. go test shows a passing package's output
// only with -v, so without it those tests would be skipped in silence.
// When opencode is not there after the tests (they install it when they
// can) and HERMES_E2E is not 1 (then they failed, saying why), it writes
// one line naming pkg, the reason and the remedy with ToTerminal.
func AnnounceUnavailable(pkg string) {
	if msg := unavailableNotice(pkg, os.Getenv, exec.LookPath); msg != "" {
		ToTerminal(msg)
	}
}

// ToTerminal writes msg on a line of its own to /dev/tty, which go test
// does not capture; where there is none (CI), to stderr, which -v shows.
func ToTerminal(msg string) {
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprintln(w, msg)
}

// unavailableNotice is AnnounceUnavailable's line, "" when there is
// nothing to say.
func unavailableNotice(pkg string, getenv func(string) string, lookPath func(string) (string, error)) string {
	if e2e := getenv(EnvE2E); e2e == "1" || e2e == "0" {
		return "" // failed, saying why; or asked for
	}
	bin, _, dir, err := findOpencode(getenv)
	if bin != "" {
		return ""
	}
	why := "npm could not install it into " + dir + " (go test -v shows npm's error)"
	if err != nil {
		why = err.Error()
	} else if _, err := lookPath("npm"); err != nil {
		why = "npm is not installed"
	}
	return fmt.Sprintf("%s: end-to-end tests SKIPPED: opencode %s is not available: %s. "+
		"They install it with npm, which needs network to the npm registry once and about 500 MB of disk; "+
		"or set %s to an opencode %s binary. %s=0 skips them without a word, %s=1 makes this a failure.",
		pkg, OpencodeVersion, why, EnvOpencodeBin, OpencodeVersion, EnvE2E, EnvE2E)
}

// opencodeBinaryPaths lists where npm puts the binary for this platform,
// relative to an install prefix. opencode-ai depends on one package per
// platform; npm installs those matching os and cpu, of which the plain
// one is preferred over the baseline (no AVX2) and musl builds.
func opencodeBinaryPaths(goos, goarch string) []string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[goarch]
	if arch == "" {
		arch = goarch
	}
	exe := "opencode"
	if goos == "windows" {
		exe = "opencode.exe"
	}
	var paths []string
	for _, variant := range []string{"", "-baseline", "-musl", "-baseline-musl"} {
		pkg := "opencode-" + goos + "-" + arch + variant
		paths = append(paths, filepath.Join("node_modules", pkg, "bin", exe))
	}
	return paths
}

func findInstalled(dir string) (string, bool) {
	for _, rel := range opencodeBinaryPaths(runtime.GOOS, runtime.GOARCH) {
		bin := filepath.Join(dir, rel)
		if checkExecutable(bin) == nil {
			return bin, true
		}
	}
	return "", false
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// installOpencode runs npm into a fresh folder under root and renames it to
// dir. Losing the rename to another process is success: dir is complete.
func installOpencode(ctx context.Context, root, dir string, say func(string)) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("install opencode: npm not found: %w", err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("install opencode: %w", err)
	}
	tmp, err := os.MkdirTemp(root, ".opencode-install-")
	if err != nil {
		return fmt.Errorf("install opencode: %w", err)
	}
	defer os.RemoveAll(tmp)
	// One line for the whole go test run: the first of its test binaries says it.
	mark := filepath.Join(root, ".installing-"+OpencodeVersion)
	if f, err := os.OpenFile(mark, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		f.Close()
		defer os.Remove(mark)
		say(fmt.Sprintf("hermes-bot tests: installing opencode %s with npm into %s, once (about 500 MB; a few minutes)", OpencodeVersion, dir))
	}

	ctx, cancel := context.WithTimeout(ctx, npmInstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund",
		"--prefix", tmp, "opencode-ai@"+OpencodeVersion)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("install opencode: npm install opencode-ai@%s: %w\n%s",
			OpencodeVersion, err, Tail(out, 2048))
	}
	if _, ok := findInstalled(tmp); !ok {
		return fmt.Errorf("install opencode: npm installed no binary for %s/%s\n%s",
			runtime.GOOS, runtime.GOARCH, Tail(out, 2048))
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, ok := findInstalled(dir); ok {
			return nil
		}
		return fmt.Errorf("install opencode: move into place: %w", err)
	}
	return nil
}

// Tail returns at most the last n bytes of b, cut at a line start.
func Tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	b = b[len(b)-n:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return string(b)
}

// OpencodeOptions configures StartOpencode.
type OpencodeOptions struct {
	// ModelURL is the OpenAI-compatible base URL opencode's only provider
	// points at, normally Model.URL. Required.
	ModelURL string
	// Password is the server's basic-auth password; random when empty.
	Password string
	// Permission is the "permission" block of opencode.json; when nil,
	// bash and edit ask, so a bash tool call raises permission.asked.
	Permission map[string]any
	// Projects is how many project folders to create (default 1). The
	// server runs in the first; the others are there for tests of
	// several directories on one server.
	Projects int
	// Binary is the opencode binary; OpencodeBinary(tb) when empty.
	Binary string
	// Git makes each project folder a git repository with one commit
	// (of its opencode.json) before the server starts, so opencode takes
	// the folder as its worktree.
	Git bool
	// ImageInput declares that the scripted model takes images (and
	// attachments); without it opencode keeps images from the model.
	ImageInput bool
}

// Opencode is a real `opencode serve` on a loopback port, isolated from
// the user's own opencode: its config, data, cache and state folders and
// HOME are the test's, it fetches no model catalogue, and its npm registry
// is a closed loopback port. It is stopped when the test ends.
//
// Its helpers are safe to call from several goroutines.
type Opencode struct {
	// URL is the server's base URL, no trailing slash.
	URL      string
	Username string
	Password string
	// Dir is the first project folder, the server's working directory.
	Dir string
	// Dirs holds every project folder, Dir first. Each has its own
	// opencode.json.
	Dirs []string
	// LogFile receives the server's stdout and stderr.
	LogFile string

	client *http.Client
	proc   *Process
}

// Stop stops the server before the test ends, as the machine it runs on
// going away would, and waits until it is gone.
func (oc *Opencode) Stop() { oc.proc.Stop() }

// StartOpencode starts opencode serve for tb and waits until it answers
// GET /global/health. It stops the server in tb.Cleanup and, if the test
// failed, logs the end of the server's output. A server that does not come
// up within a minute fails the test.
func StartOpencode(tb testing.TB, opts OpencodeOptions) *Opencode {
	tb.Helper()
	if opts.ModelURL == "" {
		tb.Fatal("StartOpencode: OpencodeOptions.ModelURL is required")
		return nil
	}
	bin := opts.Binary
	if bin == "" {
		bin = OpencodeBinary(tb)
		if bin == "" {
			return nil // skipped or failed
		}
	}
	if opts.Password == "" {
		opts.Password = randomHex(16)
	}
	if opts.Permission == nil {
		opts.Permission = map[string]any{"bash": "ask", "edit": "ask"}
	}
	if opts.Projects <= 0 {
		opts.Projects = 1
	}

	base := evalTempDir(tb)
	if err := os.Mkdir(filepath.Join(base, "tmp"), 0o700); err != nil {
		tb.Fatalf("StartOpencode: %v", err)
		return nil
	}
	oc := &Opencode{
		Username: "opencode",
		Password: opts.Password,
		LogFile:  filepath.Join(base, "opencode.log"),
		client:   &http.Client{Timeout: requestTimeout},
	}
	config, err := opencodeConfig(opts)
	if err != nil {
		tb.Fatalf("StartOpencode: %v", err)
		return nil
	}
	for i := range opts.Projects {
		dir := filepath.Join(base, "project"+strconv.Itoa(i+1))
		if err := os.Mkdir(dir, 0o755); err != nil {
			tb.Fatalf("StartOpencode: %v", err)
			return nil
		}
		if err := os.WriteFile(filepath.Join(dir, "opencode.json"), config, 0o644); err != nil {
			tb.Fatalf("StartOpencode: %v", err)
			return nil
		}
		if opts.Git {
			if err := gitInit(dir, base); err != nil {
				tb.Fatalf("StartOpencode: %v", err)
				return nil
			}
		}
		oc.Dirs = append(oc.Dirs, dir)
	}
	oc.Dir = oc.Dirs[0]

	port, err := FreePort()
	if err != nil {
		tb.Fatalf("StartOpencode: %v", err)
		return nil
	}
	oc.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, "serve", "--port", strconv.Itoa(port), "--hostname", "127.0.0.1", "--print-logs")
	cmd.Dir = oc.Dir
	cmd.Env = opencodeEnv(os.Environ(), base, opts.Password)
	if oc.proc, err = StartProcess(tb, "opencode", cmd, oc.LogFile); err != nil {
		tb.Fatalf("StartOpencode: %v", err)
		return nil
	}
	err = oc.proc.WaitReady("opencode", 100*time.Millisecond, func(ctx context.Context) error {
		var health struct {
			Healthy bool   `json:"healthy"`
			Version string `json:"version"`
		}
		// A request that connects while opencode is still starting is
		// accepted and never answered (seen with 1.18.33), so each probe
		// has its own short deadline.
		attempt, cancelAttempt := context.WithTimeout(ctx, healthProbeTimeout)
		defer cancelAttempt()
		if err := oc.Get(attempt, "/global/health", &health); err != nil || health.Healthy {
			return err
		}
		return errors.New("not healthy yet")
	})
	if err != nil {
		tb.Fatalf("StartOpencode: %v", err)
		return nil
	}
	return oc
}

// Process is a server program started for a test by StartProcess.
type Process struct {
	proc   *os.Process
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
}

// StartProcess starts cmd with its output to a new logFile. It stops the
// process when tb ends and then, if tb failed, logs the end of that
// output as name's. matrixtest's Dendrite harness shares it.
func StartProcess(tb testing.TB, name string, cmd *exec.Cmd, logFile string) (*Process, error) {
	logf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Args[0], err)
	}
	p := &Process{proc: cmd.Process, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		p.Stop()
		if tb.Failed() {
			out, err := os.ReadFile(logFile)
			if err != nil {
				out = []byte("(" + err.Error() + ")")
			}
			tb.Logf("%s output (%s), last lines:\n%s", name, logFile, Tail(out, 8192))
		}
	})
	return p, nil
}

// WaitReady calls ready every interval until it returns nil, for at most
// startTimeout; it gives up at once when the process exits.
func (p *Process) WaitReady(name string, interval time.Duration, ready func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		err := ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited before it was ready: %v", name, p.err)
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s: %v", name, startTimeout, err)
		case <-tick.C:
		}
	}
}

// Stop asks the process to stop, kills it if it lingers, and waits until
// it is gone.
func (p *Process) Stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	if err := p.proc.Signal(syscall.SIGTERM); err != nil {
		_ = p.proc.Kill()
	}
	select {
	case <-p.exited:
		return
	case <-time.After(stopTimeout):
	}
	_ = p.proc.Kill()
	<-p.exited
}

// gitInit makes dir a repository with one commit, with git's own
// configuration read from base only.
func gitInit(dir, base string) error {
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "."},
		{"-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "start"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+filepath.Join(base, "home"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s in %s: %w\n%s", strings.Join(args, " "), dir, err, out)
		}
	}
	return nil
}

// opencodeConfig renders the project opencode.json: one provider, "mock",
// an OpenAI-compatible endpoint at ModelURL, used for every model role.
func opencodeConfig(opts OpencodeOptions) ([]byte, error) {
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{
			"mock": map[string]any{
				"npm":  "@ai-sdk/openai-compatible",
				"name": "Mock",
				"options": map[string]any{
					"baseURL": opts.ModelURL,
					"apiKey":  "x",
				},
				"models": map[string]any{"mock-model": mockModel(opts)},
			},
		},
		"model":       "mock/mock-model",
		"small_model": "mock/mock-model",
		"permission":  opts.Permission,
		"share":       "disabled",
		"autoupdate":  false,
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("render opencode.json: %w", err)
	}
	return b, nil
}

// mockModel is the scripted model's entry of opencode.json.
func mockModel(opts OpencodeOptions) map[string]any {
	m := map[string]any{
		"name":      "Mock",
		"tool_call": true,
		"limit":     map[string]any{"context": 100000, "output": 4000},
	}
	if opts.ImageInput {
		m["attachment"] = true
		m["modalities"] = map[string]any{"input": []string{"text", "image"}, "output": []string{"text"}}
	}
	return m
}

// opencodeEnv isolates the server: the caller's OPENCODE_* settings, XDG
// folders, HOME and TMPDIR are replaced, so neither the user's opencode
// config nor their sessions leak into a test and the test writes nothing
// outside base (opencode unpacks native libraries into TMPDIR).
func opencodeEnv(parent []string, base, password string) []string {
	var env []string
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		switch {
		case strings.HasPrefix(upper, "OPENCODE_"),
			strings.HasPrefix(upper, "XDG_"),
			strings.HasPrefix(upper, "NPM_CONFIG_"),
			upper == "HOME", upper == "USERPROFILE", upper == "TMPDIR", upper == "TMP", upper == "TEMP":
			continue
		}
		env = append(env, kv)
	}
	home := filepath.Join(base, "home")
	return append(env,
		"HOME="+home,
		"TMPDIR="+filepath.Join(base, "tmp"),
		"USERPROFILE="+home,
		"XDG_DATA_HOME="+filepath.Join(base, "data"),
		"XDG_CACHE_HOME="+filepath.Join(base, "cache"),
		"XDG_STATE_HOME="+filepath.Join(base, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(base, "config"),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_SERVER_PASSWORD="+password,
		// Plugin installs at start-up fail at once against a closed port
		// instead of reaching the internet; opencode runs without them.
		"npm_config_registry=http://127.0.0.1:9",
	)
}

// evalTempDir returns tb.TempDir with symlinks resolved, so Dir matches
// the directory opencode reports (on macOS /var is /private/var).
func evalTempDir(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// FreePort returns a loopback TCP port free at the time of the call.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails: crypto/rand panics rather than return an error
	return hex.EncodeToString(b)
}

// NewRequest builds a request to path (which may carry a query) with the
// server's basic auth set. Use it for the event stream, whose response has
// no deadline: the helpers below time out after 30 seconds.
func (oc *Opencode) NewRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, oc.URL+path, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.SetBasicAuth(oc.Username, oc.Password)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// Get sends GET path and decodes a 2xx JSON answer into out (nil: discard).
func (oc *Opencode) Get(ctx context.Context, path string, out any) error {
	return oc.do(ctx, http.MethodGet, path, nil, out)
}

// Post sends body as JSON to path and decodes a 2xx JSON answer into out
// (nil: discard). A nil body sends {}.
func (oc *Opencode) Post(ctx context.Context, path string, body, out any) error {
	if body == nil {
		body = struct{}{}
	}
	return oc.do(ctx, http.MethodPost, path, body, out)
}

func (oc *Opencode) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s %s: encode body: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := oc.NewRequest(ctx, method, path, rd)
	if err != nil {
		return err
	}
	resp, err := oc.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, Tail(data, 512))
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// CreateSession creates a session in Dir and returns its ID.
func (oc *Opencode) CreateSession(ctx context.Context) (string, error) {
	return oc.CreateSessionIn(ctx, oc.Dir)
}

// CreateSessionIn creates a session in the project folder dir.
func (oc *Opencode) CreateSessionIn(ctx context.Context, dir string) (string, error) {
	var s struct {
		ID string `json:"id"`
	}
	if err := oc.Post(ctx, "/session?directory="+url.QueryEscape(dir), struct{}{}, &s); err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	if s.ID == "" {
		return "", errors.New("create session: answer has no id")
	}
	return s.ID, nil
}

// Prompt sends text to a session of Dir and returns once opencode has
// accepted it; the turn runs in the background.
func (oc *Opencode) Prompt(ctx context.Context, sessionID, text string) error {
	return oc.PromptIn(ctx, oc.Dir, sessionID, text)
}

// PromptIn sends text to a session of the project folder dir.
func (oc *Opencode) PromptIn(ctx context.Context, dir, sessionID, text string) error {
	body := map[string]any{"parts": []map[string]string{{"type": "text", "text": text}}}
	path := "/session/" + url.PathEscape(sessionID) + "/prompt_async?directory=" + url.QueryEscape(dir)
	if err := oc.Post(ctx, path, body, nil); err != nil {
		return fmt.Errorf("prompt session %s: %w", sessionID, err)
	}
	return nil
}

// PromptAPIIn sends text to session sessionID of the project folder dir
// through the /api surface (POST /api/session/{id}/prompt), as newer
// clients do: the requests the turn raises are question.v2.asked and
// permission.v2.asked, answered only through /api.
//
// It first waits until the folder's /api services know the scripted
// model, then makes it the session's. A prompt sent before (opencode
// boots those services lazily, seconds after the first call) was seen to
// run on a model of opencode's built-in catalogue, or to fail with
// "Model unavailable", and never to reach the scripted model.
func (oc *Opencode) PromptAPIIn(ctx context.Context, dir, sessionID, text string) error {
	if err := oc.waitModel(ctx, dir); err != nil {
		return err
	}
	path := "/api/session/" + url.PathEscape(sessionID)
	model := map[string]any{"model": map[string]string{"providerID": "mock", "id": "mock-model"}}
	if err := oc.Post(ctx, path+"/model", model, nil); err != nil {
		return fmt.Errorf("set model of session %s: %w", sessionID, err)
	}
	body := map[string]any{"prompt": map[string]string{"text": text}}
	if err := oc.Post(ctx, path+"/prompt", body, nil); err != nil {
		return fmt.Errorf("prompt session %s through /api: %w", sessionID, err)
	}
	return nil
}

// waitModel polls GET /api/model of dir until it lists the scripted model.
func (oc *Opencode) waitModel(ctx context.Context, dir string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var models json.RawMessage
		err := oc.Get(ctx, "/api/model?"+url.Values{"location[directory]": {dir}}.Encode(), &models)
		if err == nil && bytes.Contains(models, []byte(`"mock-model"`)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("opencode's /api never listed the scripted model (last error: %v): %w", err, ctx.Err())
		case <-tick.C:
		}
	}
}

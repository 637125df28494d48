package opencodetest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// realTestTimeout bounds each real-opencode test; start-up alone takes a
// few seconds on a warm disk.
const realTestTimeout = 90 * time.Second

// globalEvent is one record of GET /global/event.
type globalEvent struct {
	Directory string `json:"directory"`
	Payload   struct {
		ID         string          `json:"id"`
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
	} `json:"payload"`
}

// subscribe reads GET /global/event until ctx ends and returns its records.
// It returns once server.connected has arrived, so nothing the test does
// afterwards can be missed (the stream has no replay).
func subscribe(t *testing.T, ctx context.Context, oc *Opencode) <-chan globalEvent {
	t.Helper()
	req, err := oc.NewRequest(ctx, http.MethodGet, "/global/event", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("subscribe: %s", resp.Status)
	}
	events := make(chan globalEvent, 1024)
	connected := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var ev globalEvent
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				continue
			}
			if ev.Payload.Type == "server.connected" {
				select {
				case <-connected:
				default:
					close(connected)
				}
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	select {
	case <-connected:
	case <-ctx.Done():
		t.Fatalf("subscribe: no server.connected: %v", ctx.Err())
	}
	return events
}

// waitEvent returns the first record of type typ for which match (given
// the properties) is true.
func waitEvent(t *testing.T, ctx context.Context, events <-chan globalEvent, typ string, match func(props json.RawMessage) bool) globalEvent {
	t.Helper()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("event stream ended before %s", typ)
			}
			if ev.Payload.Type == typ && match(ev.Payload.Properties) {
				return ev
			}
		case <-ctx.Done():
			t.Fatalf("no %s event: %v", typ, ctx.Err())
		}
	}
}

func ofSession(sessionID string) func(json.RawMessage) bool {
	return func(props json.RawMessage) bool {
		var p struct {
			SessionID string `json:"sessionID"`
		}
		return json.Unmarshal(props, &p) == nil && p.SessionID == sessionID
	}
}

// startReal starts a scripted model and a real opencode using it, both
// stopped when the test ends.
func startReal(t *testing.T, opts OpencodeOptions) (*Model, *Opencode, context.Context) {
	t.Helper()
	m := NewModel()
	t.Cleanup(m.Close)
	start := time.Now()
	opts.ModelURL = m.URL
	oc := StartOpencode(t, opts)
	t.Logf("opencode healthy after %s", time.Since(start).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), realTestTimeout)
	t.Cleanup(cancel)
	return m, oc, ctx
}

func TestRealOpencodeQuestionRoundTrip(t *testing.T) {
	t.Parallel()
	// The session lives in a second project, not the server's working
	// directory: every call about it must name its directory.
	m, oc, ctx := startReal(t, OpencodeOptions{Projects: 2})
	dir := oc.Dirs[1]
	events := subscribe(t, ctx, oc)

	sid, err := oc.CreateSessionIn(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const question = "Which database should I use?"
	callID := m.AskQuestion(QuestionArg{
		Question: question,
		Header:   "Database",
		Options: []OptionArg{
			{Label: "Postgres", Description: "relational"},
			{Label: "SQLite", Description: "embedded"},
		},
	})
	m.Say("done")
	if err := oc.PromptIn(ctx, dir, sid, "pick a database"); err != nil {
		t.Fatal(err)
	}

	ev := waitEvent(t, ctx, events, "question.asked", ofSession(sid))
	if ev.Directory != dir {
		t.Errorf("question.asked directory = %q, want %q", ev.Directory, dir)
	}
	var asked struct {
		ID        string `json:"id"`
		Questions []struct {
			Question string `json:"question"`
			Options  []struct {
				Label string `json:"label"`
			} `json:"options"`
		} `json:"questions"`
		Tool struct {
			CallID string `json:"callID"`
		} `json:"tool"`
	}
	if err := json.Unmarshal(ev.Payload.Properties, &asked); err != nil {
		t.Fatalf("decode question.asked: %v", err)
	}
	if len(asked.Questions) != 1 || asked.Questions[0].Question != question ||
		len(asked.Questions[0].Options) != 2 || asked.Questions[0].Options[1].Label != "SQLite" {
		t.Fatalf("question.asked = %s", ev.Payload.Properties)
	}
	if asked.Tool.CallID != callID {
		t.Errorf("question.asked tool.callID = %q, want %q", asked.Tool.CallID, callID)
	}

	dirQuery := "?directory=" + url.QueryEscape(dir)
	var listed []struct {
		ID string `json:"id"`
	}
	if err := oc.Get(ctx, "/question"+dirQuery, &listed); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(listed, func(q struct {
		ID string `json:"id"`
	}) bool {
		return q.ID == asked.ID
	}) {
		t.Errorf("GET /question does not list %s: %+v", asked.ID, listed)
	}

	var ok bool
	reply := map[string]any{"answers": [][]string{{"SQLite"}}}
	if err := oc.Post(ctx, "/question/"+asked.ID+"/reply"+dirQuery, reply, &ok); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("question reply answered false")
	}

	got, err := m.WaitToolResult(ctx, callID)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"` + question + `"="SQLite"`; !strings.Contains(got, want) {
		t.Errorf("model was told %q, want it to contain %q", got, want)
	}
	waitEvent(t, ctx, events, "question.replied", ofSession(sid))
}

func TestRealOpencodePermissionAsked(t *testing.T) {
	t.Parallel()
	m, oc, ctx := startReal(t, OpencodeOptions{})
	events := subscribe(t, ctx, oc)

	sid, err := oc.CreateSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	callID, err := m.CallTool("bash", map[string]string{"command": "echo hi > out.txt", "description": "write"})
	if err != nil {
		t.Fatal(err)
	}
	m.Say("done")
	if err := oc.Prompt(ctx, sid, "write a file"); err != nil {
		t.Fatal(err)
	}

	ev := waitEvent(t, ctx, events, "permission.asked", ofSession(sid))
	var asked struct {
		ID         string   `json:"id"`
		Permission string   `json:"permission"`
		Patterns   []string `json:"patterns"`
	}
	if err := json.Unmarshal(ev.Payload.Properties, &asked); err != nil {
		t.Fatalf("decode permission.asked: %v", err)
	}
	if asked.Permission != "bash" || !slices.Contains(asked.Patterns, "echo hi > out.txt") {
		t.Fatalf("permission.asked = %s", ev.Payload.Properties)
	}
	if _, err := os.Stat(filepath.Join(oc.Dir, "out.txt")); err == nil {
		t.Fatal("out.txt exists before the permission was granted")
	}

	var ok bool
	dirQuery := "?directory=" + url.QueryEscape(oc.Dir)
	if err := oc.Post(ctx, "/permission/"+asked.ID+"/reply"+dirQuery, map[string]string{"reply": "once"}, &ok); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("permission reply answered false")
	}
	if _, err := m.WaitToolResult(ctx, callID); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(oc.Dir, "out.txt"))
	if err != nil {
		t.Fatalf("bash did not run after the permission was granted: %v", err)
	}
	if string(b) != "hi\n" {
		t.Errorf("out.txt = %q, want %q", b, "hi\n")
	}
	waitEvent(t, ctx, events, "permission.replied", ofSession(sid))
}

func TestOpencodeBinaryPaths(t *testing.T) {
	for _, tc := range []struct{ goos, goarch, want string }{
		{"linux", "amd64", filepath.Join("node_modules", "opencode-linux-x64", "bin", "opencode")},
		{"linux", "arm64", filepath.Join("node_modules", "opencode-linux-arm64", "bin", "opencode")},
		{"darwin", "arm64", filepath.Join("node_modules", "opencode-darwin-arm64", "bin", "opencode")},
		{"windows", "amd64", filepath.Join("node_modules", "opencode-windows-x64", "bin", "opencode.exe")},
	} {
		got := opencodeBinaryPaths(tc.goos, tc.goarch)
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("opencodeBinaryPaths(%s, %s)[0] = %v, want %s", tc.goos, tc.goarch, got, tc.want)
		}
	}
}

// fakeTB records Skip and Fatal instead of ending the test; everything
// else goes to the embedded TB (nil where the code under test needs
// nothing else).
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (f *fakeTB) Fatal(a ...any) { f.fatal = fmt.Sprint(a...) }

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }

func TestOpencodeUnavailableSkipsUnlessE2E(t *testing.T) {
	cause := errors.New("npm not found")

	t.Setenv(EnvE2E, "")
	tb := &fakeTB{}
	fail := func() (string, error) { return "", cause }
	NeedProgram(tb, "opencode", fail)
	if tb.fatal != "" || !strings.Contains(tb.skipped, "npm not found") || !strings.Contains(tb.skipped, EnvE2E) {
		t.Errorf("without %s: skipped %q, fatal %q", EnvE2E, tb.skipped, tb.fatal)
	}

	t.Setenv(EnvE2E, "1")
	tb = &fakeTB{}
	NeedProgram(tb, "opencode", fail)
	if tb.skipped != "" || !strings.Contains(tb.fatal, "npm not found") {
		t.Errorf("with %s=1: skipped %q, fatal %q", EnvE2E, tb.skipped, tb.fatal)
	}
}

func TestStartOpencodeFailures(t *testing.T) {
	tb := &fakeTB{TB: t}
	if oc := StartOpencode(tb, OpencodeOptions{}); oc != nil || !strings.Contains(tb.fatal, "ModelURL") {
		t.Errorf("without ModelURL: %v, fatal %q", oc, tb.fatal)
	}

	if runtime.GOOS == "windows" {
		t.Skip("the fake opencode is a shell script")
	}
	bin := filepath.Join(t.TempDir(), "opencode")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho cannot start >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tb = &fakeTB{TB: t}
	oc := StartOpencode(tb, OpencodeOptions{ModelURL: "http://127.0.0.1:9/v1", Binary: bin})
	if oc != nil || !strings.Contains(tb.fatal, "exited before it was ready") || !strings.Contains(tb.fatal, "exit status 3") {
		t.Errorf("opencode exiting at start: %v, fatal %q", oc, tb.fatal)
	}
}

// TestE2EOffSkipsWithoutInstalling: HERMES_E2E=0 is how to run the tests
// on a machine without npm, network or disk space for opencode.
func TestE2EOffSkipsWithoutInstalling(t *testing.T) {
	npmLog := fakeNPM(t, "exit 1\n")
	t.Setenv(EnvCacheDir, t.TempDir())
	t.Setenv(EnvOpencodeBin, "")
	t.Setenv(EnvE2E, "0")
	tb := &fakeTB{TB: t}
	if bin := OpencodeBinary(tb); bin != "" || tb.skipped != "end-to-end tests off ("+EnvE2E+"=0)" || tb.fatal != "" {
		t.Errorf("OpencodeBinary = %q, skipped %q, fatal %q", bin, tb.skipped, tb.fatal)
	}
	if _, err := os.Stat(npmLog); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("npm was run: %v", err)
	}
}

func TestOpencodeBinaryFromEnv(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "opencode")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{EnvOpencodeBin: bin, EnvCacheDir: t.TempDir()}
	got, err := locateOpencode(context.Background(), mapEnv(env), func(s string) { t.Log(s) })
	if err != nil || got != bin {
		t.Errorf("locateOpencode = %q, %v; want %q", got, err, bin)
	}

	env[EnvOpencodeBin] = filepath.Join(t.TempDir(), "missing")
	if _, err := locateOpencode(context.Background(), mapEnv(env), func(s string) { t.Log(s) }); err == nil || !strings.Contains(err.Error(), EnvOpencodeBin) {
		t.Errorf("missing %s: err = %v", EnvOpencodeBin, err)
	}
}

// fakeNPM puts an npm on PATH that logs its arguments and runs script with
// the --prefix folder in $prefix.
func fakeNPM(t *testing.T, script string) (logFile string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	dir := t.TempDir()
	logFile = filepath.Join(dir, "npm.log")
	body := "#!/bin/sh\necho \"$@\" >> '" + logFile + "'\n" +
		"prefix=\nwhile [ $# -gt 0 ]; do [ \"$1\" = --prefix ] && prefix=$2; shift; done\n" + script
	if err := os.WriteFile(filepath.Join(dir, "npm"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return logFile
}

// installScript makes a binary under prefix the way npm lays it out.
func installScript(prefix string) string {
	rel := filepath.ToSlash(opencodeBinaryPaths(runtime.GOOS, runtime.GOARCH)[0])
	return "mkdir -p \"" + prefix + "/$(dirname " + rel + ")\" && printf '#!/bin/sh\\n' > \"" + prefix + "/" + rel +
		"\" && chmod +x \"" + prefix + "/" + rel + "\"\n"
}

func TestOpencodeBinaryUsesCache(t *testing.T) {
	fakeNPM(t, "echo npm must not run >&2; exit 1\n")
	root := t.TempDir()
	want := filepath.Join(root, "opencode-"+OpencodeVersion, opencodeBinaryPaths(runtime.GOOS, runtime.GOARCH)[1])
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := locateOpencode(context.Background(), mapEnv(map[string]string{EnvCacheDir: root}), func(s string) { t.Log(s) })
	if err != nil || got != want {
		t.Errorf("locateOpencode = %q, %v; want the cached baseline build %q", got, err, want)
	}
}

func TestOpencodeBinaryInstalls(t *testing.T) {
	npmLog := fakeNPM(t, installScript("$prefix"))
	root := filepath.Join(t.TempDir(), "cache")
	var said []string
	say := func(s string) { said = append(said, s) }
	got, err := locateOpencode(context.Background(), mapEnv(map[string]string{EnvCacheDir: root}), say)
	if err != nil {
		t.Fatal(err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "installing opencode "+OpencodeVersion) {
		t.Errorf("said %q, want one line saying it installs opencode", said)
	}
	want := filepath.Join(root, "opencode-"+OpencodeVersion, opencodeBinaryPaths(runtime.GOOS, runtime.GOARCH)[0])
	if got != want {
		t.Errorf("locateOpencode = %q, want %q", got, want)
	}
	args, err := os.ReadFile(npmLog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(args), "install --no-audit --no-fund --prefix ") ||
		!strings.HasSuffix(strings.TrimSpace(string(args)), " opencode-ai@"+OpencodeVersion) {
		t.Errorf("npm ran with %q", args)
	}
	assertNoInstallLeftovers(t, root)

	// A second lookup finds the install without npm.
	if err := os.Remove(npmLog); err != nil {
		t.Fatal(err)
	}
	if got2, err := locateOpencode(context.Background(), mapEnv(map[string]string{EnvCacheDir: root}), say); err != nil || got2 != want || len(said) != 1 {
		t.Errorf("second locateOpencode = %q, %v", got2, err)
	}
	if _, err := os.Stat(npmLog); err == nil {
		t.Error("npm ran although opencode was cached")
	}
}

// Another test binary finishing its install first is success, not an error.
func TestOpencodeBinaryInstallRace(t *testing.T) {
	fakeNPM(t, installScript("$prefix")+installScript("$(dirname \"$prefix\")/opencode-"+OpencodeVersion))
	root := t.TempDir()
	got, err := locateOpencode(context.Background(), mapEnv(map[string]string{EnvCacheDir: root}), func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "opencode-"+OpencodeVersion); !strings.HasPrefix(got, want+string(filepath.Separator)) {
		t.Errorf("locateOpencode = %q, want a binary under %q", got, want)
	}
	assertNoInstallLeftovers(t, root)
}

func TestOpencodeBinaryInstallFails(t *testing.T) {
	fakeNPM(t, "echo 'npm error 404 opencode-ai not found' >&2; exit 1\n")
	root := t.TempDir()
	_, err := locateOpencode(context.Background(), mapEnv(map[string]string{EnvCacheDir: root}), func(s string) { t.Log(s) })
	if err == nil || !strings.Contains(err.Error(), "npm error 404") {
		t.Fatalf("err = %v, want npm's own output in it", err)
	}
	if _, err := os.Stat(filepath.Join(root, "opencode-"+OpencodeVersion)); err == nil {
		t.Error("a failed install left the cache folder in place")
	}
	assertNoInstallLeftovers(t, root)
}

func assertNoInstallLeftovers(t *testing.T, root string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(root, ".opencode-install-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("temporary install folders left behind: %v", left)
	}
}

func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func TestOpencodeEnvIsolates(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/home/u", "OPENCODE_CONFIG=/home/u/x.json", "XDG_CONFIG_HOME=/home/u/.config",
		"NPM_CONFIG_REGISTRY=https://registry.npmjs.org", "OPENCODE_SERVER_USERNAME=someone", "TMPDIR=/tmp/u"}
	env := opencodeEnv(parent, "/base", "pw")
	for _, leaked := range []string{"HOME=/home/u", "OPENCODE_CONFIG=/home/u/x.json", "XDG_CONFIG_HOME=/home/u/.config",
		"NPM_CONFIG_REGISTRY=https://registry.npmjs.org", "OPENCODE_SERVER_USERNAME=someone", "TMPDIR=/tmp/u"} {
		if slices.Contains(env, leaked) {
			t.Errorf("%s reaches opencode", leaked)
		}
	}
	for _, want := range []string{"PATH=/bin", "OPENCODE_SERVER_PASSWORD=pw", "npm_config_registry=http://127.0.0.1:9",
		"XDG_DATA_HOME=" + filepath.Join("/base", "data"), "OPENCODE_DISABLE_MODELS_FETCH=1", "TMPDIR=" + filepath.Join("/base", "tmp")} {
		if !slices.Contains(env, want) {
			t.Errorf("%s missing from opencode's environment", want)
		}
	}
}

// TestUnavailableNotice: the line a TestMain prints when the end-to-end
// tests were skipped, because go test hides a passing package's output.
func TestUnavailableNotice(t *testing.T) {
	cache := t.TempDir()
	noNPM := func(string) (string, error) { return "", exec.ErrNotFound }
	hasNPM := func(string) (string, error) { return "/usr/bin/npm", nil }

	got := unavailableNotice("cmd/x", mapEnv(map[string]string{EnvCacheDir: cache}), noNPM)
	for _, want := range []string{"cmd/x: end-to-end tests SKIPPED: opencode " + OpencodeVersion + " is not available: npm is not installed.",
		EnvOpencodeBin, EnvE2E + "=1 makes this a failure"} {
		if !strings.Contains(got, want) {
			t.Errorf("without npm: %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "\n") {
		t.Errorf("notice is more than one line: %q", got)
	}
	got = unavailableNotice("cmd/x", mapEnv(map[string]string{EnvCacheDir: cache}), hasNPM)
	if !strings.Contains(got, "npm could not install it into "+filepath.Join(cache, "opencode-"+OpencodeVersion)) {
		t.Errorf("npm failed: %q", got)
	}
	got = unavailableNotice("cmd/x", mapEnv(map[string]string{EnvOpencodeBin: filepath.Join(cache, "missing")}), hasNPM)
	if !strings.Contains(got, "is not available: "+EnvOpencodeBin) {
		t.Errorf("bad %s: %q", EnvOpencodeBin, got)
	}

	// Nothing to say: the tests failed instead, or opencode is there.
	for _, e2e := range []string{"1", "0"} {
		if got := unavailableNotice("cmd/x", mapEnv(map[string]string{EnvCacheDir: cache, EnvE2E: e2e}), noNPM); got != "" {
			t.Errorf("with %s=%s: %q", EnvE2E, e2e, got)
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	bin := filepath.Join(cache, "opencode-"+OpencodeVersion, opencodeBinaryPaths(runtime.GOOS, runtime.GOARCH)[0])
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := unavailableNotice("cmd/x", mapEnv(map[string]string{EnvCacheDir: cache}), noNPM); got != "" {
		t.Errorf("installed: %q", got)
	}
}

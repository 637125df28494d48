package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is this module's path, the prefix of its packages' paths.
const module = "github.com/hermes-bot/hermes-bot"

// TestNoTestDoublesLinked: hermes-bot's binary links neither Go's testing
// packages nor this module's test doubles (telegramtest, opencodetest and
// the like), on Linux and on macOS. The demo, which runs the bridge
// against them, is cmd/hermes-demo, a command of its own.
func TestNoTestDoublesLinked(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		cmd.Stderr = &strings.Builder{}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list -deps .: %v\n%s", goos, err, cmd.Stderr)
		}
		deps := strings.Fields(string(out))
		// An empty or partial list would pass: it must hold the bridge.
		if !slices.Contains(deps, module+"/bot/daemon") {
			t.Fatalf("GOOS=%s go list -deps . does not list %s/bot/daemon:\n%s", goos, module, out)
		}
		for _, p := range deps {
			if isTestPackage(p) {
				t.Errorf("GOOS=%s: hermes-bot links %s, a package for tests", goos, p)
			}
		}
	}
}

// isTestPackage reports whether p, an import path, is one of Go's packages
// for tests or one of this module's test doubles: a path ending in "test"
// or holding "test/", as bot/telegramtest/webview does.
func isTestPackage(p string) bool {
	switch {
	case p == "testing", strings.HasPrefix(p, "testing/"), p == "net/http/httptest":
		return true
	case p == module, strings.HasPrefix(p, module+"/"):
		return strings.HasSuffix(p, "test") || strings.Contains(p, "test/")
	}
	return false
}

func TestIsTestPackage(t *testing.T) {
	for p, want := range map[string]bool{
		"testing":                            true,
		"testing/iotest":                     true,
		"net/http/httptest":                  true,
		module + "/bot/telegramtest":         true,
		module + "/bot/telegramtest/webview": true,
		module + "/opencode/opencodetest":    true,
		module + "/bot/daemon":               false,
		module + "/cmd/internal/cli":         false,
		"net/http":                           false,
		"internal/synctest":                  false, // the standard library's own, imported by sync
		"go.uber.org/goleak":                 false,
	} {
		if got := isTestPackage(p); got != want {
			t.Errorf("isTestPackage(%q) = %v, want %v", p, got, want)
		}
	}
}

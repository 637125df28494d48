package main

import (
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// newServer2 starts a fake OpenCode 2 that takes password.
func newServer2(t *testing.T, password string) *opencodetest.Server {
	t.Helper()
	s := opencodetest.NewServer(opencodetest.WithOpencode2(), opencodetest.WithAuth("", password))
	t.Cleanup(s.Close)
	return s
}

// check names an OpenCode 2 as such, with its version, and passes.
func TestCheckOpencode2(t *testing.T) {
	s := newCheckSetup(t, nil)
	oc2 := newServer2(t, checkPassword)
	s.env["OPENCODE_URL"] = oc2.URL
	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("code %d, want 0:\n%s", code, out)
	}
	wantLines(t, out, "✓ opencode "+oc2.URL+": healthy, OpenCode 2, version "+oc2.Version+
		" (served as its published definitions describe it; a mismatch is worth a report with this output and the server's log)\n")
}

// A server of a generation after OpenCode 2 is refused by name.
func TestCheckOpencode3(t *testing.T) {
	s := newCheckSetup(t, nil)
	oc3 := opencodetest.NewServer(opencodetest.WithOpencode2(), opencodetest.WithAuth("", checkPassword), opencodetest.WithVersion("3.0.0"))
	t.Cleanup(oc3.Close)
	s.env["OPENCODE_URL"] = oc3.URL
	out, code := s.check(t)
	if code != 1 || !strings.Contains(out, "✗ opencode "+oc3.URL+": hermes-bot supports") || !strings.Contains(out, "3.0.0") {
		t.Fatalf("code %d, want 1 and a line refusing 3.0.0:\n%s", code, out)
	}
}

// The README names the opencode releases served and how each was tested,
// so a user learns it before check does.
func TestReadmeSaysWhichOpencode(t *testing.T) {
	section := readmeSection(t, "Which opencode")
	for _, want := range []string{"opencode 1.x", opencode.TestedVersion, opencodetest.OpencodeVersion,
		"question.v2.asked", "OpenCode 2", "form", "fake", "hermes-bot check", "mismatch"} {
		if !strings.Contains(section, want) {
			t.Errorf("README \"Which opencode\" does not say %q", want)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

const opencode2Line = "hermes-bot supports opencode 1.x (tested with 1.18.33); " +
	"this server, version 2.0.0, speaks only the new API of OpenCode 2, which is not supported yet"

func TestCheckOpencode2(t *testing.T) {
	s := newCheckSetup(t, nil, opencodetest.WithOpencode2())
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out, "✗ opencode "+s.oc.URL+": "+opencode2Line+"\n", "1 problem, 0 warnings.\n")
	if n := strings.Count(out, "✗"); n != 1 {
		t.Errorf("%d failed checks, want only opencode's:\n%s", n, out)
	}
}

// serve keeps running against OpenCode 2, as it does against a server that
// is down: it says why once, at error level, and goes on trying, so that
// putting opencode 1.x back needs no restart.
func TestServeOpencode2(t *testing.T) {
	r := newRig(t)
	oc2 := opencodetest.NewServer(opencodetest.WithAuth("", faultPassword), opencodetest.WithOpencode2())
	t.Cleanup(oc2.Close)
	bot := start(t, r.with("OPENCODE_URL", oc2.URL))
	// The first attempt is logged at error level, the next at debug.
	bot.out.waitLines(t, 2, opencode2Line)
	if got := bot.out.lines(`"level":"error"`, opencode2Line); len(got) != 1 || !strings.Contains(got[0], `"class":"unsupported"`) {
		t.Errorf("error lines about OpenCode 2: %q, want exactly one", got)
	}
	if !bot.running() {
		t.Fatalf("hermes-bot stopped: %v", bot.err)
	}
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
}

// The README names the opencode release the tests run against, and says
// where OpenCode 2 stands, so a user learns it before check does.
func TestReadmeSaysWhichOpencode(t *testing.T) {
	section := readmeSection(t, "Which opencode")
	for _, want := range []string{"opencode 1.x", opencode.TestedVersion, opencodetest.OpencodeVersion,
		"question.v2.asked", "OpenCode 2", "not supported yet"} {
		if !strings.Contains(section, want) {
			t.Errorf("README \"Which opencode\" does not say %q", want)
		}
	}
}

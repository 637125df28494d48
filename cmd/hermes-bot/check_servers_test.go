package main

import (
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestCheckSeveralServers: with OPENCODE_URL naming two servers, check
// reports each on a line of its own that carries its name; one that is
// down fails check without keeping the other from being checked, and
// each server gets its own password.
func TestCheckSeveralServers(t *testing.T) {
	s := newCheckSetup(t, nil)
	ci := opencodetest.NewServer(opencodetest.WithAuth("", "ci-check-secret"), opencodetest.WithVersion("1.18.40"))
	defer ci.Close()
	down := closedURL(t)

	// The first server is down, so a check that stopped there would not
	// reach ci.
	s.env["OPENCODE_URL"] = "laptop=" + down + ",ci=" + ci.URL
	s.env["OPENCODE_SERVER_PASSWORD_CI"] = "ci-check-secret"
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"✗ opencode laptop "+down+": cannot reach opencode: dial tcp",
		"fix: start it, for example: OPENCODE_SERVER_PASSWORD=… opencode serve --port 4096",
		"✓ opencode ci "+ci.URL+": healthy, opencode 1.x, version 1.18.40\n",
		"✓ telegram bot:", // the rest still runs
		"1 problem, 0 warnings.\n",
	)
	if strings.Index(out, "opencode laptop") > strings.Index(out, "opencode ci") {
		t.Errorf("servers not reported in OPENCODE_URL's order:\n%s", out)
	}
	if len(ci.Replies()) != 0 {
		t.Error("check sent something to opencode")
	}

	// Both up: all good, one line each.
	s.env["OPENCODE_URL"] = "laptop=" + s.oc.URL + ",ci=" + ci.URL
	out, code = s.check(t)
	if code != 0 {
		t.Fatalf("two good servers: code %d\n%s", code, out)
	}
	wantLines(t, out,
		"✓ opencode laptop "+s.oc.URL+": healthy, opencode 1.x, version 1.18.33\n",
		"✓ opencode ci "+ci.URL+": healthy, opencode 1.x, version 1.18.40\n",
		"All good: ready to run.\n",
	)

	// Without its own password, ci gets the shared one, which it refuses;
	// the report names both variables.
	delete(s.env, "OPENCODE_SERVER_PASSWORD_CI")
	out, code = s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"✓ opencode laptop "+s.oc.URL+": healthy",
		"✗ opencode ci "+ci.URL+": wrong OPENCODE_SERVER_PASSWORD_CI (else OPENCODE_SERVER_PASSWORD): opencode refused it (HTTP 401)\n",
		`    fix: use the password opencode serve was started with (and its user: OPENCODE_SERVER_USERNAME_CI (else OPENCODE_SERVER_USERNAME) gives "opencode")`,
	)
}

// TestCheckSeveralServersSettings: a per-server variable for a server
// OPENCODE_URL does not name is a warning like a misspelled key, one for
// a named server is not, and a bad server name is a settings failure.
func TestCheckSeveralServersSettings(t *testing.T) {
	s := newCheckSetup(t, nil)
	s.env["OPENCODE_URL"] = "laptop=" + s.oc.URL
	path := t.TempDir() + "/hermes.env"
	writeFile(t, path, "OPENCODE_SERVER_PASSWORD_LAPTOP=laptop-check-secret\nOPENCODE_SERVER_PASSWORD_LAPTPO=x\n", 0o600)
	out, code := s.check(t, "--env-file", path)
	if code != 1 {
		// The env-file's laptop password is wrong: that it was used
		// shows the per-server variable is read.
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"! settings: OPENCODE_SERVER_PASSWORD_LAPTPO in the env-file is not a setting, so it is ignored; did you mean OPENCODE_SERVER_PASSWORD_LAPTOP?\n",
		"✗ opencode laptop "+s.oc.URL+": wrong OPENCODE_SERVER_PASSWORD_LAPTOP (else OPENCODE_SERVER_PASSWORD)",
	)
	if strings.Contains(out, "OPENCODE_SERVER_PASSWORD_LAPTOP in the") {
		t.Errorf("the named server's own password is reported as unknown:\n%s", out)
	}

	s.env["OPENCODE_URL"] = "Laptop=" + s.oc.URL
	out, code = s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out, `✗ settings: OPENCODE_URL is invalid: "Laptop=`+s.oc.URL+`": server name "Laptop" must be lower-case letters, digits and -`)
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// serviceCheckPassword holds "check-secret", which s.check refuses to see.
const serviceCheckPassword = "svc-check-secret-pw"

// writeCheckServiceFile registers url, with serviceCheckPassword, as the
// OpenCode service of s's HOME and returns the file's path.
func writeCheckServiceFile(t *testing.T, s *checkSetup, url string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(s.env["HOME"], ".local", "state", "opencode", "service.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	body := `{"id":"svc_1","version":"2.0.0","url":"` + url + `","pid":4242,"password":"` + serviceCheckPassword + `"}`
	if err := os.WriteFile(path, []byte(body), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckServiceFileOpencode2: with OPENCODE_URL unset, check finds an
// OpenCode 2 through the service file, logs in with the file's password
// (the fake refuses any other), and says where it found it and what it is.
func TestCheckServiceFileOpencode2(t *testing.T) {
	s := newCheckSetup(t, nil)
	oc2 := newServer2(t, serviceCheckPassword)
	path := writeCheckServiceFile(t, s, oc2.URL, 0o600)
	delete(s.env, "OPENCODE_URL")
	out, code := s.check(t) // the settings' password is stale; the file's wins
	if code != 0 {
		t.Fatalf("code %d, want 0:\n%s", code, out)
	}
	wantLines(t, out,
		"- opencode "+oc2.URL+": found in the OpenCode service file "+path+"\n",
		"✓ opencode "+oc2.URL+": healthy, OpenCode 2, version "+oc2.Version)
	if strings.Contains(out, serviceCheckPassword) {
		t.Errorf("check prints the service file's password:\n%s", out)
	}
}

// TestCheckServiceFileOpencode1: an opencode 1.x named by the service file
// is checked as any other, and named as found there.
func TestCheckServiceFileOpencode1(t *testing.T) {
	s := newCheckSetup(t, nil)
	oc := opencodetest.NewServer(opencodetest.WithAuth("", serviceCheckPassword))
	defer oc.Close()
	path := writeCheckServiceFile(t, s, oc.URL+"/", 0o600)
	s.env["OPENCODE_URL"] = "auto"
	out, code := s.check(t)
	if code != 0 {
		t.Fatalf("code %d, want 0:\n%s", code, out)
	}
	wantLines(t, out,
		"- opencode "+oc.URL+": found in the OpenCode service file "+path+"\n",
		"✓ opencode "+oc.URL+": healthy, opencode 1.x, version 1.18.33\n")

	// The service went away and left its file: check says the file may be stale.
	oc.Close()
	out, code = s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"✗ opencode "+oc.URL+": cannot reach the server the service file names: ",
		"fix: the service file may be stale: start the OpenCode service again, or set OPENCODE_URL\n")
}

// TestCheckServiceFileStalePassword: a password the server refuses is
// blamed on the file, not on the settings.
func TestCheckServiceFileStalePassword(t *testing.T) {
	s := newCheckSetup(t, nil)
	writeCheckServiceFile(t, s, s.oc.URL, 0o600) // s.oc wants checkPassword
	delete(s.env, "OPENCODE_URL")
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out,
		"✗ opencode "+s.oc.URL+": opencode refused the password of the service file (HTTP 401)\n",
		"fix: the service file may be stale")
	if strings.Contains(out, serviceCheckPassword) {
		t.Errorf("check prints the service file's password:\n%s", out)
	}
}

// TestCheckServerFoundAt: check names OPENCODE_URL, or the default and the
// file it looked for, as where each server's URL came from.
func TestCheckServerFoundAt(t *testing.T) {
	s := newCheckSetup(t, nil)
	out, _ := s.check(t)
	wantLines(t, out, "- opencode "+s.oc.URL+": from OPENCODE_URL\n")

	s.env["OPENCODE_URL"] = "laptop=auto,ci=" + s.oc.URL
	out, _ = s.check(t)
	wantLines(t, out,
		"- opencode laptop http://127.0.0.1:4096: the default: OPENCODE_URL says laptop=auto and there is no OpenCode service file at "+
			filepath.Join(s.env["HOME"], ".local", "state", "opencode", "service.json")+"\n",
		"- opencode ci "+s.oc.URL+": from OPENCODE_URL\n")

	// The same list with a service file: laptop is found there.
	path := writeCheckServiceFile(t, s, s.oc.URL, 0o600)
	s.env["OPENCODE_SERVER_PASSWORD_LAPTOP"] = "stale-check-secret"
	out, _ = s.check(t)
	wantLines(t, out, "- opencode laptop "+s.oc.URL+": found in the OpenCode service file "+path+"\n")
}

// TestCheckServiceFileReadableByOthers: a service file others may read is
// a settings problem that names the file and never its password.
func TestCheckServiceFileReadableByOthers(t *testing.T) {
	s := newCheckSetup(t, nil)
	path := writeCheckServiceFile(t, s, s.oc.URL, 0o644)
	delete(s.env, "OPENCODE_URL")
	out, code := s.check(t)
	if code != 1 {
		t.Fatalf("code %d, want 1:\n%s", code, out)
	}
	wantLines(t, out, "✗ settings: OPENCODE_URL is invalid: auto (or unset), and OpenCode service file "+path+": has mode 0644")
	if strings.Contains(out, serviceCheckPassword) {
		t.Errorf("check prints the service file's password:\n%s", out)
	}
}

// TestReadmeSaysHowTheServerIsFound: the README names the service file,
// auto, and the default it falls back to, where a user looks for them.
func TestReadmeSaysHowTheServerIsFound(t *testing.T) {
	which := readmeSection(t, "Which opencode")
	for _, want := range []string{"$XDG_STATE_HOME/opencode/service.json", "~/.local/state/opencode/service.json",
		"`auto`", "`http://127.0.0.1:4096`", "laptop=auto"} {
		if !strings.Contains(which, want) {
			t.Errorf("README's Which opencode lacks %q", want)
		}
	}
	if conf := readmeSection(t, "Configuration"); !strings.Contains(conf, "| `OPENCODE_URL` | `auto` |") {
		t.Error("README's settings table does not give OPENCODE_URL's default as auto")
	}
}

// TestServeFollowsServiceFile: serve finds opencode through the service
// file, and when the service comes back elsewhere with a new password,
// reads the file again and reconnects there, logging neither password.
func TestServeFollowsServiceFile(t *testing.T) {
	r := newRig(t)
	first := opencodetest.NewServer(opencodetest.WithAuth("", "first-check-secret"))
	t.Cleanup(first.Close)
	env := r.with()
	delete(env, "OPENCODE_URL")
	delete(env, "OPENCODE_SERVER_PASSWORD")
	path := filepath.Join(env["HOME"], ".local", "state", "opencode", "service.json")
	register := func(url, pw string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		tmp := path + ".tmp" // renamed into place, as the service does
		if err := os.WriteFile(tmp, []byte(`{"url":"`+url+`","pid":1,"password":"`+pw+`"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	register(first.URL, "first-check-secret")
	bot := start(t, env)
	bot.out.WaitLines(t, 1, "opencode server found in the OpenCode service file", path)
	bot.out.WaitLines(t, 1, "connected to opencode event stream", first.URL)

	first.Close()
	register(r.oc.URL, faultPassword)
	bot.out.WaitLines(t, 1, "opencode server moved", r.oc.URL)
	bot.out.WaitLines(t, 1, "connected to opencode event stream", r.oc.URL)
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot: %v", err)
	}
	if out := bot.out.String(); strings.Contains(out, "first-check-secret") || strings.Contains(out, faultPassword) {
		t.Errorf("serve logged a password:\n%s", out)
	}
}

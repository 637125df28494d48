package main

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/config"
)

// A service manager's restart rule, read from the file it is given, and
// the command line it runs hermes-bot with.
type serviceRun struct {
	args     []string          // after the binary
	env      map[string]string // the environment it is given
	restarts func(status int) bool
}

// systemdRun reads Restart=on-failure and RestartPreventExitStatus= from
// a unit, as systemd.service(5) defines them: on-failure restarts after a
// non-zero status, except the statuses listed.
func systemdRun(t *testing.T, unit string, envFile map[string]string) serviceRun {
	t.Helper()
	r := serviceRun{env: envFile}
	var restart string
	var prevent []int
	sc := bufio.NewScanner(strings.NewReader(unit))
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), "=")
		switch key {
		case "ExecStart":
			r.args = strings.Fields(value)[1:]
		case "Restart":
			restart = value
		case "RestartPreventExitStatus":
			for _, f := range strings.Fields(value) {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("RestartPreventExitStatus=%s: only numbers are modelled", value)
				}
				prevent = append(prevent, n)
			}
		}
	}
	if restart != "on-failure" {
		t.Fatalf("Restart=%q: only on-failure is modelled", restart)
	}
	r.restarts = func(status int) bool { return status != 0 && !slices.Contains(prevent, status) }
	return r
}

// launchdRun reads ProgramArguments and KeepAlive from a plist, as
// launchd.plist(5) defines KeepAlive: true restarts always; a dictionary
// with SuccessfulExit false restarts after an exit with a non-zero status
// (any, as launchd has no way to name statuses), true after status 0.
func launchdRun(t *testing.T, plist string) serviceRun {
	t.Helper()
	top, err := decodePlist(xml.NewDecoder(strings.NewReader(plist)))
	if err != nil {
		t.Fatalf("plist: %v", err)
	}
	d, _ := top.(map[string]any)
	r := serviceRun{env: map[string]string{}} // launchd passes no settings: the env-file is an argument
	for _, a := range d["ProgramArguments"].([]any)[1:] {
		r.args = append(r.args, a.(string))
	}
	switch k := d["KeepAlive"].(type) {
	case bool:
		r.restarts = func(int) bool { return k }
	case map[string]any:
		if len(k) != 1 {
			t.Fatalf("KeepAlive %v: only SuccessfulExit is modelled", k)
		}
		want := k["SuccessfulExit"].(bool)
		r.restarts = func(status int) bool { return (status == 0) == want }
	default:
		t.Fatalf("KeepAlive is %T", k)
	}
	return r
}

// decodePlist decodes the next plist value: dict, array, string, integer,
// true or false, the kinds the agent uses.
func decodePlist(d *xml.Decoder) (any, error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			if _, end := tok.(xml.EndElement); end {
				return nil, errEndOfContainer
			}
			continue
		}
		switch start.Name.Local {
		case "plist":
			continue
		case "true", "false":
			return start.Name.Local == "true", d.Skip()
		case "string", "key", "integer":
			var s string
			err := d.DecodeElement(&s, &start)
			if start.Name.Local == "key" {
				return plistKey(s), err
			}
			return s, err
		case "array":
			var a []any
			for {
				v, err := decodePlist(d)
				if errors.Is(err, errEndOfContainer) {
					return a, nil
				} else if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
		case "dict":
			m := make(map[string]any)
			for {
				k, err := decodePlist(d)
				if errors.Is(err, errEndOfContainer) {
					return m, nil
				} else if err != nil {
					return nil, err
				}
				key, ok := k.(plistKey)
				if !ok {
					return nil, fmt.Errorf("dict entry without a key: %v", k)
				}
				v, err := decodePlist(d)
				if err != nil {
					return nil, err
				}
				m[string(key)] = v
			}
		default:
			return nil, fmt.Errorf("plist element %s not modelled", start.Name.Local)
		}
	}
}

type plistKey string

var errEndOfContainer = errors.New("end of container")

// TestServiceNotRestartedAfterConfigError runs hermes-bot the way each
// generated service does, with a bad setting, and asks the manager's own
// rule, read from the file, whether it would start it again: a restart
// does not fix a setting, and on launchd it became a loop. A crash (exit
// status 1) must still be restarted.
func TestServiceNotRestartedAfterConfigError(t *testing.T) {
	bad := "TELEGRAM_BOT_TOKEN=1:svc-secret\nTELEGRAM_CHAT_ID=not-a-chat\n"
	cases := []struct {
		name string
		goos string
		args []string
	}{
		{"systemd user unit", "linux", nil},
		{"systemd system unit", "linux", []string{"--system"}},
		{"launchd agent", "darwin", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newServiceEnv(t, tc.goos)
			envFile := filepath.Join(t.TempDir(), "hermes-bot.env")
			writeFile(t, envFile, bad, 0o600)
			file := mustPrint(t, e, append([]string{"--os", tc.goos, "--env-file", envFile}, tc.args...)...)

			var r serviceRun
			if tc.goos == "darwin" {
				r = launchdRun(t, file)
			} else {
				vars, err := config.ReadEnvFile(envFile) // EnvironmentFile=
				if err != nil {
					t.Fatal(err)
				}
				r = systemdRun(t, file, vars)
			}
			r.env["HOME"] = e.env["HOME"]
			_, stderr, status := runCmd(t, r.env, r.args...)
			if !strings.Contains(stderr, "TELEGRAM_CHAT_ID is invalid") {
				t.Fatalf("%v did not report the bad setting: status %d, stderr %q", r.args, status, stderr)
			}
			if r.restarts(status) {
				t.Errorf("after a configuration error (status %d, from %v) the service is restarted", status, r.args)
			}
			if !r.restarts(1) {
				t.Error("after a crash (status 1) the service is not restarted")
			}
		})
	}
}

package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/config"
)

const servicePassword = "svc-secret-pw"

// withServiceFile gives e a HOME holding an OpenCode service file with
// body and mode perm, and returns the file's path.
func withServiceFile(t *testing.T, e map[string]string, body string, perm os.FileMode) string {
	t.Helper()
	home := t.TempDir()
	e["HOME"] = home
	path := filepath.Join(home, ".local", "state", "opencode", "service.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

const serviceBody = `{"id":"svc_1","version":"2.0.0","url":"http://127.0.0.1:49374/","pid":7,"password":"` + servicePassword + `"}`

// TestServiceFileUnset: with OPENCODE_URL unset, the service file gives
// the URL and the password, over a password set in the settings.
func TestServiceFileUnset(t *testing.T) {
	e := minimal()
	path := withServiceFile(t, e, serviceBody, 0o600)
	e["OPENCODE_SERVER_USERNAME"] = "someone"
	e["OPENCODE_SERVER_PASSWORD"] = "stale-secret"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	want := config.Server{URL: "http://127.0.0.1:49374", Username: "opencode", Password: servicePassword, Auto: true, ServiceFile: path}
	if s := c.Servers; len(s) != 1 || s[0] != want {
		t.Fatalf("servers %+v, want %+v", s, want)
	}
	if s := c.String(); strings.Contains(s, "secret") || !strings.Contains(s, "\nOPENCODE_URL=http://127.0.0.1:49374\n") ||
		!strings.Contains(s, "\nOPENCODE_SERVER_USERNAME=opencode\n") {
		t.Errorf("String leaks a secret or lacks the URL:\n%s", s)
	}
}

// TestServiceFileIgnored: an OPENCODE_URL from the environment, the
// env-file or a flag is used as given, whatever the service file says.
func TestServiceFileIgnored(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  func(e map[string]string) config.Sources
	}{
		{"environment", func(e map[string]string) config.Sources {
			e["OPENCODE_URL"] = "http://h:1"
			return config.Sources{Getenv: env(e)}
		}},
		{"env-file", func(e map[string]string) config.Sources {
			return config.Sources{Getenv: env(e), EnvFile: map[string]string{"OPENCODE_URL": "http://h:1"}}
		}},
		{"flag", func(e map[string]string) config.Sources {
			return config.Sources{Getenv: env(e), Flags: map[string]string{"opencode-url": "http://h:1"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := minimal()
			withServiceFile(t, e, serviceBody, 0o600)
			e["OPENCODE_SERVER_PASSWORD"] = "mine"
			c, err := config.Load(tc.src(e))
			if err != nil {
				t.Fatal(err)
			}
			want := config.Server{URL: "http://h:1", Username: "opencode", Password: "mine"}
			if s := c.Servers; len(s) != 1 || s[0] != want {
				t.Errorf("servers %+v, want %+v", s, want)
			}
		})
	}
}

// TestServiceFileNamedAuto: in a list, the auto server alone takes the
// file's URL and password; the others keep theirs.
func TestServiceFileNamedAuto(t *testing.T) {
	e := minimal()
	path := withServiceFile(t, e, serviceBody, 0o600)
	e["OPENCODE_URL"] = "ci=http://10.0.0.5:4096,laptop=auto"
	e["OPENCODE_SERVER_PASSWORD"] = "shared"
	e["OPENCODE_SERVER_PASSWORD_LAPTOP"] = "stale"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Server{
		{Name: "ci", URL: "http://10.0.0.5:4096", Username: "opencode", Password: "shared"},
		{Name: "laptop", URL: "http://127.0.0.1:49374", Username: "opencode", Password: servicePassword, Auto: true, ServiceFile: path},
	}
	got := c.Servers
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("servers %+v\nwant %+v", got, want)
	}
	if s := c.String(); strings.Contains(s, "secret") || !strings.Contains(s, "OPENCODE_URL=ci=http://10.0.0.5:4096,laptop=http://127.0.0.1:49374") {
		t.Errorf("String leaks a secret or lacks the URLs:\n%s", s)
	}
}

// TestServiceFileWithoutPassword: a service without a password leaves the
// credentials of the settings alone.
func TestServiceFileWithoutPassword(t *testing.T) {
	e := minimal()
	withServiceFile(t, e, `{"url":"http://127.0.0.1:49374","pid":7}`, 0o600)
	e["OPENCODE_SERVER_USERNAME"] = "me"
	e["OPENCODE_SERVER_PASSWORD"] = "mine"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Servers[0]; s.URL != "http://127.0.0.1:49374" || s.Username != "me" || s.Password != "mine" {
		t.Errorf("server %+v, want the file's URL with the settings' credentials", s)
	}
}

func TestServiceFileBad(t *testing.T) {
	pw := `"password":"` + servicePassword + `"`
	for _, tc := range []struct {
		name, url, body string
		perm            os.FileMode
		want            string
	}{
		{"unset, readable by others", "", `{"url":"http://h:1",` + pw + `}`, 0o644,
			"OPENCODE_URL is invalid: auto (or unset), and OpenCode service file %s: has mode 0644, which lets others read or change it: want 0600 (chmod 600 it); fix the file, or set OPENCODE_URL to the server's URL"},
		{"auto, no url", "auto", `{"pid":1,` + pw + `}`, 0o600,
			"OPENCODE_URL is invalid: auto (or unset), and OpenCode service file %s: has no url; fix the file"},
		{"named auto, not JSON", "ci=http://h:1,laptop=auto", `{` + pw, 0o600,
			"OPENCODE_URL is invalid: server laptop is auto, and OpenCode service file %s: is not the JSON object a service writes: unexpected end of JSON input; fix the file, or give laptop its URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := minimal()
			path := withServiceFile(t, e, tc.body, tc.perm)
			if tc.url != "" {
				e["OPENCODE_URL"] = tc.url
			}
			_, err := config.Load(config.Sources{Getenv: env(e)})
			var ve *config.ValidationError
			if !errors.As(err, &ve) || ve.Var != "OPENCODE_URL" || !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("err = %v, want an invalid OPENCODE_URL", err)
			}
			if want := strings.Replace(tc.want, "%s", path, 1); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %q\nwant %q", err, want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("err leaks the password: %q", err)
			}
		})
	}
}

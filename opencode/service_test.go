package opencode_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

const servicePassword = "svc-secret-pw"

// writeServiceFile writes body as dir/opencode/service.json with mode perm
// and returns its path.
func writeServiceFile(t *testing.T, stateDir, body string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(stateDir, "opencode", "service.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestReadServiceFileFound(t *testing.T) {
	home := t.TempDir()
	want := writeServiceFile(t, filepath.Join(home, ".local", "state"),
		`{"id":"svc_1","version":"2.0.0","url":"http://127.0.0.1:49374","pid":4242,"password":"`+servicePassword+`"}`, 0o600)
	sf, path, err := opencode.ReadServiceFile(envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if path != want {
		t.Errorf("path %q, want %q", path, want)
	}
	if sf != (opencode.ServiceFile{ID: "svc_1", Version: "2.0.0", URL: "http://127.0.0.1:49374", PID: 4242, Password: servicePassword}) {
		t.Errorf("read %+v", sf)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if s := fmt.Sprintf(verb, sf); strings.Contains(s, servicePassword) || !strings.Contains(s, "http://127.0.0.1:49374") {
			t.Errorf("%s prints %q: want the url and no password", verb, s)
		}
	}
}

func TestReadServiceFileXDGFirst(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	writeServiceFile(t, filepath.Join(home, ".local", "state"), `{"url":"http://127.0.0.1:1","pid":1}`, 0o600)
	want := writeServiceFile(t, state, `{"url":"http://127.0.0.1:2","pid":2}`, 0o600)
	sf, path, err := opencode.ReadServiceFile(envOf(map[string]string{"HOME": home, "XDG_STATE_HOME": state}))
	if err != nil || path != want || sf.URL != "http://127.0.0.1:2" || sf.Password != "" {
		t.Errorf("got %+v at %q, %v; want the XDG_STATE_HOME file %q", sf, path, err, want)
	}
	// A relative XDG_STATE_HOME is no base directory: HOME's is used.
	sf, _, err = opencode.ReadServiceFile(envOf(map[string]string{"HOME": home, "XDG_STATE_HOME": "rel"}))
	if err != nil || sf.URL != "http://127.0.0.1:1" {
		t.Errorf("relative XDG_STATE_HOME: got %+v, %v; want HOME's file", sf, err)
	}
}

func TestReadServiceFileMissing(t *testing.T) {
	home := t.TempDir()
	_, path, err := opencode.ReadServiceFile(envOf(map[string]string{"HOME": home}))
	if !errors.Is(err, opencode.ErrNoServiceFile) {
		t.Fatalf("err %v, want ErrNoServiceFile", err)
	}
	if want := filepath.Join(home, ".local", "state", "opencode", "service.json"); path != want || !strings.Contains(err.Error(), want) {
		t.Errorf("path %q, err %q: want both to name %q", path, err, want)
	}
	_, path, err = opencode.ReadServiceFile(envOf(nil))
	if !errors.Is(err, opencode.ErrNoServiceFile) || path != "" || !strings.Contains(err.Error(), "neither XDG_STATE_HOME nor HOME") {
		t.Errorf("no HOME: %q at %q, want ErrNoServiceFile saying why, no path", err, path)
	}
}

func TestReadServiceFileBad(t *testing.T) {
	pw := `"password":"` + servicePassword + `"`
	for _, tc := range []struct {
		name, body string
		perm       os.FileMode
		want       string
	}{
		{"not JSON", `url=http://x ` + servicePassword, 0o600, "is not the JSON object"},
		{"wrong type", `{"url":"http://127.0.0.1:1","pid":"` + servicePassword + `"}`, 0o600, "is not the JSON object"},
		{"no url", `{"pid":1,` + pw + `}`, 0o600, "has no url"},
		{"scheme", `{"url":"ftp://127.0.0.1:1","pid":1,` + pw + `}`, 0o600, `has url "ftp://127.0.0.1:1": want http:// or https://`},
		{"no host", `{"url":"http://","pid":1,` + pw + `}`, 0o600, "with no host"},
		{"credentials", `{"url":"http://opencode:` + servicePassword + `@127.0.0.1:1","pid":1}`, 0o600, "with credentials"},
		{"group-readable", `{"url":"http://127.0.0.1:1","pid":1,` + pw + `}`, 0o640, "has mode 0640, which lets others read or change it"},
		{"world-writable", `{"url":"http://127.0.0.1:1","pid":1,` + pw + `}`, 0o602, "has mode 0602"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tc.perm != 0o600 {
				t.Skip("no Unix modes")
			}
			home := t.TempDir()
			writeServiceFile(t, filepath.Join(home, ".local", "state"), tc.body, tc.perm)
			sf, path, err := opencode.ReadServiceFile(envOf(map[string]string{"HOME": home}))
			if err == nil {
				t.Fatalf("read %v, want an error", sf)
			}
			if errors.Is(err, opencode.ErrNoServiceFile) {
				t.Errorf("%v wraps ErrNoServiceFile: the file is there", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err %q, want it to say %q and name %q", err, tc.want, path)
			}
			if strings.Contains(err.Error(), servicePassword) {
				t.Errorf("err %q holds the password", err)
			}
		})
	}
}

func TestReadServiceFileUnreadable(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs Unix modes that bind the user")
	}
	home := t.TempDir()
	path := writeServiceFile(t, filepath.Join(home, ".local", "state"), `{"url":"http://127.0.0.1:1"}`, 0o600)
	if err := os.Chmod(path, 0o000); err != nil {
		t.Fatal(err)
	}
	_, _, err := opencode.ReadServiceFile(envOf(map[string]string{"HOME": home}))
	if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "cannot open it") {
		t.Errorf("err %v, want a permission error saying it cannot be opened", err)
	}
	if n := strings.Count(err.Error(), path); n != 1 {
		t.Errorf("err %q names the path %d times, want once", err, n)
	}
}

// TestReadServiceFileNotAFile: a folder where the file should be is named
// as such, not taken for a missing file.
func TestReadServiceFileNotAFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".local", "state", "opencode", "service.json")
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, err := opencode.ReadServiceFile(envOf(map[string]string{"HOME": home}))
	if err == nil || errors.Is(err, opencode.ErrNoServiceFile) || !strings.Contains(err.Error(), path+": is not a regular file") {
		t.Errorf("err %v, want it to say %s is not a regular file", err, path)
	}
}

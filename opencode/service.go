package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// ServiceUser is the basic-auth user of an OpenCode 2 service
// (packages/server/src/auth.ts@605784f in anomalyco/opencode).
const ServiceUser = "opencode"

// maxServiceFile bounds the service file read: it holds a few short fields.
const maxServiceFile = 64 << 10

// ErrNoServiceFile is returned, wrapped, by ReadServiceFile when there is
// no service file: no OpenCode service has registered on this machine.
var ErrNoServiceFile = errors.New("no OpenCode service file")

// ServiceFile is what a running OpenCode service writes about itself
// (packages/cli/src/services/service-registration.ts@894630a in
// anomalyco/opencode). Password is a secret; String leaves it out.
type ServiceFile struct {
	ID       string `json:"id"`
	Version  string `json:"version"`
	URL      string `json:"url"`
	PID      int    `json:"pid"`
	Password string `json:"password"`
}

// String describes the service without its password, so that printing a
// ServiceFile with %v cannot leak it.
func (s ServiceFile) String() string {
	out := s.URL + " (pid " + strconv.Itoa(s.PID)
	if s.Version != "" {
		out += ", version " + s.Version
	}
	if s.Password != "" {
		out += ", with a password"
	}
	return out + ")"
}

// GoString is String, for %#v.
func (s ServiceFile) GoString() string { return s.String() }

// ServiceFilePath is where an OpenCode service registers:
// $XDG_STATE_HOME/opencode/service.json, else
// ~/.local/state/opencode/service.json (packages/client/src/service-probe.ts@7e91214
// in anomalyco/opencode). A relative XDG_STATE_HOME is ignored, as the
// XDG spec asks. It fails, wrapping ErrNoServiceFile, when neither is set.
func ServiceFilePath(getenv func(string) string) (string, error) {
	if state := getenv("XDG_STATE_HOME"); state != "" && filepath.IsAbs(state) {
		return filepath.Join(state, "opencode", "service.json"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "opencode", "service.json"), nil
	}
	return "", fmt.Errorf("neither XDG_STATE_HOME nor HOME is set, so there is no place to look: %w", ErrNoServiceFile)
}

// ReadServiceFile reads the service file of ServiceFilePath and returns it
// with its path (also on error, when known). A missing file wraps
// ErrNoServiceFile. A file others may read or write is refused: its
// password would be theirs, and its url could send hermes-bot elsewhere.
// No error holds the password.
func ReadServiceFile(getenv func(string) string) (ServiceFile, string, error) {
	path, err := ServiceFilePath(getenv)
	if err != nil {
		return ServiceFile{}, "", err
	}
	sf, err := readServiceFile(path)
	if err != nil {
		return ServiceFile{}, path, fmt.Errorf("OpenCode service file %s: %w", path, err)
	}
	return sf, path, nil
}

func readServiceFile(path string) (ServiceFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ServiceFile{}, fmt.Errorf("does not exist: %w", ErrNoServiceFile)
	}
	if err != nil {
		return ServiceFile{}, fmt.Errorf("cannot open it: %w", pathless(err))
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return ServiceFile{}, fmt.Errorf("cannot stat it: %w", pathless(err))
	case !st.Mode().IsRegular():
		return ServiceFile{}, errors.New("is not a regular file")
	case runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0:
		// The service writes it 0600; wider, its password is not ours alone.
		return ServiceFile{}, fmt.Errorf("has mode %04o, which lets others read or change it: want 0600 (chmod 600 it)", st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxServiceFile+1))
	if err != nil {
		return ServiceFile{}, fmt.Errorf("cannot read it: %w", pathless(err))
	}
	if len(b) > maxServiceFile {
		return ServiceFile{}, fmt.Errorf("is longer than %d bytes, too long for a service file", maxServiceFile)
	}
	var sf ServiceFile
	if err := json.Unmarshal(b, &sf); err != nil {
		// json's errors name types and offsets, never the text read.
		return ServiceFile{}, fmt.Errorf("is not the JSON object a service writes: %w", err)
	}
	if err := checkServiceURL(sf.URL); err != nil {
		return ServiceFile{}, err
	}
	return sf, nil
}

// checkServiceURL wants what NewClient accepts. The url is quoted only
// once known to hold no credentials.
func checkServiceURL(raw string) error {
	if raw == "" {
		return errors.New("has no url")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("has a url that cannot be parsed")
	case u.User != nil:
		return errors.New("has a url with credentials in it")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("has url %q: want http:// or https://", raw)
	case u.Host == "":
		return fmt.Errorf("has url %q, with no host", raw)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("has url %q, with a query or fragment", raw)
	}
	return nil
}

// pathless drops the path an *fs.PathError repeats, as the caller names it.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

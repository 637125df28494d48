package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/hermes-bot/hermes-bot/opencode"
)

// AutoURL, as OPENCODE_URL or as a server's url in a list, means: where
// the OpenCode service file says, else DefaultOpencodeURL.
const AutoURL = "auto"

// DefaultOpencodeURL is where opencode serve listens unless told otherwise.
const DefaultOpencodeURL = "http://127.0.0.1:4096"

// Server is one opencode server hermes-bot talks to.
type Server struct {
	Name     string // "" when OPENCODE_URL is one bare URL; else its name there
	URL      string // without a trailing /
	Username string // basic-auth user, after any per-server override
	Password string // basic-auth password, after any per-server override; a secret

	// Auto is true when OPENCODE_URL said auto, or was unset: URL (and,
	// when the file has one, the password) were looked up.
	Auto bool
	// ServiceFile is the OpenCode service file URL was read from; "" when
	// it came from OPENCODE_URL, or Auto found no file.
	ServiceFile string
}

// maxServerName bounds a server's name: it is shown on every line check
// prints for it and becomes part of variable names.
const maxServerName = 16

// Variable names of the credentials shared by every server; a server's
// own are these with "_" and its VarSuffix appended.
const (
	usernameVar = "OPENCODE_SERVER_USERNAME"
	passwordVar = "OPENCODE_SERVER_PASSWORD"
)

// VarSuffix is the NAME of the server's own OPENCODE_SERVER_USERNAME_NAME
// and OPENCODE_SERVER_PASSWORD_NAME: its name upper-cased, - as _ (a
// variable name cannot hold -). "" for the unnamed server, which has none.
func (s Server) VarSuffix() string {
	return strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
}

// UsernameVar is the variable that sets this server's user alone, or the
// shared one for the unnamed server.
func (s Server) UsernameVar() string { return perServerVar(usernameVar, s) }

// PasswordVar is the variable that sets this server's password alone, or
// the shared one for the unnamed server.
func (s Server) PasswordVar() string { return perServerVar(passwordVar, s) }

func perServerVar(base string, s Server) string {
	if s.Name == "" {
		return base
	}
	return base + "_" + s.VarSuffix()
}

// parseServers reads OPENCODE_URL: one URL, taken exactly as before
// servers had names, or comma-separated name=url pairs. Credentials are
// filled in later, by resolveCredentials, once every setting is read.
func parseServers(v string) ([]Server, error) {
	var elems []string
	named := 0
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		elems = append(elems, e)
		if isNamedServer(e) {
			named++
		}
	}
	if named == 0 && strings.TrimSpace(v) == AutoURL {
		return []Server{{Auto: true}}, nil
	}
	if named == 0 {
		// One URL, checked as it always was: a comma in it is its own.
		if err := checkURL(v); err != nil {
			if len(elems) > 1 && !slices.ContainsFunc(elems, func(e string) bool { return checkURL(e) != nil }) {
				return nil, fmt.Errorf("holds several URLs: give each server a name, as laptop=http://127.0.0.1:4096,ci=http://10.0.0.5:4096")
			}
			return nil, err
		}
		return []Server{{URL: strings.TrimRight(v, "/")}}, nil
	}
	if named < len(elems) {
		// Which server would the bare one be? Guessing would put its
		// requests under a name nobody chose.
		return nil, fmt.Errorf("mixes a bare URL with name=url pairs: name every server, as laptop=http://127.0.0.1:4096,ci=http://10.0.0.5:4096")
	}
	servers := make([]Server, 0, len(elems))
	seen := make(map[string]bool)
	auto := ""
	for _, e := range elems {
		name, u, _ := strings.Cut(e, "=")
		name, u = strings.TrimSpace(name), strings.TrimSpace(u)
		if err := checkServerName(name); err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("server name %q is given twice: each server needs a name of its own", name)
		}
		seen[name] = true
		if u == AutoURL {
			if auto != "" {
				// One service file per user: both would be one server.
				return nil, fmt.Errorf("servers %s and %s are both auto: there is one OpenCode service on a machine, so only one server can be auto", auto, name)
			}
			auto = name
			servers = append(servers, Server{Name: name, Auto: true})
			continue
		}
		if err := checkURL(u); err != nil {
			return nil, fmt.Errorf("server %s: %w", name, err)
		}
		servers = append(servers, Server{Name: name, URL: strings.TrimRight(u, "/")})
	}
	return servers, nil
}

// isNamedServer tells a name=url pair from a bare URL: a name holds
// neither : nor /, which every URL has before any = of its query.
func isNamedServer(e string) bool {
	name, _, ok := strings.Cut(e, "=")
	return ok && !strings.ContainsAny(name, ":/")
}

// checkServerName enforces names that are safe in variable names, log
// fields and Telegram messages, and short enough to prefix a line.
func checkServerName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("a server name is empty: want name=url")
	case len(name) > maxServerName:
		return fmt.Errorf("server name %q is longer than %d characters", name, maxServerName)
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return fmt.Errorf("server name %q must be lower-case letters, digits and -", name)
		}
	}
	if name[0] < 'a' || name[0] > 'z' {
		return fmt.Errorf("server name %q must start with a letter", name)
	}
	return nil
}

// serverNamesIn returns the names of the well-formed name=url pairs of v,
// an OPENCODE_URL value, even when the value as a whole is wrong: they
// are what per-server variables may be named after, and a mistake
// elsewhere in the list should not also call those variables misspelled.
func serverNamesIn(v string) []string {
	var names []string
	for _, e := range strings.Split(v, ",") {
		e = strings.TrimSpace(e)
		if !isNamedServer(e) {
			continue
		}
		name, _, _ := strings.Cut(e, "=")
		if name = strings.TrimSpace(name); checkServerName(name) == nil {
			names = append(names, name)
		}
	}
	return names
}

// ServerNames returns the server names OPENCODE_URL gives in src, read
// with Load's precedence; nil when it is one bare URL. Names in a list
// that Load refuses for another reason are still returned, so that
// UnknownKeys can be told them whatever else is wrong.
func ServerNames(src Sources) []string {
	v := src.EnvFile["OPENCODE_URL"]
	if src.Getenv != nil {
		if x := src.Getenv("OPENCODE_URL"); x != "" {
			v = x
		}
	}
	if x, ok := src.Flags["opencode-url"]; ok {
		v = x
	}
	return serverNamesIn(v)
}

// resolveCredentials gives each server its user and password: its own
// variables when set (env-file, then environment; there are no per-server
// flags), else the shared ones. An auto server is then looked up in the
// service file.
func (c *Config) resolveCredentials(envFile map[string]string, getenv func(string) string) error {
	lookup := func(key string) (string, bool) {
		v := envFile[key]
		if x := getenv(key); x != "" {
			v = x
		}
		// Empty is unset, as for every setting: an env-file line
		// "KEY=" must not blank a password given elsewhere.
		return v, v != ""
	}
	for i := range c.Servers {
		s := &c.Servers[i]
		s.Username, s.Password = c.sharedUsername, c.sharedPassword
		if s.Name != "" {
			if v, ok := lookup(s.UsernameVar()); ok {
				s.Username = v
			}
			if v, ok := lookup(s.PasswordVar()); ok {
				s.Password = v
			}
		}
		if err := s.locate(getenv); err != nil {
			return err
		}
	}
	return nil
}

// locate fills in an auto server from the OpenCode service file, or with
// DefaultOpencodeURL when there is none.
func (s *Server) locate(getenv func(string) string) error {
	if !s.Auto {
		return nil
	}
	found, err := s.FromServiceFile(getenv)
	switch {
	case errors.Is(err, opencode.ErrNoServiceFile):
		s.URL = DefaultOpencodeURL
		return nil
	case err != nil:
		if s.Name != "" {
			return &ValidationError{Var: "OPENCODE_URL", Err: ErrInvalid,
				Reason: "server " + s.Name + " is auto, and " + err.Error() + "; fix the file, or give " + s.Name + " its URL"}
		}
		return &ValidationError{Var: "OPENCODE_URL", Err: ErrInvalid,
			Reason: "auto (or unset), and " + err.Error() + "; fix the file, or set OPENCODE_URL to the server's URL"}
	}
	*s = found
	return nil
}

// FromServiceFile returns s as the OpenCode service file describes it now:
// its URL and, when the file has one, its password, which wins over the
// settings' (the service writes a new one when it registers again, so a
// copy in the settings would go stale). With no file the error wraps
// opencode.ErrNoServiceFile; no error holds the password.
func (s Server) FromServiceFile(getenv func(string) string) (Server, error) {
	sf, path, err := opencode.ReadServiceFile(getenv)
	if err != nil {
		return s, err
	}
	s.URL, s.ServiceFile = strings.TrimRight(sf.URL, "/"), path
	if sf.Password != "" {
		s.Username, s.Password = opencode.ServiceUser, sf.Password
	}
	return s, nil
}

// opencodeLines are Config.String's lines for the opencode servers:
// OPENCODE_URL as served, the shared credentials and each server's own.
// The unnamed server's variables are the shared ones, so its values
// (found in the service file, maybe) are printed as them.
func (c *Config) opencodeLines() []string {
	vars := map[string]string{usernameVar: c.sharedUsername, passwordVar: redacted(c.sharedPassword)}
	pairs := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		pairs[i] = s.URL
		if s.Name != "" {
			pairs[i] = s.Name + "=" + s.URL
		}
		vars[s.UsernameVar()], vars[s.PasswordVar()] = s.Username, redacted(s.Password)
	}
	lines := []string{"OPENCODE_URL=" + strings.Join(pairs, ",")}
	for k, v := range vars {
		lines = append(lines, k+"="+v)
	}
	return lines
}

// redactURLs hides the credentials of every URL in v, an OPENCODE_URL
// value that may be a list, for an error message: url.Parse cannot see
// the URLs inside name=url pairs, and a password pasted into one is still
// a password.
func redactURLs(v string) string {
	elems := strings.Split(v, ",")
	changed := false
	for i, e := range elems {
		prefix, u := "", e
		if isNamedServer(e) {
			name, rest, _ := strings.Cut(e, "=")
			prefix, u = name+"=", rest
		}
		if r, ok := redactURL(u); ok {
			elems[i], changed = prefix+r, true
		}
	}
	if !changed {
		if r, ok := redactURL(v); ok {
			return r
		}
		return v
	}
	return strings.Join(elems, ",")
}

// redactURL returns u without its password, and whether it had
// credentials at all.
func redactURL(u string) (string, bool) {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil && strings.Contains(u, "@") {
		// Unparsable, and what precedes the @ may be credentials.
		return "[REDACTED]", true
	}
	if err != nil || p.User == nil {
		return u, false
	}
	p.User = url.User("REDACTED")
	return p.Redacted(), true
}

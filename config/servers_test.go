package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/config"
)

func TestServersGood(t *testing.T) {
	cases := []struct {
		name, url string
		want      []config.Server
	}{
		// HOME holds no OpenCode service file: auto is the default URL.
		{"default", "", []config.Server{{URL: "http://127.0.0.1:4096", Username: "opencode", Auto: true}}},
		{"auto", " auto ", []config.Server{{URL: "http://127.0.0.1:4096", Username: "opencode", Auto: true}}},
		{"one named auto", "ci=http://h:2,laptop=auto", []config.Server{
			{Name: "ci", URL: "http://h:2", Username: "opencode"},
			{Name: "laptop", URL: "http://127.0.0.1:4096", Username: "opencode", Auto: true}}},
		{"one bare URL, trailing slash", "http://h:1/", []config.Server{{URL: "http://h:1", Username: "opencode"}}},
		// A bare URL is taken whole, as before names: a comma or an = in
		// it is its own.
		{"bare URL with a query", "http://h:1/?a=b,c", []config.Server{{URL: "http://h:1/?a=b,c", Username: "opencode"}}},
		{"one named", "laptop=http://127.0.0.1:4096", []config.Server{
			{Name: "laptop", URL: "http://127.0.0.1:4096", Username: "opencode"}}},
		{"two named, blanks and a stray comma", " laptop = http://127.0.0.1:4096/ , ci-2=https://10.0.0.5:4096,", []config.Server{
			{Name: "laptop", URL: "http://127.0.0.1:4096", Username: "opencode"},
			{Name: "ci-2", URL: "https://10.0.0.5:4096", Username: "opencode"}}},
		{"sixteen characters", "abcdefghij-12345=http://h:1", []config.Server{
			{Name: "abcdefghij-12345", URL: "http://h:1", Username: "opencode"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := minimal()
			if tc.url != "" {
				e["OPENCODE_URL"] = tc.url
			}
			c, err := config.Load(config.Sources{Getenv: env(e)})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Servers, tc.want) {
				t.Fatalf("Servers = %+v\nwant %+v", c.Servers, tc.want)
			}
		})
	}
}

func TestServersBad(t *testing.T) {
	cases := []struct{ name, url, want string }{
		{"upper-case name", "Laptop=http://h:1", `server name "Laptop" must be lower-case letters, digits and -`},
		{"underscore", "my_box=http://h:1", `server name "my_box" must be lower-case letters, digits and -`},
		{"digit first", "1box=http://h:1", `server name "1box" must start with a letter`},
		{"dash first", "-box=http://h:1", `server name "-box" must start with a letter`},
		{"too long", "abcdefghij-123456=http://h:1", `server name "abcdefghij-123456" is longer than 16 characters`},
		{"empty name", "=http://h:1", "a server name is empty"},
		{"duplicate", "a=http://h:1,b=http://h:2,a=http://h:3", `server name "a" is given twice`},
		{"mixed", "http://h:1,ci=http://h:2", "mixes a bare URL with name=url pairs"},
		{"mixed, bare last", "ci=http://h:2,http://h:1", "mixes a bare URL with name=url pairs"},
		{"several bare URLs", "http://h:1,http://h:2", "holds several URLs: give each server a name"},
		{"bad URL in a pair", "ci=localhost:4096", "server ci: want an http:// or https:// URL"},
		{"credentials in a pair", "ci=http://u:pw-secret@h:1", "server ci: put credentials in their own settings"},
		{"only commas", ",,", "want an http:// or https:// URL"},
		{"two auto", "a=auto,b=http://h:1,c=auto", "servers a and c are both auto: there is one OpenCode service on a machine"},
		{"auto among bare URLs", "auto,http://h:1", "want an http:// or https:// URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := minimal()
			e["OPENCODE_URL"] = tc.url
			_, err := config.Load(config.Sources{Getenv: env(e)})
			var ve *config.ValidationError
			if !errors.As(err, &ve) || ve.Var != "OPENCODE_URL" || !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("err = %v, want an invalid OPENCODE_URL", err)
			}
			if !strings.HasPrefix(err.Error(), "OPENCODE_URL ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %q, want it to name OPENCODE_URL and say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("err leaks a secret: %q", err)
			}
		})
	}
}

// TestServerCredentials: the shared user and password apply to every
// server, a server's own variables override them, from the env-file or
// the environment, and a flag sets the shared ones only.
func TestServerCredentials(t *testing.T) {
	e := minimal()
	e["OPENCODE_URL"] = "laptop=http://127.0.0.1:4096,ci-box=http://10.0.0.5:4096,third=http://h:3"
	e["OPENCODE_SERVER_PASSWORD"] = "shared-secret"
	e["OPENCODE_SERVER_PASSWORD_CI_BOX"] = "ci-secret"
	file := map[string]string{
		"OPENCODE_SERVER_USERNAME_CI_BOX": "ci-user",
		"OPENCODE_SERVER_PASSWORD_CI_BOX": "overridden-by-env-secret",
		"OPENCODE_SERVER_PASSWORD_THIRD":  "third-secret",
		"OPENCODE_SERVER_PASSWORD_LAPTOP": "", // empty is unset, as for every setting
	}
	c, err := config.Load(config.Sources{EnvFile: file, Getenv: env(e), Flags: map[string]string{"opencode-username": "flag-user"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Server{
		{Name: "laptop", URL: "http://127.0.0.1:4096", Username: "flag-user", Password: "shared-secret"},
		{Name: "ci-box", URL: "http://10.0.0.5:4096", Username: "ci-user", Password: "ci-secret"},
		{Name: "third", URL: "http://h:3", Username: "flag-user", Password: "third-secret"},
	}
	if !reflect.DeepEqual(c.Servers, want) {
		t.Fatalf("Servers = %+v\nwant %+v", c.Servers, want)
	}

	e["OPENCODE_SERVER_PASSWORD_LAPTOP"] = "laptop-secret"
	if c, err = config.Load(config.Sources{Getenv: env(e)}); err != nil {
		t.Fatal(err)
	}
	if c.Servers[0].Password != "laptop-secret" {
		t.Fatal("OPENCODE_SERVER_PASSWORD_LAPTOP does not reach the first server")
	}

	// With one bare URL there are no per-server variables.
	e = minimal()
	e["OPENCODE_SERVER_PASSWORD"] = "shared-secret"
	e["OPENCODE_SERVER_PASSWORD_"] = "odd-secret"
	if c, err = config.Load(config.Sources{Getenv: env(e)}); err != nil {
		t.Fatal(err)
	}
	if c.Servers[0].Password != "shared-secret" {
		t.Fatalf("unnamed server password %q", c.Servers[0].Password)
	}
}

func TestServerVarNames(t *testing.T) {
	s := config.Server{Name: "ci-box-2"}
	if s.VarSuffix() != "CI_BOX_2" || s.PasswordVar() != "OPENCODE_SERVER_PASSWORD_CI_BOX_2" ||
		s.UsernameVar() != "OPENCODE_SERVER_USERNAME_CI_BOX_2" {
		t.Fatalf("%q %q %q", s.VarSuffix(), s.PasswordVar(), s.UsernameVar())
	}
	if u := (config.Server{}); u.PasswordVar() != "OPENCODE_SERVER_PASSWORD" || u.UsernameVar() != "OPENCODE_SERVER_USERNAME" {
		t.Fatalf("unnamed: %q %q", u.PasswordVar(), u.UsernameVar())
	}
}

// TestServersPrinted: String shows the list and every server's own
// credentials, each password redacted, and stays as before for one URL.
func TestServersPrinted(t *testing.T) {
	e := minimal()
	e["OPENCODE_URL"] = "laptop=http://127.0.0.1:4096,ci=http://10.0.0.5:4096"
	e["OPENCODE_SERVER_PASSWORD"] = "shared-secret"
	e["OPENCODE_SERVER_PASSWORD_CI"] = "ci-secret"
	e["OPENCODE_SERVER_USERNAME_CI"] = "robot"
	c, err := config.Load(config.Sources{Getenv: env(e)})
	if err != nil {
		t.Fatal(err)
	}
	s := c.String()
	for _, want := range []string{
		"\nOPENCODE_URL=laptop=http://127.0.0.1:4096,ci=http://10.0.0.5:4096\n",
		"\nOPENCODE_SERVER_USERNAME=opencode\n",
		"\nOPENCODE_SERVER_PASSWORD=[set]\n",
		"\nOPENCODE_SERVER_USERNAME_LAPTOP=opencode\n",
		"\nOPENCODE_SERVER_PASSWORD_LAPTOP=[set]\n",
		"\nOPENCODE_SERVER_USERNAME_CI=robot\n",
		"\nOPENCODE_SERVER_PASSWORD_CI=[set]\n",
	} {
		if !strings.Contains("\n"+s+"\n", want) {
			t.Errorf("String() lacks %q:\n%s", strings.TrimSpace(want), s)
		}
	}
	if strings.Contains(s, "secret") {
		t.Fatalf("String() leaks a password:\n%s", s)
	}

	e = minimal()
	e["OPENCODE_SERVER_PASSWORD"] = "shared-secret"
	if c, err = config.Load(config.Sources{Getenv: env(e)}); err != nil {
		t.Fatal(err)
	}
	if s := c.String(); strings.Contains(s, "OPENCODE_SERVER_PASSWORD_") || !strings.Contains(s, "\nOPENCODE_URL=http://127.0.0.1:4096\n") {
		t.Fatalf("one URL printed otherwise than before:\n%s", s)
	}
}

// TestServersErrorRedactsURLs: a password pasted into a URL of the list
// is not in the error, wherever in the list it is.
func TestServersErrorRedactsURLs(t *testing.T) {
	for _, v := range []string{
		"a=http://h:1,b=http://u:pw-secret@h:2",
		"a=http://user-secret@h:1,B=http://h:2",
		"http://u:pw-secret@h:1,ci=http://h:2",
		"a=http://u:pw-secret@h:bad-port",
	} {
		e := minimal()
		e["OPENCODE_URL"] = v
		_, err := config.Load(config.Sources{Getenv: env(e)})
		if err == nil {
			t.Fatalf("%s: no error", v)
		}
		if strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "REDACTED") {
			t.Errorf("error for %s: %q", v, err)
		}
	}
}

func TestUnknownPerServerKeys(t *testing.T) {
	file := map[string]string{
		"OPENCODE_URL":                    "laptop=http://h:1,ci-2=http://h:2",
		"OPENCODE_SERVER_PASSWORD_LAPTOP": "x",
		"OPENCODE_SERVER_USERNAME_CI_2":   "x",
		"OPENCODE_SERVER_PASSWORD_CI_3":   "x", // no server ci-3
		"OPENCODE_SERVER_PASSWORD_DESK":   "x", // no server desk
	}
	src := config.Sources{EnvFile: file}
	names := config.ServerNames(src)
	if !reflect.DeepEqual(names, []string{"laptop", "ci-2"}) {
		t.Fatalf("ServerNames = %v", names)
	}
	got := config.UnknownKeys(file, nil, names...)
	want := []config.Unknown{
		{Key: "OPENCODE_SERVER_PASSWORD_CI_3", From: "env-file", Suggest: "OPENCODE_SERVER_PASSWORD_CI_2"},
		{Key: "OPENCODE_SERVER_PASSWORD_DESK", From: "env-file"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("UnknownKeys =\n%v\nwant\n%v", got, want)
	}

	// Without names (one bare URL), every per-server key is unknown.
	if got := config.UnknownKeys(map[string]string{"OPENCODE_SERVER_PASSWORD_LAPTOP": "x"}, nil); len(got) != 1 {
		t.Fatalf("per-server key with no named server: %v", got)
	}

	// The names of a list Load refuses for another reason still count,
	// and the environment and flags win over the env-file as in Load.
	bad := map[string]string{"OPENCODE_URL": "laptop=http://h:1,Bad=http://h:2"}
	if got := config.ServerNames(config.Sources{EnvFile: bad}); !reflect.DeepEqual(got, []string{"laptop"}) {
		t.Fatalf("ServerNames of a bad list = %v", got)
	}
	src = config.Sources{EnvFile: file, Getenv: env(map[string]string{"OPENCODE_URL": "desk=http://h:1"})}
	if got := config.ServerNames(src); !reflect.DeepEqual(got, []string{"desk"}) {
		t.Fatalf("ServerNames with the environment = %v", got)
	}
	src.Flags = map[string]string{"opencode-url": "http://h:1"}
	if got := config.ServerNames(src); got != nil {
		t.Fatalf("ServerNames with a bare URL flag = %v", got)
	}
}

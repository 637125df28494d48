package opencode_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

var sourceRE = regexp.MustCompile(`^packages/[\w./-]+\.ts@[0-9a-f]{7}$`)

// Every entry is complete: a known kind, valid JSON examples, a source
// with path and commit, a success status for a route and a stream for an
// event.
func TestContract2Entries(t *testing.T) {
	checkContract(t, opencode.Contract2())
	// The phone's entries, checked with Contract2's: no name in both.
	checkContract(t, append(opencode.Contract2(), opencode.Contract2Phone()...))
}

func checkContract(t *testing.T, c []opencode.ContractEntry) {
	t.Helper()
	routes := map[string]bool{}
	for _, e := range c {
		if e.Kind == opencode.ContractRoute {
			routes[e.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, e := range c {
		if seen[e.Name] {
			t.Errorf("%s listed twice", e.Name)
		}
		seen[e.Name] = true
		for _, src := range strings.Split(e.Source, ", ") {
			if !sourceRE.MatchString(src) {
				t.Errorf("%s: source %q is not packages/…@commit", e.Name, src)
			}
		}
		for what, js := range map[string]string{"request": e.Request, "example": e.Example} {
			if js != "" && !json.Valid([]byte(js)) {
				t.Errorf("%s: %s is not JSON: %s", e.Name, what, js)
			}
		}
		switch e.Kind {
		case opencode.ContractRoute:
			if !slices.Contains([]string{"GET", "POST", "DELETE"}, e.Method()) || !strings.HasPrefix(e.Path(), "/api/") {
				t.Errorf("route %q: want METHOD /api/…", e.Name)
			}
			if e.Status < 200 || e.Status > 299 || (e.Status == 204) != (e.Example == "") {
				t.Errorf("%s: status %d with example %q", e.Name, e.Status, e.Example)
			}
			if e.Method() == "GET" && e.Request != "" {
				t.Errorf("%s: a GET with a body", e.Name)
			}
		case opencode.ContractEvent:
			if !routes[e.Stream] || e.Example == "" {
				t.Errorf("event %s: stream %q, example %q", e.Name, e.Stream, e.Example)
			}
		case opencode.ContractShape:
			if e.Example == "" {
				t.Errorf("shape %s without an example", e.Name)
			}
		default:
			t.Errorf("%s: kind %q", e.Name, e.Kind)
		}
	}
}

var (
	readmeRouteRE    = regexp.MustCompile("^(GET|POST|DELETE|PUT|PATCH) (\\S+)$")
	readmeEventRE    = regexp.MustCompile(`^[a-z][a-z0-9]*(\.[a-z0-9_]+)+$`)
	readmeTypeRE     = regexp.MustCompile(`type: "([a-z0-9_]+(?:\.[a-z0-9_]+)+)"`)
	readmeWildcardRE = regexp.MustCompile("`([a-z0-9_.]+)\\.\\*`")
	backtickRE       = regexp.MustCompile("`([^`]+)`")
)

// readmeContract returns the routes and event types named in the first
// two columns of the OpenCode 2 table in docs/opencode2.md (the README's
// "Which opencode" links to it), and the event prefixes ("permission."
// for `permission.*`) the section names outside it.
func readmeContract(t *testing.T) (names []string, prefixes []string) {
	t.Helper()
	return docContract(t, "### What hermes-bot uses of OpenCode 2\n")
}

// docContract is readmeContract for the table under heading.
func docContract(t *testing.T, heading string) (names []string, prefixes []string) {
	t.Helper()
	b, err := os.ReadFile("../docs/opencode2.md")
	if err != nil {
		t.Fatalf("reading docs/opencode2.md: %v", err)
	}
	_, section, ok := strings.Cut(string(b), heading)
	if !ok {
		t.Fatalf("docs/opencode2.md: no section %q", heading)
	}
	if i := strings.Index(section, "\n#"); i >= 0 {
		section = section[:i]
	}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| route / event") {
			for _, m := range readmeWildcardRE.FindAllStringSubmatch(line, -1) {
				prefixes = append(prefixes, m[1]+".")
			}
			continue
		}
		cols := strings.Split(line, " | ")
		if len(cols) < 3 {
			t.Fatalf("docs/opencode2.md: table row with %d columns: %s", len(cols), line)
		}
		text := cols[0] + " | " + cols[1]
		for _, m := range backtickRE.FindAllStringSubmatch(text, -1) {
			tok := m[1]
			if r := readmeRouteRE.FindStringSubmatch(tok); r != nil {
				// "…" stands for the session's prefix in the table.
				path := strings.Replace(r[2], "…", "/api/session/{sid}", 1)
				names = append(names, r[1]+" "+path)
			} else if readmeEventRE.MatchString(tok) {
				names = append(names, tok)
			}
			for _, ty := range readmeTypeRE.FindAllStringSubmatch(tok, -1) {
				names = append(names, ty[1])
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("docs/opencode2.md: no route or event found in the OpenCode 2 table")
	}
	return names, prefixes
}

// The table in docs/opencode2.md and Contract2 name the same routes and events, so
// neither can change alone. An event the table does not name (the 1.x
// spelling) must fall under a prefix the section names.
func TestContract2MatchesREADME(t *testing.T) {
	names, prefixes := readmeContract(t)
	matchDoc(t, names, prefixes, opencode.Contract2())
}

// The phone's table and Contract2Phone name the same routes and events.
func TestContract2PhoneMatchesDoc(t *testing.T) {
	names, prefixes := docContract(t, "### What the phone features use of OpenCode 2\n")
	matchDoc(t, names, prefixes, opencode.Contract2Phone())
}

func matchDoc(t *testing.T, names, prefixes []string, contract []opencode.ContractEntry) {
	t.Helper()
	inReadme := map[string]bool{}
	for _, n := range names {
		inReadme[n] = true
	}
	inContract := map[string]bool{}
	for _, e := range contract {
		if e.Kind == opencode.ContractShape {
			continue
		}
		inContract[e.Name] = true
		if inReadme[e.Name] {
			continue
		}
		if e.Kind == opencode.ContractEvent && slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(e.Name, p) }) {
			continue
		}
		t.Errorf("%s is in Contract2 but not in the table of docs/opencode2.md", e.Name)
	}
	for n := range inReadme {
		if !inContract[n] {
			t.Errorf("%s is in the table of docs/opencode2.md but not in Contract2", n)
		}
	}
}

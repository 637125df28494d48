package risk

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the grammar list in docs/auto-approval.md")

const (
	readmeStart = "<!-- auto-approval grammar: written by `go test ./bot/risk -run TestReadmeListsGrammar -update` -->\n"
	readmeEnd   = "<!-- end of the auto-approval grammar -->"
)

// TestReadmeListsGrammar keeps the list of what auto-approval allows, in
// docs/auto-approval.md (linked from the README), the same as the table
// Approve reads.
func TestReadmeListsGrammar(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "auto-approval.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, readmeStart), strings.Index(readme, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q … %q", path, readmeStart, readmeEnd)
	}
	if n := fmt.Sprintf("a table of %d commands", len(readTable(t))); !strings.Contains(readme, n) {
		t.Errorf("%s does not say %q", path, n)
	}
	want := Describe()
	got := readme[i+len(readmeStart) : j]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(readme[:i+len(readmeStart)]+want+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the auto-approval list differs from the grammar; run\n\tgo test ./bot/risk -run TestReadmeListsGrammar -update\nwant:\n%s", path, want)
}

func TestDescribe(t *testing.T) {
	d := Describe()
	for _, want := range []string{"- `cat`: options ", "  - `git status`: ", "`--lines N`", "- `grep`: ", "PATTERN PATH…", "`--unified=CONTEXT`", "- `date`: options "} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe lacks %q:\n%s", want, d)
		}
	}
	for _, never := range []string{"`-o`", "--output", "`env`", "`-u`"} {
		if strings.Contains(d, "- "+never) {
			t.Errorf("Describe lists %q", never)
		}
	}
}

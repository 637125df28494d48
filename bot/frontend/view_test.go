package frontend

import (
	"strings"
	"testing"
)

// A tool line is short: a long path keeps its last part, a long command
// is cut; the agent's own words stay whole, on one line.
func TestContextLineShort(t *testing.T) {
	long := "go test -race -run TestSomethingRatherLong ./bot/telegram/... ./bot/matrix/..."
	for _, tc := range []struct {
		l    ContextLine
		want string
	}{
		{ContextLine{Tool: "read", Text: "/home/user/projects/demo/config.json"}, "🔧 read …/config.json"},
		{ContextLine{Tool: "read", Text: "src/a.go"}, "🔧 read src/a.go"},
		{ContextLine{Tool: "bash", Text: long}, "🔧 bash " + long[:47] + "…"},
		{ContextLine{Tool: "todowrite"}, "🔧 todowrite"},
		{ContextLine{Text: "  Both\tways work.  "}, "Both ways work."},
	} {
		if got := tc.l.Short(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
	if got := (ContextLine{Tool: "read", Text: "/" + strings.Repeat("x", 60)}).Short(); len([]rune(got)) > 2+len("read ")+48 {
		t.Errorf("long path file shown as %q", got)
	}
}

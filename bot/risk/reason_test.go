package risk

import (
	"slices"
	"testing"
)

// TestReasonsSaidOnce checks that an assessment gives at least one reason
// and none twice: a catalog says each code one way, so equal reasons would
// read the same to a person.
func TestReasonsSaidOnce(t *testing.T) {
	for _, tc := range []struct{ kind, cmd string }{
		{"bash", "echo hi; rm -rf build"},
		{"bash", "sudo rm -rf / && curl x | sh"},
		{"bash", "git status && git log | head; git status"},
		{"bash", "rm a; rm b; find . -name x; find . -type f"},
		{"bash", "shutdown -h now; chmod -R 777 ~"},
		{"bash", "cat > /etc/passwd; dd if=/dev/zero of=/dev/sda"},
		{"bash", "ls"},
		{"edit", "../x/.env"},
		{"webfetch", "https://example.com"},
		{"bogus", ""},
	} {
		var pats []string
		if tc.cmd != "" {
			pats = []string{tc.cmd}
		}
		r := Assess("", tc.kind, pats, nil)
		if len(r.Details) == 0 {
			t.Errorf("%s %q: no reasons", tc.kind, tc.cmd)
		}
		for i, d := range r.Details {
			if d.Code <= 0 || d.Code >= reasonCount {
				t.Errorf("%s %q: reason %d has code %d, not one of ReasonCodes", tc.kind, tc.cmd, i, d.Code)
			}
			if slices.Contains(r.Details[:i], d) {
				t.Errorf("%s %q: reason %v given twice", tc.kind, tc.cmd, d)
			}
		}
	}
}

func TestReasonCodesClosed(t *testing.T) {
	codes := ReasonCodes()
	if len(codes) != int(reasonCount)-1 || codes[0] != 1 || codes[len(codes)-1] != reasonCount-1 {
		t.Errorf("ReasonCodes = %d codes from %d to %d, want 1 to %d", len(codes), codes[0], codes[len(codes)-1], reasonCount-1)
	}
}

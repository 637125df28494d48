package risk

import (
	"strings"
	"testing"
	"unicode"
)

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// TestRiskReasonsTranslated walks every reason code: each has an English
// text (as Assessment.Reasons gives it) and a Chinese one, and both keep the
// detail they quote.
func TestRiskReasonsTranslated(t *testing.T) {
	if n := int(reasonCount) - 1; len(reasonEnglish) != n || len(reasonChinese) != n {
		t.Fatalf("%d codes, %d English texts, %d Chinese texts", n, len(reasonEnglish), len(reasonChinese))
	}
	const arg = "rm -rf build/%x"
	for code := ReasonCode(1); code < reasonCount; code++ {
		e, c := Reason{code, arg}.English(), Reason{code, arg}.Chinese()
		if strings.TrimSpace(e) == "" || hasHan(e) {
			t.Errorf("code %d: English text %q", code, e)
		}
		if strings.TrimSpace(c) == "" || !hasHan(c) || c == e {
			t.Errorf("code %d: Chinese text %q (English %q)", code, c, e)
		}
		if strings.Contains(reasonEnglish[code], "%s") != strings.Contains(reasonChinese[code], "%s") {
			t.Errorf("code %d: %q and %q do not both quote the detail", code, reasonEnglish[code], reasonChinese[code])
		}
		if strings.Contains(reasonEnglish[code], "%s") && (!strings.Contains(e, arg) || !strings.Contains(c, arg)) {
			t.Errorf("code %d: detail %q lost: %q, %q", code, arg, e, c)
		}
	}
	if got := (Reason{}).English(); got == "" {
		t.Error("the zero code has no text")
	}
}

// TestRiskDetailsMatchReasons checks that Details says, one for one, what
// Reasons says in English.
func TestRiskDetailsMatchReasons(t *testing.T) {
	for _, tc := range []struct{ kind, cmd string }{
		{"bash", "echo hi; rm -rf build"},
		{"bash", "sudo rm -rf / && curl x | sh"},
		{"bash", "git status && git log | head"},
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
		if len(r.Details) != len(r.Reasons) || len(r.Reasons) == 0 {
			t.Errorf("%s %q: %d details for %d reasons", tc.kind, tc.cmd, len(r.Details), len(r.Reasons))
			continue
		}
		for i, d := range r.Details {
			if got := d.English(); got != r.Reasons[i] {
				t.Errorf("%s %q: reason %d renders %q, want %q", tc.kind, tc.cmd, i, got, r.Reasons[i])
			}
		}
	}
}

package i18n

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/risk"
)

// TestRiskReasonsSaid walks every reason code in every language: each has
// a text of its own, which quotes the reason's detail exactly when the
// English one does. A new language or a new code cannot go unsaid.
func TestRiskReasonsSaid(t *testing.T) {
	const arg = "rm -rf build/%x"
	codes := risk.ReasonCodes()
	if len(codes) == 0 {
		t.Fatal("risk lists no reason codes")
	}
	for _, lang := range Languages() {
		tx := For(lang)
		unknown := tx.RiskReason(risk.Reason{Arg: arg})
		if strings.TrimSpace(unknown) == "" {
			t.Errorf("%s: the zero code has no text", lang)
		}
		for _, code := range codes {
			r := risk.Reason{Code: code, Arg: arg}
			got, en := tx.RiskReason(r), English.RiskReason(r)
			switch {
			case strings.TrimSpace(got) == "" || got == unknown:
				t.Errorf("%s: code %d has no text (%q)", lang, code, got)
			case lang != "en" && got == en:
				t.Errorf("%s: code %d is said as in English, %q", lang, code, got)
			case strings.Contains(got, arg) != strings.Contains(en, arg):
				t.Errorf("%s: code %d: %q and the English %q do not both quote the detail", lang, code, got, en)
			case lang == "en" && hasHan(got):
				t.Errorf("en: code %d has Chinese in it: %q", code, got)
			case lang == "zh" && !hasHan(got):
				t.Errorf("zh: code %d has no Chinese in it: %q", code, got)
			}
		}
	}
}

// TestRiskReasonsReadDistinct: risk.Assess gives each reason once by its
// code and detail, so no two reasons of one assessment may read the same
// in English. The commands chain what several parts of Assess call
// read-only or deleting.
func TestRiskReasonsReadDistinct(t *testing.T) {
	for _, cmd := range []string{
		"git status; git log; git branch; git tag; git remote; git config --get x",
		"git stash list; git reflog; git worktree list; git",
		"sed -n 1p x; awk '{print}' x; history; find . -name x; sysctl -a",
		"go version; go env; npm --version; ls; cat x | head",
		"rm x; rm -rf y; rm z; unlink w",
		"echo hi; rm -rf build",
	} {
		meta, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		// The command as metadata is proven or refused whole; as a
		// pattern it is only read by the heuristic, low reasons and all.
		for _, a := range []risk.Assessment{risk.Assess("", "bash", nil, meta), risk.Assess("", "bash", []string{cmd}, nil)} {
			seen := map[string]bool{}
			for _, r := range a.Details {
				s := English.RiskReason(r)
				if seen[s] {
					t.Errorf("%q: %q said twice", cmd, s)
				}
				seen[s] = true
			}
		}
	}
}

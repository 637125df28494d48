package opencode_test

import (
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
)

func TestWildcardMatch(t *testing.T) {
	const old, glob = opencode.Wildcards11833, opencode.WildcardsGlob
	for _, tc := range []struct {
		s, pattern string
		old, glob  bool
	}{
		{".git/config", "*", true, false},
		{".git/config", ".git/*", true, true},
		{".git/hooks/post-index-change", ".git/*", true, false},
		{".git/hooks/post-index-change", ".git/**", true, true},
		{"src/.gitignore", "**/.gitignore", true, true},
		{".gitignore", "**/.gitignore", false, true},
		{"a/b/.gitignore", "**/.gitignore", true, true},
		{"x.gitignore", "**/.gitignore", false, false},
		{"README.md", "*", true, true},
		{"ls", "ls *", true, true},
		{"ls -la", "ls *", true, true},
		{"ls -la /x", "ls *", true, false},
		{"lsof", "ls *", false, false},
		{"a.env", "*.env", true, true},
		{"aXenv", "*.env", false, false},
		{"ab", "a?", true, true},
		{"a/", "a?", true, false},
		{`.git\config`, ".git/*", true, true},
		{"multi\nline", "multi*", true, true},
		{"edit", "edit", true, true},
		{"edit", "*", true, true},
		{"editor", "edit", false, false},
		{"(x)", "(x)", true, true},
		{"x", "(x)", false, false},
		{"/tmp/oc/data/tool-output/a", "/tmp/oc/data/tool-output/*", true, true},
		{"/home/me", "/home/me/*", false, false},
		{"/home/me/x", "/home/me/*", true, true},
		{"é/config", "é/*", true, true},
	} {
		if got := opencode.WildcardMatch(old, tc.s, tc.pattern); got != tc.old {
			t.Errorf("1.18.33: %q matches %q = %v, want %v", tc.s, tc.pattern, got, tc.old)
		}
		if got := opencode.WildcardMatch(glob, tc.s, tc.pattern); got != tc.glob {
			t.Errorf("glob: %q matches %q = %v, want %v", tc.s, tc.pattern, got, tc.glob)
		}
	}
}

// build1833 is the start of build's ruleset as opencode 1.18.33 serves it
// at GET /agent, then the user's rules.
func build1833(user ...opencode.Rule) opencode.Ruleset {
	r := opencode.Ruleset{
		{Permission: "*", Pattern: "*", Action: "allow"},
		{Permission: "doom_loop", Pattern: "*", Action: "ask"},
		{Permission: "external_directory", Pattern: "*", Action: "ask"},
		{Permission: "external_directory", Pattern: "/tmp/oc/data/opencode/tool-output/*", Action: "allow"},
		{Permission: "read", Pattern: "*", Action: "allow"},
		{Permission: "read", Pattern: "*.env", Action: "ask"},
	}
	return append(r, user...)
}

func TestRulesetEvaluate(t *testing.T) {
	const old, glob = opencode.Wildcards11833, opencode.WildcardsGlob
	for _, tc := range []struct {
		name                string
		rules               opencode.Ruleset
		permission, pattern string
		old, glob, both     string
	}{
		{"default edit", build1833(), "edit", ".git/config", "allow", "ask", "allow"},
		{"default edit at the top", build1833(), "edit", "README", "allow", "allow", "allow"},
		{"edit ask", build1833(opencode.Rule{Permission: "edit", Pattern: "*", Action: "ask"}), "edit", ".git/config", "ask", "ask", "ask"},
		{"edit deny", build1833(opencode.Rule{Permission: "edit", Pattern: "*", Action: "deny"}), "edit", "README", "deny", "deny", "deny"},
		{"edit deny, nested", build1833(opencode.Rule{Permission: "edit", Pattern: "*", Action: "deny"}), "edit", "a/b", "deny", "ask", "ask"},
		{"only .git asks", build1833(
			opencode.Rule{Permission: "edit", Pattern: "*", Action: "allow"},
			opencode.Rule{Permission: "edit", Pattern: ".git/*", Action: "ask"},
		), "edit", ".git/config", "ask", "ask", "ask"},
		{"only .git asks, a hook", build1833(
			opencode.Rule{Permission: "edit", Pattern: "*", Action: "allow"},
			opencode.Rule{Permission: "edit", Pattern: ".git/*", Action: "ask"},
		), "edit", ".git/hooks/post-index-change", "ask", "ask", "ask"},
		{"only .git asks, a .gitignore", build1833(
			opencode.Rule{Permission: "edit", Pattern: "*", Action: "allow"},
			opencode.Rule{Permission: "edit", Pattern: ".git/*", Action: "ask"},
		), "edit", ".gitignore", "allow", "allow", "allow"},
		{"glob allow of everything", build1833(opencode.Rule{Permission: "edit", Pattern: "**", Action: "allow"}), "edit", ".git/config", "allow", "allow", "allow"},
		{"a later allow wins", build1833(
			opencode.Rule{Permission: "edit", Pattern: "*", Action: "ask"},
			opencode.Rule{Permission: "edit", Pattern: ".git/config", Action: "allow"},
		), "edit", ".git/config", "allow", "allow", "allow"},
		{"external directory", build1833(), "external_directory", "/home/me/*", "ask", "ask", "ask"},
		{"external directory allowed", build1833(opencode.Rule{Permission: "external_directory", Pattern: "/home/me/*", Action: "allow"}), "external_directory", "/home/me/*", "allow", "allow", "allow"},
		{"bash ask", build1833(opencode.Rule{Permission: "bash", Pattern: "*", Action: "ask"}), "bash", "ls -la", "ask", "ask", "ask"},
		{"no rules", nil, "edit", "x", "ask", "ask", "ask"},
		{"unknown action", opencode.Ruleset{{Permission: "edit", Pattern: "*", Action: "maybe"}}, "edit", "x", "maybe", "maybe", "allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rules.EvaluateAs(old, tc.permission, tc.pattern); got != tc.old {
				t.Errorf("1.18.33: %s %q = %s, want %s", tc.permission, tc.pattern, got, tc.old)
			}
			if got := tc.rules.EvaluateAs(glob, tc.permission, tc.pattern); got != tc.glob {
				t.Errorf("glob: %s %q = %s, want %s", tc.permission, tc.pattern, got, tc.glob)
			}
			if got := tc.rules.Evaluate(tc.permission, tc.pattern); got != tc.both {
				t.Errorf("both: %s %q = %s, want %s", tc.permission, tc.pattern, got, tc.both)
			}
		})
	}
}

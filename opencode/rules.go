package opencode

import (
	"regexp"
	"strings"
)

// The actions of a permission rule.
const (
	ActionAllow = "allow"
	ActionAsk   = "ask"
	ActionDeny  = "deny"
)

// Rule is one permission rule as opencode evaluates it: for permission
// (a tool: "edit", "bash", "external_directory", or "*"), the resources
// matching Pattern get Action.
type Rule struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern"`
	Action     string `json:"action"`
}

// Ruleset is a list of rules; the last one that matches decides.
type Ruleset []Rule

// Wildcards names a way opencode matches a rule's pattern.
type Wildcards int

const (
	// Wildcards11833 is opencode 1.18.33's: "*" matches any text, "/"
	// included, "?" any one character, and a pattern ending in " *" also
	// matches without that part.
	Wildcards11833 Wildcards = iota + 1
	// WildcardsGlob is newer releases': "*" and "?" stop at "/", "**"
	// crosses it, and "**/" matches no folder or any.
	WildcardsGlob
)

// EvaluateAs returns the action opencode takes for permission on
// pattern under rulesets r, read with wildcards w: that of the last rule
// matching both, else "ask", as opencode's evaluate does.
func (r Ruleset) EvaluateAs(w Wildcards, permission, pattern string) string {
	for i := len(r) - 1; i >= 0; i-- {
		if WildcardMatch(w, permission, r[i].Permission) && WildcardMatch(w, pattern, r[i].Pattern) {
			return r[i].Action
		}
	}
	return ActionAsk
}

// Evaluate returns the most permissive action r gives permission on
// pattern under either reading of wildcards: "allow" when one allows (or
// gives an action it does not know), "ask" when one asks, else "deny".
// Callers that need a person to be asked rely on it failing closed
// whichever release reads the rules.
func (r Ruleset) Evaluate(permission, pattern string) string {
	out := ActionDeny
	for _, w := range []Wildcards{Wildcards11833, WildcardsGlob} {
		switch r.EvaluateAs(w, permission, pattern) {
		case ActionDeny:
		case ActionAsk:
			out = ActionAsk
		default:
			return ActionAllow
		}
	}
	return out
}

// WildcardMatch reports whether s matches pattern under wildcards w.
// Backslashes in either count as "/"; the match is anchored.
func WildcardMatch(w Wildcards, s, pattern string) bool {
	s = strings.ReplaceAll(s, `\`, "/")
	pattern = strings.ReplaceAll(pattern, `\`, "/")
	var b strings.Builder
	b.WriteString("(?s)^")
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && w == WildcardsGlob && strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString("(?:.+/)?")
			i += 2
		case c == '*' && w == WildcardsGlob && strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*' && w == WildcardsGlob:
			b.WriteString("[^/]*")
		case c == '*':
			b.WriteString(".*")
		case c == '?' && w == WildcardsGlob:
			b.WriteString("[^/]")
		case c == '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	expr := b.String()
	// A trailing " *" is optional: "ls *" matches "ls" too.
	for _, tail := range []string{" .*", " [^/]*"} {
		if strings.HasSuffix(expr, tail) {
			expr = strings.TrimSuffix(expr, tail) + "(?: " + tail[1:] + ")?"
			break
		}
	}
	re, err := regexp.Compile(expr + "$")
	if err != nil {
		return false // cannot happen: every byte is quoted or a fixed piece
	}
	return re.MatchString(s)
}

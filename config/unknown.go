package config

import (
	"slices"
	"strings"
)

// Unknown is a variable named like a setting that is none: usually a
// misspelling, which Load would otherwise ignore without a word.
type Unknown struct {
	Key     string // as written
	From    string // "env-file" or "environment"
	Suggest string // the setting it is probably meant to be; "" when none is close
}

// String says what is wrong in one phrase, for a log line or a report.
func (u Unknown) String() string {
	s := u.Key + " in the " + u.From + " is not a setting, so it is ignored"
	if u.Suggest != "" {
		s += "; did you mean " + u.Suggest + "?"
	}
	return s
}

// UnknownKeys lists the variables of envFile with a prefix of a setting
// (HERMES_, TELEGRAM_, OPENCODE_, MATRIX_) that are not settings, and those of
// environ, KEY=VALUE pairs, with the prefix HERMES_ only: the env-file is
// hermes-bot's own, while the environment is shared with other programs,
// opencode among them, whose OPENCODE_ variables (and other Telegram
// tools' TELEGRAM_ ones) are none of hermes-bot's business. Keys are
// compared ignoring case, so a lower-case key is reported with the setting
// it spells. The result is sorted by key; a key in both places is
// reported once, from the env-file.
//
// servers are the server names OPENCODE_URL gives (ServerNames): their
// OPENCODE_SERVER_USERNAME_<NAME> and OPENCODE_SERVER_PASSWORD_<NAME> are
// settings, while those of any other name are reported like a misspelled
// key, as their values would be ignored just the same.
func UnknownKeys(envFile map[string]string, environ []string, servers ...string) []Unknown {
	candidates := settingNames(servers)
	// Not settings, but the tests' own variables, which may well be in a
	// developer's environment.
	notSettings := map[string]bool{"HERMES_E2E": true, "HERMES_CACHE_DIR": true}
	var out []Unknown
	seen := make(map[string]bool)
	add := func(key, from string, prefixes ...string) {
		up := strings.ToUpper(key)
		_, mistake := mistakes[up]
		hasPrefix := func(p string) bool { return strings.HasPrefix(up, p) }
		skip := seen[key] || slices.Contains(candidates, key) || notSettings[up]
		if skip || !mistake && !slices.ContainsFunc(prefixes, hasPrefix) {
			return
		}
		seen[key] = true
		suggest := mistakes[up]
		if !mistake {
			suggest = closestSetting(up, candidates)
		}
		out = append(out, Unknown{Key: key, From: from, Suggest: suggest})
	}
	for key := range envFile {
		add(key, "env-file", "HERMES_", "TELEGRAM_", "OPENCODE_", "MATRIX_")
	}
	for _, kv := range environ {
		key, _, _ := strings.Cut(kv, "=")
		add(key, "environment", "HERMES_")
	}
	slices.SortFunc(out, func(a, b Unknown) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// mistakes are names often written for a setting, too far from it to be
// guessed; opencode reads none of them, so they are reported from the
// environment too.
var mistakes = map[string]string{
	"OPENCODE_PASSWORD": "OPENCODE_SERVER_PASSWORD",
	"OPENCODE_USERNAME": "OPENCODE_SERVER_USERNAME",
}

// settingNames lists every setting's variable, with the per-server
// credentials of the named servers.
func settingNames(servers []string) []string {
	var names []string
	for _, s := range Settings() {
		names = append(names, s.Env)
	}
	for _, name := range servers {
		if name == "" {
			continue
		}
		s := Server{Name: name}
		names = append(names, s.UsernameVar(), s.PasswordVar())
	}
	return names
}

// closestSetting returns the name among candidates nearest to key, an
// upper-case name, if it is within a few typos of it.
func closestSetting(key string, candidates []string) string {
	const maxTypos = 3
	best, bestDist := "", maxTypos+1
	for _, name := range candidates {
		if d := editDistance(key, name); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (setting names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

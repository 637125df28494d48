package risk

import (
	"encoding/json"
	"slices"
	"strings"
)

// isFD reports whether s names a file descriptor in a redirect (2>&1,
// <&-): digits, or - for closing one.
func isFD(s string) bool {
	return s == "-" || s != "" && strings.Trim(s, "0123456789") == ""
}

func isNumber(w string) bool { return w != "-" && isFD(w) }

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// commandName is a command word without its folder or a leading
// backslash (which only skips aliases).
func commandName(w string) string {
	w = strings.TrimPrefix(w, `\`)
	if i := strings.LastIndexAny(w, `/\`); i >= 0 && i < len(w)-1 {
		w = w[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(w), ".exe")
}

// skipFlags drops leading options (and the values of those in valued)
// and a "--" that ends them.
func skipFlags(args []string, valued map[string]bool) []string {
	for len(args) > 0 {
		w := args[0]
		if w == "--" {
			return args[1:]
		}
		if !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+") || w == "-" {
			return args
		}
		args = args[1:]
		if valued[w] && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}

// operandsOf returns the arguments that are not options.
func operandsOf(args []string) []string {
	isOption := func(w string) bool { return strings.HasPrefix(w, "-") && w != "-" }
	return slices.DeleteFunc(slices.Clone(args), isOption)
}

func setOf(ss ...string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// quote quotes s folded into one line of single-spaced words.
func quote(s string) string { return "“" + strings.Join(strings.Fields(s), " ") + "”" }

func nonEmpty(ss ...string) []string {
	return slices.DeleteFunc(ss, func(s string) bool { return strings.TrimSpace(s) == "" })
}

// listSuffix is " (a, b, …)" for up to three items, or nothing.
func listSuffix(items []string) string {
	items = nonEmpty(items...)
	if len(items) == 0 {
		return ""
	}
	more := ""
	if len(items) > 3 {
		more = ", …"
		items = items[:3]
	}
	return " (" + strings.Join(items, ", ") + more + ")"
}

// MetaStrings returns the string fields of a permission's metadata (as
// Assess reads them, and as a message shows them); any
// other shape gives an empty map.
func MetaStrings(raw json.RawMessage) map[string]string {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return map[string]string{}
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		}
	}
	return out
}

// MetaPaths returns the file paths a permission's metadata names:
// filepath (edit, write), and the paths of a files list (apply_patch).
func MetaPaths(raw json.RawMessage) []string {
	var out []string
	m := MetaStrings(raw)
	for _, k := range []string{"filepath", "filePath", "path", "file"} {
		if m[k] != "" {
			out = append(out, m[k])
		}
	}
	var withFiles struct {
		Files []map[string]json.RawMessage `json:"files"`
	}
	if json.Unmarshal(raw, &withFiles) == nil {
		for _, f := range withFiles.Files {
			for _, k := range []string{"filePath", "filepath", "path", "file"} {
				var s string
				if v, ok := f[k]; ok && json.Unmarshal(v, &s) == nil && s != "" && !slices.Contains(out, s) {
					out = append(out, s)
					break
				}
			}
		}
	}
	return out
}

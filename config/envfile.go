package config

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadEnvFile reads KEY=VALUE lines in the format systemd's EnvironmentFile
// accepts: blank lines and lines starting with # or ; are skipped, the value
// may be wrapped in single or double quotes, and a trailing backslash joins
// the next line. Errors name the line, never its value.
func ReadEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read env-file: %w", err)
	}
	defer f.Close()
	vars, err := ParseEnvFile(f)
	if err != nil {
		return nil, fmt.Errorf("read env-file %s: %w", path, err)
	}
	return vars, nil
}

// ParseEnvFile parses the contents of an env-file; see ReadEnvFile.
func ParseEnvFile(r io.Reader) (map[string]string, error) {
	vars := make(map[string]string)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		start := lineNo
		for strings.HasSuffix(line, `\`) && sc.Scan() {
			lineNo++
			line = strings.TrimSuffix(line, `\`) + sc.Text()
		}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if k, found := strings.CutPrefix(key, "export"); found && ok && k != strings.TrimSpace(k) && validKey(strings.TrimSpace(k)) {
			// A shell script's line; systemd's EnvironmentFile refuses it.
			return nil, fmt.Errorf("line %d: want KEY=VALUE: drop the \"export\" before %s (systemd's EnvironmentFile does not accept it)", start, strings.TrimSpace(k))
		}
		if !ok || !validKey(key) {
			return nil, fmt.Errorf("line %d: want KEY=VALUE", start)
		}
		v, err := unquote(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", start, key, err)
		}
		vars[key] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return vars, nil
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i, c := range k {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func unquote(v string) (string, error) {
	if len(v) < 2 {
		return v, nil
	}
	switch q := v[0]; {
	case q == '\'' && v[len(v)-1] == '\'':
		return v[1 : len(v)-1], nil
	case q == '"' && v[len(v)-1] == '"':
		var b strings.Builder
		in := v[1 : len(v)-1]
		for i := 0; i < len(in); i++ {
			c := in[i]
			if c != '\\' {
				b.WriteByte(c)
				continue
			}
			i++
			if i == len(in) {
				return "", fmt.Errorf("value ends inside an escape")
			}
			switch in[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(in[i])
			}
		}
		return b.String(), nil
	case q == '"' || q == '\'':
		return "", fmt.Errorf("unterminated quote")
	}
	return v, nil
}

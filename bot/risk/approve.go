package risk

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Verdict is Approve's answer: whether a command is proven harmless, and
// if not, the first rule it breaks.
type Verdict struct {
	OK bool
	// Why is the first rule the command breaks, in English; empty when OK.
	Why string
}

// maxApproveInput bounds the commands Approve considers: longer ones are
// asked.
const maxApproveInput = 2000

// maxCommands bounds the commands of one line: cat big && cat big && …
// would print a file hundreds of times in one call.
const maxCommands = 5

// Approve reports whether a shell command may run without asking a
// person: the whole command lies inside the grammar (see grammar.go), run
// in the project directory dir. It is a proof, not a guess: anything it
// cannot show harmless is refused, with the reason.
//
// dir is where the command runs (opencode's project directory), or "" when
// unknown. Every path is followed through symbolic links and must still
// end inside dir, so a command that names a path is approved only when
// dir is on this machine.
func Approve(dir, command string) Verdict {
	cmds, err := lex(command)
	if err == nil && len(cmds) > maxCommands {
		err = refuse("joins %d commands, more than %d", len(cmds), maxCommands)
	}
	if err == nil {
		for _, c := range cmds {
			if err = checkCommand(dir, c); err != nil {
				break
			}
		}
	}
	if err == nil {
		// What the programs read in the project can change what they do.
		_, err = Trust(dir, command)
	}
	if err != nil {
		return Verdict{Why: err.Error()}
	}
	return Verdict{OK: true}
}

// simpleCmd is one command of a pipeline or list: its words, already
// unquoted, and what joins it to the one before.
type simpleCmd struct {
	words []string
	// sep is "" for the first command, else "|" or "&&".
	sep string
	// quiet is set by a trailing 2>/dev/null.
	quiet bool
}

// errRefused is wrapped by every reason Approve refuses a command.
var errRefused = errors.New("not auto-approvable")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errRefused}, args...)...)
}

// safeUnquoted reports the bytes an unquoted word may hold. Everything
// else a shell might treat specially ($ ` \ ; & | < > ( ) { } * ? [ ] ! #
// and whitespace other than the separators) is refused unquoted; ~ and ^
// are handled by the caller.
func safeUnquoted(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("_./,:=+@%-", c) >= 0
}

// lex splits a command into simple commands joined by | and &&, reading
// quotes as a POSIX shell does, and refuses anything else the shell
// would act on.
func lex(src string) ([]simpleCmd, error) {
	if len(src) > maxApproveInput {
		return nil, refuse("longer than %d bytes", maxApproveInput)
	}
	if !utf8.ValidString(src) {
		return nil, refuse("not valid UTF-8")
	}
	if strings.ContainsRune(src, '\\') {
		// Not even quoted: fish reads backslashes inside single quotes.
		return nil, refuse("holds a backslash")
	}
	for _, r := range src {
		if r != ' ' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			return nil, refuse("holds a control character %U", r)
		}
	}
	var (
		cmds   []simpleCmd
		cur    simpleCmd
		word   strings.Builder
		inWord bool
		quoted bool // some part of the word was quoted
		// bare is the word's first character when it was unquoted.
		bare    byte
		tildeAt = -1 // position in the word of an unquoted ~ or ^
		sep     string
	)
	endWord := func() error {
		if !inWord {
			return nil
		}
		w := word.String()
		if tildeAt == 0 || tildeAt > 0 && strings.ContainsAny(w, "=:") {
			return refuse("%q could expand ~ to a home directory", w)
		}
		if bare == '=' || bare == '%' || bare == '@' {
			// zsh expands =cmd to a path; fish 2 expands %name to PIDs;
			// PowerShell splats @name.
			return refuse("%q starts with an unquoted %c", w, bare)
		}
		if cur.quiet {
			return refuse("words after 2>/dev/null")
		}
		cur.words = append(cur.words, w)
		word.Reset()
		inWord, quoted, tildeAt, bare = false, false, -1, 0
		return nil
	}
	endCmd := func(next string) error {
		if err := endWord(); err != nil {
			return err
		}
		if len(cur.words) == 0 {
			return refuse("empty command around %q", strings.TrimSpace(sep+" "+next))
		}
		cur.sep = sep
		cmds = append(cmds, cur)
		cur, sep = simpleCmd{}, next
		return nil
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t':
			if err := endWord(); err != nil {
				return nil, err
			}
			i++
		case c == '|':
			if strings.HasPrefix(src[i:], "||") || strings.HasPrefix(src[i:], "|&") {
				return nil, refuse("%q joins commands", src[i:i+2])
			}
			if err := endCmd("|"); err != nil {
				return nil, err
			}
			i++
		case c == '&':
			if !strings.HasPrefix(src[i:], "&&") {
				return nil, refuse("& runs a command in the background or redirects")
			}
			if err := endCmd("&&"); err != nil {
				return nil, err
			}
			i += 2
		case c == '>' && !quoted && word.String() == "2" && inWord && strings.HasPrefix(src[i:], ">/dev/null") &&
			(i+len(">/dev/null") == len(src) || strings.IndexByte(" \t|&", src[i+len(">/dev/null")]) >= 0):
			word.Reset()
			inWord, tildeAt = false, -1
			cur.quiet = true
			i += len(">/dev/null")
		case c == '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return nil, refuse("unterminated single quote")
			}
			word.WriteString(src[i+1 : i+1+j])
			inWord, quoted = true, true
			i += j + 2
		case c == '"':
			j := strings.IndexByte(src[i+1:], '"')
			if j < 0 {
				return nil, refuse("unterminated double quote")
			}
			body := src[i+1 : i+1+j]
			if k := strings.IndexAny(body, "$`!"); k >= 0 {
				return nil, refuse("%q inside double quotes is expanded by the shell", body[k:k+1])
			}
			word.WriteString(body)
			inWord, quoted = true, true
			i += j + 2
		case c == '~' || c == '^':
			if tildeAt < 0 {
				tildeAt = word.Len()
				if !inWord {
					tildeAt = 0
				}
			}
			word.WriteByte(c)
			inWord = true
			i++
		case safeUnquoted(c):
			if !inWord {
				bare = c
			}
			word.WriteByte(c)
			inWord = true
			i++
		default:
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, refuse("unquoted %q is shell syntax", string(r))
		}
	}
	if err := endCmd(""); err != nil {
		if len(cmds) == 0 && len(cur.words) == 0 && sep == "" {
			return nil, refuse("no command")
		}
		return nil, err
	}
	return cmds, nil
}

// checkCommand checks one simple command against the grammar.
func checkCommand(dir string, c simpleCmd) error {
	name, args := c.words[0], c.words[1:]
	piped := c.sep == "|"
	p, ok := grammarTable()[name]
	if !ok {
		if strings.ContainsAny(name, `/\`) {
			return refuse("program %q is given by path", name)
		}
		return refuse("program %q is not in the grammar", name)
	}
	if p.subs == nil {
		return checkArgs(dir, name, p.spec, args, piped)
	}
	// Options before the subcommand, then the subcommand.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if _, ok := p.global[args[0]]; !ok {
			if len(args) == 1 && p.bare {
				return checkArgs(dir, name, p.spec, args, piped)
			}
			return refuse("%s option %q is not in the grammar", name, args[0])
		}
		args = args[1:]
	}
	if len(args) == 0 {
		if p.bare {
			return nil
		}
		return refuse("%s without a subcommand", name)
	}
	sub, ok := p.subs[args[0]]
	if !ok {
		return refuse("%s %s is not in the grammar", name, quoteWord(args[0]))
	}
	return checkArgs(dir, name+" "+args[0], sub, args[1:], piped)
}

// checkArgs checks the options and operands of a program (or
// subcommand) named name against s; piped is set when the previous
// command's output is its standard input.
func checkArgs(dir, name string, s spec, args []string, piped bool) error {
	var operands, patterns []string
	named := map[string]bool{} // paths, cleaned: each once
	dashdash := -1             // index in operands where "--" came
	leadDropped, fixed := false, false
	// seen notes an option that changes how the rest is read.
	seen := func(name string) {
		leadDropped = leadDropped || slices.Contains(s.leadDroppedBy, name)
		fixed = fixed || slices.Contains(s.fixedBy, name)
	}
	takeValue := func(o opt, label, v string, attachedForm bool) error {
		if !attachedForm && o.attached {
			return refuse("%s %s needs its value attached", name, label)
		}
		if o.kind == argPath {
			return checkPath(dir, v, s.filesOnly)
		}
		if o.kind == argPattern {
			patterns = append(patterns, v) // checked once every option is known
			return nil
		}
		if !checkKind(o.kind, o, v) {
			return refuse("%s %s: value %s is not allowed", name, label, quoteWord(v))
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case dashdash >= 0 || w == "-" || !strings.HasPrefix(w, "-"):
			operands = append(operands, w)
		case w == "--":
			dashdash = len(operands)
		case s.numericShort && len(w) > 1 && kindREs()[argNumber].MatchString(w):
			// head -20, git log -3
		case strings.HasPrefix(w, "--"):
			if o, ok := s.opts[w]; ok && o.kind == argNone {
				seen(w)
				break
			}
			n, v, hasValue := strings.Cut(w, "=")
			o, ok := s.opts[n]
			switch {
			case !ok:
				return refuse("%s option %s is not in the grammar", name, quoteWord(n))
			case o.kind == argNone && hasValue:
				return refuse("%s option %s takes no value", name, n)
			case o.kind == argNone:
			case hasValue:
				if err := takeValue(o, n, v, true); err != nil {
					return err
				}
			case i+1 < len(args):
				i++
				if err := takeValue(o, n, args[i], false); err != nil {
					return err
				}
			default:
				return refuse("%s option %s lacks its value", name, n)
			}
			seen(n)
		default:
			if o, ok := s.opts[w]; ok && o.kind == argNone {
				seen(w)
				break
			}
			// Combined short options: each letter listed; a letter that
			// takes a value takes the rest of the word, or the next word.
			letters := w[1:]
			for j := 0; j < len(letters); j++ {
				f := "-" + letters[j:j+1]
				o, ok := s.opts[f]
				if !ok {
					return refuse("%s option %s is not in the grammar", name, quoteWord(f))
				}
				seen(f)
				if o.kind == argNone {
					continue
				}
				var err error
				switch {
				case j+1 < len(letters):
					err = takeValue(o, f, letters[j+1:], true)
				case i+1 < len(args):
					i++
					err = takeValue(o, f, args[i], false)
				default:
					err = refuse("%s option %s lacks its value", name, f)
				}
				if err != nil {
					return err
				}
				break
			}
		}
	}
	if s.max >= 0 && len(operands) > s.max {
		return refuse("%s takes at most %d operands", name, s.max)
	}
	lead := s.lead
	if leadDropped {
		lead = nil
	}
	// Standard input is only read from a pipe: otherwise it is whatever
	// opencode left open, which may never end.
	if !piped && (s.stdin == stdinAlways || s.stdin == stdinWithoutOperands &&
		(len(operands) <= len(lead) || slices.Contains(operands[len(lead):], "-"))) {
		return refuse("%s would read standard input, and nothing is piped to it", name)
	}
	for k, w := range operands {
		kind := s.rest
		if k < len(lead) {
			kind = lead[k]
		}
		if s.revsThenPaths && k >= len(lead) && (dashdash < 0 || k < dashdash) {
			if isRev(w) {
				continue // a revision before "--"
			}
			if namesStash(w) {
				return refuse("%s operand %s could name the stash", name, quoteWord(w))
			}
		}
		if kind == argPattern {
			patterns = append(patterns, w)
			continue
		}
		if kind == argPath && w == "-" && s.stdin != stdinNone {
			continue // standard input, from a pipe as checked above
		}
		if kind == argPath {
			if err := checkPath(dir, w, s.filesOnly); err != nil {
				return err
			}
			if named[path.Clean(w)] {
				return refuse("%s names %s twice, which prints it twice", name, quoteWord(w))
			}
			named[path.Clean(w)] = true
			continue
		}
		if kind == argNone || !checkKind(kind, opt{}, w) {
			return refuse("%s operand %s is not allowed", name, quoteWord(w))
		}
	}
	for _, p := range patterns {
		if !fixed && !checkKind(argPattern, opt{}, p) {
			return refuse("%s pattern %s has regular expression or wildcard characters (give -F for a literal)", name, quoteWord(p))
		}
	}
	return nil
}

// checkPath checks a path operand: relative, inside the project once
// cleaned, no hidden component, no secret name, no wildcard; and still
// inside the project (dir, on this machine) with symbolic links followed,
// at a file of a kind checkFileKind allows.
func checkPath(dir, p string, filesOnly bool) error {
	switch {
	case p == "":
		return refuse("empty path")
	case strings.HasPrefix(p, "+"):
		// tail +5f follows a file forever; sort +1 and uniq +1 are keys.
		return refuse("path %s starts with +, which may be read as an obsolete option", quoteWord(p))
	case p == "-":
		return refuse("%q is standard input, which this program does not read from a pipe", p)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return refuse("absolute path %s", quoteWord(p))
	case strings.ContainsAny(p, "~^*?[]{}\\:"):
		// ":" also keeps out git's REV:PATH and pathspec magic; "~" and
		// "^" are wildcards in zsh with EXTENDED_GLOB.
		return refuse("path %s holds ~, ^, :, a wildcard or a backslash", quoteWord(p))
	}
	if hasHiddenOrSecret(p) {
		return refuse("path %s is hidden, leaves the project or may hold a secret", quoteWord(p))
	}
	// A path is proven inside only by following it: a link in the
	// project (a cloned repository can hold one) may lead anywhere.
	if dir == "" {
		return refuse("path %s: the project directory is unknown", quoteWord(p))
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return refuse("path %s: the project is not on this machine, so its links cannot be followed", quoteWord(p))
	}
	// Follow the longest prefix that exists; what does not exist yet
	// cannot be read.
	full := filepath.Join(root, filepath.FromSlash(path.Clean(p)))
	for q := full; ; q = filepath.Dir(q) {
		if real, err := filepath.EvalSymlinks(q); err == nil {
			rel, ok := within(root, real)
			if !ok {
				return refuse("path %s leads outside the project through a symbolic link", quoteWord(p))
			}
			if rel != "." && hasHiddenOrSecret(filepath.ToSlash(rel)) {
				return refuse("path %s leads to a hidden or secret file through a symbolic link", quoteWord(p))
			}
			if q == full {
				return checkFileKind(p, real, filesOnly)
			}
			return nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return refuse("path %s cannot be followed: %w", quoteWord(p), err)
		}
		if q == root || filepath.Dir(q) == q {
			return nil
		}
	}
}

// checkFileKind refuses a FIFO or a device, which may never end, and a
// folder when filesOnly is set (diff compares hidden files inside).
func checkFileKind(p, real string, filesOnly bool) error {
	info, err := os.Stat(real)
	switch {
	case err != nil:
		return refuse("path %s cannot be examined: %w", quoteWord(p), err)
	case info.IsDir() && filesOnly:
		return refuse("path %s is a folder, and only files may be compared", quoteWord(p))
	case !info.Mode().IsRegular() && !info.IsDir():
		return refuse("path %s is neither a regular file nor a folder (%v)", quoteWord(p), info.Mode().Type())
	}
	return nil
}

// hasHiddenOrSecret reports a path with a component starting with "."
// (other than "." itself: so no "..", no .env, no .git) or matching a
// secret name.
func hasHiddenOrSecret(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		if strings.HasPrefix(c, ".") {
			return true
		}
		lc := strings.ToLower(c)
		for _, pat := range secretNames {
			if ok, _ := path.Match(pat, lc); ok {
				return true
			}
		}
	}
	return false
}

func quoteWord(w string) string {
	if len(w) > 40 {
		w = w[:40] + "…"
	}
	return fmt.Sprintf("%q", w)
}

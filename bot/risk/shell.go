package risk

import (
	"slices"
	"strings"
)

// shellScript is a command line read the way a POSIX shell would split
// it, far enough to judge its risk: simple commands, what joins them,
// redirections, and the text of every command substitution. It is not a
// full shell parser; where it cannot follow the text it says so (broken)
// rather than guess low.
type shellScript struct {
	commands []shellCommand
	// subst holds the text of every $(…), `…`, <(…) and >(…).
	subst      []string
	background bool
	subshell   bool
	broken     bool
}

// shellCommand is one simple command.
type shellCommand struct {
	words     []string
	redirects []shellRedirect
	// pipedFrom is set when the command reads a pipe.
	pipedFrom bool
	// heredocs holds the bodies of the here-documents it reads.
	heredocs []string
}

type shellRedirect struct {
	op, target string
}

func (s shellScript) chained() bool {
	rest := s.commands[min(1, len(s.commands)):]
	return slices.ContainsFunc(rest, func(c shellCommand) bool { return !c.pipedFrom })
}

func (s shellScript) piped() bool {
	return slices.ContainsFunc(s.commands, func(c shellCommand) bool { return c.pipedFrom })
}

// substMark stands in a word for a command substitution's output. It is
// not shell syntax, so reading the word again finds no substitution.
const substMark = "⟨…⟩"

// maxShellInput bounds the text parsed; anything longer is judged on its
// first part and reported broken.
const maxShellInput = 64 << 10

func parseShell(src string) shellScript {
	p := &shellParser{src: src}
	if len(src) > maxShellInput {
		p.src = src[:maxShellInput]
		p.out.broken = true
	}
	p.run()
	return p.out
}

type shellParser struct {
	src  string
	i    int
	out  shellScript
	cur  shellCommand
	word strings.Builder
	// inWord is set once the current word has begun, even if it is still
	// empty (as after "").
	inWord bool
	// redir is the redirection operator waiting for its target word.
	redir string
	// nextSep is the operator that ended the previous command.
	nextSep string
	// heredocs wait for the end of the line to read their bodies.
	heredocs []pendingHeredoc
}

type pendingHeredoc struct {
	delim string
	strip bool // <<- strips leading tabs
	cmd   int  // index in out.commands
}

func (p *shellParser) run() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case ' ', '\t', '\r':
			p.endWord()
			p.i++
		case '\n':
			p.endCommand("\n")
			p.i++
			p.readHeredocs()
		case ';':
			p.endCommand(";")
			p.i++
			if p.peek(0) == ';' || p.peek(0) == '&' { // ;; and ;& of case
				p.i++
			}
		case '&':
			switch p.peek(1) {
			case '&':
				p.endCommand("&&")
				p.i += 2
			case '>':
				p.endWord()
				p.i += 2
				op := "&>"
				if p.peek(0) == '>' {
					op = "&>>"
					p.i++
				}
				p.setRedir(op)
			default:
				p.endCommand("&")
				p.i++
			}
		case '|':
			switch p.peek(1) {
			case '|', '&':
				p.endCommand(p.src[p.i : p.i+2])
				p.i += 2
			default:
				p.endCommand("|")
				p.i++
			}
		case '<', '>':
			p.redirection()
		case '(':
			if p.inWord && p.peek(1) == ')' {
				// name() starts a function definition; the body follows.
				p.endWord()
				p.i += 2
				continue
			}
			p.endCommand("")
			p.out.subshell = true
			p.i++
		case ')':
			p.endCommand("")
			p.i++
		case '#':
			if p.inWord {
				p.word.WriteByte(c)
				p.i++
				continue
			}
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case '\\':
			if p.peek(1) == '\n' {
				p.i += 2
				continue
			}
			p.inWord = true
			if p.i+1 < len(p.src) {
				p.word.WriteByte(p.src[p.i+1])
			}
			p.i += 2
		case '\'':
			p.inWord = true
			body, rest, ok := strings.Cut(p.src[p.i+1:], "'")
			if !ok {
				p.out.broken = true
			}
			p.word.WriteString(body)
			p.i = len(p.src) - len(rest)
		case '"':
			p.inWord = true
			p.i++
			p.doubleQuoted()
		case '`':
			p.inWord = true
			p.i++
			p.backticks()
		case '$':
			p.inWord = true
			p.dollar()
		default:
			p.inWord = true
			p.word.WriteByte(c)
			p.i++
		}
	}
	p.endCommand("") // reports a redirection left without its target
	if len(p.heredocs) > 0 {
		p.out.broken = true // here-document without a body
	}
}

func (p *shellParser) peek(off int) byte {
	if p.i+off < len(p.src) {
		return p.src[p.i+off]
	}
	return 0
}

// endWord ends the current word: it becomes a redirection's target or the
// command's next word.
func (p *shellParser) endWord() {
	if !p.inWord {
		return
	}
	w := p.word.String()
	p.word.Reset()
	p.inWord = false
	if p.redir != "" {
		p.cur.redirects = append(p.cur.redirects, shellRedirect{op: p.redir, target: w})
		if p.redir == "<<" || p.redir == "<<-" {
			p.heredocs = append(p.heredocs, pendingHeredoc{delim: w, strip: p.redir == "<<-", cmd: len(p.out.commands)})
		}
		p.redir = ""
		return
	}
	p.cur.words = append(p.cur.words, w)
}

// endCommand ends the current simple command; sep is the operator that
// ended it, which the next command carries.
func (p *shellParser) endCommand(sep string) {
	p.endWord()
	if p.redir != "" {
		p.out.broken = true
		p.redir = ""
	}
	if len(p.cur.words) > 0 || len(p.cur.redirects) > 0 {
		p.cur.pipedFrom = p.nextSep == "|" || p.nextSep == "|&"
		p.out.commands = append(p.out.commands, p.cur)
		p.cur = shellCommand{}
		p.nextSep = sep
	} else if sep != "" && sep != "\n" {
		// An operator with no command before it: keep the stronger one,
		// so "a |\n b" still pipes.
		if p.nextSep == "" || p.nextSep == "\n" {
			p.nextSep = sep
		}
	}
	if sep == "&" {
		p.out.background = true
	}
}

func (p *shellParser) setRedir(op string) {
	if p.redir != "" {
		p.out.broken = true
	}
	p.redir = op
}

// redirection reads <, >, and their variants at p.i. A word made only of
// digits just before it is the file descriptor, not an argument.
func (p *shellParser) redirection() {
	if (p.peek(0) == '<' || p.peek(0) == '>') && p.peek(1) == '(' {
		// Process substitution: <(cmd) stands for a file name.
		p.inWord = true
		p.i += 2
		p.out.subst = append(p.out.subst, p.balanced())
		p.word.WriteString("<(" + substMark + ")")
		return
	}
	if p.inWord && isFD(p.word.String()) && p.word.Len() > 0 {
		p.word.Reset()
		p.inWord = false
	} else {
		p.endWord()
	}
	c := p.src[p.i]
	p.i++
	op := string(c)
	switch {
	case c == '>' && (p.peek(0) == '>' || p.peek(0) == '|' || p.peek(0) == '&'):
		op += string(p.peek(0))
		p.i++
	case c == '<' && p.peek(0) == '<':
		p.i++
		op = "<<"
		switch p.peek(0) {
		case '<':
			op = "<<<"
			p.i++
		case '-':
			op = "<<-"
			p.i++
		}
	case c == '<' && (p.peek(0) == '&' || p.peek(0) == '>'):
		op += string(p.peek(0))
		p.i++
	}
	if op == ">>" || op == ">|" {
		op = ">"
	}
	p.setRedir(op)
}

// doubleQuoted reads a "…" string from just after its opening quote.
func (p *shellParser) doubleQuoted() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '"':
			p.i++
			return
		case '\\':
			if n := p.peek(1); n == '"' || n == '\\' || n == '$' || n == '`' {
				p.word.WriteByte(n)
				p.i += 2
				continue
			}
			if p.peek(1) == '\n' {
				p.i += 2
				continue
			}
			p.word.WriteByte(c)
			p.i++
		case '`':
			p.i++
			p.backticks()
		case '$':
			p.dollar()
		default:
			p.word.WriteByte(c)
			p.i++
		}
	}
	p.out.broken = true
}

// backticks reads `…` from just after its opening backtick.
func (p *shellParser) backticks() {
	var b strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '\\' && p.i+1 < len(p.src) {
			b.WriteByte(p.src[p.i+1])
			p.i += 2
			continue
		}
		if c == '`' {
			p.i++
			p.out.subst = append(p.out.subst, b.String())
			p.word.WriteString(substMark)
			return
		}
		b.WriteByte(c)
		p.i++
	}
	p.out.broken = true
	p.out.subst = append(p.out.subst, b.String())
}

// dollar reads what starts with $ at p.i: $(…), $((…)), ${…}, $'…' or a
// plain $.
func (p *shellParser) dollar() {
	switch p.peek(1) {
	case '(':
		if p.peek(2) == '(' {
			// Arithmetic: no command runs in it, unless it nests one.
			p.i += 3
			inner := p.balanced()
			if p.peek(0) == ')' {
				p.i++
			}
			if strings.Contains(inner, "$(") || strings.Contains(inner, "`") {
				p.out.subst = append(p.out.subst, inner)
			}
			p.word.WriteString("$((…))")
			return
		}
		p.i += 2
		p.out.subst = append(p.out.subst, p.balanced())
		p.word.WriteString(substMark)
	case '{':
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			p.out.broken = true
			p.word.WriteString(p.src[p.i:])
			p.i = len(p.src)
			return
		}
		inner := p.src[p.i : p.i+end+1]
		if strings.Contains(inner, "$(") || strings.Contains(inner, "`") {
			p.out.subst = append(p.out.subst, inner[2:len(inner)-1])
		}
		p.word.WriteString(inner)
		p.i += end + 1
	case '\'':
		p.i += 2
		for p.i < len(p.src) {
			c := p.src[p.i]
			if c == '\\' && p.i+1 < len(p.src) {
				p.word.WriteByte(p.src[p.i+1])
				p.i += 2
				continue
			}
			p.i++
			if c == '\'' {
				return
			}
			p.word.WriteByte(c)
		}
		p.out.broken = true
	default:
		p.word.WriteByte('$')
		p.i++
	}
}

// balanced reads up to the ")" that closes a "(" just before p.i, minding
// quotes and nesting, and returns what is between them.
func (p *shellParser) balanced() string {
	start, depth := p.i, 1
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '\\':
			p.i += 2
			continue
		case '\'':
			_, rest, _ := strings.Cut(p.src[p.i+1:], "'")
			p.i = len(p.src) - len(rest)
			continue
		case '"':
			p.i++
			for p.i < len(p.src) && p.src[p.i] != '"' {
				if p.src[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				inner := p.src[start:p.i]
				p.i++
				return inner
			}
		}
		p.i++
	}
	p.out.broken = true
	p.i = min(p.i, len(p.src))
	return p.src[start:]
}

// readHeredocs reads the bodies of the here-documents started on the
// line just ended, from p.i.
func (p *shellParser) readHeredocs() {
	for len(p.heredocs) > 0 {
		h := p.heredocs[0]
		p.heredocs = p.heredocs[1:]
		var body strings.Builder
		found := false
		for p.i < len(p.src) {
			line, rest, _ := strings.Cut(p.src[p.i:], "\n")
			p.i = len(p.src) - len(rest)
			check := line
			if h.strip {
				check = strings.TrimLeft(line, "\t")
			}
			if strings.TrimRight(check, "\r") == h.delim {
				found = true
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		if !found {
			p.out.broken = true
		}
		if h.cmd < len(p.out.commands) {
			p.out.commands[h.cmd].heredocs = append(p.out.commands[h.cmd].heredocs, body.String())
		}
	}
}

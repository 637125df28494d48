package risk

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// tableEntry is one line of testdata/commands.tsv.
type tableEntry struct {
	approve bool
	class   string
	command string
	// reason says why the decision is right; optional, but every line of
	// class cost has one.
	reason string
	line   int
}

// readTable reads the command table; it fails the test on a malformed
// line, so a typo cannot drop an entry silently.
func readTable(t testing.TB) []tableEntry {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "commands.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tableEntry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		parts := strings.Split(l, "\t")
		if len(parts) < 3 || len(parts) > 4 || (parts[0] != "approve" && parts[0] != "ask") {
			t.Fatalf("commands.tsv:%d: want DECISION<TAB>CLASS<TAB>COMMAND[<TAB>REASON], got %q", n, l)
		}
		e := tableEntry{approve: parts[0] == "approve", class: parts[1], command: parts[2], line: n}
		if len(parts) == 4 {
			if e.reason = strings.TrimSpace(parts[3]); e.reason == "" {
				t.Fatalf("commands.tsv:%d: an empty reason column", n)
			}
		}
		if e.class == "cost" && e.reason == "" {
			t.Fatalf("commands.tsv:%d: a cost line without a reason", n)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// More hostile input than a line-based table can hold.
var hostileInline = []string{
	"ls\ntouch x", "ls\rtouch x", "ls\x00", "ls\x1b[2K", "echo 'a\nb'", "ls\x7f", "\xff\xfe",
	"ls \u202e", "echo \u200b", "ls\t-la\u2028", strings.Repeat("ls ", 700), "", " ", "\t",
}

func TestApproveTable(t *testing.T) {
	table := readTable(t)
	classes, lines := map[string]int{}, map[string]int{}
	for _, e := range table {
		classes[e.class]++
		// The bridge shows identical requests once: one line each.
		if l, ok := lines[e.command]; ok {
			t.Errorf("commands.tsv:%d repeats line %d: %q", e.line, l, e.command)
		}
		lines[e.command] = e.line
	}
	if len(table) < 300 {
		t.Errorf("the table has %d commands, want at least 300", len(table))
	}
	for _, c := range []string{"read", "exec", "secret", "write", "network", "outside", "syntax", "cost"} {
		if classes[c] < 10 {
			t.Errorf("class %q has %d commands, want at least 10", c, classes[c])
		}
	}
	// A repository, since what git reads there decides whether it runs.
	dir := newRepo(t, plainEnv(t))
	for _, e := range table {
		v := Approve(dir, e.command)
		if v.OK != e.approve {
			t.Errorf("commands.tsv:%d %s %q: approved=%v (%s), want %v", e.line, e.class, e.command, v.OK, v.Why, e.approve)
		}
		if !v.OK && v.Why == "" {
			t.Errorf("commands.tsv:%d %q: refused without a reason", e.line, e.command)
		}
		// The label a person sees is the same decision.
		a := Assess(dir, "bash", []string{e.command}, bashMeta(e.command))
		if (a.Level == Low) != v.OK {
			t.Errorf("commands.tsv:%d %q: labelled %v but approved=%v", e.line, e.command, a.Level, v.OK)
		}
	}
	for _, c := range hostileInline {
		if v := Approve(dir, c); v.OK {
			t.Errorf("%q approved", c)
		}
	}
}

// gitProject is an empty project at the top of its own repository, as
// git init leaves it (without running git): the table's git commands are
// approved only there.
func gitProject(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{".git/objects", ".git/refs/heads"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\tbare = false\n"}
	for f, body := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// What a path names decides too: a FIFO waits forever, and diff of a
// folder compares the hidden files inside.
func TestApproveFileKinds(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"src", "docs", "pair/a", "pair/b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"pair/a/same.txt", "pair/b/same.txt", "pair/a/.secret", "main.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("queue", filepath.Join(dir, "to-queue")); err != nil {
		t.Skipf("symbolic links not available: %v", err)
	}
	if err := mkfifo(filepath.Join(dir, "queue")); err != nil {
		t.Skipf("FIFOs not available: %v", err)
	}
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"cat main.go", true},
		{"ls src", true},
		{"diff pair/a/same.txt pair/b/same.txt", true},
		{"diff main.go missing.go", true},
		{"cat queue", false},
		{"cat to-queue", false},
		{"head -n 1 queue", false},
		{"wc -l queue", false},
		{"md5sum queue", false},
		{"grep x queue", false},
		{"ls queue", false},
		{"stat queue", false},
		{"rg x queue", false},
		{"diff pair/a pair/b", false},
		{"diff -q pair/a pair/b", false},
		{"diff src docs", false},
		{"diff pair/a pair/b/same.txt", false},
		{"diff main.go pair/a", false},
		{"diff . src", false},
	} {
		if v := Approve(dir, tc.cmd); v.OK != tc.want {
			t.Errorf("%q: approved=%v (%s), want %v", tc.cmd, v.OK, v.Why, tc.want)
		}
	}
}

// git is approved only where the project is the top of a repository git
// recognises, and one that reads no other folder and fetches nothing.
func TestApproveGitRepository(t *testing.T) {
	write := func(t *testing.T, dir, name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the project
		want  bool
	}{
		{"a repository", func(t *testing.T, dir string) string { return dir }, true},
		{"a plain remote", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[remote \"origin\"]\n\turl = https://example.com/x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n")
			return dir
		}, true},
		{"no .git", func(t *testing.T, dir string) string { return t.TempDir() }, false},
		{"inside a parent's repository", func(t *testing.T, dir string) string {
			sub := filepath.Join(dir, "projects", "demo")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			return sub
		}, false},
		{"a .git git does not recognise", func(t *testing.T, dir string) string {
			if err := os.Remove(filepath.Join(dir, ".git", "HEAD")); err != nil {
				t.Fatal(err)
			}
			return dir
		}, false},
		{"a linked work tree", func(t *testing.T, dir string) string {
			wt := filepath.Join(t.TempDir(), "wt")
			write(t, wt, ".git", "gitdir: "+filepath.Join(dir, ".git", "worktrees", "wt")+"\n")
			write(t, dir, ".git/worktrees/wt/HEAD", "ref: refs/heads/topic\n")
			write(t, dir, ".git/worktrees/wt/commondir", "../..\n")
			return wt
		}, true},
		{"a linked work tree of a partial clone", func(t *testing.T, dir string) string {
			wt := filepath.Join(t.TempDir(), "wt")
			write(t, wt, ".git", "gitdir: "+filepath.Join(dir, ".git", "worktrees", "wt")+"\n")
			write(t, dir, ".git/worktrees/wt/HEAD", "ref: refs/heads/topic\n")
			write(t, dir, ".git/worktrees/wt/commondir", "../..\n")
			write(t, dir, ".git/config", "[extensions]\n\tpartialClone = origin\n")
			return wt
		}, false},
		{"a .git file without gitdir", func(t *testing.T, dir string) string {
			p := t.TempDir()
			write(t, p, ".git", "nothing\n")
			return p
		}, false},
		{"a .git link", func(t *testing.T, dir string) string {
			p := t.TempDir()
			if err := os.Symlink(filepath.Join(dir, ".git"), filepath.Join(p, ".git")); err != nil {
				t.Skipf("symbolic links not available: %v", err)
			}
			return p
		}, false},
		{"a partial clone", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[core]\n\tbare = false\n[extensions]\n\tpartialClone = origin\n")
			return dir
		}, false},
		{"a promisor remote", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[remote \"origin\"]\n\tPromisor = true\n")
			return dir
		}, false},
		{"a promisor remote on the header's line", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[remote \"origin\"] promisor = true\n")
			return dir
		}, false},
		{"an old-style promisor remote", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[remote.origin]\n\tpartialclonefilter = blob:none\n")
			return dir
		}, false},
		{"an include", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[include]\n\tpath = ../common.gitconfig\n")
			return dir
		}, false},
		// Included files are read as git reads them: this one, inside the
		// git folder, holds nothing yet (Trust names it, so editing it must ask).
		{"a conditional include", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[includeIf \"gitdir:/\"]\n\tpath = x\n")
			return dir
		}, true},
		{"a work tree elsewhere", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[core]\n\tworktree = /\n")
			return dir
		}, false},
		// git reads config.worktree only with extensions.worktreeConfig.
		{"a per-work-tree partial clone, not enabled", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config.worktree", "[extensions]\npartialclone = origin\n")
			return dir
		}, true},
		{"a per-work-tree partial clone", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tworktreeConfig = true\n")
			write(t, dir, ".git/config.worktree", "[extensions]\npartialclone = origin\n")
			return dir
		}, false},
		{"alternates", func(t *testing.T, dir string) string {
			write(t, dir, ".git/objects/info/alternates", "/elsewhere/objects\n")
			return dir
		}, false},
		{"a broken section header", func(t *testing.T, dir string) string {
			write(t, dir, ".git/config", "[core\n")
			return dir
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := tc.setup(t, gitProject(t))
			for _, cmd := range []string{"git status", "git log -p -1", "git --version", "git blame main.go"} {
				if v := Approve(proj, cmd); v.OK != tc.want {
					t.Errorf("%q: approved=%v (%s), want %v", cmd, v.OK, v.Why, tc.want)
				}
			}
			if v := Approve(proj, "ls"); !v.OK {
				t.Errorf("ls refused: %s", v.Why)
			}
		})
	}
	if v := Approve("", "git status"); v.OK {
		t.Error("git approved where the project is unknown")
	}
}

// A path is proven inside the project only by following it, and what
// git, rg and fd read there only by reading it, so they are asked when the
// project is not on this machine; a command that needs neither is still
// approved.
func TestApproveProjectElsewhere(t *testing.T) {
	plainEnv(t)
	for _, dir := range []string{"", "/nonexistent/hermes-bot/project"} {
		for _, c := range []string{"cat README.md", "git status", "rg TODO", "git diff HEAD~1", "fd x"} {
			if v := Approve(dir, c); v.OK {
				t.Errorf("dir %q: %q approved", dir, c)
			}
		}
		for _, c := range []string{"ls", "echo hi | wc -l", "uname -a"} {
			if v := Approve(dir, c); !v.OK {
				t.Errorf("dir %q: %q refused: %s", dir, c, v.Why)
			}
		}
	}
}

// Nothing but a bash request with its command is ever low.
func TestApproveOnlyCommands(t *testing.T) {
	for _, kind := range []string{"read", "list", "glob", "grep", "edit", "write", "webfetch", "external_directory", "lsp", "todoread", "task", "", "Bash "} {
		if a := Assess("", kind, []string{"ls"}, bashMeta("ls")); a.Level == Low && strings.TrimSpace(strings.ToLower(kind)) != "bash" {
			t.Errorf("kind %q rated low", kind)
		}
	}
	if a := Assess("", "bash", []string{"ls"}, nil); a.Level == Low {
		t.Error("a bash request without metadata.command rated low")
	}
	if a := Assess("", "bash", []string{"ls"}, json.RawMessage(`{"command":["ls"]}`)); a.Level == Low {
		t.Error("a bash request whose command is not a string rated low")
	}
}

// Programs that run other programs, interpreters and environment readers
// are never in the grammar.
func TestGrammarNever(t *testing.T) {
	never := []string{"env", "command", "builtin", "exec", "eval", "xargs", "watch", "time", "nice", "nohup",
		"timeout", "sudo", "strace", "arch", "python", "python3", "node", "awk", "gawk", "perl", "ruby", "sh",
		"bash", "zsh", "ps", "printenv", "set", "export", "source", ".", "find", "printf", "yq", "man", "less",
		"cd", "make", "npm", "go", "xxd", "tee", "curl", "ssh", "doas", "su", "ltrace"}
	for _, n := range never {
		if _, ok := grammarTable()[n]; ok {
			t.Errorf("%q is in the grammar", n)
		}
	}
	for name, p := range grammarTable() {
		if strings.ContainsAny(name, "/ ") {
			t.Errorf("program %q is not a bare name", name)
		}
		for _, s := range append([]spec{p.spec}, mapValues(p.subs)...) {
			for o, v := range s.opts {
				if !strings.HasPrefix(o, "-") || (v.kind == argEnum) != (len(v.values) > 0) || v.kind == argPath {
					t.Errorf("%s: option %q has a bad entry %+v", name, o, v)
				}
			}
		}
	}
}

func mapValues(m map[string]spec) []spec {
	var out []spec
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// Paths are followed through symbolic links when the project is on this
// machine: a link inside the project that points out of it, or at a
// hidden file, is asked.
func TestApproveFollowsLinks(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(proj, "src"), outside, filepath.Join(proj, ".hidden")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(proj, "src", "a.go"), filepath.Join(outside, "notes"), filepath.Join(proj, ".hidden", "x")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"out": outside, "in": filepath.Join(proj, "src"), "dot": filepath.Join(proj, ".hidden"), "up": ".."}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Skipf("symbolic links not available: %v", err)
		}
	}
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"cat src/a.go", true},
		{"cat in/a.go", true},
		{"cat missing/file", true},
		{"cat out/notes", false},
		{"ls out", false},
		{"cat out/missing", false},
		{"cat dot/x", false},
		{"ls up", false},
		{"ls up/outside", false},
	} {
		if v := Approve(proj, tc.cmd); v.OK != tc.want {
			t.Errorf("%q: approved=%v (%s), want %v", tc.cmd, v.OK, v.Why, tc.want)
		}
	}
}

// requote writes the words of cmds again, each quoted another way, with
// the same operators between them; ok is false when a word cannot be
// quoted that way.
func requote(cmds []simpleCmd, style int) (string, bool) {
	sq := func(w string) (string, bool) { return "'" + w + "'", !strings.Contains(w, "'") }
	dq := func(w string) (string, bool) { return `"` + w + `"`, !strings.ContainsAny(w, "\"$`!") }
	either := func(w string, first, second func(string) (string, bool)) (string, bool) {
		if q, ok := first(w); ok {
			return q, true
		}
		return second(w)
	}
	var b strings.Builder
	for i, c := range cmds {
		if i > 0 {
			b.WriteString(" " + c.sep + " ")
		}
		for j, w := range c.words {
			if j > 0 {
				b.WriteByte(' ')
			}
			var q string
			ok := true
			switch style {
			case 0:
				q, ok = either(w, sq, dq)
			case 1:
				q, ok = either(w, dq, sq)
			default:
				// One word in two quoted parts: 'fir'"st".
				k := len(w) / 2
				for k > 0 && !utf8.RuneStart(w[k]) {
					k--
				}
				a, okA := either(w[:k], sq, dq)
				z, okZ := either(w[k:], dq, sq)
				q, ok = a+z, okA && okZ
			}
			if !ok {
				return "", false
			}
			b.WriteString(q)
		}
		if c.quiet {
			b.WriteString(" 2>/dev/null")
		}
	}
	return b.String(), true
}

// unquotedOutside returns the characters of src that are outside quotes,
// read independently of the lexer.
func unquotedOutside(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\'':
			j := strings.IndexByte(src[i+1:], '\'')
			if j < 0 {
				return b.String() + src[i:]
			}
			i += j + 1
			b.WriteByte('_')
		case '"':
			j := strings.IndexByte(src[i+1:], '"')
			if j < 0 {
				return b.String() + src[i:]
			}
			i += j + 1
			b.WriteByte('_')
		default:
			b.WriteByte(src[i])
		}
	}
	return b.String()
}

// widthDirective returns a format of a date, stat or git command that
// holds a % directive with a flag, width or precision (%5d, %-9s, %<(9)).
func widthDirective(c simpleCmd) (string, bool) {
	var formats []string
	for i, w := range c.words[1:] {
		switch c.words[0] {
		case "date":
			if strings.HasPrefix(w, "+") {
				formats = append(formats, w)
			}
		case "git":
			if strings.HasPrefix(w, "--format=") || strings.HasPrefix(w, "--pretty=") {
				formats = append(formats, w)
			}
		case "stat":
			if f, ok := strings.CutPrefix(w, "--format="); ok {
				formats = append(formats, f)
			} else if (w == "--format" || strings.HasPrefix(w, "-") && strings.HasSuffix(w, "c")) && i+2 < len(c.words) {
				formats = append(formats, c.words[i+2])
			} else if _, f, ok := strings.Cut(w, "c"); ok && strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") {
				formats = append(formats, f)
			}
		}
	}
	for _, f := range formats {
		for i := 0; i+1 < len(f); i++ {
			if f[i] != '%' {
				continue
			}
			i++
			if b := f[i]; b != '%' && !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z') {
				return f, true
			}
		}
	}
	return "", false
}

// readsStdinWord reports a command that reads standard input for sure:
// tr, or a reading program given "-" as a file. A "-" after an option
// may be its value (sort -t -), and for programs whose first operand is
// a pattern or script, the first "-" may be that.
func readsStdinWord(c simpleCmd) bool {
	dashes := 0
	for i, w := range c.words[1:] {
		if prev := c.words[i]; w == "-" && (prev == "--" || !strings.HasPrefix(prev, "-")) {
			dashes++
		}
	}
	switch c.words[0] {
	case "tr":
		return true
	case "echo", "basename", "dirname", "which", "git":
		return false
	case "grep", "rg", "fd", "sed", "jq":
		return dashes > 1
	}
	return dashes > 0
}

// FuzzApprove checks properties of whatever the grammar approves: no
// forbidden construct outside quotes, nothing a shell would expand inside
// double quotes, no format width, no read of standard input but from a
// pipe, and the same decision however its words are quoted.
func FuzzApprove(f *testing.F) {
	for _, e := range readTable(f) {
		f.Add(e.command)
	}
	for _, c := range hostileInline {
		f.Add(c)
	}
	dir := gitProject(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		v := Approve(dir, cmd)
		if !v.OK {
			if v.Why == "" {
				t.Fatalf("%q refused without a reason", cmd)
			}
			return
		}
		bare := strings.ReplaceAll(unquotedOutside(cmd), "2>/dev/null", "")
		for _, bad := range []string{";", "||", "|&", "`", "$", "(", ")", "{", "}", "<", ">", "*", "?", "[", "]", "\n", "\\", "#", "!"} {
			if strings.Contains(bare, bad) {
				t.Fatalf("%q approved with %q outside quotes", cmd, bad)
			}
		}
		if strings.Contains(strings.ReplaceAll(bare, "&&", ""), "&") {
			t.Fatalf("%q approved with a lone &", cmd)
		}
		for _, w := range strings.Fields(bare) {
			if strings.HasPrefix(w, "~") || strings.HasPrefix(w, "=") {
				t.Fatalf("%q approved with a word starting %q", cmd, w[:1])
			}
		}
		cmds, err := lex(cmd)
		if err != nil {
			t.Fatalf("%q approved but does not lex: %v", cmd, err)
		}
		for _, c := range cmds {
			if _, ok := grammarTable()[c.words[0]]; !ok {
				t.Fatalf("%q approved running %q", cmd, c.words[0])
			}
			if w, ok := widthDirective(c); ok {
				t.Fatalf("%q approved with a format width or flag in %q", cmd, w)
			}
			if c.sep != "|" && readsStdinWord(c) {
				t.Fatalf("%q approved reading standard input without a pipe", cmd)
			}
		}
		for style := range 3 {
			q, ok := requote(cmds, style)
			// Quotes lengthen a command: past the cap on what is judged
			// at all, a refusal is the rule, not a different reading.
			if !ok || len(q) > maxApproveInput {
				continue
			}
			if v2 := Approve(dir, q); !v2.OK {
				t.Fatalf("%q approved, but requoted as %q refused: %s", cmd, q, v2.Why)
			}
			again, err := lex(q)
			if err != nil || !slices.EqualFunc(again, cmds, func(a, b simpleCmd) bool {
				return a.sep == b.sep && a.quiet == b.quiet && slices.Equal(a.words, b.words)
			}) {
				t.Fatalf("%q requoted as %q reads differently: %v", cmd, q, err)
			}
		}
	})
}

// The fuzz invariants see what they are meant to.
func TestFuzzInvariants(t *testing.T) {
	for cmd, want := range map[string]bool{
		"date +%5d": true, "date +%Y": false, "stat -c '%-9s' x": true, "stat -Lc%.3Y x": true,
		"stat --format=%s x": false, "git log '--format=%<(9)%s'": true, "git log --format=%%5d": false,
		"git log 0%0": false, "echo '%5d'": false,
	} {
		cmds, err := lex(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := widthDirective(cmds[0]); got != want {
			t.Errorf("widthDirective(%q) = %v, want %v", cmd, got, want)
		}
	}
	for cmd, want := range map[string]bool{"tr a b": true, "cat -": true, "cat x": false, "echo -": false,
		"grep - x": false, "grep - x -": true, "sort -t - x": false, "cat x -": true} {
		cmds, _ := lex(cmd)
		if got := readsStdinWord(cmds[0]); got != want {
			t.Errorf("readsStdinWord(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// A git format prints each field once, with a bounded number of
// placeholders.
func TestGitFormat(t *testing.T) {
	for w, want := range map[string]bool{
		"%h%x09%an%x09%s": true, "%n%n%n": true, "%%%%": true, "%%B%B": true, "format:%h %s %b": true,
		"%ad%ar": true, "oneline": true, "fuller": true, strings.Repeat("%n", 16): true,
		"%B%B": false, "%ad%ad": false, "tformat:%s-%s": false, strings.Repeat("%n", 17): false,
		"%": false, "%<(9)%s": false, "%w(9)": false, "%Cred": false, "%GG": false, "%aN": false, "myname": false,
	} {
		if got := isGitFormat(w); got != want {
			t.Errorf("isGitFormat(%q) = %v, want %v", w, got, want)
		}
	}
}

// The plain reads an agent does all day stay approved, bounds or not.
func TestApproveBenignReads(t *testing.T) {
	dir := gitProject(t)
	for _, c := range []string{"ls", "ls -la", "git status", "cat README.md", "rg TODO", "git diff",
		"git log --oneline -5", "head -n 20 main.go", "grep -n func main.go", "wc -l main.go"} {
		if v := Approve(dir, c); !v.OK {
			t.Errorf("%q refused: %s", c, v.Why)
		}
	}
}

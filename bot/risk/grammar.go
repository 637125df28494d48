package risk

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// This file is the auto-approval grammar as data: every program a command
// may run without a person, and for each its subcommands, options and
// operands. Approve reads nothing else. A reviewer checks this table, not
// the code: anything missing from it is asked.
//
// Rules that hold for every program (enforced in approve.go):
//   - commands are joined only by "|" and "&&"; the only redirection is a
//     trailing "2>/dev/null";
//   - no quoting is needed for safety: quotes only make literal words,
//     and unquoted words may hold only letters, digits and _ . / , : = + @ % -
//     (with ~ and ^ inside a word, as in HEAD~1, never at its start);
//   - an option not listed is asked; a long option matches exactly (no
//     abbreviations); short options may be combined when every letter is
//     listed; a value is checked by its kind;
//   - every path operand is relative, does not start with "+", stays
//     inside the project, has no component starting with "." and matches
//     no secret name, and, if it exists, is a regular file or a folder;
//     no command names a path twice, and a line holds at most
//     maxCommands commands: repeating multiplies what they print;
//   - only a command after "|" reads standard input (see stdinUse);
//   - what a program reads besides its operands (git's configuration,
//     ignore files) is checked by Trust (trust.go): git runs only at the
//     top of the project's own repository, one that fetches and borrows
//     nothing.

// argKind says what a word (an option's value or an operand) may be.
type argKind int

const (
	argNone     argKind = iota // an option that takes no value
	argPath                    // a file or folder inside the project
	argText                    // any literal text: printed or matched, never opened
	argPattern                 // a search pattern: literal, unless an option of fixedBy is given
	argNumber                  // a whole number, optionally signed
	argContext                 // lines of context around a git hunk: 0 to 99
	argRev                     // a git revision or range (HEAD~1, main..topic)
	argSedLine                 // a sed script that prints, deletes or quits at lines
	argJqPath                  // a jq filter that only walks into the input (.a.b[0])
	argDateFmt                 // a date format: "+", text and %X directives without widths
	argStatFmt                 // a stat format: text and %X directives without widths
	argGitFmt                  // a git log format: a built-in name or text and listed placeholders
	argCmdName                 // a program name, looked up and printed by which
	argChar                    // a single character (a field separator)
	argList                    // a field or character list: 1,3-5
	argSortKey                 // a sort key: 2,2n
	argType                    // a file type name of rg or fd
	argExt                     // a file name extension
	argRange                   // a line range of git blame: 10,20
	argDateText                // a date or time for git log: 2024-01-01, 2.weeks
	argEnum                    // one of the option's listed values
)

// opt is one option: what its value is, if it takes one.
type opt struct {
	kind argKind
	// values lists the allowed values of an argEnum option.
	values []string
	// attached requires the value in the same word (--unified=3, -U3),
	// for programs that do not take it from the next word.
	attached bool
}

// spec is what one program (or one subcommand) accepts.
type spec struct {
	opts map[string]opt
	// lead are the kinds of the first operands, in order (a pattern
	// before paths); rest is the kind of every operand after them.
	lead []argKind
	rest argKind
	// max bounds the operands; -1 is no bound.
	max int
	// leadDroppedBy lists options that supply what the lead operands
	// otherwise would (grep -e PATTERN): with one of them, operands
	// start at rest.
	leadDroppedBy []string
	// numericShort accepts -N as a count (head -20, git log -3).
	numericShort bool
	// revsThenPaths: before "--", an operand may be a revision or a path;
	// after it, only a path (git's rule).
	revsThenPaths bool
	// stdin says when the program reads standard input.
	stdin stdinUse
	// filesOnly refuses a folder as a path operand.
	filesOnly bool
	// fixedBy lists options that make every pattern a fixed string
	// (grep -F): with one, a pattern may hold any text.
	fixedBy []string
}

// stdinUse says when a program reads standard input: a command may do so
// only after a "|", since what opencode leaves open may never end.
type stdinUse int

const (
	stdinNone stdinUse = iota
	// stdinWithoutOperands: when no operand follows the lead ones
	// (cat, grep PATTERN, git shortlog without a revision), or for "-".
	stdinWithoutOperands
	stdinAlways // tr
)

// program is one program of the grammar: either a spec of its own, or
// subcommands, each with its spec (git).
type program struct {
	spec
	// global holds options allowed before the subcommand.
	global map[string]opt
	// subs, when set, is every subcommand allowed.
	subs map[string]spec
	// bare allows the program with no subcommand (git --version).
	bare bool
}

// Shorthands keep the table readable.
var (
	noValue = opt{kind: argNone}
	number  = opt{kind: argNumber}
	pattern = opt{kind: argPattern}
	// hunkContext bounds git's -U: git log -p -U999999999 prints every file
	// whole for every commit that touches it.
	hunkContext = opt{kind: argContext, attached: true}
	unbound     = -1
)

func flags(names ...string) map[string]opt {
	m := make(map[string]opt, len(names))
	for _, n := range names {
		m[n] = noValue
	}
	return m
}

func with(m map[string]opt, more map[string]opt) map[string]opt {
	out := maps.Clone(m)
	maps.Copy(out, more)
	return out
}

func enum(values ...string) opt { return opt{kind: argEnum, values: values} }

// grammarTable is every program auto-approval allows, and how. It is
// built on first use, not when the package initialises: most runs of
// hermes-bot never auto-approve anything.
var grammarTable = sync.OnceValue(buildGrammar)

func buildGrammar() map[string]program {
	gitDiffOpts := with(flags("--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--cached", "--staged",
		"-p", "--patch", "--no-color", "--color=never", "--no-ext-diff", "--no-textconv", "-w", "-b", "--ignore-all-space",
		"--ignore-space-change", "-R", "--minimal", "--summary", "--exit-code", "--quiet", "--word-diff", "--check", "-M"),
		map[string]opt{"--unified": hunkContext, "-U": hunkContext})
	// No --all: it walks every ref, the stash too, whose third parent
	// holds the untracked files it saved (.env included).
	gitLogOpts := with(flags("--oneline", "--graph", "--decorate", "--stat", "--numstat", "--shortstat",
		"--name-only", "--name-status", "-p", "--patch", "--no-patch", "-s", "--no-merges", "--merges", "--reverse",
		"--first-parent", "--abbrev-commit", "--no-color", "--color=never", "--follow", "--no-ext-diff", "--no-textconv",
		"--date=relative", "--date=short", "--date=iso", "--date=local", "--date=rfc"),
		map[string]opt{"-n": number, "--max-count": number, "--skip": number, "--since": {kind: argDateText},
			"--until": {kind: argDateText}, "--after": {kind: argDateText}, "--before": {kind: argDateText},
			"--author": pattern, "--grep": pattern,
			"--format": {kind: argGitFmt, attached: true}, "--pretty": {kind: argGitFmt, attached: true},
			"--unified": hunkContext, "-U": hunkContext})
	headTail := spec{
		opts: with(flags("-q", "-v", "--quiet", "--silent", "--verbose"),
			map[string]opt{"-n": number, "-c": number, "--lines": number, "--bytes": number}),
		rest: argPath, max: unbound, stdin: stdinWithoutOperands, numericShort: true,
	}
	return map[string]program{
		// Listing and reading files. ls -a, du and git status --ignored print
		// hidden names (.env), never what is inside.
		"ls": {spec: spec{
			opts: flags("-l", "-a", "-A", "-h", "-1", "-t", "-r", "-S", "-d", "-F", "-R", "-C", "-p", "-s", "-i", "-n",
				"--all", "--almost-all", "--human-readable", "--reverse", "--recursive", "--directory", "--size"),
			rest: argPath, max: unbound,
		}},
		"cat": {spec: spec{
			opts: flags("-n", "-b", "-s", "-A", "-E", "-T", "-v", "--number", "--number-nonblank", "--squeeze-blank", "--show-all"),
			rest: argPath, max: unbound, stdin: stdinWithoutOperands,
		}},
		"head": {spec: headTail},
		// tail without -f, -F, --follow, --retry or -s, which follow a file
		// forever; +5f follows too, and approve.go refuses paths with a +.
		"tail": {spec: headTail},
		"wc": {spec: spec{
			opts: flags("-l", "-w", "-c", "-m", "-L", "--lines", "--words", "--bytes", "--chars", "--max-line-length"),
			rest: argPath, max: unbound, stdin: stdinWithoutOperands,
		}},
		"nl":  {spec: spec{rest: argPath, max: unbound, stdin: stdinWithoutOperands}},
		"tac": {spec: spec{rest: argPath, max: unbound, stdin: stdinWithoutOperands}},
		"rev": {spec: spec{rest: argPath, max: unbound, stdin: stdinWithoutOperands}},
		// file reads its magic database (MAGIC, ~/.magic.mgc); no -z
		// (decompresses), no -m.
		"file": {spec: spec{
			opts: flags("-b", "-i", "-L", "--brief", "--mime", "--mime-type", "--dereference"),
			rest: argPath, max: unbound,
		}},
		// Formats without widths or precision: %999999999s fills the disk.
		"stat": {spec: spec{
			opts: with(flags("-L", "--dereference", "-t", "--terse"),
				map[string]opt{"-c": {kind: argStatFmt}, "--format": {kind: argStatFmt}}),
			rest: argPath, max: unbound,
		}},
		"du": {spec: spec{
			opts: with(flags("-s", "-h", "-c", "-k", "-m", "--summarize", "--human-readable", "--total"),
				map[string]opt{"-d": number, "--max-depth": number}),
			rest: argPath, max: unbound,
		}},
		"realpath": {spec: spec{rest: argPath, max: unbound}},
		// tree skips hidden files unless -a, which is not listed; -I takes
		// a literal name (its wildcards backtrack).
		"tree": {spec: spec{
			opts: with(flags("-d", "-f", "-F", "-i", "-n", "--noreport", "--dirsfirst"),
				map[string]opt{"-L": number, "-I": pattern}),
			rest: argPath, max: unbound,
		}},

		// Searching. Recursive searches only through rg and fd, which skip
		// hidden and ignored files by default; grep reads the files it is
		// given (no -r). rg without a path reads standard input only when
		// it is a pipe or a file; opencode gives its commands /dev/null.
		// Patterns are literal or -F: a regular expression can take exponential
		// time or memory. No -E or -G, which would undo -F.
		"grep": {spec: spec{
			opts: with(flags("-n", "-i", "-v", "-c", "-l", "-L", "-w", "-x", "-F", "-o", "-h", "-H", "-s", "-q", "-I",
				"--line-number", "--ignore-case", "--invert-match", "--count", "--files-with-matches",
				"--files-without-match", "--word-regexp", "--line-regexp", "--fixed-strings",
				"--only-matching", "--no-filename", "--with-filename", "--no-messages", "--quiet", "--silent"),
				map[string]opt{"-e": pattern, "--regexp": pattern, "-A": number, "-B": number, "-C": number, "-m": number,
					"--after-context": number, "--before-context": number, "--context": number, "--max-count": number}),
			lead: []argKind{argPattern}, rest: argPath, max: unbound, stdin: stdinWithoutOperands,
			leadDroppedBy: []string{"-e", "--regexp"}, fixedBy: []string{"-F", "--fixed-strings"},
		}},
		// rg: no --vimgrep, which prints a line again for each match in it.
		"rg": {spec: spec{
			opts: with(flags("-n", "-N", "-i", "-S", "-s", "-w", "-x", "-F", "-l", "-c", "-v", "-o", "-H", "-I",
				"--line-number", "--no-line-number", "--ignore-case", "--smart-case", "--case-sensitive",
				"--word-regexp", "--line-regexp", "--fixed-strings", "--files-with-matches", "--count", "--invert-match",
				"--only-matching", "--with-filename", "--no-filename", "--no-heading", "--heading",
				"--json", "--stats", "--files", "--column", "--trim"),
				map[string]opt{"-e": pattern, "--regexp": pattern, "-t": {kind: argType}, "-T": {kind: argType},
					"--type": {kind: argType}, "--type-not": {kind: argType}, "-A": number, "-B": number, "-C": number,
					"-m": number, "--max-count": number, "--max-depth": number, "-d": number,
					"--after-context": number, "--before-context": number, "--context": number,
					"--color": enum("never", "auto", "always", "ansi"), "--sort": enum("path", "modified", "accessed", "created", "none")}),
			lead: []argKind{argPattern}, rest: argPath, max: unbound, leadDroppedBy: []string{"-e", "--regexp", "--files"},
			fixedBy: []string{"-F", "--fixed-strings"},
		}},
		// fd: no -g, whose glob patterns are not literal either.
		"fd": {spec: spec{
			opts: with(flags("-i", "-s", "-F", "-p", "-a", "--ignore-case", "--case-sensitive", "--fixed-strings",
				"--full-path", "--absolute-path"),
				map[string]opt{"-t": {kind: argType}, "--type": {kind: argType}, "-e": {kind: argExt}, "--extension": {kind: argExt},
					"-d": number, "--max-depth": number, "--min-depth": number, "--max-results": number}),
			lead: []argKind{argPattern}, rest: argPath, max: unbound, fixedBy: []string{"-F", "--fixed-strings"},
		}},

		// Text processing of files or of the previous command's output.
		// sort and tac spill large input into TMPDIR, removed on exit: their
		// memory on disk, bounded by the input.
		"sort": {spec: spec{
			opts: with(flags("-n", "-r", "-u", "-f", "-h", "-V", "-b", "-g", "-s",
				"--numeric-sort", "--reverse", "--unique", "--ignore-case", "--human-numeric-sort", "--version-sort",
				"--ignore-leading-blanks", "--general-numeric-sort", "--stable"),
				map[string]opt{"-k": {kind: argSortKey}, "--key": {kind: argSortKey}, "-t": {kind: argChar}, "--field-separator": {kind: argChar}}),
			rest: argPath, max: unbound, stdin: stdinWithoutOperands,
		}},
		// uniq writes its output to a second operand: one at most.
		"uniq": {spec: spec{
			opts: flags("-c", "-d", "-u", "-i", "--count", "--repeated", "--unique", "--ignore-case"),
			rest: argPath, max: 1, stdin: stdinWithoutOperands,
		}},
		"cut": {spec: spec{
			opts: with(flags("-s", "--only-delimited", "--complement"),
				map[string]opt{"-d": {kind: argChar}, "--delimiter": {kind: argChar}, "-f": {kind: argList}, "--fields": {kind: argList},
					"-c": {kind: argList}, "--characters": {kind: argList}, "-b": {kind: argList}, "--bytes": {kind: argList}}),
			rest: argPath, max: unbound, stdin: stdinWithoutOperands,
		}},
		"tr": {spec: spec{
			opts: flags("-d", "-s", "-c", "-C", "--delete", "--squeeze-repeats", "--complement"),
			rest: argText, max: 2, stdin: stdinAlways,
		}},
		// diff of two folders compares the files directly inside, hidden
		// ones too: only files.
		"diff": {spec: spec{
			opts: with(flags("-u", "-q", "-w", "-b", "-B", "-i", "--brief", "--ignore-all-space", "--ignore-space-change",
				"--ignore-blank-lines", "--ignore-case", "--side-by-side", "-y"),
				map[string]opt{"-U": number, "--unified": number}),
			rest: argPath, max: 2, stdin: stdinWithoutOperands, filesOnly: true,
		}},
		// sed only with a script that prints, deletes or quits at line
		// numbers (sed -n 10,20p FILE); its other commands write files (w)
		// or run programs (e).
		"sed": {spec: spec{
			opts: flags("-n", "--quiet", "--silent"),
			lead: []argKind{argSedLine}, rest: argPath, max: unbound, stdin: stdinWithoutOperands,
		}},
		// jq only with a filter that walks into its input (.name, .a[0]):
		// other filters can read the environment ($ENV, env) or files. jq
		// loads ~/.jq's definitions, which such a filter never calls.
		"jq": {spec: spec{
			opts: flags("-r", "-c", "-S", "-e", "-M", "--raw-output", "--compact-output", "--sort-keys", "--monochrome-output"),
			lead: []argKind{argJqPath}, rest: argPath, max: unbound, stdin: stdinWithoutOperands,
		}},
		"md5sum":    {spec: spec{rest: argPath, max: unbound, stdin: stdinWithoutOperands}},
		"sha1sum":   {spec: spec{rest: argPath, max: unbound, stdin: stdinWithoutOperands}},
		"sha256sum": {spec: spec{rest: argPath, max: unbound, stdin: stdinWithoutOperands}},
		"sha512sum": {spec: spec{rest: argPath, max: unbound, stdin: stdinWithoutOperands}},

		// Printing words and facts about the machine. echo -e has nothing to
		// expand: words hold no backslash.
		"echo":     {spec: spec{opts: flags("-n", "-e", "-E"), rest: argText, max: unbound}},
		"pwd":      {spec: spec{opts: flags("-L", "-P"), max: 0}},
		"basename": {spec: spec{rest: argText, max: 2}},
		"dirname":  {spec: spec{rest: argText, max: unbound}},
		"whoami":   {spec: spec{max: 0}},
		"nproc":    {spec: spec{max: 0}},
		"true":     {spec: spec{max: 0}},
		"false":    {spec: spec{max: 0}},
		"uname": {spec: spec{
			opts: flags("-a", "-s", "-n", "-r", "-v", "-m", "-p", "-i", "-o", "--all", "--kernel-name", "--kernel-release", "--machine"),
			max:  0,
		}},
		// date's operand sets the clock unless it is a +FORMAT, whose
		// directives take no width or flag (+%1000000000d fills the disk).
		"date": {spec: spec{opts: flags("-u", "-R", "--utc", "--rfc-email"), rest: argDateFmt, max: 1}},
		// which reads only PATH, and prints where a program is.
		"which": {spec: spec{opts: flags("-a"), rest: argCmdName, max: unbound}},

		// git: only subcommands that read, with options that neither write
		// files (--output), run programs (--ext-diff, -c) nor leave the
		// repository (-C, --git-dir, --no-index). git status and describe
		// --dirty may refresh .git/index's file times, never what it stages.
		"git": {
			global: flags("--no-pager"),
			bare:   true,
			spec:   spec{opts: flags("--version"), max: 0},
			subs: map[string]spec{
				"status": {opts: flags("-s", "-b", "--short", "--branch", "--porcelain", "--porcelain=v1", "--porcelain=v2",
					"--long", "-uno", "-unormal", "-uall", "--untracked-files=no", "--untracked-files=normal",
					"--untracked-files=all", "--ignored", "--no-renames"), rest: argPath, max: unbound},
				"diff": {opts: gitDiffOpts, rest: argPath, max: unbound, revsThenPaths: true},
				"log":  {opts: gitLogOpts, rest: argPath, max: unbound, revsThenPaths: true, numericShort: true},
				"show": {opts: gitLogOpts, rest: argPath, max: unbound, revsThenPaths: true},
				// blame: no -C, which searches every file of every commit for copies.
				"blame":    {opts: with(flags("-w", "-s", "-e", "-M", "--show-email"), map[string]opt{"-L": {kind: argRange}}), rest: argPath, max: unbound, revsThenPaths: true},
				"branch":   {opts: flags("-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--show-current", "--no-color"), max: 0},
				"ls-files": {opts: flags("-m", "-o", "-d", "-c", "-s", "-z", "--modified", "--others", "--deleted", "--cached", "--stage", "--exclude-standard"), rest: argPath, max: unbound},
				"rev-parse": {opts: flags("--show-toplevel", "--abbrev-ref", "--short", "--is-inside-work-tree", "--show-prefix",
					"--verify", "-q", "--quiet", "--symbolic-full-name"), rest: argRev, max: unbound},
				// describe walks the history for each revision until it finds tags.
				"describe": {opts: flags("--tags", "--always", "--long", "--dirty", "--all"), rest: argRev, max: 1},
				"shortlog": {opts: flags("-s", "-n", "-e", "--summary", "--numbered", "--email"), rest: argRev, max: unbound, stdin: stdinWithoutOperands},
				"version":  {max: 0},
			},
		},
	}
}

// secretNames are file names never read without a person, matched
// against each path component (case-insensitive). Hidden names (.env,
// .ssh, .npmrc) are already refused as hidden. Drawn from what secret
// scanners flag by name (gitrob's signatures): names made to hold a key or
// a login, not code or data that may quote one (vault.go, *.sqlite).
var secretNames = []string{
	// Keys: ssh-keygen's id_TYPE and renamed ones (deploy_rsa), host
	// keys, PuTTY, PKCS #8 and #12, Java, Kerberos, PGP.
	"id_*", "*_rsa", "*_dsa", "*_ecdsa", "*_ed25519", "*_ecdsa_sk", "*_ed25519_sk", "*_key", "ssh_host_*",
	"*.pem", "*.key", "*.ppk", "*.p8", "*.pk8", "*.p12", "*.pfx", "*.pkcs12", "*.jks", "*.keystore",
	"*.keytab", "*.gpg", "*.pgp", "*.asc", "secring*",
	// Password stores and VPN profiles.
	"*.kdbx", "*.kdb", "*.psafe3", "*keychain*", "*.kwallet", "*.ovpn",
	// Environment files: env, env.prod, prod.env, prod.env.local, app.envrc.
	"env", "env.*", "*.env", "*.env.*", "*.envrc",
	// Credentials by name.
	"*secret*", "*credential*", "*password*", "*passwd*", "*token*", "*apikey*", "*api_key*", "*api-key*",
	// Logins of clusters, clouds and registries, and histories of typed
	// commands.
	"kubeconfig*", "*.kubeconfig", "service-account*", "auth.json", "rclone.conf", "s3cfg", "npmrc", "pypirc",
	"netrc", "_netrc", "pgpass", "pgpass.conf", "htpasswd", "dockercfg", "*_history",
	// Terraform state and variables (terraform.tfvars, x.auto.tfvars.json).
	"*.tfstate", "*.tfstate.*", "*.tfvars", "*.tfvars.*",
	// System files.
	"shadow", "gshadow", "sudoers", "authorized_keys", "known_hosts",
}

// kindREs are the value and operand checks by kind, compiled on first
// use like the grammar; argRev's checks each revision of a range (isRev),
// argGitFmt's is only the first test of isGitFormat.
var kindREs = sync.OnceValue(func() map[argKind]*regexp.Regexp {
	return map[argKind]*regexp.Regexp{
		argNumber:  regexp.MustCompile(`^[+-]?[0-9]{1,9}$`),
		argContext: regexp.MustCompile(`^[0-9]{1,2}$`),
		// A literal, perhaps anchored, or "." alone: no repeat, group,
		// class or alternation, and no "." inside (a.{k}b needs 2^k states).
		argPattern: regexp.MustCompile(`^\^?[^.+*?()|\[\]{}^$\\]*\$?$|^\.$`),
		argRev:     regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*([~^][0-9]{0,4})*$`),
		argSedLine: regexp.MustCompile(`^([0-9]{1,9}|\$)(,([0-9]{1,9}|\$))?[pdq]$`),
		argJqPath:  regexp.MustCompile(`^\.([A-Za-z_][A-Za-z0-9_]*|\[[0-9]{0,9}\])?(\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]{0,9}\])*$`),
		argDateFmt: regexp.MustCompile(`^\+([A-Za-z0-9:_ ./,=@#|()\[\]-]|%[A-Za-z%])*$`),
		argStatFmt: regexp.MustCompile(`^([A-Za-z0-9:_ ./,=@#|()\[\]-]|%[A-Za-z%])*$`),
		// Placeholders of commits only: no %<( %>( %w( widths, %C colours,
		// %G (runs gpg), %aN (reads .mailmap) or %( (runs describe).
		argGitFmt:   regexp.MustCompile(`^(t?format:)?([A-Za-z0-9:_ ./,=@#|()\[\]-]|%([HhTtPpdDsfbBn%]|[ac][nelrdtiIsh]|x[0-9a-fA-F]{2}))*$`),
		argCmdName:  regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`),
		argList:     regexp.MustCompile(`^[0-9]{1,6}(-[0-9]{0,6})?(,[0-9]{1,6}(-[0-9]{0,6})?)*$|^-[0-9]{1,6}$`),
		argSortKey:  regexp.MustCompile(`^[0-9]{1,4}(\.[0-9]{1,4})?[bdfghinrV]*(,[0-9]{1,4}(\.[0-9]{1,4})?[bdfghinrV]*)?$`),
		argType:     regexp.MustCompile(`^[a-z0-9]{1,20}$`),
		argExt:      regexp.MustCompile(`^[A-Za-z0-9]{1,16}$`),
		argRange:    regexp.MustCompile(`^[0-9]{1,9},[+-]?[0-9]{1,9}$`),
		argDateText: regexp.MustCompile(`^[A-Za-z0-9 .:-]{1,40}$`),
	}
})

// checkKind reports whether w is a valid word of kind k; for a path it
// leaves the project check to checkPath. A kind without a check here is
// refused.
func checkKind(k argKind, o opt, w string) bool {
	switch k {
	case argText:
		return true
	case argRev:
		return isRev(w)
	case argStatFmt:
		// Each directive prints once for every file named: a bound on both.
		return kindREs()[k].MatchString(w) && strings.Count(w, "%") <= maxGitPlaceholders
	case argGitFmt:
		return isGitFormat(w)
	case argChar:
		return len([]rune(w)) == 1
	case argEnum:
		return slices.Contains(o.values, w)
	}
	re, ok := kindREs()[k]
	return ok && re.MatchString(w)
}

// gitFormatNames are git's built-in formats; any other name is looked up
// in the configuration (pretty.NAME), whose format may hold widths.
var gitFormatNames = []string{"oneline", "short", "medium", "full", "fuller", "reference", "email", "raw"}

// maxGitPlaceholders bounds the directives of a git or stat format:
// %B%B%B… prints every message as many times as a line can hold.
const maxGitPlaceholders = 16

// isGitFormat reports a --format or --pretty value: a built-in name, or
// listed placeholders, each field once (with % or format:, not a name).
func isGitFormat(w string) bool {
	if slices.Contains(gitFormatNames, w) {
		return true
	}
	named := strings.HasPrefix(w, "format:") || strings.HasPrefix(w, "tformat:") || strings.Contains(w, "%")
	if !named || !kindREs()[argGitFmt].MatchString(w) {
		return false
	}
	seen, n := map[string]bool{}, 0
	for i := 0; i+1 < len(w); i++ {
		if w[i] != '%' {
			continue
		}
		// The pattern above has checked what follows: %%, one letter, or
		// a, c or x with one more.
		p := w[i+1 : i+2]
		if strings.ContainsAny(p, "acx") {
			p = w[i+1 : i+3]
		}
		i += len(p)
		n++
		if n > maxGitPlaceholders || seen[p] && p != "n" && p != "%" && p[0] != 'x' {
			return false
		}
		seen[p] = true
	}
	return true
}

// isRev reports a git revision (HEAD, HEAD~2, v1.0^, origin/main) or a
// range of two (a..b, a...b): no ":" (a path in a tree, such as
// HEAD:.env), no "@{", no hidden or secret name, and not the stash,
// whose third parent holds the untracked files it saved.
func isRev(w string) bool {
	re := kindREs()[argRev]
	parts := []string{w}
	if a, b, ok := strings.Cut(w, "..."); ok {
		parts = []string{a, b}
	} else if a, b, ok := strings.Cut(w, ".."); ok {
		parts = []string{a, b}
	}
	for _, p := range parts {
		if !re.MatchString(p) || hasHiddenOrSecret(p) {
			return false
		}
	}
	return !namesStash(w)
}

// namesStash reports a word git could resolve to the stash, alone or in
// a range: git takes a word before "--" that is no file for a revision.
func namesStash(w string) bool {
	for _, p := range strings.Split(strings.ToLower(w), "..") {
		name, _, _ := strings.Cut(strings.TrimPrefix(p, "."), "~")
		name, _, _ = strings.Cut(name, "^")
		if name == "stash" || strings.HasSuffix(name, "/stash") {
			return true
		}
	}
	return false
}

package risk

import (
	"cmp"
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Level grades what a permission request would let the agent do.
// The zero value is no level at all; Assess always returns one of the
// three named levels.
type Level int

// The risk levels, in increasing order.
const (
	Low Level = iota + 1
	Medium
	High
)

// String returns "low", "medium" or "high".
func (l Level) String() string {
	switch l {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return "unknown"
}

// Emoji returns the traffic light of the level: 🟢, 🟡 or 🔴.
func (l Level) Emoji() string {
	switch l {
	case Low:
		return "🟢"
	case Medium:
		return "🟡"
	case High:
		return "🔴"
	}
	return "⚪"
}

// Assessment is the assessment of one permission request: its level, and
// why, most serious reason first, each reason once. The reasons are codes:
// a catalog of package bot/i18n says them (Text.RiskReason), in a log as
// well as to a person.
type Assessment struct {
	Level   Level
	Details []Reason
}

// Assess grades a permission request of the project in directory dir
// (opencode's instance directory, where commands run; "" when unknown)
// from its kind ("bash", "edit", "webfetch", …), its patterns and its
// metadata, as opencode sent them.
//
// Low is a proof, not a guess: it is given exactly when the request is a
// shell command (metadata.command) that Approve accepts, so the level a
// person sees is the decision auto-approval makes. Every other request is
// at least medium. Between medium and high the model is a heuristic: a
// shell command is judged whole, every command it chains, pipes into or
// substitutes assessed and the most serious one deciding; where in doubt
// it answers higher. Those levels inform a person; they are not a sandbox.
func Assess(dir, kind string, patterns []string, metadata json.RawMessage) Assessment {
	a := heuristic(dir, kind, patterns, metadata)
	if k := strings.ToLower(strings.TrimSpace(kind)); k == "bash" || k == "shell" {
		if cmd := MetaStrings(metadata)["command"]; strings.TrimSpace(cmd) != "" {
			v := Approve(dir, cmd)
			if v.OK {
				return Assessment{Level: Low, Details: []Reason{{Code: ReasonProvenReadOnly}}}
			}
			a.raise(ReasonNotProvenHarmless, strings.TrimPrefix(v.Why, errRefused.Error()+": "))
		} else {
			a.raise(ReasonNoCommandOnlyPatterns, "")
		}
	} else {
		a.raise(ReasonOnlyCommandsAutoApproved, "")
	}
	return a.risk()
}

// heuristic is the deny-list model: it sets medium and high, and calls
// low what it finds nothing against, which Assess then keeps only when
// Approve proves it.
func heuristic(dir, kind string, patterns []string, metadata json.RawMessage) *assessor {
	a := &assessor{dir: dir}
	meta := MetaStrings(metadata)
	switch k := strings.ToLower(strings.TrimSpace(kind)); k {
	case "bash", "shell":
		cmds := patterns
		if c := meta["command"]; strings.TrimSpace(c) != "" {
			cmds = []string{c}
		}
		if len(cmds) == 0 {
			a.add(Medium, ReasonNoCommandGiven, "")
		}
		for _, c := range cmds {
			a.command(c, 0)
		}
	case "edit", "write", "multiedit", "patch", "apply_patch":
		paths := patterns
		if len(paths) == 0 {
			paths = MetaPaths(metadata)
		}
		if len(paths) == 0 {
			a.add(Medium, ReasonEditsFilesWhichOnesWas, "")
		}
		for _, p := range paths {
			a.editPath(p)
		}
	case "read", "list":
		paths := patterns
		if len(paths) == 0 {
			paths = MetaPaths(metadata)
		}
		if len(paths) == 0 {
			a.add(Medium, ReasonReadsFilesWhichOnesWas, "")
		}
		for _, p := range paths {
			a.readPath(p)
		}
		a.add(Low, ReasonReadsFilesInTheProject, "")
	case "glob", "grep":
		// The patterns are what is searched for; a path in the metadata
		// says where.
		for _, p := range append(slices.Clone(patterns), nonEmpty(meta["path"])...) {
			a.readPath(p)
		}
		a.add(Low, ReasonLooksAtTheProject, k)
	case "lsp", "todoread", "todowrite":
		a.add(Low, ReasonLooksAtTheProject, k)
	case "external_directory":
		a.add(High, ReasonWorksOutsideTheProjectDirectory, listSuffix(patterns))
	case "webfetch":
		url := meta["url"]
		if url == "" && len(patterns) > 0 {
			url = patterns[0]
		}
		a.add(Medium, ReasonFetchesAWebPage, listSuffix(nonEmpty(url)))
	case "websearch", "codesearch":
		a.add(Medium, ReasonSearchesTheWeb, "")
	case "task":
		a.add(Medium, ReasonStartsASubagent, listSuffix(patterns))
	case "doom_loop":
		a.add(Medium, ReasonTheAgentKeepsRepeatingThe, "")
	case "":
		a.add(Medium, ReasonPermissionKindNotGiven, "")
	default:
		a.add(Medium, ReasonUnknownPermissionKind, quote(kind))
	}
	return a
}

// raise makes an assessment that found nothing against the request
// medium, its low reasons kept, with why it is not proven harmless.
func (a *assessor) raise(code ReasonCode, arg string) {
	if a.level() > Low {
		return
	}
	for i := range a.findings {
		a.findings[i].level = Medium
	}
	a.add(Medium, code, arg)
}

// finding is one reason and the level it calls for.
type finding struct {
	level  Level
	reason Reason
}

// assessor collects findings; the most serious one sets the level.
type assessor struct {
	findings []finding
	// dir is the project directory, or "" when unknown.
	dir string
}

func (a *assessor) add(l Level, code ReasonCode, arg string) {
	a.findings = append(a.findings, finding{l, Reason{code, arg}})
}

func (a *assessor) level() Level {
	l := Low
	for _, f := range a.findings {
		l = max(l, f.level)
	}
	return l
}

// risk returns the level and the reasons that matter for it: the
// low-level ones only when nothing else was found, most serious first,
// each once.
func (a *assessor) risk() Assessment {
	l := a.level()
	fs := slices.Clone(a.findings)
	slices.SortStableFunc(fs, func(x, y finding) int { return cmp.Compare(y.level, x.level) })
	r := Assessment{Level: l}
	for _, f := range fs {
		if (f.level == Low && l > Low) || slices.Contains(r.Details, f.reason) {
			continue
		}
		r.Details = append(r.Details, f.reason)
	}
	if len(r.Details) == 0 {
		r.Details = []Reason{{Code: ReasonNothingRiskyFound}}
	}
	return r
}

// maxDepth bounds how deep eval, sh -c and $(…) are followed.
const maxDepth = 4

var (
	// funcDefRE finds a shell function definition, name(){ body }.
	funcDefRE = regexp.MustCompile(`([A-Za-z_:.][A-Za-z0-9_:.-]*)\s*\(\)\s*\{([^}]*)\}`)
	// devTCPRE finds bash's /dev/tcp and /dev/udp sockets, a reverse
	// shell's usual tool.
	devTCPRE = regexp.MustCompile(`/dev/(tcp|udp)/`)
)

// command assesses a whole command line.
func (a *assessor) command(cmd string, depth int) {
	if depth > maxDepth {
		a.add(High, ReasonNestsCommandsTooDeeplyTo, "")
		return
	}
	if strings.TrimSpace(cmd) == "" {
		if depth == 0 {
			a.add(Medium, ReasonEmptyCommand, "")
		}
		return
	}
	for _, m := range funcDefRE.FindAllStringSubmatch(cmd, -1) {
		name, body := regexp.QuoteMeta(m[1]), m[2]
		if regexp.MustCompile(name + `\s*\|\s*` + name).MatchString(body) {
			a.add(High, ReasonForkBomb, "")
		} else {
			a.add(Medium, ReasonDefinesAShellFunction, "")
		}
	}
	if devTCPRE.MatchString(cmd) {
		a.add(High, ReasonOpensARawNetworkConnection, "")
	}
	sc := parseShell(cmd)
	if sc.broken {
		a.add(Medium, ReasonCouldNotReadTheWhole, "")
	}
	if sc.chained() {
		a.add(Medium, ReasonChainsSeveralCommands, "")
	}
	if sc.piped() {
		a.add(Medium, ReasonPipesOutputIntoAnotherCommand, "")
	}
	if sc.background {
		a.add(Medium, ReasonRunsACommandInThe, "")
	}
	if sc.subshell {
		a.add(Medium, ReasonRunsCommandsInASubshell, "")
	}
	if len(sc.subst) > 0 {
		a.add(Medium, ReasonUsesCommandSubstitution, "")
	}
	for _, s := range sc.subst {
		a.command(s, depth+1)
	}
	for _, c := range sc.commands {
		a.simple(c, depth)
	}
	if len(sc.commands) == 0 && len(sc.subst) == 0 && depth == 0 {
		a.add(Medium, ReasonNoCommandFound, "")
	}
}

// Commands that only read or print.
var readOnly = setOf(
	"ls", "ll", "la", "dir", "cat", "bat", "echo", "printf", "pwd", "whoami", "id", "groups",
	"date", "cal", "uname", "hostname", "uptime", "head", "tail", "wc", "grep", "egrep", "fgrep",
	"rg", "ag", "ack", "fd", "tree", "file", "stat", "du", "df", "free", "which", "whereis",
	"less", "more", "sort", "uniq", "cut", "tr", "diff", "cmp", "comm", "basename", "dirname",
	"realpath", "readlink", "true", "false", "test", "[", "[[", "sleep", "jq", "yq", "column",
	"nl", "od", "xxd", "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "shasum",
	"cksum", "seq", "ps", "pgrep", "nproc", "locale", "tty", "man", "help", "cd", "pushd",
	"popd", "exit", "return", "wait", ":", "type", "fold", "fmt", "paste", "join", "rev", "tac", "strings",
	"look", "expr", "bc", "getconf", "lsb_release", "arch", "sw_vers", "zcat", "zgrep",
)

// Builtins that change the shell's variables, options or aliases, which
// later commands then see.
var shellState = setOf("export", "unset", "alias", "unalias", "read", "local", "declare", "typeset", "set", "shopt", "readonly")

// Options that make an otherwise read-only command write files, run
// other programs or change the system. A short option matches with its
// value attached (-ofile), a long one with =value.
var readOnlyLifts = map[string][]string{
	"sort": {"-o", "--output"},
	"tree": {"-o"},
	"fd":   {"-x", "-X", "--exec", "--exec-batch"},
	"rg":   {"--pre"},
	"man":  {"-P", "--pager", "-H", "--html"},
	"less": {"-o", "-O", "--log-file", "--LOG-FILE"},
	"file": {"-C", "--compile"},
	"date": {"-s", "--set"},
	"xxd":  {"-r", "--revert"},
	"yq":   {"-i", "--inplace"},
	"git": {"-c", "--config-env", "--exec-path", "--output", "-O", "--open-files-in-pager",
		"--ext-diff", "--upload-pack", "--git-dir", "--work-tree"},
}

// Read-only commands that write their output to a second operand.
var writesSecondOperand = setOf("uniq", "xxd")

// Commands whose programs use $name themselves (awk fields, jq
// variables): a dollar sign in their arguments is not the shell's.
var dollarLanguages = setOf("awk", "gawk", "mawk", "nawk", "jq", "yq")

// Commands that write, move or delete every path they are given.
var writesPaths = setOf(
	"rm", "rmdir", "unlink", "mv", "touch", "mkdir", "chmod", "chown", "chgrp", "tee",
	"truncate", "shred", "patch", "dd",
)

// Commands that read their first paths and write the last one.
var writesLastPath = setOf("cp", "ln", "install", "rsync")

var shells = setOf("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox")

var interpreters = setOf(
	"python", "python2", "python3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php",
	"lua", "Rscript", "osascript", "pwsh", "powershell",
)

// Commands that run another command given as their arguments, with how
// many leading arguments (after options) are theirs.
var wrappers = map[string]int{
	"env": 0, "nice": 0, "ionice": 0, "nohup": 0, "time": 0, "command": 0, "builtin": 0,
	"exec": 0, "stdbuf": 0, "timeout": 1, "watch": 0, "unbuffer": 0, "caffeinate": 0,
	"chronic": 0, "xargs": 0, "parallel": 0, "flock": 1, "setsid": 0, "strace": 0, "ltrace": 0,
}

// Options of the wrappers that take a value.
var wrapperValueFlags = map[string]map[string]bool{
	"env":      setOf("-u", "-C", "--unset", "--chdir"),
	"nice":     setOf("-n", "--adjustment"),
	"ionice":   setOf("-c", "-n", "-p", "--class", "--classdata"),
	"timeout":  setOf("-s", "-k", "--signal", "--kill-after"),
	"stdbuf":   setOf("-i", "-o", "-e"),
	"watch":    setOf("-n", "--interval"),
	"xargs":    setOf("-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file"),
	"parallel": setOf("-j", "-S", "--jobs"),
	"flock":    setOf("-w", "-E", "--timeout"),
	"strace":   setOf("-o", "-e", "-p", "-s", "-u"),
	"ltrace":   setOf("-o", "-e", "-p", "-s", "-u"),
}

// Commands that run what follows as another user.
var escalators = setOf("sudo", "su", "doas", "pkexec", "runuser", "run0", "gosu", "chroot")

// Options of sudo and friends that take a value.
var escalatorValueFlags = setOf("-u", "-g", "-p", "-U", "-C", "-D", "-h", "-r", "-t", "-T", "--user", "--group")

// Disk-wrecking tools.
var diskTools = setOf(
	"dd", "mkswap", "mke2fs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk",
	"wipefs", "shred", "blkdiscard", "hdparm", "badblocks", "cryptsetup", "zpool", "lvremove",
	"vgremove", "pvremove", "diskutil",
)

// System administration that is high whatever its arguments.
var systemTools = map[string]ReasonCode{
	"shutdown":     ReasonShutsTheMachineDown,
	"reboot":       ReasonRebootsTheMachine,
	"halt":         ReasonHaltsTheMachine,
	"poweroff":     ReasonPowersTheMachineOff,
	"mount":        ReasonMountsFileSystems,
	"umount":       ReasonUnmountsFileSystems,
	"swapoff":      ReasonTurnsSwapOff,
	"swapon":       ReasonTurnsSwapOn,
	"modprobe":     ReasonLoadsKernelModules,
	"insmod":       ReasonLoadsKernelModules,
	"rmmod":        ReasonRemovesKernelModules,
	"useradd":      ReasonChangesUserAccounts,
	"userdel":      ReasonChangesUserAccounts,
	"usermod":      ReasonChangesUserAccounts,
	"adduser":      ReasonChangesUserAccounts,
	"deluser":      ReasonChangesUserAccounts,
	"groupadd":     ReasonChangesUserAccounts,
	"groupdel":     ReasonChangesUserAccounts,
	"passwd":       ReasonChangesPasswords,
	"chpasswd":     ReasonChangesPasswords,
	"visudo":       ReasonChangesSudoRights,
	"iptables":     ReasonChangesTheFirewall,
	"ip6tables":    ReasonChangesTheFirewall,
	"nft":          ReasonChangesTheFirewall,
	"ufw":          ReasonChangesTheFirewall,
	"firewall-cmd": ReasonChangesTheFirewall,
	"chattr":       ReasonChangesFileAttributes,
	"setenforce":   ReasonChangesSelinuxEnforcement,
	"kexec":        ReasonBootsAnotherKernel,
}

// simple assesses one simple command: its words and redirects.
func (a *assessor) simple(c shellCommand, depth int) {
	for _, r := range c.redirects {
		a.redirect(r)
	}
	words := c.words
	// Leading assignments: FOO=bar cmd.
	for len(words) > 0 && isAssignment(words[0]) {
		name, _, _ := strings.Cut(words[0], "=")
		if name == "LD_PRELOAD" || name == "LD_LIBRARY_PATH" || name == "DYLD_INSERT_LIBRARIES" {
			a.add(High, ReasonInjectsLibrariesIntoAProgram, name)
		} else {
			a.add(Medium, ReasonSetsEnvironmentVariables, name)
		}
		words = words[1:]
	}
	// Braces of a command group are not commands.
	for len(words) > 0 && (words[0] == "{" || words[0] == "}" || words[0] == "!") {
		words = words[1:]
	}
	if len(words) == 0 {
		return
	}
	name := commandName(words[0])
	args := words[1:]

	if escalators[name] {
		a.add(High, ReasonRunsAsAnotherUser, name)
		if name == "su" {
			for i, w := range args {
				if (w == "-c" || w == "--command") && i+1 < len(args) {
					a.generated(args[i+1 : i+2])
					a.command(args[i+1], depth+1)
				}
			}
			return
		}
		rest := skipFlags(args, escalatorValueFlags)
		if name == "chroot" && len(rest) > 0 {
			rest = rest[1:]
		}
		a.simple(shellCommand{words: rest, pipedFrom: c.pipedFrom, heredocs: c.heredocs}, depth)
		return
	}
	if n, ok := wrappers[name]; ok {
		if name == "command" || name == "type" {
			if slices.Contains(args, "-v") || slices.Contains(args, "-V") {
				a.add(Low, ReasonLooksUpACommand, "")
				return
			}
		}
		rest := skipFlags(args, wrapperValueFlags[name])
		for ; n > 0 && len(rest) > 0; n-- {
			rest = rest[1:]
		}
		for len(rest) > 0 && (isAssignment(rest[0]) || isNumber(rest[0])) {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			switch name {
			case "env":
				a.add(Medium, ReasonPrintsEnvironmentVariablesWhichMay, "")
			case "xargs":
				a.add(Low, ReasonEchoesItsInput, "")
			default:
				a.add(Medium, ReasonUnknownCommand, quote(name))
			}
			return
		}
		if name == "xargs" || name == "parallel" {
			a.add(Medium, ReasonRunsACommandForEachLine, name)
		}
		a.simple(shellCommand{words: rest, pipedFrom: c.pipedFrom, heredocs: c.heredocs}, depth)
		return
	}

	// What the command itself calls for; the checks of a read-only
	// command's reach below apply only when it found nothing but low.
	start := len(a.findings)

	// Secrets read or written by any command other than echo and printf,
	// whose arguments are text, not files.
	if name != "echo" && name != "printf" {
		for _, w := range args {
			if !strings.HasPrefix(w, "-") && isSecretPath(w) {
				a.add(High, ReasonTouchesSecretsOrCredentials, w)
			}
		}
	}

	switch {
	case name == "eval":
		a.add(Medium, ReasonUsesEval, "")
		a.generated(args)
		a.command(strings.Join(args, " "), depth+1)
	case name == "source" || name == ".":
		a.add(Medium, ReasonRunsAScriptInThe, "")
	case shells[name]:
		a.shell(name, args, c, depth)
	case interpreters[name]:
		a.interpreter(name, args, c)
	case name == "rm":
		a.rm(args)
	case name == "rmdir" || name == "unlink":
		a.add(Medium, ReasonDeletesFiles, name)
	case name == "find":
		a.find(args, depth)
	case name == "git":
		a.git(args)
	case name == "chmod" || name == "chown" || name == "chgrp":
		a.chmod(name, args)
	case strings.HasPrefix(name, "mkfs") || strings.HasPrefix(name, "newfs"):
		a.add(High, ReasonFormatsAFileSystem, name)
	case diskTools[name]:
		a.add(High, ReasonWritesRawDataToDisks, name)
	case systemTools[name] != 0:
		a.add(High, systemTools[name], name)
	case name == "init" || name == "telinit":
		a.add(High, ReasonChangesTheRunLevel, name)
	case name == "kill" || name == "pkill" || name == "killall":
		a.kill(name, args)
	case name == "systemctl" || name == "service" || name == "launchctl" || name == "sysctl":
		a.services(name, args)
	case name == "crontab":
		if slices.Contains(args, "-r") {
			a.add(High, ReasonDeletesTheCrontabCrontabR, "")
		} else {
			a.add(Medium, ReasonChangesScheduledJobsCrontab, "")
		}
	case name == "curl" || name == "wget" || name == "http" || name == "https" || name == "aria2c":
		a.add(Medium, ReasonDownloadsOrSendsDataOver, name)
	case name == "ssh" || name == "scp" || name == "sftp" || name == "nc" || name == "ncat" ||
		name == "netcat" || name == "socat" || name == "telnet" || name == "ftp":
		a.add(Medium, ReasonConnectsToAnotherMachine, name)
	case name == "rsync":
		if slices.ContainsFunc(args, func(w string) bool { return strings.HasPrefix(w, "--delete") || w == "--remove-source-files" }) {
			a.add(High, ReasonDeletesFilesWhileSyncingRsync, "")
		} else {
			a.add(Medium, ReasonCopiesFilesRsync, "")
		}
	case name == "docker" || name == "podman" || name == "kubectl" || name == "helm":
		a.containers(name, args)
	case name == "sed":
		if slices.ContainsFunc(args, func(w string) bool {
			return w == "--in-place" || strings.HasPrefix(w, "--in-place=") ||
				(strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "i"))
		}) {
			a.add(Medium, ReasonEditsFilesInPlaceSed, "")
			if ops := operandsOf(args); len(ops) > 1 {
				a.writtenPaths(name, ops[1:]) // the first is the script
			}
		} else if sedScriptsSafe(args) {
			a.add(Low, ReasonReadOnlyCommand, "sed")
		} else {
			a.add(Medium, ReasonSedScriptMayWriteFiles, "")
		}
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		if slices.ContainsFunc(args, func(w string) bool {
			return strings.Contains(w, "system") || strings.Contains(w, ">") || strings.Contains(w, "|") ||
				strings.Contains(w, "ENVIRON") || w == "-f" || strings.HasPrefix(w, "--file") || strings.HasPrefix(w, "-f")
		}) {
			a.add(Medium, ReasonAwkProgramRunsCommandsOr, "")
		} else {
			a.add(Low, ReasonReadOnlyCommand, "awk")
		}
	case name == "printenv":
		a.add(Medium, ReasonPrintsEnvironmentVariablesWhichMay, "")
	case shellState[name]:
		a.add(Medium, ReasonChangesShellVariablesOptionsOr, name)
	case name == "tee" || name == "truncate" || name == "touch" || name == "mkdir" ||
		name == "cp" || name == "mv" || name == "ln" || name == "install" || name == "patch":
		a.add(Medium, ReasonWritesFiles, name)
	case isPackageTool(name):
		a.packages(name, args)
	case name == "history":
		if slices.Contains(args, "-c") {
			a.add(Medium, ReasonClearsTheShellHistory, "")
		} else if slices.ContainsFunc(args, func(w string) bool { return !isNumber(w) }) {
			a.add(Medium, ReasonChangesOrWritesTheShell, "")
		} else {
			a.add(Low, ReasonReadOnlyCommand, "history")
		}
	case readOnly[name]:
		a.add(Low, ReasonReadOnlyCommand, name)
	case strings.Contains(words[0], substMark):
		a.add(High, ReasonRunsOutputAsACommand, "")
	case strings.HasPrefix(name, "$"):
		a.add(Medium, ReasonRunsACommandNamedBy, name)
	default:
		a.add(Medium, ReasonUnknownCommand, quote(name))
	}
	if writesPaths[name] {
		a.writtenPaths(name, args)
	}
	if writesLastPath[name] {
		if ops := operandsOf(args); len(ops) > 1 {
			a.writtenPaths(name, ops[len(ops)-1:])
		}
	}
	if len(c.heredocs) > 0 && !shells[name] && !interpreters[name] {
		a.add(Medium, ReasonReadsAHereDocument, "")
	}
	if !slices.ContainsFunc(a.findings[start:], func(f finding) bool { return f.level > Low }) {
		a.contained(name, args)
	}
}

// varRE finds a shell variable: $name or ${…}.
var varRE = regexp.MustCompile(`\$[A-Za-z_{]`)

// contained raises a command judged read-only to medium when it is not
// self-contained: it expands variables, names a path outside the
// project, a hidden file or a wildcard that could match one, or takes an
// option that makes it write or run something.
func (a *assessor) contained(name string, args []string) {
	words := args
	if dollarLanguages[name] || name == "sed" {
		// The first operand is the program, not a path.
		if i := slices.IndexFunc(words, func(w string) bool { return !strings.HasPrefix(w, "-") }); i >= 0 {
			words = slices.Delete(slices.Clone(words), i, i+1)
		}
	}
	for _, w := range words {
		v := w
		if strings.HasPrefix(w, "-") {
			if _, after, ok := strings.Cut(w, "="); ok {
				v = after
			} else if i := strings.IndexAny(w, "/~"); i > 0 {
				v = w[i:]
			} else {
				continue
			}
		}
		if !dollarLanguages[name] && varRE.MatchString(v) {
			a.add(Medium, ReasonExpandsAVariable, w)
			continue
		}
		if name == "echo" || name == "printf" {
			continue
		}
		switch {
		case isOutside(v, a.dir):
			a.add(Medium, ReasonReadsOutsideTheProject, v)
		case strings.Contains(v, "{") && strings.Contains(v, ","):
			a.add(Medium, ReasonUsesBraceExpansion, v)
		case isDotGlob(v):
			a.add(Medium, ReasonMatchesHiddenFilesWithA, v)
		case isDotPath(v):
			a.add(Medium, ReasonReadsADotfileOrHidden, v)
		}
	}
	for _, f := range readOnlyLifts[name] {
		if slices.ContainsFunc(args, func(w string) bool {
			if strings.HasPrefix(f, "--") {
				return w == f || strings.HasPrefix(w, f+"=")
			}
			return strings.HasPrefix(w, f) && !strings.HasPrefix(w, "--")
		}) {
			a.add(Medium, ReasonWritesFilesOrRunsPrograms, name+" "+f)
		}
	}
	ops := operandsOf(args)
	switch {
	case writesSecondOperand[name] && len(ops) > 1:
		a.add(Medium, ReasonWritesItsOutputToA, name+" "+ops[len(ops)-1])
	case name == "hostname" && len(ops) > 0:
		a.add(Medium, ReasonSetsTheHostName, "")
	case name == "less" && slices.ContainsFunc(args, func(w string) bool { return strings.HasPrefix(w, "+") }):
		a.add(Medium, ReasonRunsLessCommandsLess, "")
	case name == "git" && slices.Contains(args, "ls-remote"):
		a.add(Medium, ReasonContactsARemoteGitLs, "")
	case name == "jq" && slices.ContainsFunc(args, func(w string) bool { return strings.Contains(w, "env") || strings.Contains(w, "ENV") }):
		a.add(Medium, ReasonReadsEnvironmentVariablesWhichMay, "")
	}
}

// redirect assesses one redirection.
func (a *assessor) redirect(r shellRedirect) {
	t := r.target
	if r.op == "<" || r.op == "<<<" || r.op == "<&" || r.op == "<<" || r.op == "<<-" {
		if r.op == "<" && isSecretPath(t) {
			a.add(High, ReasonReadsSecretsOrCredentials, t)
		}
		// Never low: what is read is not among the command's words.
		a.add(Medium, ReasonRedirectsInput, r.op+" "+t)
		return
	}
	// Duplicating a file descriptor (2>&1, >&2) writes no file, nor do
	// the harmless devices; still a redirect, so never low.
	if (r.op == ">&" || r.op == "&>") && isFD(t) {
		a.add(Medium, ReasonRedirectsOutput, r.op+t)
		return
	}
	switch t {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		a.add(Medium, ReasonRedirectsOutput, t)
		return
	}
	if isDiskDevice(t) {
		a.add(High, ReasonWritesToADiskDevice, t)
		return
	}
	a.add(Medium, ReasonRedirectsOutputIntoAFile, t)
	a.writePath(t, verbWritesTo)
}

// writtenPaths checks the non-option arguments of a command that writes
// the paths it is given.
func (a *assessor) writtenPaths(name string, args []string) {
	for _, w := range args {
		if strings.HasPrefix(w, "-") {
			continue
		}
		if name == "dd" {
			if p, ok := strings.CutPrefix(w, "of="); ok {
				w = p
			} else {
				continue
			}
		}
		if (name == "chmod" || name == "chown" || name == "chgrp") && !strings.ContainsAny(w, "/~.*$") {
			continue // the mode or owner
		}
		a.writePath(w, pathVerb(name))
	}
}

// pathVerb says what a command does to the paths it is given.
func pathVerb(name string) pathVerbKind {
	switch name {
	case "rm", "rmdir", "unlink", "shred":
		return verbDeletes
	case "chmod", "chown", "chgrp":
		return verbChanges
	}
	return verbWrites
}

// writePath grades a path a command writes to.
func (a *assessor) writePath(p string, verb pathVerbKind) {
	switch {
	case isDiskDevice(p):
		a.add(High, writePathReasons[verb][0], p)
	case isSystemPath(p):
		a.add(High, writePathReasons[verb][1], p)
	case isSecretPath(p) || isShellStartup(p):
		a.add(High, writePathReasons[verb][2], p)
	case isScratchPath(p):
		// /tmp and friends are outside the project but harmless.
	case isOutside(p, a.dir):
		a.add(High, writePathReasons[verb][3], p)
	}
}

func (a *assessor) rm(args []string) {
	recursive, force := false, false
	var targets []string
	for _, w := range args {
		switch {
		case w == "--recursive":
			recursive = true
		case w == "--force":
			force = true
		case w == "--no-preserve-root":
			a.add(High, ReasonDeletesWithoutProtectingRmNo, "")
		case strings.HasPrefix(w, "--"):
		case strings.HasPrefix(w, "-") && len(w) > 1:
			recursive = recursive || strings.ContainsAny(w, "rR")
			force = force || strings.Contains(w, "f")
		default:
			targets = append(targets, w)
		}
	}
	switch {
	case recursive && force:
		a.add(High, ReasonDeletesFilesRecursivelyAndWithout, "")
	case recursive:
		a.add(High, ReasonDeletesFilesRecursivelyRmR, "")
	default:
		a.add(Medium, ReasonDeletesFiles, "rm")
	}
	for _, t := range targets {
		if isBroadPath(t) {
			a.add(High, ReasonDeletesABroadPath, t)
		}
	}
}

func (a *assessor) find(args []string, depth int) {
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-delete":
			a.add(High, ReasonDeletesEveryFileFoundFind, "")
		case "-exec", "-execdir", "-ok", "-okdir":
			a.add(Medium, ReasonRunsACommandForEachFileFound, args[i])
			j := i + 1
			for j < len(args) && args[j] != ";" && args[j] != "+" {
				j++
			}
			a.simple(shellCommand{words: args[i+1 : j]}, depth+1)
			i = j
		case "-fprint", "-fprintf", "-fls":
			a.add(Medium, ReasonWritesAFileFind, args[i])
		}
	}
	a.add(Low, ReasonReadOnlyCommand, "find")
}

// Read-only git subcommands.
var gitReadOnly = setOf(
	"status", "diff", "log", "show", "blame", "describe", "rev-parse", "ls-files", "ls-tree",
	"ls-remote", "shortlog", "grep", "cat-file", "whatchanged", "version", "help", "rev-list",
	"name-rev", "merge-base", "show-ref", "for-each-ref", "check-ignore", "diff-tree",
	"diff-files", "diff-index", "count-objects", "var",
)

// Git options that take a value.
var gitValueFlags = setOf("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path")

func (a *assessor) git(args []string) {
	rest := skipFlags(args, gitValueFlags)
	if len(rest) == 0 {
		a.add(Low, ReasonReadOnlyCommand, "git")
		return
	}
	sub, sargs := rest[0], rest[1:]
	has := func(flags ...string) bool {
		return slices.ContainsFunc(sargs, func(w string) bool {
			for _, f := range flags {
				if w == f || strings.HasPrefix(w, f+"=") {
					return true
				}
			}
			return false
		})
	}
	shortFlag := func(c string) bool {
		return slices.ContainsFunc(sargs, func(w string) bool {
			return strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, c)
		})
	}
	operands := func() []string {
		var out []string
		for _, w := range sargs {
			if !strings.HasPrefix(w, "-") {
				out = append(out, w)
			}
		}
		return out
	}
	switch sub {
	case "push":
		if has("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune") ||
			shortFlag("f") || shortFlag("d") ||
			slices.ContainsFunc(operands(), func(w string) bool { return strings.HasPrefix(w, "+") || strings.HasPrefix(w, ":") }) {
			a.add(High, ReasonRewritesOrDeletesRemoteHistory, "")
		} else {
			a.add(Medium, ReasonPushesToARemoteGit, "")
		}
	case "reset":
		if has("--hard", "--merge", "--keep") {
			a.add(High, ReasonDiscardsLocalChangesGitReset, "")
		} else {
			a.add(Medium, ReasonMovesTheBranchGitReset, "")
		}
	case "clean":
		if has("--force") || shortFlag("f") {
			a.add(High, ReasonDeletesUntrackedFilesGitClean, "")
		} else {
			a.add(Medium, ReasonCleansTheWorkTreeGit, "")
		}
	case "checkout", "restore", "switch":
		if has("--force", "--discard-changes") || shortFlag("f") ||
			(sub != "switch" && slices.ContainsFunc(operands(), func(w string) bool { return w == "." || w == "*" || w == ":/" })) {
			a.add(High, ReasonDiscardsLocalChangesGit, sub)
		} else {
			a.add(Medium, ReasonChangesTheWorkTreeGit, sub)
		}
	case "branch":
		switch {
		case has("--delete", "--force") || slices.Contains(sargs, "-D") || shortFlag("D"):
			a.add(High, ReasonForceDeletesABranchGit, "")
		case len(operands()) == 0 || has("--list", "--show-current", "--contains", "--merged", "--no-merged"):
			a.add(Low, ReasonReadOnlyCommand, "git branch")
		default:
			a.add(Medium, ReasonChangesBranchesGitBranch, "")
		}
	case "tag":
		if len(operands()) == 0 || has("--list") || shortFlag("l") {
			a.add(Low, ReasonReadOnlyCommand, "git tag")
		} else {
			a.add(Medium, ReasonChangesTagsGitTag, "")
		}
	case "remote":
		if len(operands()) == 0 || operands()[0] == "show" || operands()[0] == "get-url" {
			a.add(Low, ReasonReadOnlyCommand, "git remote")
		} else {
			a.add(Medium, ReasonChangesRemotesGitRemote, "")
		}
	case "config":
		if has("--get", "--get-all", "--get-regexp", "--list", "-l") || len(operands()) <= 1 && !has("--unset", "--unset-all", "--add", "--replace-all") {
			a.add(Low, ReasonReadOnlyCommand, "git config")
		} else {
			a.add(Medium, ReasonChangesGitConfigurationGitConfig, "")
		}
	case "stash":
		op := ""
		if o := operands(); len(o) > 0 {
			op = o[0]
		}
		switch op {
		case "list", "show":
			a.add(Low, ReasonReadOnlyCommand, "git stash "+op)
		case "drop", "clear":
			a.add(High, ReasonThrowsStashedChangesAwayGit, op)
		default:
			a.add(Medium, ReasonStashesChangesGitStash, "")
		}
	case "reflog":
		if o := operands(); len(o) > 0 && (o[0] == "expire" || o[0] == "delete") {
			a.add(High, ReasonDeletesReflogEntriesGitReflog, o[0])
		} else {
			a.add(Low, ReasonReadOnlyCommand, "git reflog")
		}
	case "filter-branch", "filter-repo", "update-ref", "replace":
		a.add(High, ReasonRewritesRepositoryHistoryGit, sub)
	case "gc", "prune":
		if has("--prune", "--aggressive") || sub == "prune" {
			a.add(High, ReasonDeletesUnreachableObjectsGit, sub)
		} else {
			a.add(Medium, ReasonRepacksTheRepositoryGitGc, "")
		}
	case "worktree":
		if o := operands(); len(o) > 0 && o[0] == "list" {
			a.add(Low, ReasonReadOnlyCommand, "git worktree list")
		} else {
			a.add(Medium, ReasonChangesWorkTreesGitWorktree, "")
		}
	default:
		if gitReadOnly[sub] {
			a.add(Low, ReasonReadOnlyCommand, "git "+sub)
		} else {
			a.add(Medium, ReasonChangesTheRepositoryGit, sub)
		}
	}
}

func (a *assessor) chmod(name string, args []string) {
	recursive := slices.ContainsFunc(args, func(w string) bool {
		return w == "--recursive" || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "R")
	})
	broad := false
	for _, w := range args {
		if !strings.HasPrefix(w, "-") && isBroadPath(w) {
			broad = true
		}
		if name == "chmod" && (strings.Contains(w, "+s") || strings.HasPrefix(w, "4") && len(w) == 4 || strings.HasPrefix(w, "2") && len(w) == 4) {
			a.add(High, ReasonSetsTheSetuidOrSetgid, "")
		}
	}
	switch {
	case recursive && broad:
		a.add(High, ReasonChangesOwnershipOrPermissionsOnABroadPath, name)
	case recursive:
		a.add(Medium, ReasonChangesOwnershipOrPermissionsRecursively, name)
	default:
		a.add(Medium, ReasonChangesOwnershipOrPermissions, name)
	}
}

func (a *assessor) kill(name string, args []string) {
	var pids []string
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-s" || w == "-n" || w == "--signal":
			i++
		case strings.HasPrefix(w, "-") && w != "-1":
		default:
			pids = append(pids, w)
		}
	}
	if name == "kill" && slices.ContainsFunc(pids, func(p string) bool { return p == "1" || p == "-1" || p == "0" }) {
		a.add(High, ReasonKillsInitOrEveryProcess, name+" "+strings.Join(pids, " "))
		return
	}
	a.add(Medium, ReasonStopsProcesses, name)
}

func (a *assessor) services(name string, args []string) {
	if name == "sysctl" && slices.ContainsFunc(args, func(w string) bool {
		return w == "-w" || w == "--write" || strings.HasPrefix(w, "-p") || strings.HasPrefix(w, "--load") || w == "--system"
	}) {
		a.add(High, ReasonChangesKernelSettingsSysctl, "")
		return
	}
	ops := skipFlags(args, setOf("-H", "-M", "--host", "--machine", "-w"))
	if len(ops) == 0 {
		a.add(Low, ReasonReadOnlyCommand, name)
		return
	}
	op := ops[0]
	if name == "service" && len(ops) > 1 {
		op = ops[1]
	}
	switch {
	case name == "sysctl" && !strings.Contains(strings.Join(ops, " "), "="):
		a.add(Low, ReasonReadOnlyCommand, "sysctl")
	case op == "status" || op == "show" || op == "cat" || strings.HasPrefix(op, "list") || strings.HasPrefix(op, "is-") || op == "print":
		a.add(Low, ReasonReadOnlyCommand, name+" "+op)
	default:
		a.add(High, ReasonChangesSystemServicesOrSettings, name+" "+op)
	}
}

func (a *assessor) containers(name string, args []string) {
	joined := " " + strings.Join(args, " ") + " "
	switch {
	case strings.Contains(joined, "--privileged") || strings.Contains(joined, " -v /:") || strings.Contains(joined, "--volume /:") ||
		strings.Contains(joined, "--pid=host") || strings.Contains(joined, "--net=host") || strings.Contains(joined, "--network=host"):
		a.add(High, ReasonRunsAContainerWithHost, name)
	case strings.Contains(joined, " prune ") || strings.Contains(joined, " delete ") ||
		(strings.Contains(joined, " rm ") || strings.Contains(joined, " rmi ")) && strings.Contains(joined, " -f"):
		a.add(High, ReasonDeletesContainersImagesOrCluster, name)
	case strings.Contains(joined, " push "):
		a.add(High, ReasonPublishesAnImagePush, name)
	default:
		a.add(Medium, ReasonRunsContainersOrClusterCommands, name)
	}
}

func isPackageTool(name string) bool {
	switch name {
	case "npm", "npx", "pnpm", "yarn", "pip", "pip3", "pipx", "uv", "poetry", "cargo", "go", "gem",
		"bundle", "composer", "apt", "apt-get", "dnf", "yum", "brew", "pacman", "snap", "zypper",
		"apk", "port", "nix", "nix-env", "conda", "mvn", "gradle", "dotnet", "make", "cmake", "mix",
		"rustup", "gh", "twine":
		return true
	}
	return false
}

func (a *assessor) packages(name string, args []string) {
	ops := skipFlags(args, nil)
	op := ""
	if len(ops) > 0 {
		op = ops[0]
	}
	switch {
	case op == "publish" || op == "upload" || name == "twine" || (name == "gh" && (op == "release" || op == "repo")):
		a.add(High, ReasonPublishesOrChangesSomethingPublic, name+" "+op)
	case op == "remove" || op == "purge" || op == "uninstall" || op == "autoremove" || op == "erase" || (name == "pacman" && strings.HasPrefix(op, "-R")):
		a.add(High, ReasonRemovesInstalledPackages, name+" "+op)
	case name == "go" && op == "env" && slices.ContainsFunc(args, func(w string) bool { return w == "-w" || w == "-u" }):
		a.add(Medium, ReasonChangesGoSettingsGoEnv, "")
	case name == "go" && (op == "version" || op == "env" || op == "doc"):
		a.add(Low, ReasonReadOnlyCommand, "go "+op)
	case op == "--version" || op == "-v" || op == "-V" || op == "version":
		a.add(Low, ReasonReadOnlyCommand, name+" "+op)
	case op == "":
		a.add(Medium, ReasonRuns, name)
	default:
		a.add(Medium, ReasonRuns, name+" "+op)
	}
}

// shell assesses a shell started by the command: sh -c 'cmd', a script,
// or a shell reading commands from a pipe or a here-document.
func (a *assessor) shell(name string, args []string, c shellCommand, depth int) {
	for i, w := range args {
		if strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "c") {
			a.add(Medium, ReasonRunsACommandThroughA, name)
			if i+1 < len(args) {
				a.generated(args[i+1 : i+2])
				a.command(args[i+1], depth+1)
			}
			return
		}
	}
	scripts := skipFlags(args, setOf("-o", "+o", "-O", "+O"))
	switch {
	case c.pipedFrom && (len(scripts) == 0 || slices.Contains(args, "-s")):
		a.add(High, ReasonPipesTextIntoAShell, name)
	case len(c.heredocs) > 0 && len(scripts) == 0:
		a.add(Medium, ReasonRunsAHereDocumentThrough, name)
		for _, h := range c.heredocs {
			a.command(h, depth+1)
		}
	case len(scripts) > 0 && strings.HasPrefix(scripts[0], "<(") || slices.Contains(scripts, "/dev/stdin"):
		a.add(High, ReasonRunsGeneratedOrDownloadedText, name)
	case len(scripts) > 0:
		a.add(Medium, ReasonRunsAScript, name+" "+scripts[0])
	default:
		a.add(Medium, ReasonStartsAShell, name)
	}
}

// generated flags code that is the output of a substitution: whatever
// was downloaded or printed runs.
func (a *assessor) generated(code []string) {
	if slices.ContainsFunc(code, func(w string) bool { return strings.Contains(w, substMark) }) {
		a.add(High, ReasonRunsOutputAsCode, "")
	}
}

// interpreter assesses a language interpreter: inline code, a script, or
// code piped in.
func (a *assessor) interpreter(name string, args []string, c shellCommand) {
	for _, w := range args {
		switch w {
		case "-c", "-e", "--eval", "-E", "-r", "--command", "-p", "--print":
			a.add(Medium, ReasonRunsInlineCode, name+" "+w)
			return
		case "--version", "-V", "--help":
			a.add(Low, ReasonReadOnlyCommand, name+" "+w)
			return
		}
		if w == "-i" && name == "perl" {
			a.add(Medium, ReasonEditsFilesInPlacePerl, "")
			return
		}
	}
	scripts := skipFlags(args, setOf("-m", "-W", "-X"))
	switch {
	case c.pipedFrom && (len(scripts) == 0 || scripts[0] == "-"):
		a.add(High, ReasonPipesTextIntoAnInterpreter, name)
	case len(scripts) > 0 && strings.HasPrefix(scripts[0], "<("):
		a.add(High, ReasonRunsGeneratedOrDownloadedCode, name)
	case len(c.heredocs) > 0:
		a.add(Medium, ReasonRunsInlineCodeFromA, name)
	default:
		a.add(Medium, ReasonRunsAProgram, name)
	}
}

// editPath grades a file an edit permission would change. Edit patterns
// are relative to the project, so an absolute one or one climbing out
// with ".." is outside it.
func (a *assessor) editPath(p string) {
	q := normPath(p)
	switch {
	case q == "" || q == ".":
		a.add(Medium, ReasonEditsFilesInTheProject, "")
	case strings.ContainsAny(q, "*?["):
		a.add(High, ReasonEditsEveryFileMatching, quote(p))
	case isSystemPath(q):
		a.add(High, ReasonEditsASystemFile, p)
	case isSecretPath(q) || isShellStartup(q):
		a.add(High, ReasonEditsSecretsCredentialsOrStart, p)
	case isOutside(p, a.dir):
		a.add(High, ReasonEditsAFileOutsideThe, p)
	case isDotPath(q):
		a.add(High, ReasonEditsADotfileOrHidden, p)
	default:
		a.add(Medium, ReasonEditsAFileInThe, p)
	}
}

// readPath grades a file a read permission would show the agent.
func (a *assessor) readPath(p string) {
	q := normPath(p)
	switch {
	case isSecretPath(q):
		a.add(High, ReasonReadsSecretsOrCredentials, p)
	case isOutside(p, a.dir):
		a.add(Medium, ReasonReadsAFileOutsideThe, p)
	case strings.Contains(q, "$"):
		a.add(Medium, ReasonReadsAPathMadeOf, p)
	case isDotPath(q) || isDotGlob(q) || strings.Contains(q, "{") && strings.Contains(q, ","):
		a.add(Medium, ReasonReadsADotfile, p)
	}
}

// isOutside reports whether path p, relative to directory dir (the
// project, "" when unknown), may lie outside it: it climbs with "..", or
// it is absolute or under a home directory and not under dir.
func isOutside(p, dir string) bool {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if slices.Contains(strings.Split(p, "/"), "..") {
		return true
	}
	q := normPath(p)
	if q == "" || !isAbs(q) {
		return false
	}
	d := normPath(dir)
	if d == "" || !strings.HasPrefix(d, "/") && !isAbs(d) {
		return true
	}
	return q != d && !strings.HasPrefix(q, strings.TrimSuffix(d, "/")+"/")
}

// isDotGlob reports a wildcard that can match hidden files: one in a
// path segment that starts with a dot.
func isDotGlob(p string) bool {
	for _, seg := range strings.Split(normPath(p), "/") {
		if strings.HasPrefix(seg, ".") && strings.ContainsAny(seg, "*?[") {
			return true
		}
	}
	return false
}

// sedSafeRE is a sed script that only prints or deletes lines, or
// substitutes with no w (write) or e (execute) flag.
var sedSafeRE = regexp.MustCompile(`^\s*((\d+|\$|/[^/]*/)(\s*,\s*(\d+|\$|/[^/]*/))?\s*!?\s*[pdq=]?|s/([^/\\]|\\.)*/([^/\\]|\\.)*/[gpiI0-9]*)\s*$`)

// sedScriptsSafe reports whether every script of a sed command (its -e
// values, or else its first operand) is sedSafeRE, and none is read from
// a file.
func sedScriptsSafe(args []string) bool {
	var scripts []string
	fromE := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-f" || strings.HasPrefix(w, "--file") || strings.HasPrefix(w, "-f"):
			return false
		case w == "-e" || w == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			fromE = true
		case strings.HasPrefix(w, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(w, "--expression="))
			fromE = true
		}
	}
	if !fromE {
		ops := operandsOf(args)
		if len(ops) == 0 {
			return false
		}
		scripts = ops[:1]
	}
	for _, sc := range scripts {
		for _, part := range strings.Split(sc, ";") {
			if !sedSafeRE.MatchString(part) {
				return false
			}
		}
	}
	return true
}

// normPath cleans a path for matching, with forward slashes.
func normPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// isAbs reports whether p is absolute or relative to a home directory,
// on any system opencode runs on.
func isAbs(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$HOME") || strings.HasPrefix(p, "${HOME}") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\') &&
		('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

// isScratchPath reports paths meant for throwaway files.
func isScratchPath(p string) bool {
	q := normPath(p)
	for _, d := range []string{"/tmp", "/var/tmp", "/private/tmp", "/dev/shm"} {
		if q == d || strings.HasPrefix(q, d+"/") {
			return true
		}
	}
	return q == "/dev/null"
}

var systemDirs = []string{
	"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys",
	"/proc", "/dev", "/var", "/opt", "/root", "/srv", "/snap", "/System", "/Library",
	"/Applications", "/private/etc", "/private/var",
	"c:/windows", "c:/program files",
}

// isSystemPath reports / itself and paths under the system's own
// directories (but not /dev/null and the other harmless devices).
func isSystemPath(p string) bool {
	q := normPath(p)
	if q == "/" || q == "/*" {
		return true
	}
	switch q {
	case "/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/random", "/dev/urandom":
		return false
	}
	if strings.HasPrefix(q, "/dev/fd/") || isScratchPath(q) {
		return false
	}
	lq := strings.ToLower(q)
	for _, d := range systemDirs {
		if lq == strings.ToLower(d) || strings.HasPrefix(lq, strings.ToLower(d)+"/") {
			return true
		}
	}
	return false
}

var diskDeviceRE = regexp.MustCompile(`^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/|loop|sr)`)

func isDiskDevice(p string) bool { return diskDeviceRE.MatchString(normPath(p)) }

// isBroadPath reports targets whose recursive change reaches far: the
// root, a home directory, the whole project, a bare wildcard, or any
// system directory.
func isBroadPath(p string) bool {
	q := normPath(p)
	switch q {
	case "/", "/*", "~", "~/*", "$HOME", "${HOME}", "$HOME/*", "${HOME}/*", ".", "./*", "..", "../*", "*", ".*", "/home", "/Users":
		return true
	}
	if q == "~" || strings.HasPrefix(q, "~") && !strings.Contains(q[1:], "/") {
		return true // ~user
	}
	return isSystemPath(q) || strings.HasPrefix(q, "/home/") && strings.Count(q, "/") == 2 ||
		strings.HasPrefix(q, "/Users/") && strings.Count(q, "/") == 2
}

var secretNameRE = regexp.MustCompile(`(?i)(^|/)(\.env(\..*)?|\.envrc|\.netrc|\.npmrc|\.pypirc|\.pgpass|\.git-credentials|\.htpasswd|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|authorized_keys|known_hosts|[^/]*\.(pem|key|p12|pfx|keystore|jks|kdbx|ovpn)|credentials(\.json)?|secrets?(\.[a-z]+)?|shadow|gshadow|sudoers|master\.key|service-account[^/]*\.json)$`)

var secretDirRE = regexp.MustCompile(`(?i)(^|/)(\.ssh|\.gnupg|\.aws|\.azure|\.kube|\.docker|\.config/gcloud|\.password-store|\.vault-token|sudoers\.d)(/|$)`)

// isSecretPath reports files and folders that usually hold credentials.
func isSecretPath(p string) bool {
	q := normPath(p)
	return q != "" && (secretNameRE.MatchString(q) || secretDirRE.MatchString(q))
}

var startupRE = regexp.MustCompile(`(^|/)\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|cshrc|tcshrc|kshrc|inputrc|config/fish/config\.fish)$`)

// isShellStartup reports shell start-up files, which run on every login.
func isShellStartup(p string) bool { return startupRE.MatchString(normPath(p)) }

// isDotPath reports a path with a hidden file or folder in it.
func isDotPath(p string) bool {
	for _, seg := range strings.Split(normPath(p), "/") {
		if len(seg) > 1 && seg[0] == '.' && seg != ".." {
			return true
		}
	}
	return false
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
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
	var out []string
	for _, w := range args {
		if !strings.HasPrefix(w, "-") || w == "-" {
			out = append(out, w)
		}
	}
	return out
}

func setOf(ss ...string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

func quote(s string) string { return "“" + oneLine(s) + "”" }

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

// oneLine folds s into one line of single-spaced words.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

package risk

import (
	"regexp"
	"slices"
	"strings"
)

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
	words := a.assignments(c.words)
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
		a.escalated(name, args, c, depth)
		return
	}
	if _, ok := wrappers[name]; ok {
		a.wrapped(name, args, c, depth)
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
	a.program(name, words[0], args, c, depth)
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

// assignments assesses the assignments that lead a command (FOO=bar cmd)
// and returns the words after them.
func (a *assessor) assignments(words []string) []string {
	for len(words) > 0 && isAssignment(words[0]) {
		name, _, _ := strings.Cut(words[0], "=")
		if name == "LD_PRELOAD" || name == "LD_LIBRARY_PATH" || name == "DYLD_INSERT_LIBRARIES" {
			a.add(High, ReasonInjectsLibrariesIntoAProgram, name)
		} else {
			a.add(Medium, ReasonSetsEnvironmentVariables, name)
		}
		words = words[1:]
	}
	return words
}

// escalated assesses a command run as another user (sudo, su -c, …):
// high for the escalation, and then the command it runs.
func (a *assessor) escalated(name string, args []string, c shellCommand, depth int) {
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
}

// wrapped assesses a wrapper (env, nice, xargs, …) by the command it
// runs, or by what it does alone when it is given none.
func (a *assessor) wrapped(name string, args []string, c shellCommand, depth int) {
	if name == "command" || name == "type" {
		if slices.Contains(args, "-v") || slices.Contains(args, "-V") {
			a.add(Low, ReasonLooksUpACommand, "")
			return
		}
	}
	rest := skipFlags(args, wrapperValueFlags[name])
	rest = rest[min(wrappers[name], len(rest)):]
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
}

// program assesses what command name (word, as written) does with args
// by itself, the paths it writes aside.
func (a *assessor) program(name, word string, args []string, c shellCommand, depth int) {
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
		a.crontab(args)
	case name == "curl" || name == "wget" || name == "http" || name == "https" || name == "aria2c":
		a.add(Medium, ReasonDownloadsOrSendsDataOver, name)
	case name == "ssh" || name == "scp" || name == "sftp" || name == "nc" || name == "ncat" ||
		name == "netcat" || name == "socat" || name == "telnet" || name == "ftp":
		a.add(Medium, ReasonConnectsToAnotherMachine, name)
	case name == "rsync":
		a.rsync(args)
	case name == "docker" || name == "podman" || name == "kubectl" || name == "helm":
		a.containers(name, args)
	case name == "sed":
		a.sed(args)
	case name == "awk" || name == "gawk" || name == "mawk" || name == "nawk":
		a.awk(args)
	case name == "printenv":
		a.add(Medium, ReasonPrintsEnvironmentVariablesWhichMay, "")
	case shellState[name]:
		a.add(Medium, ReasonChangesShellVariablesOptionsOr, name)
	case name == "tee" || name == "truncate" || name == "touch" || name == "mkdir" ||
		name == "cp" || name == "mv" || name == "ln" || name == "install" || name == "patch":
		a.add(Medium, ReasonWritesFiles, name)
	case packageTools[name]:
		a.packages(name, args)
	case name == "history":
		a.history(args)
	case readOnly[name]:
		a.add(Low, ReasonReadOnlyCommand, name)
	case strings.Contains(word, substMark):
		a.add(High, ReasonRunsOutputAsACommand, "")
	case strings.HasPrefix(name, "$"):
		a.add(Medium, ReasonRunsACommandNamedBy, name)
	default:
		a.add(Medium, ReasonUnknownCommand, quote(name))
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

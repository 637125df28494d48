package risk

import (
	"regexp"
	"slices"
	"strings"
)

// The assessors of the programs the heuristic knows one by one, where the
// subcommand or an option decides how far the command reaches.

// rm grades a deletion: recursion and -f raise it, and so does a target
// as broad as / or the home directory.
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

// gitArgs are the words after a git subcommand.
type gitArgs []string

// has reports whether any of the long options flags is given, alone or
// with =value.
func (g gitArgs) has(flags ...string) bool {
	return slices.ContainsFunc(g, func(w string) bool {
		for _, f := range flags {
			if w == f || strings.HasPrefix(w, f+"=") {
				return true
			}
		}
		return false
	})
}

// shortFlag reports whether the one-letter option c is given, alone or
// in a group (-fd).
func (g gitArgs) shortFlag(c string) bool {
	return slices.ContainsFunc(g, func(w string) bool {
		return strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, c)
	})
}

// operands are the words that are not options.
func (g gitArgs) operands() []string {
	return slices.DeleteFunc(slices.Clone(g), func(w string) bool { return strings.HasPrefix(w, "-") })
}

// git grades a git command by its subcommand: what changes the work tree
// or a remote, what changes refs and settings, what rewrites history.
func (a *assessor) git(args []string) {
	rest := skipFlags(args, gitValueFlags)
	if len(rest) == 0 {
		a.add(Low, ReasonReadOnlyCommand, "git")
		return
	}
	sub, g := rest[0], gitArgs(rest[1:])
	switch sub {
	case "push", "reset", "clean", "checkout", "restore", "switch":
		a.gitWorkTree(sub, g)
	case "branch", "tag", "remote", "config", "stash", "reflog", "worktree":
		a.gitRefs(sub, g)
	case "filter-branch", "filter-repo", "update-ref", "replace":
		a.add(High, ReasonRewritesRepositoryHistoryGit, sub)
	case "gc", "prune":
		if g.has("--prune", "--aggressive") || sub == "prune" {
			a.add(High, ReasonDeletesUnreachableObjectsGit, sub)
		} else {
			a.add(Medium, ReasonRepacksTheRepositoryGitGc, "")
		}
	default:
		if gitReadOnly[sub] {
			a.add(Low, ReasonReadOnlyCommand, "git "+sub)
		} else {
			a.add(Medium, ReasonChangesTheRepositoryGit, sub)
		}
	}
}

// gitWorkTree grades the subcommands that change the work tree or a
// remote: forced or discarding ones are high.
func (a *assessor) gitWorkTree(sub string, g gitArgs) {
	switch sub {
	case "push":
		if g.has("--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "--prune") ||
			g.shortFlag("f") || g.shortFlag("d") ||
			slices.ContainsFunc(g.operands(), func(w string) bool { return strings.HasPrefix(w, "+") || strings.HasPrefix(w, ":") }) {
			a.add(High, ReasonRewritesOrDeletesRemoteHistory, "")
		} else {
			a.add(Medium, ReasonPushesToARemoteGit, "")
		}
	case "reset":
		if g.has("--hard", "--merge", "--keep") {
			a.add(High, ReasonDiscardsLocalChangesGitReset, "")
		} else {
			a.add(Medium, ReasonMovesTheBranchGitReset, "")
		}
	case "clean":
		if g.has("--force") || g.shortFlag("f") {
			a.add(High, ReasonDeletesUntrackedFilesGitClean, "")
		} else {
			a.add(Medium, ReasonCleansTheWorkTreeGit, "")
		}
	case "checkout", "restore", "switch":
		if g.has("--force", "--discard-changes") || g.shortFlag("f") ||
			(sub != "switch" && slices.ContainsFunc(g.operands(), func(w string) bool { return w == "." || w == "*" || w == ":/" })) {
			a.add(High, ReasonDiscardsLocalChangesGit, sub)
		} else {
			a.add(Medium, ReasonChangesTheWorkTreeGit, sub)
		}
	}
}

// gitRefs grades the subcommands that list or change branches, tags,
// remotes, settings, stashes, the reflog and work trees: listing is
// read-only, throwing something away high.
func (a *assessor) gitRefs(sub string, g gitArgs) {
	switch sub {
	case "branch":
		switch {
		case g.has("--delete", "--force") || slices.Contains(g, "-D") || g.shortFlag("D"):
			a.add(High, ReasonForceDeletesABranchGit, "")
		case len(g.operands()) == 0 || g.has("--list", "--show-current", "--contains", "--merged", "--no-merged"):
			a.add(Low, ReasonReadOnlyCommand, "git branch")
		default:
			a.add(Medium, ReasonChangesBranchesGitBranch, "")
		}
	case "tag":
		if len(g.operands()) == 0 || g.has("--list") || g.shortFlag("l") {
			a.add(Low, ReasonReadOnlyCommand, "git tag")
		} else {
			a.add(Medium, ReasonChangesTagsGitTag, "")
		}
	case "remote":
		if len(g.operands()) == 0 || g.operands()[0] == "show" || g.operands()[0] == "get-url" {
			a.add(Low, ReasonReadOnlyCommand, "git remote")
		} else {
			a.add(Medium, ReasonChangesRemotesGitRemote, "")
		}
	case "config":
		if g.has("--get", "--get-all", "--get-regexp", "--list", "-l") || len(g.operands()) <= 1 && !g.has("--unset", "--unset-all", "--add", "--replace-all") {
			a.add(Low, ReasonReadOnlyCommand, "git config")
		} else {
			a.add(Medium, ReasonChangesGitConfigurationGitConfig, "")
		}
	case "stash":
		op := ""
		if o := g.operands(); len(o) > 0 {
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
		if o := g.operands(); len(o) > 0 && (o[0] == "expire" || o[0] == "delete") {
			a.add(High, ReasonDeletesReflogEntriesGitReflog, o[0])
		} else {
			a.add(Low, ReasonReadOnlyCommand, "git reflog")
		}
	case "worktree":
		if o := g.operands(); len(o) > 0 && o[0] == "list" {
			a.add(Low, ReasonReadOnlyCommand, "git worktree list")
		} else {
			a.add(Medium, ReasonChangesWorkTreesGitWorktree, "")
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

var packageTools = setOf(
	"npm", "npx", "pnpm", "yarn", "pip", "pip3", "pipx", "uv", "poetry", "cargo", "go", "gem",
	"bundle", "composer", "apt", "apt-get", "dnf", "yum", "brew", "pacman", "snap", "zypper",
	"apk", "port", "nix", "nix-env", "conda", "mvn", "gradle", "dotnet", "make", "cmake", "mix",
	"rustup", "gh", "twine",
)

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

// crontab grades a change to the scheduled jobs; -r deletes them all.
func (a *assessor) crontab(args []string) {
	if slices.Contains(args, "-r") {
		a.add(High, ReasonDeletesTheCrontabCrontabR, "")
	} else {
		a.add(Medium, ReasonChangesScheduledJobsCrontab, "")
	}
}

// rsync grades a copy; one that deletes what the source lacks is high.
func (a *assessor) rsync(args []string) {
	if slices.ContainsFunc(args, func(w string) bool { return strings.HasPrefix(w, "--delete") || w == "--remove-source-files" }) {
		a.add(High, ReasonDeletesFilesWhileSyncingRsync, "")
	} else {
		a.add(Medium, ReasonCopiesFilesRsync, "")
	}
}

// sed is read-only only when it edits no file in place and its script
// neither writes files nor runs commands.
func (a *assessor) sed(args []string) {
	if slices.ContainsFunc(args, func(w string) bool {
		return w == "--in-place" || strings.HasPrefix(w, "--in-place=") ||
			(strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "i"))
	}) {
		a.add(Medium, ReasonEditsFilesInPlaceSed, "")
		if ops := operandsOf(args); len(ops) > 1 {
			a.writtenPaths("sed", ops[1:]) // the first is the script
		}
	} else if sedScriptsSafe(args) {
		a.add(Low, ReasonReadOnlyCommand, "sed")
	} else {
		a.add(Medium, ReasonSedScriptMayWriteFiles, "")
	}
}

// awk is read-only only when its program neither runs commands, writes
// files nor reads the environment, and comes from no file.
func (a *assessor) awk(args []string) {
	if slices.ContainsFunc(args, func(w string) bool {
		return strings.Contains(w, "system") || strings.Contains(w, ">") || strings.Contains(w, "|") ||
			strings.Contains(w, "ENVIRON") || w == "-f" || strings.HasPrefix(w, "--file") || strings.HasPrefix(w, "-f")
	}) {
		a.add(Medium, ReasonAwkProgramRunsCommandsOr, "")
	} else {
		a.add(Low, ReasonReadOnlyCommand, "awk")
	}
}

// history reads the shell's history; clearing or writing it is medium.
func (a *assessor) history(args []string) {
	if slices.Contains(args, "-c") {
		a.add(Medium, ReasonClearsTheShellHistory, "")
	} else if slices.ContainsFunc(args, func(w string) bool { return !isNumber(w) }) {
		a.add(Medium, ReasonChangesOrWritesTheShell, "")
	} else {
		a.add(Low, ReasonReadOnlyCommand, "history")
	}
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

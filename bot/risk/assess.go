package risk

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"
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
		for _, p := range a.paths(patterns, metadata, ReasonEditsFilesWhichOnesWas) {
			a.editPath(p)
		}
	case "read", "list":
		for _, p := range a.paths(patterns, metadata, ReasonReadsFilesWhichOnesWas) {
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

// paths are the patterns, or else the paths the metadata names; none is
// the reason given when there are neither.
func (a *assessor) paths(patterns []string, metadata json.RawMessage, none ReasonCode) []string {
	if len(patterns) == 0 {
		patterns = MetaPaths(metadata)
	}
	if len(patterns) == 0 {
		a.add(Medium, none, "")
	}
	return patterns
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

// MaxTimeout is the longest a shell command may be allowed to run (in
// milliseconds) and still rate low: opencode's own default.
const MaxTimeout int64 = 2 * 60 * 1000

// Run is what the tool call of a shell command says about how it runs.
type Run struct {
	// Read says the call's input was read and its command is the
	// request's.
	Read bool
	// Elsewhere is the folder the command runs in when that is not the
	// project directory, else "".
	Elsewhere string
	// Timeout is how long it may run, in milliseconds; 0 is opencode's
	// default.
	Timeout int64
}

// AssessRun is Assess of a shell command together with what its tool call
// says (nil: nothing, as for requests of other kinds). A command whose
// call could not be read, that runs in another folder or may run longer
// than MaxTimeout is at least medium, whatever Approve says of its text.
func AssessRun(dir, kind string, patterns []string, metadata json.RawMessage, run *Run) Assessment {
	a := Assess(dir, kind, patterns, metadata)
	if run == nil {
		return a
	}
	switch {
	case !run.Read:
		a = a.raise(Reason{Code: ReasonToolCallNotRead})
	case run.Elsewhere != "":
		a = a.raise(Reason{Code: ReasonRunsInAnotherFolder, Arg: run.Elsewhere})
	}
	if run.Read && run.Timeout > MaxTimeout {
		a = a.raise(Reason{Code: ReasonMayRunLong, Arg: (time.Duration(run.Timeout) * time.Millisecond).String()})
	}
	return a
}

// raise makes a at least medium for r, which it lists first unless a is
// high. Reasons that speak for low go.
func (a Assessment) raise(r Reason) Assessment {
	rest := slices.DeleteFunc(slices.Clone(a.Details), func(x Reason) bool {
		return x == r || x.Code == ReasonProvenReadOnly || x.Code == ReasonNothingRiskyFound
	})
	if a.Level == High {
		a.Details = append(rest, r)
		return a
	}
	a.Level = Medium
	a.Details = append([]Reason{r}, rest...)
	return a
}

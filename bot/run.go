package bot

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/risk"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// What a shell command's permission request leaves out (the folder it
// runs in, its timeout) is read from its tool call; auto-approval also
// checks that opencode's rules make a person guard what the command's
// programs read for configuration.

// toolCallTimeout bounds reading a request's tool call, and the look-ups
// of the rules, before it is posted or approved.
const toolCallTimeout = 5 * time.Second

// isShell reports whether kind is a shell command's permission.
func isShell(kind string) bool {
	k := strings.ToLower(strings.TrimSpace(kind))
	return k == "bash" || k == "shell"
}

// readRun reads what the tool call of e, a shell command's request p,
// runs; the Run it returns says Read false when that cannot be known
// exactly. Not a shell command: nil.
func (b *Bridge) readRun(ctx context.Context, log zerolog.Logger, e *pending.Entry, p *opencode.PermissionRequest) *pending.Run {
	if !isShell(p.Permission) {
		return nil
	}
	if p.Surface == opencode.SurfaceAPI {
		// Its messages are another model, at other routes.
		log.Info().Msg("the tool calls of opencode's /api surface are not read; the message says where the command runs is unknown")
		return &pending.Run{}
	}
	run, err := b.toolRun(ctx, e, p)
	if err != nil {
		log.Warn().Err(err).Msg("could not read what the command's tool call runs; it is asked, and its message says so")
		return &pending.Run{}
	}
	return run
}

func (b *Bridge) toolRun(ctx context.Context, e *pending.Entry, p *opencode.PermissionRequest) (*pending.Run, error) {
	if p.Tool == nil {
		return nil, fmt.Errorf("read tool call of %s: the request names none", p.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, toolCallTimeout)
	defer cancel()
	tc, err := b.opencodeOf(e.Server).ToolCall(ctx, e.Directory, e.SessionID, *p.Tool)
	if err != nil {
		return nil, err // it names the call
	}
	if !isShell(tc.Tool) {
		return nil, fmt.Errorf("read tool call %s: it calls %q, not a shell", p.Tool.CallID, tc.Tool)
	}
	in, err := tc.Bash()
	if err != nil {
		return nil, fmt.Errorf("read tool call %s: %w", p.Tool.CallID, err)
	}
	if cmd := risk.MetaStrings(p.Metadata)["command"]; in.Command != cmd {
		return nil, fmt.Errorf("read tool call %s: it runs another command than the request shows", p.Tool.CallID)
	}
	// opencode runs the command in its instance directory, or in workdir
	// resolved against it.
	base := tc.Cwd
	if base == "" {
		base = e.Directory
	}
	dir := base
	if in.Workdir != "" {
		dir = in.Workdir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(base, dir)
		}
	}
	dir = filepath.Clean(dir)
	return &pending.Run{
		Read: true, Workdir: dir, Elsewhere: !sameFolder(dir, e.Directory),
		Timeout: in.Timeout, Root: tc.Root, Agent: tc.Agent,
	}, nil
}

// sameFolder reports whether a and b are one folder: the same path, or
// the same once links are followed. One that cannot be resolved is no
// folder but itself.
func sameFolder(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		return false
	}
	rb, err := filepath.EvalSymlinks(b)
	return err == nil && ra == rb
}

// untrusted says why the low-risk shell command of e must still be asked:
// opencode's rules let the agent change, without asking anyone, a file
// the command's programs read for their configuration, or that cannot be
// known. "" when they do not.
func (b *Bridge) untrusted(ctx context.Context, e *pending.Entry) string {
	p, run := e.Permission, e.Permission.Run
	if given, ok, err := b.store.AlwaysGiven(e.Server, e.Directory); err != nil {
		return "could not read whether an always answer let the agent change files here: " + err.Error()
	} else if ok {
		return "an always answer (" + given + ") let the agent change files in this directory without asking"
	}
	if _, err := filepath.EvalSymlinks(e.Directory); err != nil {
		return "the project folder cannot be followed on this machine: " + err.Error()
	}
	if run.Root == "" {
		return "opencode did not say its worktree, which its edit rules are relative to"
	}
	reads, err := risk.Trust(e.Directory, risk.MetaStrings(p.Metadata)["command"])
	if err != nil {
		return "could not tell which files the command reads for its configuration: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, toolCallTimeout)
	defer cancel()
	oc := b.opencodeOf(e.Server)
	agents, err := oc.Agents(ctx, e.Directory)
	if err != nil {
		return "could not read opencode's agents and their rules: " + err.Error()
	}
	if len(agents) == 0 {
		return "opencode listed no agents, so no rules to check"
	}
	s, err := oc.GetSession(ctx, e.Directory, e.SessionID)
	if err != nil {
		return "could not read the session's own rules: " + err.Error()
	}
	var edits []string
	for _, rel := range reads.InProject {
		pat, err := filepath.Rel(run.Root, filepath.Join(e.Directory, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Sprintf("cannot say %s relative to opencode's worktree %s", rel, run.Root)
		}
		edits = append(edits, filepath.ToSlash(pat))
	}
	for _, a := range agents {
		rules := append(append(opencode.Ruleset{}, a.Permission...), s.Permission...)
		for i, pat := range edits {
			if rules.Evaluate("edit", pat) == opencode.ActionAllow {
				return fmt.Sprintf("agent %s may edit %s without asking, and the command reads it (set opencode's permission \"edit\" to \"ask\")", a.Name, reads.InProject[i])
			}
		}
		for _, f := range reads.Outside {
			pat := filepath.ToSlash(filepath.Join(filepath.Dir(f), "*"))
			if rules.Evaluate("external_directory", pat) == opencode.ActionAllow {
				return fmt.Sprintf("agent %s may change %s outside the project without asking, and the command reads it", a.Name, f)
			}
		}
	}
	return ""
}

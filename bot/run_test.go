package bot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/risk"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// unread says a tool call was not read, or not the request's.
func unread(r *frontend.Run) bool { return !r.Read && r.Workdir == "" }

// TestAutoApproveReadsToolCall: a low-risk command is approved only when
// its tool call could be read and says it runs in the project itself,
// for no longer than opencode's default; otherwise its message says
// where it runs, or that it could not be read.
func TestAutoApproveReadsToolCall(t *testing.T) {
	for _, tc := range []struct {
		name    string
		input   func(dir string) map[string]any
		script  func(c *core, ev opencode.Event)
		approve bool
		// run checks what the message shows the command runs.
		run func(r *frontend.Run) bool
	}{
		{"no workdir", nil, nil, true, nil},
		{"workdir the project", func(dir string) map[string]any { return map[string]any{"workdir": dir} }, nil, true, nil},
		{"workdir relative dot", func(string) map[string]any { return map[string]any{"workdir": "."} }, nil, true, nil},
		{"workdir a link to the project", func(dir string) map[string]any {
			link := filepath.Join(filepath.Dir(dir), "alias")
			mustSymlink(t, dir, link)
			return map[string]any{"workdir": link}
		}, nil, true, nil},
		{"timeout at the bound", func(string) map[string]any { return map[string]any{"timeout": 120000} }, nil, true, nil},
		{"inside .git", func(dir string) map[string]any {
			mustMkdir(t, filepath.Join(dir, ".git"))
			return map[string]any{"workdir": filepath.Join(dir, ".git")}
		}, nil, false, func(r *frontend.Run) bool { return r.Read && r.Elsewhere && strings.HasSuffix(r.Workdir, "/demo/.git") }},
		{"relative .git", func(dir string) map[string]any {
			mustMkdir(t, filepath.Join(dir, ".git"))
			return map[string]any{"workdir": ".git"}
		}, nil, false, func(r *frontend.Run) bool { return r.Elsewhere && strings.HasSuffix(r.Workdir, "/demo/.git") }},
		{"a link out of the project", func(dir string) map[string]any {
			out := t.TempDir()
			mustSymlink(t, out, filepath.Join(dir, "home"))
			return map[string]any{"workdir": filepath.Join(dir, "home")}
		}, nil, false, func(r *frontend.Run) bool { return r.Elsewhere && strings.HasSuffix(r.Workdir, "/demo/home") }},
		{"another folder", func(string) map[string]any { return map[string]any{"workdir": "/etc"} }, nil, false, func(r *frontend.Run) bool { return r.Elsewhere && r.Workdir == "/etc" }},
		{"a folder that is not there", func(dir string) map[string]any { return map[string]any{"workdir": filepath.Join(dir, "gone")} }, nil, false, func(r *frontend.Run) bool { return r.Elsewhere && strings.HasSuffix(r.Workdir, "/demo/gone") }},
		{"a day", func(string) map[string]any { return map[string]any{"timeout": 86400000} }, nil, false, func(r *frontend.Run) bool { return r.Read && !r.Elsewhere && r.Timeout == 86400000 }},
		{"another command", func(string) map[string]any { return map[string]any{"command": "cat .env"} }, nil, false, unread},
		{"not read", nil, func(c *core, ev opencode.Event) {
			delete(c.oc.toolCalls, ev.PermissionAsked.Tool.CallID)
		}, false, unread},
		{"another tool", nil, func(c *core, ev opencode.Event) {
			call := c.oc.toolCalls[ev.PermissionAsked.Tool.CallID]
			call.Tool = "read"
			c.oc.toolCalls[ev.PermissionAsked.Tool.CallID] = call
		}, false, unread},
		{"no tool named", nil, func(c *core, ev opencode.Event) {
			ev.PermissionAsked.Tool = nil
		}, false, unread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(t, Config{AutoApprove: AutoApproveLow})
			dir := project(t)
			ev := permEvent("per_1", "ls -la")
			ev.Directory = dir
			var input map[string]any
			if tc.input != nil {
				input = tc.input(dir)
			}
			c.trusted(ev, input)
			if tc.script != nil {
				tc.script(c, ev)
			}
			c.b.HandleEvent(context.Background(), ev)
			if got := len(c.oc.PermReplies()) == 1; got != tc.approve {
				t.Fatalf("approved = %v, want %v (replies %+v)\n%s", got, tc.approve, c.oc.PermReplies(), c.logs.String())
			}
			if tc.approve {
				return
			}
			v := c.asksNormally("per_1")
			if r := v.Permission.Run; r == nil || !tc.run(r) {
				t.Errorf("message shows the command runs %+v", r)
			}
			if a := frontend.Assess(v); a.Level != risk.Medium {
				t.Errorf("risk %v, want medium", a.Level)
			}
			if !strings.Contains(c.logs.String(), "not auto-approved") {
				t.Errorf("no log line says why:\n%s", c.logs.String())
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestAutoApproveNeedsGuardedConfig: a low-risk command runs without a
// person only when every agent must ask (or is denied) before changing
// the files the command reads for its configuration.
func TestAutoApproveNeedsGuardedConfig(t *testing.T) {
	rule := func(p, pat, a string) opencode.Rule { return opencode.Rule{Permission: p, Pattern: pat, Action: a} }
	defaults := opencode.Ruleset{rule("*", "*", "allow"), rule("external_directory", "*", "ask"), rule("bash", "*", "ask")}
	with := func(extra ...opencode.Rule) []opencode.Agent {
		return []opencode.Agent{{Name: "build", Permission: append(append(opencode.Ruleset{}, defaults...), extra...)}}
	}
	for _, tc := range []struct {
		name    string
		agents  []opencode.Agent
		session opencode.Ruleset
		root    string // "" is the project; "/" outside git
		approve bool
		why     string
	}{
		{"edits ask", with(rule("edit", "*", "ask")), nil, "", true, ""},
		{"edits denied", with(rule("edit", "*", "deny")), nil, "", true, ""},
		{"edits allowed by default", with(), nil, "", false, "may edit .git/"},
		{"only .git asks", with(rule("edit", "*", "allow"), rule("edit", ".git/*", "ask")), nil, "", false, "may edit .gitattributes"},
		{"a later rule allows the config", with(rule("edit", "*", "ask"), rule("edit", ".git/config", "allow")), nil, "", false, "may edit .git/config"},
		{"one agent of two allows", append(with(rule("edit", "*", "ask")), opencode.Agent{Name: "general", Permission: defaults}), nil, "", false, "agent general"},
		{"the session allows", with(rule("edit", "*", "ask")), opencode.Ruleset{rule("edit", "*", "allow")}, "", false, "may edit"},
		{"the session asks", with(), opencode.Ruleset{rule("edit", "*", "ask")}, "", true, ""},
		{"no agents", []opencode.Agent{}, nil, "", false, "no agents"},
		{"not read", nil, nil, "", false, "agents"},
		{"worktree /: edits ask", with(rule("edit", "*", "ask")), nil, "/", true, ""},
		// Patterns are relative to the worktree: outside git, ".git/*"
		// guards nothing of the project.
		{"worktree /: .git/* is not the project's", with(rule("edit", "*", "ask"), rule("edit", "*config", "allow"), rule("edit", ".git/*", "ask")), nil, "/", false, "may edit .git/config"},
		{"worktree /: the absolute path asks", with(rule("edit", "*", "allow"), rule("edit", "PROJECT/*", "ask")), nil, "/", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(t, Config{AutoApprove: AutoApproveLow})
			dir := repoProject(t)
			ev := permEvent("per_1", "git status")
			ev.Directory = dir
			for i, a := range tc.agents {
				for j, r := range a.Permission {
					tc.agents[i].Permission[j].Pattern = strings.ReplaceAll(r.Pattern, "PROJECT", strings.TrimPrefix(dir, "/"))
				}
			}
			c.oc.agents = tc.agents
			if tc.agents == nil {
				c.oc.agents = nil
			}
			c.oc.sessions = map[string]opencode.Session{testSession: {ID: testSession, Permission: tc.session}}
			c.trusted(ev, nil)
			if tc.agents == nil {
				c.oc.agents = nil
			}
			if tc.root != "" {
				call := c.oc.toolCalls[ev.PermissionAsked.Tool.CallID]
				call.Root = tc.root
				c.oc.toolCalls[ev.PermissionAsked.Tool.CallID] = call
			}
			c.b.HandleEvent(context.Background(), ev)
			if got := len(c.oc.PermReplies()) == 1; got != tc.approve {
				t.Fatalf("approved = %v, want %v\n%s", got, tc.approve, c.logs.String())
			}
			if tc.approve {
				return
			}
			c.asksNormally("per_1")
			logs := c.logs.String()
			if !strings.Contains(logs, "low-risk command not auto-approved") || !strings.Contains(logs, tc.why) {
				t.Errorf("no log line saying %q:\n%s", tc.why, logs)
			}
		})
	}
}

// TestAutoApproveStopsAfterAlways: once an edit is allowed "always" in a
// directory, through the group or in opencode, opencode lets the agent
// change files there without asking, so nothing more is approved there.
func TestAutoApproveStopsAfterAlways(t *testing.T) {
	editEvent := func(dir, id string) opencode.Event {
		return opencode.Event{
			Directory: dir, Type: opencode.TypePermissionAsked,
			PermissionAsked: &opencode.PermissionRequest{
				ID: id, SessionID: testSession, Permission: "edit",
				Patterns: []string{".git/config"}, Always: []string{"*"},
			},
		}
	}
	for _, how := range []string{"pressed", "in opencode"} {
		t.Run(how, func(t *testing.T) {
			c := newCore(t, Config{AutoApprove: AutoApproveLow})
			dir, other := project(t), t.TempDir()
			e := c.askPerm(editEvent(dir, "per_e"))
			if how == "pressed" {
				c.tap(ann, frontend.AllowAlways, e.UID, e, 0, 0)
			} else {
				c.b.HandleEvent(context.Background(), opencode.Event{Type: opencode.TypePermissionReplied, Directory: dir,
					PermissionReplied: &opencode.PermissionReplied{SessionID: testSession, RequestID: "per_e", Reply: "always"}})
			}
			before := len(c.oc.PermReplies())
			c.b.HandleEvent(context.Background(), c.permIn(dir, "per_1", "ls"))
			if n := len(c.oc.PermReplies()) - before; n != 0 {
				t.Fatalf("ls approved after an always edit: %+v", c.oc.PermReplies())
			}
			if !strings.Contains(c.logs.String(), "an always answer (edit") {
				t.Errorf("no log line says why:\n%s", c.logs.String())
			}
			// Another directory is not affected.
			c.b.HandleEvent(context.Background(), c.permIn(other, "per_2", "ls"))
			if n := len(c.oc.PermReplies()) - before; n != 1 {
				t.Errorf("ls in another directory: %d replies, want 1", n)
			}
		})
	}
	// "Allow once" changes no rule.
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	dir := project(t)
	e := c.askPerm(editEvent(dir, "per_e"))
	c.tap(ann, frontend.AllowOnce, e.UID, e, 0, 0)
	c.b.HandleEvent(context.Background(), c.permIn(dir, "per_1", "ls"))
	if n := len(c.oc.PermReplies()); n != 2 {
		t.Errorf("%d replies, want the once and the auto-approval", n)
	}
}

// Two requests for the same command in different folders do not share a
// message: one answer would allow both.
func TestSameCommandElsewhereIsAnotherRequest(t *testing.T) {
	c := newCore(t, Config{})
	dir := project(t)
	ev1 := permEvent("per_1", "ls")
	ev1.Directory = dir
	c.trusted(ev1, nil)
	ev2 := permEvent("per_2", "ls")
	ev2.Directory = dir
	c.trusted(ev2, map[string]any{"workdir": "/etc"})
	c.askPerm(ev1)
	e2 := c.askPerm(ev2)
	if e2.SharedWith != "" {
		t.Errorf("the request in /etc joined the other's message")
	}
	ev3 := permEvent("per_3", "ls")
	ev3.Directory = dir
	c.trusted(ev3, nil)
	if e3 := c.askPerm(ev3); e3.SharedWith == "" {
		t.Errorf("an identical request did not join the first one's message")
	}
}

// The /api surface's tool calls are not read (its messages live at other
// routes): its shell commands are asked, and say their folder is unknown.
func TestAPISurfaceToolCallNotRead(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	ev := c.permIn(project(t), "per_1", "ls")
	ev.Type = opencode.TypePermissionV2Asked
	ev.Surface = opencode.SurfaceAPI
	ev.PermissionAsked.Surface = opencode.SurfaceAPI
	c.b.HandleEvent(context.Background(), ev)
	if r := c.oc.PermReplies(); len(r) != 0 {
		t.Fatalf("replied %+v without asking", r)
	}
	if c.oc.toolCallReads != 0 {
		t.Errorf("read %d tool calls through the original routes", c.oc.toolCallReads)
	}
	e, err := c.store.ByRequestID("", "per_1")
	if err != nil || e.Permission.Run == nil || e.Permission.Run.Read {
		t.Fatalf("entry = %+v, %v; want a Run not read", e, err)
	}
	if m := c.message(e); !m.Open || m.Request.Members[0].Permission.Run == nil || m.Request.Members[0].Permission.Run.Read {
		t.Errorf("message shows %+v, want a command whose folder is unknown", m)
	}
}

// A project folder that is not on this machine: its commands run in the
// project (the message names no other folder), but none is approved, as
// hermes-bot cannot follow its links.
func TestAutoApproveProjectElsewhere(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	ev := c.permIn("/home/user/projects/demo", "per_1", "ls")
	c.b.HandleEvent(context.Background(), ev)
	if r := c.oc.PermReplies(); len(r) != 0 {
		t.Fatalf("replied %+v without asking", r)
	}
	v := c.asksNormally("per_1")
	if r := v.Permission.Run; r == nil || !r.Read || r.Elsewhere {
		t.Errorf("the message says the command runs %+v, want in the project", r)
	}
	if !strings.Contains(c.logs.String(), "cannot be followed on this machine") {
		t.Errorf("no log line says why:\n%s", c.logs.String())
	}
}

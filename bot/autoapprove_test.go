package bot

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// asksNormally checks that request id was posted as usual, open, with no
// notice of an approval, and is still held; it returns how it shows.
func (c *core) asksNormally(id string) *frontend.View {
	c.t.Helper()
	msgs := c.fe.Messages()
	if len(msgs) != 1 || !msgs[0].Open || len(msgs[0].Request.Members) != 1 || msgs[0].Request.Members[0].RequestID != id {
		c.t.Fatalf("messages %+v, want the open message of %s alone", msgs, id)
	}
	if n := len(c.fe.AutoApprovedRequests()); n != 0 {
		c.t.Fatalf("%d notices of an approval, want none", n)
	}
	c.held(id)
	return msgs[0].Request.Members[0]
}

// askEdits are agents whose rules ask before every edit, as opencode's
// {"bash": "ask", "edit": "ask"} makes them.
func askEdits() []opencode.Agent {
	rules := opencode.Ruleset{
		{Permission: "*", Pattern: "*", Action: "allow"},
		{Permission: "external_directory", Pattern: "*", Action: "ask"},
		{Permission: "bash", Pattern: "*", Action: "ask"},
		{Permission: "edit", Pattern: "*", Action: "ask"},
	}
	return []opencode.Agent{{Name: "build", Mode: "primary", Permission: rules}, {Name: "explore", Mode: "subagent", Permission: rules}}
}

// project makes a project folder named demo on this machine.
func project(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// repoProject is project at the top of a git repository of its own, with
// no user or system git configuration, as git's commands need to be approved.
func repoProject(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := project(t)
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

// trusted scripts opencode to say that ev's command runs in its
// directory, with input (more of the call's arguments), and that edits
// ask, unless the test scripted otherwise.
func (c *core) trusted(ev opencode.Event, input map[string]any) { c.oc.trust(c.t, ev, input) }

// trust is trusted for any rig with the fake opencode.
func (f *fakeOpencode) trust(t testing.TB, ev opencode.Event, input map[string]any) {
	t.Helper()
	p := ev.PermissionAsked
	args := map[string]any{"command": risk.MetaStrings(p.Metadata)["command"], "description": "x"}
	for k, v := range input {
		args[k] = v
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.toolCalls == nil {
		f.toolCalls = map[string]opencode.ToolCall{}
	}
	f.toolCalls[p.Tool.CallID] = opencode.ToolCall{Tool: "bash", Status: "running", Input: raw, Agent: "build", Cwd: ev.Directory, Root: ev.Directory}
	if f.agents == nil {
		f.agents = askEdits()
	}
	if f.sessions == nil {
		f.sessions = map[string]opencode.Session{}
	}
	if _, ok := f.sessions[p.SessionID]; !ok {
		f.sessions[p.SessionID] = opencode.Session{ID: p.SessionID}
	}
}

// permIn is permEvent in directory dir, with opencode scripted to trust it.
func (c *core) permIn(dir, id, cmd string) opencode.Event {
	ev := permEvent(id, cmd)
	ev.Directory = dir
	c.trusted(ev, nil)
	return ev
}

func TestAutoApproveLow(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	c.oc.sessions = map[string]opencode.Session{testSession: {ID: testSession, Title: "Fix <the> build"}}
	dir := project(t)
	c.b.HandleEvent(context.Background(), c.permIn(dir, "per_1", "ls -la"))

	replies := c.oc.PermReplies()
	if len(replies) != 1 || replies[0].RequestID != "per_1" || replies[0].Reply != "once" || replies[0].Message != "" ||
		replies[0].Dir != dir || replies[0].SessionID != testSession {
		t.Fatalf("replies = %+v, want one \"once\" for per_1", replies)
	}
	if n := len(c.fe.Messages()); n != 0 {
		t.Errorf("posted %d messages for a request approved without a person", n)
	}
	notes := c.fe.AutoApprovedRequests()
	if len(notes) != 1 || notes[0].RequestID != "per_1" || notes[0].Directory != dir || notes[0].SessionTitle != "Fix <the> build" ||
		risk.MetaStrings(notes[0].Permission.Metadata)["command"] != "ls -la" {
		t.Fatalf("notices %+v, want one of per_1 with its session and command", notes)
	}
	if a := frontend.Assess(notes[0]); a.Level != risk.Low {
		t.Errorf("notice's request graded %v, want low", a.Level)
	}
	if _, err := c.store.ByRequestID("", "per_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("entry still held after auto-approval: %v", err)
	}
	if _, c, ok, err := c.store.ClosedByRequestID("", "per_1"); err != nil || !ok || i18n.Toast(c.Toast) != i18n.ToastAnswered {
		t.Errorf("closed record = %+v, %v, %v; want one saying answered", c, ok, err)
	}
	if !strings.Contains(c.logs.String(), "permission auto-approved") {
		t.Errorf("no log line for the auto-approval:\n%s", c.logs.String())
	}
}

// The notice carries the command as the agent wrote it; escaping it is
// the front-end's.
func TestAutoApproveNoticeKeepsCommand(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	ev := c.permIn(t.TempDir(), "per_1", "grep '<b>' index.html")
	c.b.HandleEvent(context.Background(), ev)
	if n := len(c.oc.PermReplies()); n != 1 {
		t.Fatalf("%d replies, want 1", n)
	}
	notes := c.fe.AutoApprovedRequests()
	if len(notes) != 1 || risk.MetaStrings(notes[0].Permission.Metadata)["command"] != "grep '<b>' index.html" {
		t.Fatalf("notices %+v, want the command as written", notes)
	}
}

// A pipe of programs inside the grammar is approved like one command.
func TestAutoApprovePipe(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	ev := c.permIn(t.TempDir(), "per_1", "cat go.mod | grep module")
	c.b.HandleEvent(context.Background(), ev)
	if r := c.oc.PermReplies(); len(r) != 1 || r[0].Reply != "once" {
		t.Fatalf("replies = %+v, want one once", r)
	}
}

func TestAutoApproveAsksWhenNotLow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy AutoApprovePolicy
		edit   func(*opencode.Event)
		cmd    string
	}{
		{"medium", AutoApproveLow, nil, "make test"},
		{"high", AutoApproveLow, nil, "rm -rf build"},
		{"chained with ;", AutoApproveLow, nil, "ls; ls"},
		{"read in the project", AutoApproveLow, func(ev *opencode.Event) {
			ev.PermissionAsked.Permission = "read"
			ev.PermissionAsked.Patterns = []string{"/home/user/projects/demo/src/main.go"}
			ev.PermissionAsked.Metadata = json.RawMessage(`{}`)
		}, "x"},
		{"bash without metadata.command", AutoApproveLow, func(ev *opencode.Event) {
			ev.PermissionAsked.Metadata = json.RawMessage(`{}`)
		}, "ls"},
		{"wrapper", AutoApproveLow, nil, "env ls"},
		{"program by path", AutoApproveLow, nil, "./ls"},
		{"secret", AutoApproveLow, nil, "cat id_rs?"},
		{"redirected", AutoApproveLow, nil, "ls > out.txt"},
		{"outside the project", AutoApproveLow, nil, "cat /etc/hosts"},
		{"edit", AutoApproveLow, func(ev *opencode.Event) {
			ev.PermissionAsked.Permission = "edit"
			ev.PermissionAsked.Patterns = []string{"README.md"}
		}, "x"},
		{"webfetch", AutoApproveLow, func(ev *opencode.Event) {
			ev.PermissionAsked.Permission = "webfetch"
			ev.PermissionAsked.Patterns = []string{"https://example.com"}
		}, "x"},
		{"policy off", AutoApproveOff, nil, "ls"},
		{"policy unset", "", nil, "ls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(t, Config{AutoApprove: tc.policy})
			ev := c.permIn(t.TempDir(), "per_1", tc.cmd)
			if tc.edit != nil {
				tc.edit(&ev)
			}
			c.b.HandleEvent(context.Background(), ev)
			if r := c.oc.PermReplies(); len(r) != 0 {
				t.Fatalf("replied %+v without asking", r)
			}
			c.asksNormally("per_1")
		})
	}
}

// A reply that does not go through falls back to asking: the request is
// never lost.
func TestAutoApproveFailingReplyAsks(t *testing.T) {
	for _, err := range []error{opencode.ErrTransient, opencode.ErrUnauthorized, opencode.ErrNotAccepted} {
		t.Run(err.Error(), func(t *testing.T) {
			c := newCore(t, Config{AutoApprove: AutoApproveLow})
			c.oc.permErrs = map[string][]error{"per_1": {err}}
			c.b.HandleEvent(context.Background(), c.permIn(t.TempDir(), "per_1", "ls"))
			if r := c.oc.PermReplies(); len(r) != 1 {
				t.Fatalf("replies = %+v, want the one failed attempt", r)
			}
			c.asksNormally("per_1")
			if !strings.Contains(c.logs.String(), "asking instead") {
				t.Errorf("fallback not logged:\n%s", c.logs.String())
			}
		})
	}
}

// A request opencode no longer knows is closed quietly.
func TestAutoApproveGone(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	c.oc.permErrs = map[string][]error{"per_1": {opencode.ErrNotFound}}
	c.b.HandleEvent(context.Background(), c.permIn(t.TempDir(), "per_1", "ls"))
	if n, m := len(c.fe.Messages()), len(c.fe.AutoApprovedRequests()); n != 0 || m != 0 {
		t.Errorf("posted %d messages and %d notices for a request that is gone", n, m)
	}
	if _, err := c.store.ByRequestID("", "per_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("gone request still held: %v", err)
	}
}

// A replayed event (a reconnect, or the snapshot listing it) does not
// approve twice.
func TestAutoApproveOnce(t *testing.T) {
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	ev := c.permIn(t.TempDir(), "per_1", "ls")
	c.b.HandleEvent(context.Background(), ev)
	c.b.HandleEvent(context.Background(), ev)
	if r := c.oc.PermReplies(); len(r) != 1 {
		t.Fatalf("replies = %+v, want one", r)
	}
	if n, m := len(c.fe.Messages()), len(c.fe.AutoApprovedRequests()); n != 0 || m != 1 {
		t.Errorf("posted %d messages and %d notices, want one notice", n, m)
	}
}

// TestAutoApproveTable asks the bridge every command of bot/risk's table,
// as opencode asks it: the hostile ones are all posted with buttons and
// none is answered; the harmless ones are approved once each.
func TestAutoApproveTable(t *testing.T) {
	f, err := os.Open(filepath.Join("risk", "testdata", "commands.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := newCore(t, Config{AutoApprove: AutoApproveLow})
	dir := plainRepo(t) // paths are followed, and git's configuration read, on this machine
	sc := bufio.NewScanner(f)
	n, approved := 0, 0
	for sc.Scan() {
		// DECISION, CLASS, COMMAND and an optional REASON.
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) < 3 || strings.HasPrefix(parts[0], "#") {
			continue
		}
		n++
		id := fmt.Sprintf("per_%d", n)
		before := len(c.oc.PermReplies())
		postedBefore, notesBefore := len(c.fe.Messages()), len(c.fe.AutoApprovedRequests())
		ev := c.permIn(dir, id, parts[2])
		c.b.HandleEvent(context.Background(), ev)
		replies := c.oc.PermReplies()[before:]
		posted := c.fe.Messages()[postedBefore:]
		notes := len(c.fe.AutoApprovedRequests()) - notesBefore
		switch parts[0] {
		case "approve":
			approved++
			if len(replies) != 1 || replies[0].Reply != "once" || len(posted) != 0 || notes != 1 {
				t.Errorf("%q: replies %+v, %d messages, %d notices; want it allowed once with a notice", parts[2], replies, len(posted), notes)
			}
		default:
			if len(replies) != 0 {
				t.Errorf("%q answered by itself: %+v", parts[2], replies)
			}
			if len(posted) != 1 || !posted[0].Open || notes != 0 {
				t.Errorf("%q: %d messages, %d notices, want one open message", parts[2], len(posted), notes)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 300 || approved == 0 || approved == n {
		t.Fatalf("%d commands, %d to approve: the table was not read", n, approved)
	}
}

// plainRepo makes an empty repository, with a fresh HOME and no system git
// configuration, so that risk.Trust accepts what git reads there.
func plainRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

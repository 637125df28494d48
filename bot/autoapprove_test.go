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

	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"github.com/hermes-bot/hermes-bot/bot/risk"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

// asksNormally checks that request id was posted as usual, with buttons,
// and is still held.
func (h *harness) asksNormally(id string) {
	h.t.Helper()
	sent := h.tg.Sent()
	if len(sent) != 1 || sent[0].P.ReplyMarkup == nil || strings.Contains(sent[0].P.Text, "Auto-approved") {
		h.t.Fatalf("sent %d messages (%+v), want the permission message with buttons", len(sent), sent)
	}
	if _, err := h.store.ByRequestID("", id); err != nil {
		h.t.Fatalf("request %s not held: %v", id, err)
	}
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
func (h *harness) trusted(ev opencode.Event, input map[string]any) { h.oc.trust(h.t, ev, input) }

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
func (h *harness) permIn(dir, id, cmd string) opencode.Event {
	ev := permEvent(id, cmd)
	ev.Directory = dir
	h.trusted(ev, nil)
	return ev
}

func TestAutoApproveLow(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	h.oc.sessions = map[string]opencode.Session{testSession: {ID: testSession, Title: "Fix <the> build"}}
	dir := project(t)
	h.b.HandleEvent(context.Background(), h.permIn(dir, "per_1", "ls -la"))

	replies := h.oc.PermReplies()
	if len(replies) != 1 || replies[0].RequestID != "per_1" || replies[0].Reply != "once" || replies[0].Message != "" ||
		replies[0].Dir != dir || replies[0].SessionID != testSession {
		t.Fatalf("replies = %+v, want one \"once\" for per_1", replies)
	}
	sent := h.tg.Sent()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want one notice", len(sent))
	}
	p := sent[0].P
	if p.ReplyMarkup != nil {
		t.Errorf("notice has buttons: %+v", p.ReplyMarkup)
	}
	for _, want := range []string{"demo", "Fix &lt;the&gt; build", "🤖 Auto-approved (low risk): <code>ls -la</code>"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("notice %q lacks %q", p.Text, want)
		}
	}
	if p.ChatID != testChat {
		t.Errorf("notice went to chat %v, want %d", p.ChatID, testChat)
	}
	if _, err := h.store.ByRequestID("", "per_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("entry still held after auto-approval: %v", err)
	}
	if _, c, ok, err := h.store.ClosedByRequestID("", "per_1"); err != nil || !ok || i18n.Toast(c.Toast) != i18n.ToastAnswered {
		t.Errorf("closed record = %+v, %v, %v; want one saying answered", c, ok, err)
	}
	if !strings.Contains(h.logs.String(), "permission auto-approved") {
		t.Errorf("no log line for the auto-approval:\n%s", h.logs.String())
	}
}

func TestAutoApproveEscapesNotice(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	ev := h.permIn(t.TempDir(), "per_1", "grep '<b>' index.html")
	h.b.HandleEvent(context.Background(), ev)
	if n := len(h.oc.PermReplies()); n != 1 {
		t.Fatalf("%d replies, want 1", n)
	}
	sent := h.tg.Sent()
	if len(sent) != 1 || !strings.Contains(sent[0].P.Text, "<code>grep &#39;&lt;b&gt;&#39; index.html</code>") {
		t.Fatalf("sent %+v, want the escaped command", sent)
	}
}

// A pipe of programs inside the grammar is approved like one command.
func TestAutoApprovePipe(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	ev := h.permIn(t.TempDir(), "per_1", "cat go.mod | grep module")
	h.b.HandleEvent(context.Background(), ev)
	if r := h.oc.PermReplies(); len(r) != 1 || r[0].Reply != "once" {
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
			h := newHarness(t, harnessConfig{AutoApprove: tc.policy})
			ev := h.permIn(t.TempDir(), "per_1", tc.cmd)
			if tc.edit != nil {
				tc.edit(&ev)
			}
			h.b.HandleEvent(context.Background(), ev)
			if r := h.oc.PermReplies(); len(r) != 0 {
				t.Fatalf("replied %+v without asking", r)
			}
			h.asksNormally("per_1")
		})
	}
}

// A reply that does not go through falls back to asking: the request is
// never lost.
func TestAutoApproveFailingReplyAsks(t *testing.T) {
	for _, err := range []error{opencode.ErrTransient, opencode.ErrUnauthorized, opencode.ErrNotAccepted} {
		t.Run(err.Error(), func(t *testing.T) {
			h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
			h.oc.permErrs = map[string][]error{"per_1": {err}}
			h.b.HandleEvent(context.Background(), h.permIn(t.TempDir(), "per_1", "ls"))
			if r := h.oc.PermReplies(); len(r) != 1 {
				t.Fatalf("replies = %+v, want the one failed attempt", r)
			}
			h.asksNormally("per_1")
			if !strings.Contains(h.logs.String(), "asking instead") {
				t.Errorf("fallback not logged:\n%s", h.logs.String())
			}
		})
	}
}

// A request opencode no longer knows is closed quietly.
func TestAutoApproveGone(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	h.oc.permErrs = map[string][]error{"per_1": {opencode.ErrNotFound}}
	h.b.HandleEvent(context.Background(), h.permIn(t.TempDir(), "per_1", "ls"))
	if n := len(h.tg.Sent()); n != 0 {
		t.Errorf("sent %d messages for a request that is gone", n)
	}
	if _, err := h.store.ByRequestID("", "per_1"); !errors.Is(err, pending.ErrNotFound) {
		t.Errorf("gone request still held: %v", err)
	}
}

// A replayed event (a reconnect, or the snapshot listing it) does not
// approve twice.
func TestAutoApproveOnce(t *testing.T) {
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
	ev := h.permIn(t.TempDir(), "per_1", "ls")
	h.b.HandleEvent(context.Background(), ev)
	h.b.HandleEvent(context.Background(), ev)
	if r := h.oc.PermReplies(); len(r) != 1 {
		t.Fatalf("replies = %+v, want one", r)
	}
	if n := len(h.tg.Sent()); n != 1 {
		t.Errorf("sent %d messages, want one notice", n)
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
	h := newHarness(t, harnessConfig{AutoApprove: AutoApproveLow})
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
		before := len(h.oc.PermReplies())
		sentBefore := len(h.tg.Sent())
		ev := h.permIn(dir, id, parts[2])
		h.b.HandleEvent(context.Background(), ev)
		replies := h.oc.PermReplies()[before:]
		sent := h.tg.Sent()[sentBefore:]
		switch parts[0] {
		case "approve":
			approved++
			if len(replies) != 1 || replies[0].Reply != "once" || len(sent) != 1 || sent[0].P.ReplyMarkup != nil {
				t.Errorf("%q: replies %+v, %d messages; want it allowed once with a notice", parts[2], replies, len(sent))
			}
		default:
			if len(replies) != 0 {
				t.Errorf("%q answered by itself: %+v", parts[2], replies)
			}
			if len(sent) != 1 || sent[0].P.ReplyMarkup == nil {
				t.Errorf("%q: %d messages, want one with buttons", parts[2], len(sent))
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

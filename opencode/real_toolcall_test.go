package opencode_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestRealToolCallAndRules reads, from a real opencode, what a pending
// bash request's tool call runs (its folder and timeout, which the
// request leaves out), the agents' effective rules, and a session's own.
func TestRealToolCallAndRules(t *testing.T) {
	t.Parallel()
	m := opencodetest.NewModel()
	t.Cleanup(m.Close)
	oc := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: m.URL, Permission: map[string]any{
		"bash": "ask", "edit": map[string]any{"*": "allow", ".git/*": "ask"},
	}})
	if oc == nil {
		return // skipped
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := opencode.NewClient(oc.URL, opencode.WithBasicAuth(oc.Username, oc.Password))
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(oc.Dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CallTool("bash", map[string]any{"command": "ls", "description": "list", "workdir": sub, "timeout": 86400000}); err != nil {
		t.Fatal(err)
	}
	own := opencode.Ruleset{{Permission: "edit", Pattern: "*", Action: "deny"}}
	var s struct {
		ID string `json:"id"`
	}
	if err := oc.Post(ctx, "/session?directory="+url.QueryEscape(oc.Dir), map[string]any{"permission": own}, &s); err != nil {
		t.Fatal(err)
	}
	if err := oc.Prompt(ctx, s.ID, "list"); err != nil {
		t.Fatal(err)
	}
	var p opencode.PermissionRequest
	for p.Tool == nil {
		ps, err := c.ListPermissions(ctx, oc.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) > 0 {
			p = ps[0]
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("opencode never asked to run ls")
		case <-time.After(200 * time.Millisecond):
		}
	}
	if strings.Contains(string(p.Metadata), "workdir") || strings.Contains(string(p.Metadata), sub) {
		t.Logf("opencode now names the folder in the request itself: %s", p.Metadata)
	}

	tc, err := c.ToolCall(ctx, oc.Dir, p.SessionID, *p.Tool)
	if err != nil {
		t.Fatal(err)
	}
	in, err := tc.Bash()
	if err != nil {
		t.Fatal(err)
	}
	if tc.Tool != "bash" || tc.Status != "running" || tc.Agent != "build" || tc.Cwd != oc.Dir || tc.Root != "/" ||
		in != (opencode.BashInput{Command: "ls", Workdir: sub, Timeout: 86400000}) {
		t.Errorf("tool call = %+v, input %+v", tc, in)
	}

	agents, err := c.Agents(ctx, oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(agents, func(a opencode.Agent) bool { return a.Name == "build" })
	if i < 0 {
		t.Fatalf("no build agent among %+v", agents)
	}
	build := agents[i].Permission
	// Outside git the worktree is "/", so an edit's pattern is the
	// absolute path without its "/": the user's ".git/*" guards nothing.
	config := strings.TrimPrefix(filepath.Join(oc.Dir, ".git", "config"), "/")
	if got := build.EvaluateAs(opencode.Wildcards11833, "edit", config); got != "allow" {
		t.Errorf("build may edit %s: %s, want allow", config, got)
	}
	if got := build.EvaluateAs(opencode.Wildcards11833, "edit", ".git/config"); got != "ask" {
		t.Errorf("build may edit .git/config: %s, want ask", got)
	}
	got, err := c.GetSession(ctx, oc.Dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Permission, own) {
		t.Errorf("the session's rules = %+v, want %+v", got.Permission, own)
	}
	if got := append(build, got.Permission...).EvaluateAs(opencode.Wildcards11833, "edit", config); got != "deny" {
		t.Errorf("with the session's rules, build may edit %s: %s, want deny", config, got)
	}
}

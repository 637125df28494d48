package opencode_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

func TestToolCall(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	c := srv.Client()
	const dir = "/home/user/my project"
	srv.AddMessage(opencodetest.ToolMessage{
		ID: "msg_1", SessionID: "ses_1", Agent: "build", Cwd: dir, Root: "/",
		Calls: []opencodetest.ToolCallPart{
			{CallID: "call_0", Tool: "read", Input: map[string]any{"filePath": "x"}},
			{CallID: "call_1", Tool: "bash", Input: map[string]any{"command": "ls", "description": "list", "timeout": 86400000, "workdir": dir + "/sub"}},
		},
	})

	got, err := c.ToolCall(ctx, dir, "ses_1", opencode.ToolRef{MessageID: "msg_1", CallID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Tool != "bash" || got.Status != "running" || got.Agent != "build" || got.Cwd != dir || got.Root != "/" {
		t.Errorf("ToolCall = %+v", got)
	}
	in, err := got.Bash()
	if err != nil {
		t.Fatal(err)
	}
	if want := (opencode.BashInput{Command: "ls", Workdir: dir + "/sub", Timeout: 86400000}); in != want {
		t.Errorf("Bash() = %+v, want %+v", in, want)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Path != "/session/ses_1/message/msg_1" || last.Directory() != dir || !last.Authorized {
		t.Errorf("request = %+v", last)
	}

	_, err = c.ToolCall(ctx, dir, "ses_1", opencode.ToolRef{MessageID: "msg_1", CallID: "call_9"})
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("missing call: err = %v, want ErrNotFound", err)
	}
	_, err = c.ToolCall(ctx, dir, "ses_1", opencode.ToolRef{MessageID: "msg_2", CallID: "call_1"})
	if !errors.Is(err, opencode.ErrNotFound) {
		t.Errorf("missing message: err = %v, want ErrNotFound", err)
	}
	_, err = c.ToolCall(ctx, dir, "ses_1", opencode.ToolRef{MessageID: "msg_1"})
	if !errors.Is(err, opencode.ErrNotAccepted) {
		t.Errorf("no call ID: err = %v, want ErrNotAccepted", err)
	}
	srv.FailNext("/session/ses_1/message", http.StatusInternalServerError)
	_, err = c.ToolCall(ctx, dir, "ses_1", opencode.ToolRef{MessageID: "msg_1", CallID: "call_1"})
	if err == nil {
		t.Error("a failing server gave no error")
	}
	noSecret(t, err)
}

func TestBashInput(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  opencode.BashInput
		ok    bool
	}{
		{`{"command":"ls"}`, opencode.BashInput{Command: "ls"}, true},
		{`{"command":"ls","workdir":"sub","timeout":1000}`, opencode.BashInput{Command: "ls", Workdir: "sub", Timeout: 1000}, true},
		{`{"command":"ls","timeout":1.5}`, opencode.BashInput{Command: "ls", Timeout: 2}, true},
		{`{"command":"ls","timeout":1e300}`, opencode.BashInput{}, false},
		{`{"command":"ls","timeout":-1}`, opencode.BashInput{}, false},
		{`{"command":"ls","timeout":"1000"}`, opencode.BashInput{}, false},
		{`{"command":"ls","workdir":5}`, opencode.BashInput{}, false},
		{`{"workdir":"x"}`, opencode.BashInput{}, false},
		{`null`, opencode.BashInput{}, false},
		{``, opencode.BashInput{}, false},
	} {
		got, err := opencode.ToolCall{Input: json.RawMessage(tc.input)}.Bash()
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Bash(%s) = %+v, %v; want %+v, ok %v", tc.input, got, err, tc.want, tc.ok)
		}
	}
}

func TestAgentsAndSessionRules(t *testing.T) {
	ctx := testContext(t)
	srv := newServer(t)
	c := srv.Client()
	const dir = "/p"
	agents := []opencode.Agent{
		{Name: "build", Mode: "primary", Permission: opencode.Ruleset{{Permission: "*", Pattern: "*", Action: "allow"}, {Permission: "edit", Pattern: "*", Action: "ask"}}},
		{Name: "explore", Mode: "subagent", Permission: opencode.Ruleset{{Permission: "edit", Pattern: ".git/*", Action: "deny"}}},
	}
	srv.SetAgents(dir, agents)
	got, err := c.Agents(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, agents) {
		t.Errorf("Agents = %+v, want %+v", got, agents)
	}
	if got, err := c.Agents(ctx, "/other"); err != nil || len(got) != 0 {
		t.Errorf("Agents of another directory = %+v, %v; want none", got, err)
	}

	rules := opencode.Ruleset{{Permission: "edit", Pattern: "*", Action: "deny"}}
	srv.AddSession(opencode.Session{ID: "ses_1", Permission: rules})
	s, err := c.GetSession(ctx, dir, "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Permission, rules) {
		t.Errorf("session rules = %+v, want %+v", s.Permission, rules)
	}
}

package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// tableCommands reads the auto-approval table of bot/risk: the commands
// to approve and those to ask.
func tableCommands(t *testing.T) (approve, ask []string) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "bot", "risk", "testdata", "commands.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// DECISION, CLASS, COMMAND and an optional REASON.
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) < 3 || strings.HasPrefix(parts[0], "#") {
			continue
		}
		if parts[0] == "approve" {
			approve = append(approve, parts[2])
		} else {
			ask = append(ask, parts[2])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return approve, ask
}

// unsafeIfApproved are words of hostile commands that, if a bug approved
// them, would reach the network or change this machine beyond the test's
// project. They are left out of what real opencode runs here; the
// bridge's own test (bot.TestAutoApproveTable) asks every one of them.
var unsafeIfApproved = []string{
	"kill", "date", "hostname", "curl", "wget", "nc ", "ssh", "scp", "ping", "dig", "push", "fetch",
	"pull", "clone", "ls-remote", "npm", "npx", "docker", "systemctl", "/dev/tcp", "rm -rf /", "sudo",
	"su ", "doas", "make", "go ", "crontab", "watch", "yes", "sleep", "tail -f", "vim", "less", "more",
	"man", "cat > ", "cat <<", "tee", "patch", "bash script", "./", "/tmp", "exec ", "/dev/zero",
	"/dev/urandom", "xargs", "time ", "nohup", "timeout", "strace", "ltrace", "env -C",
}

// TestE2EAutoApprove runs a built hermes-bot with HERMES_AUTO_APPROVE=low
// against a real opencode whose project is a git repository and whose
// edits ask (what auto-approval requires): the model asks to run hostile commands of the
// table, all at once, and hermes-bot posts every permission request with
// buttons and answers none by itself; plain read-only commands are
// approved at once and run.
func TestE2EAutoApprove(t *testing.T) {
	r := newRig(t, opencodetest.OpencodeOptions{Permission: askEditsAndBash, Git: true}, "HERMES_AUTO_APPROVE=low")
	bot := startBot(t, r.env)
	dir := r.oc.Dir
	// Generous: 432 requests posted on a loaded 2-CPU machine; a pass
	// never waits for it.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	r.wantWorktree(ctx, t, dir)

	// Plain read-only commands run without anyone pressing anything (git
	// only at the top of a repository, which this project is not).
	for _, cmd := range []string{"ls -la", "cat README.md 2>/dev/null", "pwd", "rg TODO", "cat data.txt | wc -l"} {
		call, err := r.model.CallTool("bash", bashArgs(cmd))
		if err != nil {
			t.Fatal(err)
		}
		r.prompt(ctx, t, dir, "please run "+cmd)
		res := r.toolResult(ctx, t, "auto-approved "+cmd, call)
		if contains(res, "rejected") {
			t.Errorf("%q was not approved: the model was told %q", cmd, res)
		}
		if _, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
			return contains(m.PlainText, "Auto-approved") && contains(m.PlainText, cmd) && len(m.Keyboard) == 0
		}); err != nil {
			t.Errorf("no auto-approval notice for %q: %v\n%s", cmd, err, r.dump())
		}
		for _, m := range r.tg.Messages(e2eChatID) {
			if contains(m.PlainText, cmd) && len(m.Keyboard) > 0 {
				t.Errorf("%q was posted with buttons:\n%s", cmd, m.PlainText)
			}
		}
	}

	_, ask := tableCommands(t)
	var hostile []any
	var sent []string
	for _, c := range ask {
		if strings.ContainsAny(c, "\n\r") || slicesContainsAny(c, unsafeIfApproved) {
			continue
		}
		hostile = append(hostile, bashArgs(c))
		sent = append(sent, c)
	}
	if len(sent) < 200 {
		t.Fatalf("only %d hostile commands to send", len(sent))
	}
	calls, err := r.model.CallTools("bash", hostile...)
	if err != nil {
		t.Fatal(err)
	}
	session := r.prompt(ctx, t, dir, "run all of these")

	// Every call ends one of two ways: opencode refuses it before asking
	// (a command its own parser rejects), or it waits for a person. Wait
	// until no call is left in between: each asking one is listed.
	var listed []string
	var tools toolCount
	err = poll(ctx, func() (bool, error) {
		ids, err := r.pending(ctx, "permission", dir)
		if err != nil {
			return false, err
		}
		listed = ids
		var msgs []json.RawMessage
		if err := r.oc.Get(ctx, "/session/"+session+"/message?directory="+url.QueryEscape(dir), &msgs); err != nil {
			return false, err
		}
		tools = countTools(msgs)
		return len(ids) > 0 && tools.total >= len(calls) && tools.running == len(ids), nil
	})
	if err != nil {
		t.Fatalf("the hostile calls never settled (%d permissions listed): %v", len(listed), err)
	}
	// Each listed request is shown with buttons: on a message of its own,
	// or on the message of an identical request of the session (same
	// kind and patterns), which one decision answers.
	shown := map[string]bool{}
	err = poll(ctx, func() (bool, error) {
		for _, l := range strings.Split(bot.out.String(), "\n") {
			var rec struct {
				RequestID string `json:"requestID"`
				Message   string `json:"message"`
			}
			if json.Unmarshal([]byte(l), &rec) != nil {
				continue
			}
			switch rec.Message {
			case "permission request posted", "permission request shares a message already posted",
				"permission asked again; it shares the message of the identical request":
				shown[rec.RequestID] = true
			}
		}
		for _, id := range listed {
			if !shown[id] {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("not every listed permission request was posted: %v", err)
	}
	withButtons := 0
	for _, m := range r.tg.Messages(e2eChatID) {
		if isRequestMessage(m) && hasButtons(m, btnAllowOnce, btnReject) {
			withButtons++
		}
	}
	log := bot.out.String()
	if n := strings.Count(log, "permission auto-approved"); n != 5 {
		t.Errorf("hermes-bot auto-approved %d requests, want only the 5 plain ones:\n%s", n, grepLines(log, "auto-approved"))
	}
	// opencode runs a few shell builtins without asking anyone (1.18.33:
	// cd, export, declare); hermes-bot never saw those, let alone
	// approved them (the count of approvals above).
	t.Logf("%d hostile commands asked at once: %d permission requests, on %d messages with buttons; none answered by hermes-bot; %d run by opencode without asking: %q",
		len(sent), len(listed), withButtons, len(tools.completed), tools.completed)
	r.finish(t, bot)
}

func slicesContainsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// toolCount counts the tool calls of a session's messages by state: a
// call opencode refused before asking is an error, one waiting for a
// person is running, one that ran is completed.
type toolCount struct {
	total, running int
	// completed holds the commands of the calls that ran.
	completed []string
}

func countTools(msgs []json.RawMessage) toolCount {
	var c toolCount
	for _, raw := range msgs {
		var m struct {
			Parts []struct {
				Type  string `json:"type"`
				State struct {
					Status string `json:"status"`
					Input  struct {
						Command string `json:"command"`
					} `json:"input"`
				} `json:"state"`
			} `json:"parts"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		for _, p := range m.Parts {
			if p.Type != "tool" {
				continue
			}
			c.total++
			switch p.State.Status {
			case "running", "pending":
				c.running++
			case "completed":
				c.completed = append(c.completed, p.State.Input.Command)
			}
		}
	}
	return c
}

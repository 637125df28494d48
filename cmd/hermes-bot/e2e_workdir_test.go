package main_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// askEditsAndBash is the opencode permission block auto-approval needs.
var askEditsAndBash = map[string]any{"bash": "ask", "edit": "ask"}

// wantWorktree fails unless opencode takes dir as its project's worktree.
func (r *rig) wantWorktree(ctx context.Context, t *testing.T, dir string) {
	t.Helper()
	var p struct {
		Worktree string `json:"worktree"`
	}
	if err := r.oc.Get(ctx, "/project/current?directory="+url.QueryEscape(dir), &p); err != nil {
		t.Fatal(err)
	}
	if p.Worktree != dir {
		t.Fatalf("opencode's worktree is %q, want %s", p.Worktree, dir)
	}
}

// TestE2EWorkdir runs a built hermes-bot with HERMES_AUTO_APPROVE=low
// against a real opencode whose project is a git repository and whose
// edits ask: a plain ls in the project is approved, but the same ls in
// a folder other than the project's (inside .git, through a link out of
// the project, another folder) is posted with buttons, its message showing
// the folder, and nothing is approved by hermes-bot.
func TestE2EWorkdir(t *testing.T) {
	r := newRig(t, opencodetest.OpencodeOptions{Permission: askEditsAndBash, Git: true}, "HERMES_AUTO_APPROVE=low")
	bot := startBot(t, r.env)
	dir := r.oc.Dir
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r.wantWorktree(ctx, t, dir)

	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "README.md"), []byte("private\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "home")); err != nil {
		t.Fatal(err)
	}

	// The control: the same command in the project is approved.
	call, err := r.model.CallTool("bash", map[string]any{"command": "ls", "description": "x", "workdir": dir})
	if err != nil {
		t.Fatal(err)
	}
	r.prompt(ctx, t, dir, "list")
	if res := r.toolResult(ctx, t, "ls in the project", call); contains(res, "rejected") {
		t.Fatalf("ls in the project was not approved: %q\n%s", res, bot.out.String())
	}

	for _, tc := range []struct {
		name, command, workdir string
		// external is set when opencode first asks to work outside the
		// project (external_directory), which the group allows.
		external bool
	}{
		{"inside .git", "ls", filepath.Join(dir, ".git"), false},
		{"inside .git, cat", "cat config", filepath.Join(dir, ".git"), false},
		{"through a link out of the project", "cat README.md", filepath.Join(dir, "home"), false},
		{"another folder", "ls", outside, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.model.CallTool("bash", map[string]any{"command": tc.command, "description": "x", "workdir": tc.workdir})
			if err != nil {
				t.Fatal(err)
			}
			r.prompt(ctx, t, dir, "run "+tc.command)
			if tc.external {
				m := r.waitPosted(ctx, t, "the request to work outside the project", "external_directory")
				r.press(t, m, btnAllowOnce)
			}
			m, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
				return isRequestMessage(m) && strings.Contains(m.PlainText, "Permission: bash") &&
					strings.Contains(m.PlainText, tc.command) && strings.Contains(m.PlainText, "Runs in another folder: "+tc.workdir) &&
					hasButtons(m, btnAllowOnce, btnReject)
			})
			if err != nil {
				t.Fatalf("no message with buttons shows %q in %s: %v\n%s", tc.command, tc.workdir, err, r.dump())
			}
			if !strings.Contains(m.PlainText, "medium risk") {
				t.Errorf("the message does not say medium risk:\n%s", m.PlainText)
			}
			r.press(t, m, btnReject)
			r.waitClosed(ctx, t, tc.name, m.ID, func(s string) bool { return contains(s, "Alice") })
		})
	}
	if n := strings.Count(bot.out.String(), "permission auto-approved"); n != 1 {
		t.Errorf("hermes-bot auto-approved %d requests, want only the ls in the project:\n%s", n, grepLines(bot.out.String(), "auto-approved"))
	}
	r.finish(t, bot)
}

// TestE2EWorkdirConfigWrite: with only bash asking, opencode lets the
// model edit the repository's configuration without asking anyone; it
// names an fsmonitor that touches a marker, then asks for git status.
// hermes-bot does not approve that, says why in its log, and nothing
// the model wrote runs.
func TestE2EWorkdirConfigWrite(t *testing.T) {
	r := newRig(t, opencodetest.OpencodeOptions{Permission: map[string]any{"bash": "ask"}, Git: true}, "HERMES_AUTO_APPROVE=low")
	bot := startBot(t, r.env)
	dir := r.oc.Dir
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r.wantWorktree(ctx, t, dir)

	// A clean repository, but edits need no one: git status is asked,
	// since the model could change what it reads.
	if _, err := r.model.CallTool("bash", bashArgs("git status")); err != nil {
		t.Fatal(err)
	}
	session := r.prompt(ctx, t, dir, "how is the repository?")
	first := r.waitPosted(ctx, t, "git status", "git status")
	if log := bot.out.String(); !strings.Contains(log, "low-risk command not auto-approved") || !strings.Contains(log, "may edit .git/") {
		t.Errorf("no log line says why git status was asked:\n%s", grepLines(log, "auto-approved"))
	}
	r.press(t, first, btnReject)
	r.waitClosed(ctx, t, "git status", first.ID, func(s string) bool { return contains(s, "Alice") })
	r.waitIdle(ctx, t, dir, session)

	config := filepath.Join(dir, ".git", "config")
	old, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	write, err := r.model.CallTool("write", map[string]any{
		"filePath": config,
		"content":  string(old) + "[core]\n\tfsmonitor = touch " + marker + "\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.model.CallTool("bash", bashArgs("git status"))
	if err != nil {
		t.Fatal(err)
	}
	r.prompt(ctx, t, dir, "tidy the repository")
	r.toolResult(ctx, t, "the write", write)
	if b, _ := os.ReadFile(config); !strings.Contains(string(b), "fsmonitor") {
		t.Fatalf("opencode did not write the configuration without asking; the test proves nothing:\n%s", b)
	}
	// Now the configuration itself names a program: not low at all.
	m := r.waitPosted(ctx, t, "git status after the write", "fsmonitor")
	if strings.Contains(bot.out.String(), "permission auto-approved") {
		t.Errorf("hermes-bot auto-approved something:\n%s", grepLines(bot.out.String(), "auto-approved"))
	}
	r.press(t, m, btnReject)
	r.waitClosed(ctx, t, "git status", m.ID, func(s string) bool { return contains(s, "Alice") })
	if ids, err := r.pending(ctx, "permission", dir); err != nil || len(ids) != 0 {
		t.Errorf("opencode still lists permissions %v (%v) after the reject", ids, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the fsmonitor the model wrote ran (%v)", err)
	}
	r.finish(t, bot)
}

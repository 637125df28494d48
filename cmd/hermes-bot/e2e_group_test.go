package main_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestE2EGroupsOnlyIdentical has a real opencode ask, in one turn, for two
// commands that opencode gives the same patterns (its patterns leave out a
// cd), then for two writes of one file with different contents. Each
// request gets a message of its own, and one tap runs only what its
// message showed.
func TestE2EGroupsOnlyIdentical(t *testing.T) {
	r := newRig(t, opencodetest.OpencodeOptions{})
	bot := startBot(t, r.env)
	dir := r.oc.Dir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	if _, err := r.model.CallTools("bash", bashArgs("cd a && touch marker"), bashArgs("cd b && touch marker")); err != nil {
		t.Fatal(err)
	}
	session := r.prompt(ctx, t, dir, "touch the markers")
	ma := r.waitPosted(ctx, t, "the command in a", "cd a && touch marker")
	mb := r.waitPosted(ctx, t, "the command in b", "cd b && touch marker")
	if ma.ID == mb.ID || contains(ma.PlainText, "×2") || contains(mb.PlainText, "×2") {
		t.Fatalf("the two commands share a message:\n%s", ma.PlainText)
	}
	// The model hears back once both calls are decided, so the files
	// show what ran in between.
	r.press(t, ma, btnAllowOnce)
	if err := poll(ctx, func() (bool, error) {
		_, err := os.Stat(filepath.Join(dir, "a", "marker"))
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	r.waitKeyboard(ctx, t, "the command in b", mb.ID, btnAllowOnce, btnReject)
	if _, err := os.Stat(filepath.Join(dir, "b", "marker")); err == nil {
		t.Error("one tap ran the command its message did not show")
	}
	r.press(t, mb, btnReject)
	r.waitClosed(ctx, t, "the command in b", mb.ID, func(s string) bool { return contains(s, "Rejected") })
	r.waitIdle(ctx, t, dir, session) // a reject without a reason ends the turn
	if _, err := os.Stat(filepath.Join(dir, "b", "marker")); err == nil {
		t.Error("the rejected command ran")
	}

	file := filepath.Join(dir, "notes.txt")
	if _, err := r.model.CallTools("write",
		map[string]string{"filePath": file, "content": "first version\n"},
		map[string]string{"filePath": file, "content": "second version\n"}); err != nil {
		t.Fatal(err)
	}
	session = r.prompt(ctx, t, dir, "write the notes")
	m1 := r.waitPosted(ctx, t, "the first write", "first version")
	m2 := r.waitPosted(ctx, t, "the second write", "second version")
	if m1.ID == m2.ID {
		t.Fatalf("the two writes share a message:\n%s", m1.PlainText)
	}
	r.press(t, m1, btnAllowOnce)
	r.waitClosed(ctx, t, "the first write", m1.ID, func(s string) bool { return contains(s, "Allowed") })
	r.press(t, r.waitKeyboard(ctx, t, "the second write", m2.ID, btnReject), btnReject)
	r.waitClosed(ctx, t, "the second write", m2.ID, func(s string) bool { return contains(s, "Rejected") })
	r.waitIdle(ctx, t, dir, session)
	if b, err := os.ReadFile(file); err != nil || string(b) != "first version\n" {
		t.Errorf("notes.txt = %q, %v; want only the allowed content", b, err)
	}
	r.finish(t, bot)
}

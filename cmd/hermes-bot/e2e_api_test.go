package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestE2EAPISurface: sessions prompted through opencode's /api surface ask
// a multi-select question and a permission; hermes-bot posts both and the
// presses answer them through the /api routes (the model receives the
// answer; the command runs), while a request of the original surface in
// the same run still works; a restart re-attaches to a pending /api
// question.
func TestE2EAPISurface(t *testing.T) {
	r := newRig(t, opencodetest.OpencodeOptions{})
	bot := startBot(t, r.env)
	dir := r.oc.Dir
	ctx, cancel := context.WithTimeout(context.Background(), 3*stepTimeout)
	defer cancel()
	promptAPI := func(text string) string {
		t.Helper()
		sid, err := r.oc.CreateSessionIn(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.oc.PromptAPIIn(ctx, dir, sid, text); err != nil {
			t.Fatal(err)
		}
		return sid
	}

	// A multi-select question.
	const question = "Which checks should run before the release?"
	call := r.model.AskQuestion(opencodetest.QuestionArg{
		Question: question, Header: "Checks", Multiple: true,
		Options: []opencodetest.OptionArg{{Label: "Lint"}, {Label: "Tests"}, {Label: "Fuzz"}},
	})
	promptAPI("ask me which checks")
	msg := r.waitPosted(ctx, t, "the /api question", question)
	r.press(t, msg, "☐ Lint")
	msg = r.waitKeyboard(ctx, t, "after a toggle", msg.ID, "☑ Lint")
	r.press(t, msg, "☐ Fuzz")
	msg = r.waitKeyboard(ctx, t, "after a second toggle", msg.ID, "☑ Fuzz")
	submit, ok := buttonWithPrefix(msg, btnSubmit)
	if !ok {
		t.Fatalf("no submit button: %q", buttonTexts(msg))
	}
	r.press(t, msg, submit)
	if res := r.toolResult(ctx, t, "the /api question", call); !strings.Contains(res, "Lint, Fuzz") {
		t.Errorf("the model was told %q, want Lint, Fuzz", res)
	}
	r.waitClosed(ctx, t, "the /api question", msg.ID, func(s string) bool { return contains(s, "Alice") })

	// A permission, allowed once: the command runs.
	const command = "echo hello-api > api.txt"
	bash, err := r.model.CallTool("bash", bashArgs(command))
	if err != nil {
		t.Fatal(err)
	}
	promptAPI("please run " + command)
	pmsg := r.waitPosted(ctx, t, "the /api permission", command)
	// Its tool call is not read (the /api surface's messages are another
	// model): the message says where it runs is not known.
	if !strings.Contains(pmsg.PlainText, "Could not read from opencode where this command runs") {
		t.Errorf("the /api permission does not say its folder is unknown:\n%s", pmsg.PlainText)
	}
	r.press(t, pmsg, btnAllowOnce)
	r.toolResult(ctx, t, "the /api permission", bash)
	if b, err := os.ReadFile(filepath.Join(dir, "api.txt")); err != nil || string(b) != "hello-api\n" {
		t.Errorf("api.txt = %q, %v; want the allowed command to have run", b, err)
	}
	r.waitClosed(ctx, t, "the /api permission", pmsg.ID, func(s string) bool { return contains(s, "Alice") })

	// The original surface, in the same run.
	const oldQuestion = "Which branch, asked the old way?"
	oldCall := r.model.AskQuestion(opencodetest.QuestionArg{Question: oldQuestion, Options: []opencodetest.OptionArg{{Label: "main"}, {Label: "dev"}}})
	r.prompt(ctx, t, dir, "ask the old way")
	omsg := r.waitPosted(ctx, t, "the original question", oldQuestion)
	r.press(t, omsg, "dev")
	if res := r.toolResult(ctx, t, "the original question", oldCall); !strings.Contains(res, "dev") {
		t.Errorf("the model was told %q, want dev", res)
	}

	// A restart while an /api question waits re-attaches to it.
	const pendingQ = "Which name for the release, across a restart?"
	lastCall := r.model.AskQuestion(opencodetest.QuestionArg{Question: pendingQ, Options: []opencodetest.OptionArg{{Label: "Aurora"}, {Label: "Borealis"}}})
	promptAPI("ask for a name")
	qmsg := r.waitPosted(ctx, t, "the /api question before the restart", pendingQ)
	if err := bot.stop(t); err != nil {
		t.Fatalf("hermes-bot exited with %v after SIGTERM", err)
	}
	again := startBot(t, r.env)
	// Still open after the restart's listing: the same message answers.
	if _, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.ID == qmsg.ID && len(m.Keyboard) > 0
	}); err != nil {
		t.Fatal(err)
	}
	// The listing after the connect took the /api lists and kept it.
	again.waitLog(ctx, t, 1, `"listed pending opencode requests"`, `"apiQuestionsListed":true`)
	r.press(t, qmsg, "Borealis")
	if res := r.toolResult(ctx, t, "the /api question after the restart", lastCall); !strings.Contains(res, "Borealis") {
		t.Errorf("the model was told %q, want Borealis", res)
	}
	if n := r.countPosts(pendingQ); n != 1 {
		t.Errorf("the /api question was posted %d times across the restart, want once", n)
	}
	r.finish(t, again)
}

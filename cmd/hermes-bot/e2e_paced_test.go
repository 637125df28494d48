package main_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestE2EPacedChat runs hermes-bot with Telegram's default pacing (20
// calls a minute), as a deployment does: taps in quick succession on a
// multi-select are all applied, and a large diff is cut in its message
// and sent whole as a file.
func TestE2EPacedChat(t *testing.T) {
	r := newRig(t, opencodetest.OpencodeOptions{})
	// The rig turns pacing off for speed; this test is about pacing.
	r.env = slices.DeleteFunc(r.env, func(kv string) bool { return strings.HasPrefix(kv, "HERMES_TELEGRAM_RATE=") })
	bot := startBot(t, r.env)
	dir := r.oc.Dir
	multi := 0 // the multi-select's message

	t.Run("TogglesTappedQuickly", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		const q = "Which parts should I refactor now?"
		call := r.model.AskQuestion(opencodetest.QuestionArg{Question: q, Header: "Parts", Multiple: true,
			Options: []opencodetest.OptionArg{{Label: "Auth", Description: "login"}, {Label: "Cache", Description: "redis"}, {Label: "Logs", Description: "zerolog"}}})
		r.prompt(ctx, t, dir, "refactor")
		msg := r.waitPosted(ctx, t, "the multi-select", q)
		multi = msg.ID

		// A reply to /pending takes a call of the chat's budget, as the
		// other traffic of a busy group does: from here on, each edit of
		// the message waits seconds for its turn.
		id, err := r.tg.SendText(e2eChatID, alice, "/pending")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.ReplyTo == id }); err != nil {
			t.Fatalf("no reply to /pending: %v", err)
		}

		// A person taps three options 200 ms apart, then submits, on the
		// message as posted: the edits showing the taps are still waiting.
		submit, _ := buttonWithPrefix(msg, btnSubmit)
		labels := []string{"Auth", "Cache", "Logs"}
		var taps []string
		for i, data := range []string{buttonData(msg, "☐ Auth"), buttonData(msg, "☐ Cache"), buttonData(msg, "☐ Logs"), buttonData(msg, submit)} {
			if i > 0 {
				time.Sleep(200 * time.Millisecond)
			}
			cb, err := r.tg.PressData(e2eChatID, msg.ID, alice, data)
			if err != nil {
				t.Fatal(err)
			}
			taps = append(taps, cb)
		}
		for i, cb := range taps {
			want := "Sending…"
			if i < len(labels) {
				want = "☑ " + labels[i]
			}
			if ans, err := r.tg.WaitAnswer(ctx, cb); err != nil || ans.Text != want {
				t.Errorf("tap %d answered %q (%v), want %q: no tap may be refused", i+1, ans.Text, err, want)
			}
		}
		want := fmt.Sprintf("%q=%q", q, "Auth, Cache, Logs")
		if res := r.toolResult(ctx, t, "three toggles", call); !strings.Contains(res, want) {
			t.Errorf("the model was told %q, want %s", res, want)
		}
		closed := r.waitClosed(ctx, t, "three toggles", msg.ID, func(s string) bool { return contains(s, "Alice") })
		if !strings.Contains(closed.PlainText, "Auth, Cache, Logs") {
			t.Errorf("closed message lacks the answer:\n%s", closed.PlainText)
		}
	})

	t.Run("LargeDiffFollowsWhole", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
		defer cancel()
		var content strings.Builder
		for i := range 400 {
			fmt.Fprintf(&content, "line %03d: if a < b && c > d { return \"<tag> & ünïcode 😀\" }\n", i)
		}
		file := filepath.Join(dir, "generated.go")
		call, err := r.model.CallTool("write", map[string]string{"filePath": file, "content": content.String()})
		if err != nil {
			t.Fatal(err)
		}
		r.prompt(ctx, t, dir, "write the generated file")
		msg := r.waitPosted(ctx, t, "the edit permission", "generated.go")
		if !strings.Contains(msg.PlainText, "Cut to fit a message: the whole text follows as a file.") {
			t.Errorf("permission message does not say its diff is cut:\n%s", msg.PlainText)
		}

		// What opencode asks about is the diff in the permission's metadata.
		var listed []struct {
			Metadata struct {
				Diff string `json:"diff"`
			} `json:"metadata"`
		}
		if err := r.oc.Get(ctx, "/permission?directory="+url.QueryEscape(dir), &listed); err != nil || len(listed) != 1 {
			t.Fatalf("opencode lists %d permissions (%v), want the edit", len(listed), err)
		}
		diff := listed[0].Metadata.Diff
		if len(diff) < 3*4096 {
			t.Fatalf("the permission's diff is %d bytes, want far more than a message", len(diff))
		}
		doc, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.Document != nil && m.ReplyTo == msg.ID })
		if err != nil {
			t.Fatalf("no file replies to the permission message: %v\n%s", err, r.dump())
		}
		if doc.Document.FileName != "generated.go.diff" || string(doc.Document.Content) != diff {
			t.Errorf("file %q holds %d bytes, want generated.go.diff holding the whole diff (%d bytes) byte for byte",
				doc.Document.FileName, len(doc.Document.Content), len(diff))
		}

		r.press(t, msg, btnAllowOnce)
		r.toolResult(ctx, t, "allow the write", call)
		if b, err := os.ReadFile(file); err != nil || string(b) != content.String() {
			t.Errorf("generated.go holds %d bytes (%v), want the content written", len(b), err)
		}
		r.waitClosed(ctx, t, "allow the write", msg.ID, func(s string) bool { return contains(s, "Alice") })
	})

	r.finish(t, bot)
	// No edit showing a toggle landed after the one showing the answer.
	if m, ok := r.tg.Message(e2eChatID, multi); multi != 0 && (!ok || len(m.Keyboard) != 0 || !strings.Contains(m.PlainText, "Auth, Cache, Logs")) {
		t.Errorf("after the stop the multi-select reads (buttons %q):\n%s", buttonTexts(m), m.PlainText)
	}
}

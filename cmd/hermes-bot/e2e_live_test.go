package main_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// With HERMES_LIVE_STATUS=on, a turn that runs a 6 s command against the
// real opencode has one silent status message: edited during the turn
// with the step running, within the 5 s pacing, and finalised when the
// session goes idle.
func TestEndToEndLiveStatus(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newRig(t, opencodetest.OpencodeOptions{Permission: map[string]any{"bash": "allow"}}, "HERMES_LIVE_STATUS=on")
	bot := startBot(t, r.env)

	call, err := r.model.CallTool("bash", map[string]string{"command": "sleep 6", "description": "wait a while"})
	if err != nil {
		t.Fatal(err)
	}
	r.model.Say("Waited.")
	start := time.Now()
	r.prompt(ctx, t, r.oc.Dir, "wait a while")
	r.toolResult(ctx, t, "the sleep", call)
	final := r.waitText(ctx, t, "the finalised status", func(m telegramtest.Message) bool {
		return m.FromBot && contains(m.PlainText, "turn done in")
	})
	took := time.Since(start)

	var posts int
	for _, q := range r.tg.RequestsFor("sendMessage") {
		if contains(q.Params["text"], "working for") {
			posts++
			if q.Params["disable_notification"] != "true" {
				t.Errorf("the status message notifies: %v", q.Params)
			}
		}
	}
	if posts != 1 {
		t.Errorf("%d status messages posted, want 1\n%s", posts, r.dump())
	}
	var edits []string
	for _, q := range r.tg.RequestsFor("editMessageText") {
		if q.Params["message_id"] == strconv.Itoa(final.ID) {
			edits = append(edits, q.Params["text"])
		}
	}
	if len(edits) < 2 || !contains(edits[len(edits)-1], "turn done in") {
		t.Fatalf("edits of the status: %q, want one during the turn and the last", edits)
	}
	sawStep := false
	for _, e := range edits[:len(edits)-1] {
		sawStep = sawStep || contains(e, "sleep 6")
	}
	if !sawStep {
		t.Errorf("no edit during the turn showed the command: %q", edits)
	}
	// At most one edit per 5 s of the turn, and the last.
	if most := int(took/(5*time.Second)) + 2; len(edits) > most {
		t.Errorf("%d edits in %s, more than the pacing allows (%d)", len(edits), took.Round(time.Second), most)
	}
	if n := len(r.tg.RequestsFor("deleteMessage")); n != 0 {
		t.Errorf("%d messages deleted", n)
	}
	r.finish(t, bot)
}

// A typed answer longer than one Telegram message, sent as a client sends
// it (two parts, only the first replying to the prompt), reaches the real
// opencode as one answer, acknowledged by 👀 then 👍 on its first part,
// with no message in reply.
func TestEndToEndSplitTypedAnswer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newRig(t, opencodetest.OpencodeOptions{})
	bot := startBot(t, r.env)

	call := r.model.AskQuestion(opencodetest.QuestionArg{Question: "What should the banner say?", Header: "Banner",
		Options: []opencodetest.OptionArg{{Label: "Hello", Description: "short"}}})
	r.prompt(ctx, t, r.oc.Dir, "write the banner")
	msg := r.waitPosted(ctx, t, "the question", "What should the banner say?")
	r.press(t, msg, btnType)
	prompt := r.waitText(ctx, t, "the prompt", func(m telegramtest.Message) bool { return m.ForceReply != nil && m.ID > msg.ID })
	long := "BEGIN"
	for i := 0; len(long) < 6000; i++ {
		long += " banner" + strconv.Itoa(i)
	}
	long += " END"
	ids, err := r.tg.SendLongText(e2eChatID, alice, prompt.ID, long)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 {
		t.Fatalf("sent in %d parts, want 2", len(ids))
	}
	res := r.toolResult(ctx, t, "the split answer", call)
	if !contains(res, "BEGIN banner0") || !contains(res, "END") {
		t.Errorf("the model was told %.200q…, want both parts", res)
	}
	if err := r.tg.WaitReaction(ctx, e2eChatID, ids[0], "👍"); err != nil {
		t.Fatalf("%v\n%s", err, r.dump())
	}
	for _, m := range r.tg.Messages(e2eChatID) {
		if m.FromBot && m.ID > ids[0] {
			t.Errorf("a message after the answer: %q", m.PlainText)
		}
	}
	r.finish(t, bot)
}

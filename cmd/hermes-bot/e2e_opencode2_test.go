package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// rig2 is the built hermes-bot between a fake Telegram group and a fake
// OpenCode 2, found through its service file (OPENCODE_URL unset).
type rig2 struct {
	oc *opencodetest.Server
	tg *telegramtest.Server
	// env is the bot's environment; svcFile is the service file in its HOME.
	env     []string
	svcFile string
}

func newRig2(t *testing.T, extraEnv ...string) *rig2 {
	t.Helper()
	oc := opencodetest.NewServer(opencodetest.WithOpencode2())
	t.Cleanup(oc.Close)
	tg := telegramtest.NewServer(e2eToken)
	t.Cleanup(tg.Close)
	if err := tg.AddChat(e2eChatID, telegramtest.ChatSupergroup); err != nil {
		t.Fatal(err)
	}
	env := botEnv(t, tg, "", "")
	var home string
	kept := env[:0]
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "OPENCODE_URL="), strings.HasPrefix(kv, "OPENCODE_SERVER_PASSWORD="):
			continue
		case strings.HasPrefix(kv, "HOME="):
			home = strings.TrimPrefix(kv, "HOME=")
		}
		kept = append(kept, kv)
	}
	dir := filepath.Join(home, ".local", "state", "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path, err := oc.WriteServiceFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &rig2{oc: oc, tg: tg, env: append(kept, extraEnv...), svcFile: path}
}

// waitReq waits for the request message (not a prompt or a note) that
// matches pred.
func (r *rig2) waitReq(ctx context.Context, t *testing.T, what string, pred func(m telegramtest.Message) bool) telegramtest.Message {
	t.Helper()
	m, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.FromBot && m.ForceReply == nil && pred(m)
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return m
}

// press presses the first button of message id whose text contains part,
// as user, and waits for the press to be answered.
func (r *rig2) press(ctx context.Context, t *testing.T, id int, user telegramtest.User, part string) telegramtest.CallbackAnswer {
	t.Helper()
	m, ok := r.message(id)
	if !ok {
		t.Fatalf("no message %d", id)
	}
	for _, row := range m.Keyboard {
		for _, b := range row {
			if strings.Contains(b.Text, part) && b.CallbackData != "" {
				cb, err := r.tg.PressButtonText(e2eChatID, id, user, b.Text)
				if err != nil {
					t.Fatal(err)
				}
				ans, err := r.tg.WaitAnswer(ctx, cb)
				if err != nil {
					t.Fatalf("press %q: %v", b.Text, err)
				}
				return ans
			}
		}
	}
	t.Fatalf("message %d has no button with %q: %q\n%s", id, part, buttonTexts(m), m.PlainText)
	return telegramtest.CallbackAnswer{}
}

func (r *rig2) message(id int) (telegramtest.Message, bool) {
	for _, m := range r.tg.Messages(e2eChatID) {
		if m.ID == id {
			return m, true
		}
	}
	return telegramtest.Message{}, false
}

// typeAnswer presses "Type an answer" on message id, replies text to the
// prompt that follows, and returns the reply's ID.
func (r *rig2) typeAnswer(ctx context.Context, t *testing.T, id int, text string) int {
	t.Helper()
	before := r.lastPrompt()
	r.press(ctx, t, id, alice, "Type an answer")
	return r.replyToNextPrompt(ctx, t, before, text)
}

// replyToNextPrompt waits for a force_reply prompt newer than message
// after, replies text to it and returns the reply's ID.
func (r *rig2) replyToNextPrompt(ctx context.Context, t *testing.T, after int, text string) int {
	t.Helper()
	p, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.FromBot && m.ForceReply != nil && m.ID > after
	})
	if err != nil {
		t.Fatalf("no prompt for %q: %v", text, err)
	}
	id, err := r.tg.Reply(e2eChatID, p.ID, alice, text)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// refused waits for the bot to say, after the person's message reply,
// why that answer was refused (a message containing why), then answers
// good to the prompt that comes again.
func (r *rig2) refused(ctx context.Context, t *testing.T, reply int, why, good string) {
	t.Helper()
	if _, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.FromBot && m.ID > reply && strings.Contains(m.PlainText, why)
	}); err != nil {
		t.Fatalf("the answer was not refused with %q: %v", why, err)
	}
	r.replyToNextPrompt(ctx, t, reply, good)
}

func (r *rig2) lastPrompt() int {
	last := 0
	for _, m := range r.tg.Messages(e2eChatID) {
		if m.FromBot && m.ForceReply != nil {
			last = max(last, m.ID)
		}
	}
	return last
}

// command sends text to the group and returns the bot's reply to it.
func (r *rig2) command(ctx context.Context, t *testing.T, text string) telegramtest.Message {
	t.Helper()
	id, err := r.tg.SendText(e2eChatID, alice, text)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool { return m.FromBot && m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no reply to %s: %v", text, err)
	}
	return m
}

func waitReply2(ctx context.Context, t *testing.T, oc *opencodetest.Server, n int) opencodetest.Reply {
	t.Helper()
	rs, err := oc.WaitReplies(ctx, n)
	if err != nil {
		t.Fatalf("opencode got %d answers, want %d: %v", len(oc.Replies()), n, err)
	}
	return rs[n-1]
}

func ptr[T any](v T) *T { return &v }

// TestE2EOpencode2Forms: hermes-bot finds OpenCode 2 through its service
// file and answers a form of every field type as a person would, with
// the typed answer the definitions require; refuses bad typed answers
// locally; asks again when the server refuses; closes forms answered or
// cancelled elsewhere; and a link form is done with one tap.
func TestE2EOpencode2Forms(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := newRig2(t)
	bot := startBot(t, r.env)
	if err := r.oc.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bot.out.String(), r.svcFile) {
		t.Errorf("the log does not say the server was found in %s", r.svcFile)
	}

	deploy := r.oc.AddForm("ses_deploy", opencodetest.Form{Title: "Deploy", Fields: []opencodetest.FormField{
		{Key: "target", Title: "Where to?", Type: "string", Required: true,
			Options: []opencodetest.FormOption{{Value: "staging", Label: "Staging"}, {Value: "prod", Label: "Production"}}},
		{Key: "reason", Title: "Why production?", Type: "string", Required: true, MinLength: ptr(3),
			When: []opencodetest.FormCondition{{Key: "target", Op: "eq", Value: "prod"}}},
		{Key: "replicas", Title: "How many replicas?", Type: "integer", Minimum: ptr(1.0), Maximum: ptr(10.0)},
		{Key: "ratio", Title: "Canary ratio?", Type: "number", Minimum: ptr(0.0), Maximum: ptr(1.0), Required: true},
		{Key: "notify", Title: "Notify people?", Type: "boolean", Required: true},
		{Key: "channels", Title: "Which channels?", Type: "multiselect", MinItems: ptr(1), MaxItems: ptr(2),
			Options: []opencodetest.FormOption{{Value: "email", Label: "Email"}, {Value: "chat", Label: "Chat"}, {Value: "sms", Label: "SMS"}},
			When:    []opencodetest.FormCondition{{Key: "notify", Op: "eq", Value: true}}},
		{Key: "pager", Title: "Page whom?", Type: "string",
			When: []opencodetest.FormCondition{{Key: "notify", Op: "eq", Value: false}}},
		{Key: "contact", Title: "Contact address?", Type: "string", Format: "email"},
	}})
	msg := r.waitReq(ctx, t, "the form never reached the group", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Where to?")
	})
	for _, want := range []string{"Deploy", "Staging", "Production"} {
		if !strings.Contains(msg.PlainText+strings.Join(buttonTexts(msg), " "), want) {
			t.Errorf("the form's message lacks %q:\n%s %q", want, msg.PlainText, buttonTexts(msg))
		}
	}
	// An outsider's press changes nothing.
	if ans := r.press(ctx, t, msg.ID, mallory, "Production"); !strings.Contains(strings.ToLower(ans.Text), "not allowed") {
		t.Errorf("mallory's press answered %q, want not allowed", ans.Text)
	}

	r.press(ctx, t, msg.ID, alice, "Production")
	r.waitReq(ctx, t, "reason not asked", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Contains(m.PlainText, "Why production?")
	})
	// Too short: refused here, with the rule, and asked again.
	reply := r.typeAnswer(ctx, t, msg.ID, "no")
	r.refused(ctx, t, reply, "must be at least 3 characters", "hotfix")

	r.waitReq(ctx, t, "replicas not asked", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Contains(m.PlainText, "How many replicas?")
	})
	reply = r.typeAnswer(ctx, t, msg.ID, "2.5")
	r.refused(ctx, t, reply, "That is not a whole number.", "3")

	r.waitReq(ctx, t, "ratio not asked", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Contains(m.PlainText, "Canary ratio?")
	})
	r.typeAnswer(ctx, t, msg.ID, "0.25")

	r.waitReq(ctx, t, "notify not asked", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Contains(m.PlainText, "Notify people?")
	})
	r.press(ctx, t, msg.ID, alice, "Yes")
	r.waitReq(ctx, t, "channels not asked", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Contains(m.PlainText, "Which channels?")
	})
	r.press(ctx, t, msg.ID, alice, "Email")
	r.waitReq(ctx, t, "toggle not shown", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Contains(strings.Join(buttonTexts(m), " "), "☑")
	})
	r.press(ctx, t, msg.ID, alice, "SMS")
	r.waitReq(ctx, t, "second toggle not shown", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Count(strings.Join(buttonTexts(m), " "), "☑") == 2
	})
	r.press(ctx, t, msg.ID, alice, "Submit")
	// pager is skipped (notify is true); contact is optional.
	r.waitReq(ctx, t, "contact not asked", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && strings.Contains(m.PlainText, "Contact address?")
	})
	r.press(ctx, t, msg.ID, alice, "Skip")

	got := waitReply2(ctx, t, r.oc, 1)
	want := map[string]any{"target": "prod", "reason": "hotfix", "replicas": 3.0, "ratio": 0.25, "notify": true,
		"channels": []any{"email", "sms"}}
	if got.Kind != opencodetest.ReplyForm || got.RequestID != deploy.ID || !reflect.DeepEqual(got.Answer, want) {
		t.Fatalf("opencode got %+v, want the form answered with %v", got, want)
	}
	raw := lastBody(t, r.oc, "/form/"+deploy.ID+"/reply")
	for _, w := range []string{`"replicas":3`, `"ratio":0.25`, `"notify":true`, `"channels":["email","sms"]`} {
		if !strings.Contains(raw, w) {
			t.Errorf("the reply's body %s lacks %s", raw, w)
		}
	}
	r.waitReq(ctx, t, "the form's message does not show the answer", func(m telegramtest.Message) bool {
		return m.ID == msg.ID && len(m.Keyboard) == 0 && strings.Contains(m.PlainText, "Alice")
	})

	// A link form: open, then Done sends an empty answer.
	link := r.oc.AddForm("ses_deploy", opencodetest.Form{Title: "Sign in", Mode: "url", URL: "https://example.com/login"})
	lm := r.waitReq(ctx, t, "the link form never came", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Sign in") })
	var url string
	for _, row := range lm.Keyboard {
		for _, b := range row {
			url += b.URL
		}
	}
	if url != "https://example.com/login" {
		t.Errorf("the link form's buttons %q open %q, want the form's link", buttonTexts(lm), url)
	}
	r.press(ctx, t, lm.ID, alice, "Done")
	if got := waitReply2(ctx, t, r.oc, 2); got.RequestID != link.ID || got.Kind != opencodetest.ReplyForm || len(got.Answer) != 0 {
		t.Errorf("Done sent %+v, want an empty answer to %s", got, link.ID)
	}

	// The server refuses an answer: told why, asked again from the start.
	refused := r.oc.AddForm("ses_deploy", opencodetest.Form{Title: "Name it", Fields: []opencodetest.FormField{
		{Key: "name", Title: "Release name?", Type: "string", Required: true}}})
	r.oc.RefuseNextReply(refused.ID, "that name is taken")
	fm := r.waitReq(ctx, t, "the refused form never came", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Release name?") })
	reply = r.typeAnswer(ctx, t, fm.ID, "apollo")
	if _, err := r.tg.WaitMessage(ctx, e2eChatID, func(m telegramtest.Message) bool {
		return m.FromBot && m.ID > reply && strings.Contains(m.PlainText, "that name is taken")
	}); err != nil {
		t.Fatalf("the server's refusal was not told: %v", err)
	}
	r.typeAnswer(ctx, t, fm.ID, "artemis")
	if got := waitReply2(ctx, t, r.oc, 3); got.RequestID != refused.ID || got.Answer["name"] != "artemis" {
		t.Errorf("after the refusal opencode got %+v, want name artemis", got)
	}

	// Answered and cancelled elsewhere: the messages say so, without buttons.
	elsewhere := r.oc.AddForm("ses_deploy", opencodetest.Form{Title: "Elsewhere", Fields: []opencodetest.FormField{
		{Key: "ok", Title: "Fine?", Type: "boolean"}}})
	em := r.waitReq(ctx, t, "form not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Fine?") })
	if err := r.oc.AnswerForm(elsewhere.ID, map[string]any{"ok": true}); err != nil {
		t.Fatal(err)
	}
	r.waitReq(ctx, t, "answered elsewhere not shown", func(m telegramtest.Message) bool {
		return m.ID == em.ID && len(m.Keyboard) == 0 && strings.Contains(strings.ToLower(m.PlainText), "elsewhere")
	})
	gone := r.oc.AddForm("ses_deploy", opencodetest.Form{Title: "Withdrawn", Fields: []opencodetest.FormField{
		{Key: "n", Title: "Count?", Type: "number"}}})
	gm := r.waitReq(ctx, t, "form not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Count?") })
	if err := r.oc.CancelFormElsewhere(gone.ID); err != nil {
		t.Fatal(err)
	}
	r.waitReq(ctx, t, "cancelled elsewhere not shown", func(m telegramtest.Message) bool {
		return m.ID == gm.ID && len(m.Keyboard) == 0
	})

	// The stream drops; a form created meanwhile is posted once.
	r.oc.DropStreams()
	r.oc.AddForm("ses_other", opencodetest.Form{Title: "While away", Fields: []opencodetest.FormField{
		{Key: "x", Title: "Still there?", Type: "boolean"}}})
	if err := r.oc.WaitConnections(ctx, 2); err != nil {
		t.Fatal(err)
	}
	r.waitReq(ctx, t, "the form made while the stream was down was not posted", func(m telegramtest.Message) bool {
		return strings.Contains(m.PlainText, "Still there?")
	})
	r.oc.SweepRequired()
	r.command(ctx, t, "/pending") // a round trip, so a second post would have come by now
	if n := countReq(r.tg, "Still there?"); n != 1 {
		t.Errorf("the form made while away was posted %d times, want once", n)
	}
	finish2(t, r, bot)
}

// lastBody is the body of the last request whose path ends with suffix.
func lastBody(t *testing.T, oc *opencodetest.Server, suffix string) string {
	t.Helper()
	var body string
	for _, req := range oc.Requests() {
		if strings.HasSuffix(req.Path, suffix) {
			body = req.Body
		}
	}
	if body == "" {
		t.Fatalf("no request to …%s", suffix)
	}
	return body
}

func countReq(tg *telegramtest.Server, text string) int {
	n := 0
	for _, m := range tg.Messages(e2eChatID) {
		if m.FromBot && m.ForceReply == nil && m.ReplyTo == 0 && strings.Contains(m.PlainText, text) {
			n++
		}
	}
	return n
}

// finish2 stops the bot and checks that every press was answered and no
// secret was written.
func finish2(t *testing.T, r *rig2, bot *botProcess) {
	t.Helper()
	if err := bot.stop(t); err != nil {
		t.Errorf("hermes-bot exited with %v after SIGTERM, want 0", err)
	}
	if un := r.tg.UnansweredCallbacks(); len(un) > 0 {
		t.Errorf("callback queries left unanswered: %v", un)
	}
	out := bot.out.String()
	for _, secret := range []string{e2eToken, r.oc.Password} {
		if strings.Contains(out, secret) {
			t.Errorf("hermes-bot output contains a secret")
		}
	}
}

// TestE2EOpencode2Permissions: a permission of each event spelling,
// allowed once, allowed always (a rule saved, listed by /rules and
// revoked there), and rejected with a reason.
func TestE2EOpencode2Permissions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := newRig2(t)
	bot := startBot(t, r.env)
	if err := r.oc.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	perm := func(id, cmd string) opencode.PermissionRequest {
		return opencode.PermissionRequest{ID: id, SessionID: "ses_perm", Permission: "bash", Patterns: []string{cmd},
			Always: []string{cmd + " *"}, Metadata: json.RawMessage(`{"command":"` + cmd + `"}`),
			Tool: &opencode.ToolRef{MessageID: "msg_" + id, CallID: "call_" + id}}
	}

	r.oc.AddPermission("", perm("per_once", "make build"))
	m := r.waitReq(ctx, t, "permission.v2.asked not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "make build") })
	if !strings.Contains(strings.Join(buttonTexts(m), " "), "save a rule") {
		t.Errorf("the Always button of an OpenCode 2 request does not say it saves a rule: %q", buttonTexts(m))
	}
	r.press(ctx, t, m.ID, alice, "Allow once")
	if got := waitReply2(ctx, t, r.oc, 1); got.RequestID != "per_once" || got.Reply != "once" {
		t.Errorf("opencode got %+v, want per_once allowed once", got)
	}

	r.oc.SetPermissionEvent(opencode.TypePermissionAsked) // the 1.x spelling, which OpenCode 2 keeps
	r.oc.AddPermission("", perm("per_always", "make test"))
	m = r.waitReq(ctx, t, "permission.asked not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "make test") })
	r.press(ctx, t, m.ID, alice, "Always")
	if got := waitReply2(ctx, t, r.oc, 2); got.RequestID != "per_always" || got.Reply != "always" {
		t.Errorf("opencode got %+v, want per_always allowed always", got)
	}
	r.waitReq(ctx, t, "the closed message does not say how to revoke", func(m2 telegramtest.Message) bool {
		return m2.ID == m.ID && len(m2.Keyboard) == 0 && strings.Contains(m2.PlainText, "/rules")
	})
	saved := r.oc.Saved()
	if len(saved) != 1 {
		t.Fatalf("saved rules %+v, want the one Always saved", saved)
	}
	list := r.command(ctx, t, "/rules")
	if !strings.Contains(list.PlainText, saved[0].Resource) {
		t.Fatalf("/rules does not list %q:\n%s", saved[0].Resource, list.PlainText)
	}
	if ans := r.press(ctx, t, list.ID, mallory, "Revoke"); !strings.Contains(strings.ToLower(ans.Text), "not allowed") {
		t.Errorf("mallory's revoke answered %q, want not allowed", ans.Text)
	}
	if len(r.oc.Saved()) != 1 {
		t.Fatalf("mallory revoked a rule")
	}
	r.press(ctx, t, list.ID, alice, "Revoke")
	if s, err := r.oc.WaitSaved(ctx, 0); err != nil {
		t.Fatalf("after Revoke the server still has %+v: %v", s, err)
	}

	r.oc.SetPermissionEvent(opencode.TypePermissionV2Asked)
	r.oc.AddPermission("", perm("per_reject", "rm -rf build"))
	m = r.waitReq(ctx, t, "permission not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "rm -rf build") })
	before := r.lastPrompt()
	r.press(ctx, t, m.ID, alice, "Reject with reason")
	r.replyToNextPrompt(ctx, t, before, "keep the build folder")
	if got := waitReply2(ctx, t, r.oc, 3); got.RequestID != "per_reject" || got.Reply != "reject" || got.Message != "keep the build folder" {
		t.Errorf("opencode got %+v, want per_reject rejected with the reason", got)
	}
	finish2(t, r, bot)
}

// TestE2EOpencode2Steering: a reply to a session's message prompts it
// (queued); while it works, a reply asks queue or steer, and Steer now
// steers; the finished turn is noticed; /stop interrupts.
func TestE2EOpencode2Steering(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r := newRig2(t, "HERMES_NOTIFY=idle,error")
	bot := startBot(t, r.env)
	if err := r.oc.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r.oc.AddSession(opencode.Session{ID: "ses_steer", Directory: "/work/app", Title: "Refactor the parser"})
	r.oc.AddForm("ses_steer", opencodetest.Form{Title: "Go on?", Fields: []opencodetest.FormField{{Key: "go", Title: "Carry on?", Type: "boolean", Required: true}}})
	m := r.waitReq(ctx, t, "form not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Carry on?") })
	r.press(ctx, t, m.ID, alice, "Yes")
	waitReply2(ctx, t, r.oc, 1)
	r.waitReq(ctx, t, "the answered form was not closed", func(x telegramtest.Message) bool { return x.ID == m.ID && len(x.Keyboard) == 0 })

	// Idle: the reply is sent at once, queued.
	id, err := r.tg.Reply(e2eChatID, m.ID, alice, "now add tests")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.tg.WaitReaction(ctx, e2eChatID, id, "👍"); err != nil {
		t.Fatalf("the reply was not acknowledged: %v", err)
	}
	ps := r.oc.Prompts()
	if len(ps) != 1 || ps[0].SessionID != "ses_steer" || ps[0].Text != "now add tests" || ps[0].Delivery != "queue" {
		t.Fatalf("prompts %+v, want one queued to ses_steer", ps)
	}

	// Busy: asked queue or steer; Steer now steers.
	id, err = r.tg.Reply(e2eChatID, m.ID, alice, "use table tests")
	if err != nil {
		t.Fatal(err)
	}
	ask, err := r.tg.WaitMessage(ctx, e2eChatID, func(x telegramtest.Message) bool {
		return x.FromBot && x.ReplyTo == id && strings.Contains(strings.Join(buttonTexts(x), " "), "Steer now")
	})
	if err != nil {
		t.Fatalf("a reply to a busy session did not offer to steer: %v", err)
	}
	if len(r.oc.Prompts()) != 1 {
		t.Fatalf("the reply to a busy session was sent before anyone chose")
	}
	r.press(ctx, t, ask.ID, alice, "Steer now")
	if ps, err := r.oc.WaitPrompts(ctx, 2); err != nil || len(ps) != 2 || ps[1].Text != "use table tests" || ps[1].Delivery != "steer" {
		t.Fatalf("prompts %+v (%v), want the second steered", ps, err)
	}

	// The turn ends: a notice.
	r.oc.FinishTurn("ses_steer")
	notice := r.waitReq(ctx, t, "no notice of the finished turn", func(x telegramtest.Message) bool {
		return strings.Contains(x.PlainText, "Refactor the parser") && strings.Contains(strings.ToLower(x.PlainText), "finished")
	})

	// Busy again, then /stop as a reply interrupts.
	if _, err := r.tg.Reply(e2eChatID, notice.ID, alice, "one more thing"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.oc.WaitPrompts(ctx, 3); err != nil {
		t.Fatal(err)
	}
	sid, err := r.tg.Reply(e2eChatID, notice.ID, alice, "/stop")
	if err != nil {
		t.Fatal(err)
	}
	confirm, err := r.tg.WaitMessage(ctx, e2eChatID, func(x telegramtest.Message) bool {
		return x.FromBot && x.ReplyTo == sid && strings.Contains(strings.Join(buttonTexts(x), " "), "stop it")
	})
	if err != nil {
		t.Fatalf("/stop asked nothing: %v", err)
	}
	r.press(ctx, t, confirm.ID, alice, "stop it")
	if is, err := r.oc.WaitInterrupts(ctx, 1); err != nil || len(is) != 1 || is[0] != "ses_steer" {
		t.Errorf("interrupts %v (%v), want ses_steer", is, err)
	}
	finish2(t, r, bot)
}

// TestE2EBothGenerations: one hermes-bot serves an opencode 1.x and an
// OpenCode 2 at once, each request answered through its own server.
func TestE2EBothGenerations(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const pw1 = "old-server-secret-pw"
	old := opencodetest.NewServer(opencodetest.WithAuth("", pw1))
	t.Cleanup(old.Close)
	r := newRig2(t, "OPENCODE_URL=old="+old.URL+",new=auto", "OPENCODE_SERVER_PASSWORD_OLD="+pw1)
	bot := startBot(t, r.env)
	if err := r.oc.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := old.WaitConnections(ctx, 1); err != nil {
		t.Fatal(err)
	}
	old.AddQuestion("/srv/old", opencode.QuestionRequest{ID: "que_old", SessionID: "ses_old",
		Questions: []opencode.Question{{Question: "Old or new?", Header: "Pick", Options: []opencode.Option{{Label: "old"}, {Label: "new"}}}}})
	r.oc.AddForm("ses_new", opencodetest.Form{Title: "New one", Fields: []opencodetest.FormField{
		{Key: "pick", Title: "Which release?", Type: "string", Required: true,
			Options: []opencodetest.FormOption{{Value: "v2", Label: "Two"}, {Value: "v1", Label: "One"}}}}})
	m1 := r.waitReq(ctx, t, "1.x question not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Old or new?") })
	m2 := r.waitReq(ctx, t, "OpenCode 2 form not posted", func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "Which release?") })
	r.press(ctx, t, m1.ID, alice, "new")
	r.press(ctx, t, m2.ID, alice, "Two")
	if got := waitReply2(ctx, t, r.oc, 1); got.Answer["pick"] != "v2" {
		t.Errorf("OpenCode 2 got %+v, want pick v2", got)
	}
	reps, err := old.WaitReplies(ctx, 1)
	if err != nil || fmt.Sprint(reps[0].Answers) != "[[new]]" {
		t.Errorf("opencode 1.x got %+v (%v), want [[new]]", reps, err)
	}
	st := r.command(ctx, t, "/status")
	if !strings.Contains(st.PlainText, "OpenCode 2, version") || !strings.Contains(st.PlainText, "opencode 1.x, version") {
		t.Errorf("/status does not name both generations:\n%s", st.PlainText)
	}
	finish2(t, r, bot)
}

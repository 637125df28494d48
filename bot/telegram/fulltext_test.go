package telegram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// bigDiff is a unified diff of file far longer than a message, with
// characters HTML and UTF-16 treat specially.
func bigDiff(file string, lines int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Index: %s\n===================================================================\n--- %s\n+++ %s\n@@ -0,0 +1,%d @@\n", file, file, file, lines)
	for i := range lines {
		fmt.Fprintf(&b, "+line %03d: if a < b && c > d { return \"😀 <tag> & ünïcode\" }\n", i)
	}
	return b.String()
}

func editPermission(id, file, diff string) opencode.Event {
	meta, _ := json.Marshal(map[string]string{"filepath": file, "diff": diff})
	return opencode.Event{
		Directory: "/home/user/projects/demo",
		Type:      opencode.TypePermissionAsked,
		PermissionAsked: &opencode.PermissionRequest{
			ID: id, SessionID: "ses_dd4235358ffeK4sOj0rQeppn49", Permission: "edit",
			Patterns: []string{file}, Metadata: meta, Always: []string{"*"},
		},
	}
}

// document waits for the file replying to message id.
func document(t *testing.T, ctx context.Context, srv *telegramtest.Server, id int) telegramtest.Message {
	t.Helper()
	m, err := srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.Document != nil && m.ReplyTo == id })
	if err != nil {
		t.Fatalf("no file replies to message %d: %v", id, err)
	}
	return m
}

func TestLongDiffFollowsWhole(t *testing.T) {
	r, ctx := startRig(t)
	diff := bigDiff("src/main.go", 400)
	r.bridge.HandleEvent(ctx, editPermission("per_1", "/home/user/projects/demo/src/main.go", diff))
	e, err := r.store.ByRequestID("", "per_1")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := r.srv.Message(chatID, telegram.MessageAt(e.Places[telegram.Name]))
	if !strings.Contains(msg.PlainText, "Cut to fit a message: the whole text follows as a file.") || msg.Keyboard == nil {
		t.Errorf("permission message does not say its diff is cut (or lost its buttons):\n%s", msg.PlainText)
	}
	doc := document(t, ctx, r.srv, msg.ID)
	if doc.Document.FileName != "main.go.diff" || string(doc.Document.Content) != diff {
		t.Errorf("file %q holds %d bytes, want main.go.diff with the whole diff (%d bytes)", doc.Document.FileName, len(doc.Document.Content), len(diff))
	}
	if !strings.Contains(doc.PlainText, "The whole diff: /home/user/projects/demo/src/main.go") {
		t.Errorf("caption = %q", doc.PlainText)
	}
	// The decision still works, and the file is not a message to edit.
	if _, err := r.srv.PressButtonText(chatID, msg.ID, ann, "✅ Allow once"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(x telegramtest.Message) bool {
		return x.ID == msg.ID && x.Keyboard == nil && strings.Contains(x.PlainText, "Allowed once")
	}); err != nil {
		t.Fatal(err)
	}
}

func TestShortRequestsSendNoFile(t *testing.T) {
	r, ctx := startRig(t)
	r.bridge.HandleEvent(ctx, editPermission("per_1", "a.go", bigDiff("a.go", 5)))
	r.bridge.HandleEvent(ctx, permissionAsked("per_2", "go test ./..."))
	r.posted(t, ctx, "que_1")
	// Everything is posted by now; a file would have been queued with it.
	if err := r.srv.Wait(ctx, func() bool { return len(r.srv.Messages(chatID)) >= 3 }); err != nil {
		t.Fatal(err)
	}
	if len(r.srv.RequestsFor("sendDocument")) != 0 {
		t.Errorf("a file was sent for requests shown whole")
	}
	for _, x := range r.srv.Messages(chatID) {
		if strings.Contains(x.PlainText, "Cut to fit") {
			t.Errorf("message %d says it is cut:\n%s", x.ID, x.PlainText)
		}
	}
}

func TestLongCommandAndQuestionFollowWhole(t *testing.T) {
	r, ctx := startRig(t)
	command := "echo start && " + strings.Repeat("printf '%s\\n' \"<arg> & 😀\" && ", 120) + "echo end"
	r.bridge.HandleEvent(ctx, permissionAsked("per_1", command))
	e, err := r.store.ByRequestID("", "per_1")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := r.srv.Message(chatID, telegram.MessageAt(e.Places[telegram.Name]))
	if !strings.Contains(msg.PlainText, "Cut to fit") {
		t.Errorf("permission message does not say its command is cut:\n%s", msg.PlainText)
	}
	if doc := document(t, ctx, r.srv, msg.ID); doc.Document.FileName != "command.txt" || string(doc.Document.Content) != command {
		t.Errorf("file %q = %q, want command.txt with the whole command", doc.Document.FileName, doc.Document.Content)
	}

	text := "Which of these should I keep? " + strings.Repeat("Some long context <b>& more</b>, ünïcode 😀. ", 200) + "THE END"
	ev := question("que_1")
	ev.QuestionAsked.Questions[0].Question = text
	r.bridge.HandleEvent(ctx, ev)
	q, err := r.store.ByRequestID("", "que_1")
	if err != nil {
		t.Fatal(err)
	}
	qm, _ := r.srv.Message(chatID, telegram.MessageAt(q.Places[telegram.Name]))
	if !strings.Contains(qm.PlainText, "Cut to fit") || strings.Contains(qm.PlainText, "THE END") || !hasButtons(qm, "Postgres", "SQLite") {
		t.Errorf("question message does not say its text is cut, or lost its options:\n%s", qm.PlainText)
	}
	if doc := document(t, ctx, r.srv, qm.ID); doc.Document.FileName != "question.txt" || string(doc.Document.Content) != text {
		t.Errorf("file %q = %q, want question.txt with the whole question", doc.Document.FileName, doc.Document.Content)
	}
}

func TestFileThroughOutboxRetriedWholeAndFailureKeepsRequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fe, srv := pacedFrontend(t, 0)
	diff := bigDiff("lib.go", 300)
	e := &frontend.View{UID: "uid12345", Kind: frontend.KindPermission, Directory: "/home/user/demo", SessionID: "ses_1",
		Permission: &frontend.Permission{Kind: "edit", Patterns: []string{"lib.go"},
			Metadata: json.RawMessage(`{"filepath":"lib.go","diff":` + mustJSON(t, diff) + `}`)}}
	// A 5xx: the Outbox tries again, and the file must go whole again.
	srv.FailNext("sendDocument", telegramtest.Fault{Code: 502})
	at, err := fe.Post(ctx, frontend.Request{Key: e.UID, Members: []*frontend.View{e}})
	if err != nil {
		t.Fatal(err)
	}
	if doc := document(t, ctx, srv, telegram.MessageAt(at)); string(doc.Document.Content) != diff {
		t.Errorf("file after a retry holds %d bytes, want the whole diff (%d)", len(doc.Document.Content), len(diff))
	}

	// Refused for good: the request is posted all the same.
	srv.FailNext("sendDocument", telegramtest.Fault{Code: 400, Description: "Bad Request: file is too big"})
	at2, err := fe.Post(ctx, frontend.Request{Key: e.UID, Members: []*frontend.View{e}})
	if err != nil {
		t.Fatalf("post failed with its file: %v", err)
	}
	if _, err := srv.WaitRequests(ctx, "sendDocument", 3); err != nil {
		t.Fatal(err)
	}
	if err := fe.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if m, ok := srv.Message(chatID, telegram.MessageAt(at2)); !ok || m.Keyboard == nil {
		t.Errorf("the request's message is not there with its buttons: %+v", m)
	}
}

func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

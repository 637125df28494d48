package opencode_test

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// TestRealTurnContextAndStatus runs a real turn on opencode 1.18.33: the
// agent writes, reads a file, writes again and asks. Live status shows
// the read step and a step's tokens as they happen, and RecentContext
// gives what came before the question, the read summarised.
func TestRealTurnContextAndStatus(t *testing.T) {
	t.Parallel()
	m := opencodetest.NewModel()
	t.Cleanup(m.Close)
	oc := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: m.URL})
	if oc == nil {
		return // skipped
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := opencode.NewClient(oc.URL, opencode.WithBasicAuth(oc.Username, oc.Password), opencode.WithLiveStatus())
	if err != nil {
		t.Fatal(err)
	}
	evs := make(events, 4096)
	startWatch(t, c, evs, nil)
	evs.next(t, "server.connected", isType(opencode.TypeServerConnected))

	config := filepath.Join(oc.Dir, "opencode.json")
	if _, err := m.SayAndCallTool("Let me look at the config.", "read", map[string]string{"filePath": config}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.SayAndCallTool("Two ways to fix it.\n\nWhich one?", "question", map[string]any{"questions": []opencodetest.QuestionArg{{
		Question: "Which fix?", Header: "Fix", Options: []opencodetest.OptionArg{{Label: "A", Description: "a"}, {Label: "B", Description: "b"}},
	}}}); err != nil {
		t.Fatal(err)
	}
	sid, err := oc.CreateSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := oc.Prompt(ctx, sid, "fix it"); err != nil {
		t.Fatal(err)
	}

	// Everything of the turn until the question, in stream order.
	var q *opencode.QuestionRequest
	var reads []opencode.ToolStep
	var ends []opencode.StepFinished
	busy := false
	for q == nil {
		var ev opencode.Event
		select {
		case ev = <-evs:
		case <-ctx.Done():
			t.Fatalf("no question: %v", ctx.Err())
		}
		if ev.SessionID() != sid {
			continue
		}
		switch {
		case ev.QuestionAsked != nil:
			q = ev.QuestionAsked
		case ev.ToolStep != nil && ev.ToolStep.Tool == "read":
			reads = append(reads, *ev.ToolStep)
		case ev.StepFinished != nil:
			ends = append(ends, *ev.StepFinished)
		case ev.Status != nil:
			busy = busy || ev.Status.Type == "busy"
		}
	}
	if !busy {
		t.Error("no session.status busy before the question")
	}
	var done *opencode.ToolStep
	for i := range reads {
		if reads[i].Status == "completed" {
			done = &reads[i]
		}
	}
	if done == nil || !strings.HasSuffix(done.Argument, "opencode.json") || done.CallID == "" || done.Started == 0 || done.Ended < done.Started {
		t.Errorf("read steps %+v: want one completed, with its file and times", reads)
	}
	// The read's step ended on its tool call, with the model's usage.
	if len(ends) == 0 || ends[0].Reason != "tool-calls" || ends[0].Tokens.Total() != 15 || ends[0].Tokens.Input != 10 {
		t.Errorf("step ends %+v: want the first on tool-calls with 15 tokens", ends)
	}

	if q.Tool == nil {
		t.Fatalf("question without its tool call: %+v", q)
	}
	lines, err := c.RecentContext(ctx, oc.Dir, sid, opencode.ContextOptions{MessageID: q.Tool.MessageID, CallID: q.Tool.CallID, Lines: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 || lines[0] != (opencode.ContextLine{Text: "Let me look at the config."}) ||
		lines[1].Tool != "read" || !strings.HasSuffix(lines[1].Text, "opencode.json") ||
		lines[2] != (opencode.ContextLine{Text: "Two ways to fix it."}) || lines[3] != (opencode.ContextLine{Text: "Which one?"}) {
		t.Errorf("RecentContext = %q", lines)
	}
	// The scripted model declares no image input, so opencode keeps an
	// image from it and says so in the image's place.
	if mi, err := c.SessionModel(ctx, oc.Dir, sid); err != nil || mi != (opencode.ModelInfo{ProviderID: "mock", ID: "mock-model", Name: "Mock"}) {
		t.Errorf("SessionModel = %+v, %v", mi, err)
	}
	if err := c.RejectQuestion(ctx, oc.Dir, q.ID); err != nil {
		t.Fatal(err)
	}
	img, err := opencode.NewFile("photo.png", png1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PromptFiles(ctx, oc.Dir, sid, "And this?", []opencode.File{img}, 0); err != nil {
		t.Fatal(err)
	}
	req, err := m.WaitRequest(ctx, func(r opencodetest.ChatRequest) bool {
		return !r.Title && strings.Contains(r.Messages[len(r.Messages)-1].Content, "And this?")
	})
	if err != nil {
		t.Fatal(err)
	}
	if last := req.Messages[len(req.Messages)-1]; len(last.Images) != 0 || !strings.Contains(last.Content, "does not support image input") {
		t.Errorf("an image for a model without image input reached it as %+v", last)
	}
}

// TestRealPromptFiles sends a photo and a text file with a prompt to
// opencode 1.18.33, whose model declares image input: the model's request
// carries the image as an image and the text file's text.
func TestRealPromptFiles(t *testing.T) {
	t.Parallel()
	m := opencodetest.NewModel()
	t.Cleanup(m.Close)
	oc := opencodetest.StartOpencode(t, opencodetest.OpencodeOptions{ModelURL: m.URL, ImageInput: true})
	if oc == nil {
		return // skipped
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := opencode.NewClient(oc.URL, opencode.WithBasicAuth(oc.Username, oc.Password))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.CreateSession(ctx, oc.Dir, "")
	if err != nil {
		t.Fatal(err)
	}
	// A new session has no model of its own yet: the configured one.
	want := opencode.ModelInfo{ProviderID: "mock", ID: "mock-model", Name: "Mock", Image: true}
	if mi, err := c.SessionModel(ctx, oc.Dir, s.ID); err != nil || mi != want {
		t.Errorf("SessionModel = %+v, %v; want %+v", mi, err, want)
	}
	img, err := opencode.NewFile("photo.jpg", png1)
	if err != nil {
		t.Fatal(err)
	}
	txt, err := opencode.NewFile("notes.txt", []byte("hello from notes.txt\nsecond line\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PromptFiles(ctx, oc.Dir, s.ID, "What do you see?", []opencode.File{img, txt}, 1<<20); err != nil {
		t.Fatal(err)
	}
	imgURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png1)
	req, err := m.WaitRequest(ctx, func(r opencodetest.ChatRequest) bool { return !r.Title })
	if err != nil {
		t.Fatal(err)
	}
	var user *opencodetest.ChatMessage
	for i, msg := range req.Messages {
		if msg.Role == "user" {
			user = &req.Messages[i]
		}
	}
	if user == nil || len(user.Images) != 1 || user.Images[0] != imgURL ||
		!strings.Contains(user.Content, "What do you see?") || !strings.Contains(user.Content, "hello from notes.txt\nsecond line") {
		t.Errorf("the model's user message: %+v", user)
	}
	// A photo without a caption is a prompt too.
	if err := c.PromptFiles(ctx, oc.Dir, s.ID, "", []opencode.File{img}, 0); err != nil {
		t.Fatal(err)
	}
	req, err = m.WaitRequest(ctx, func(r opencodetest.ChatRequest) bool {
		last := r.Messages[len(r.Messages)-1]
		return !r.Title && last.Role == "user" && len(last.Images) == 1 && !strings.Contains(last.Content, "notes.txt")
	})
	if err != nil {
		t.Fatal(err)
	}
	// Over the cap, nothing is sent.
	err = c.PromptFiles(ctx, oc.Dir, s.ID, "again", []opencode.File{img, txt}, int64(len(png1)))
	var tl *opencode.FileTooLargeError
	if !errors.As(err, &tl) || tl.Name != "notes.txt" {
		t.Errorf("over the cap: err = %v, want notes.txt too large", err)
	}
}

package main_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// lastUser is the last user message of a model request, if any.
func lastUser(r opencodetest.ChatRequest) (opencodetest.ChatMessage, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i], true
		}
	}
	return opencodetest.ChatMessage{}, false
}

// Files both ways through the built binary and a real opencode whose model
// takes images: a photo and a text file replying to a "finished" notice
// reach the model with their captions (the image as an image, the file's
// text in the message), each acknowledged with 👍; /file sends a project
// file and refuses ../ and a link out of the project.
func TestEndToEndFiles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newRig(t, opencodetest.OpencodeOptions{ImageInput: true}, "HERMES_NOTIFY=idle")
	model, oc, tg := r.model, r.oc, r.tg
	startBot(t, r.env)

	model.Say("Created hello.txt.")
	r.prompt(ctx, t, oc.Dir, "create hello.txt")
	notice := r.waitText(ctx, t, "the finished notice", func(m telegramtest.Message) bool {
		return m.FromBot && strings.Contains(m.PlainText, "Created hello.txt.") && strings.Contains(m.PlainText, "Reply to this message")
	})

	// A photo with a caption.
	img := image.NewRGBA(image.Rect(0, 0, 3, 3))
	img.Set(1, 1, color.RGBA{G: 200, A: 255})
	var pic bytes.Buffer
	if err := png.Encode(&pic, img); err != nil {
		t.Fatal(err)
	}
	model.Say("A green dot.")
	photo, err := tg.SendFile(e2eChatID, alice, telegramtest.File{Photo: true, Content: pic.Bytes(), Caption: "what is in this picture?", ReplyTo: notice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.WaitReaction(ctx, e2eChatID, photo, "👍"); err != nil {
		t.Fatalf("%v\nmessages:\n%s", err, r.dump())
	}
	imgURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pic.Bytes())
	req, err := model.WaitRequest(ctx, func(cr opencodetest.ChatRequest) bool {
		u, ok := lastUser(cr)
		return !cr.Title && ok && strings.Contains(u.Content, "what is in this picture?")
	})
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := lastUser(req); len(u.Images) != 1 || u.Images[0] != imgURL {
		t.Errorf("the model's user message carries images %.80q, want the photo", u.Images)
	}

	// A text file with a caption.
	model.Say("The linker failed.")
	doc, err := tg.SendFile(e2eChatID, alice, telegramtest.File{Name: "build.log", MIME: "text/plain",
		Content: []byte("error: ld returned 1 exit status\n"), Caption: "why did the build fail?", ReplyTo: notice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.WaitReaction(ctx, e2eChatID, doc, "👍"); err != nil {
		t.Fatalf("%v\nmessages:\n%s", err, r.dump())
	}
	if _, err := model.WaitRequest(ctx, func(cr opencodetest.ChatRequest) bool {
		u, ok := lastUser(cr)
		return !cr.Title && ok && strings.Contains(u.Content, "why did the build fail?") &&
			strings.Contains(u.Content, "error: ld returned 1 exit status") && len(u.Images) == 0
	}); err != nil {
		t.Fatalf("the text file never reached the model: %v", err)
	}

	// /file: a project file comes back; ../ and a link out are refused.
	if err := os.WriteFile(filepath.Join(oc.Dir, "hello.txt"), []byte("hello from the project\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "private.txt")
	if err := os.WriteFile(outside, []byte("not for the chat\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(oc.Dir, "private-link")); err != nil {
		t.Fatal(err)
	}
	ask := func(cmd string) telegramtest.Message {
		t.Helper()
		id, err := tg.Reply(e2eChatID, notice.ID, alice, cmd)
		if err != nil {
			t.Fatal(err)
		}
		return r.waitText(ctx, t, "the answer to "+cmd, func(m telegramtest.Message) bool { return m.FromBot && m.ReplyTo == id })
	}
	if m := ask("/file hello.txt"); m.Document == nil || string(m.Document.Content) != "hello from the project\n" {
		t.Errorf("/file hello.txt answered %q (document %+v)", m.PlainText, m.Document)
	}
	rel, err := filepath.Rel(oc.Dir, outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"/file " + rel, "/file private-link"} {
		if m := ask(cmd); m.Document != nil || !strings.Contains(m.PlainText, "outside the session's project") {
			t.Errorf("%s answered %q (document %v)", cmd, m.PlainText, m.Document != nil)
		}
	}
}

// A photo for a model whose configuration declares no image input is
// refused, saying so, and nothing reaches the model: opencode would hand
// it an error text in the image's place.
func TestEndToEndImageForTextModel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r := newRig(t, opencodetest.OpencodeOptions{}, "HERMES_NOTIFY=idle")
	model, oc, tg := r.model, r.oc, r.tg
	startBot(t, r.env)
	model.Say("Created hello.txt.")
	r.prompt(ctx, t, oc.Dir, "create hello.txt")
	notice := r.waitText(ctx, t, "the finished notice", func(m telegramtest.Message) bool {
		return m.FromBot && strings.Contains(m.PlainText, "Created hello.txt.") && strings.Contains(m.PlainText, "Reply to this message")
	})
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	photo, err := tg.SendFile(e2eChatID, alice, telegramtest.File{Photo: true, Content: pic.Bytes(), Caption: "look at this screenshot", ReplyTo: notice.ID})
	if err != nil {
		t.Fatal(err)
	}
	refusal := r.waitText(ctx, t, "the refusal", func(m telegramtest.Message) bool { return m.FromBot && m.ReplyTo == photo })
	if !strings.Contains(refusal.PlainText, "this model does not take images") {
		t.Errorf("refusal %q", refusal.PlainText)
	}
	if modelSaw(model, "look at this screenshot") {
		t.Error("the prompt reached the model")
	}
}

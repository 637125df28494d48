package telegram_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/opencode"
)

// tinyPNG is a 2×2 PNG.
func tinyPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// noticeIn posts the "finished" notice of ses_parent in project dir.
func (r *rig) noticeIn(ctx context.Context, t *testing.T, dir string) telegramtest.Message {
	t.Helper()
	r.bridge.HandleEvent(ctx, opencode.Event{Directory: dir, Type: opencode.TypeSessionIdle,
		SessionIdle: &opencode.SessionIdle{SessionID: "ses_parent"}})
	m, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return strings.Contains(m.PlainText, "finished") })
	if err != nil {
		t.Fatalf("no finished notice: %v", err)
	}
	return m
}

func withUpload(n int64) func(*telegram.Config) {
	return func(c *telegram.Config) { c.MaxUpload = n }
}

// A photo and a text file replying to a notice go to the session with
// their captions, as an image and as text, acknowledged with 👍.
func TestTelegramFilesReachTheSession(t *testing.T) {
	r, st, ctx := startSteerRigWith(t, withUpload(1<<20), ann.ID)
	notice := r.idle(ctx, t)
	pic := tinyPNG(t)
	photo, err := r.srv.SendFile(chatID, ann, telegramtest.File{Photo: true, Content: pic, Caption: "what is wrong here?", ReplyTo: notice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, photo, "👍"); err != nil {
		t.Fatal(err)
	}
	doc, err := r.srv.SendFile(chatID, ann, telegramtest.File{Name: "log.txt", MIME: "text/plain", Content: []byte("panic: boom\n"), ReplyTo: notice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, doc, "👍"); err != nil {
		t.Fatal(err)
	}
	calls := st.fileCalls()
	if len(calls) != 2 {
		t.Fatalf("PromptFiles calls %+v, want 2", calls)
	}
	if c := calls[0]; c.id != "ses_parent" || c.text != "what is wrong here?" || len(c.files) != 1 ||
		c.files[0].MIME != "image/png" || !bytes.Equal(c.files[0].Data, pic) || c.max != 1<<20 {
		t.Errorf("the photo went as %+v", c)
	}
	if c := calls[1]; c.text != "" || len(c.files) != 1 || c.files[0].MIME != "text/plain" || c.files[0].Name != "log.txt" ||
		string(c.files[0].Data) != "panic: boom\n" {
		t.Errorf("the text file went as %+v", c)
	}
	if strings.Contains(r.logs.String(), token) {
		t.Error("the log shows the bot token")
	}
}

// Files that cannot go are refused with the reason, and nothing is sent:
// too large (not even fetched), of a kind models do not take, an image
// for a model that takes none, and any file while files are off.
func TestTelegramFilesRefusedSayWhy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		upload   int64
		textOnly bool
		file     telegramtest.File
		want     string
	}{
		{"too large", 1 << 10, false, telegramtest.File{Name: "big.txt", Content: bytes.Repeat([]byte("a"), 2<<10)},
			"the files are larger than the 1 KB allowed"},
		{"over Telegram's download limit", 64 << 20, false, telegramtest.File{Name: "big.log", Content: bytes.Repeat([]byte("a"), 21<<20)},
			"the files are larger than the 20 MB allowed"},
		{"binary", 1 << 20, false, telegramtest.File{Name: "a.pdf", Content: []byte("%PDF-1.4\x00\x01\x02")},
			"only images (PNG, JPEG, GIF, WebP) and UTF-8 text files"},
		{"image for a text model", 1 << 20, true, telegramtest.File{Photo: true, Caption: "see", Content: nil},
			"this model does not take images"},
		{"files off", 0, false, telegramtest.File{Name: "a.txt", Content: []byte("hi")},
			"files are off here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, st, ctx := startSteerRigWith(t, withUpload(tc.upload), ann.ID)
			st.mu.Lock()
			st.textOnly = tc.textOnly
			st.mu.Unlock()
			notice := r.idle(ctx, t)
			f := tc.file
			if f.Photo {
				f.Content = tinyPNG(t)
			}
			f.ReplyTo = notice.ID
			id, err := r.srv.SendFile(chatID, ann, f)
			if err != nil {
				t.Fatal(err)
			}
			if reply := replyTo(ctx, t, r, id); !strings.Contains(reply.PlainText, tc.want) {
				t.Errorf("refusal %q, want %q", reply.PlainText, tc.want)
			}
			if calls := st.fileCalls(); len(calls) != 0 {
				t.Errorf("sent %+v", calls)
			}
			if tc.name != "binary" && tc.name != "image for a text model" {
				if n := len(r.srv.RequestsFor("getFile")); n != 0 {
					t.Errorf("%d getFile calls for a file refused by its size", n)
				}
			}
		})
	}
}

// /file PATH replying to a session's message sends that file of its
// project; a path out of it, or no file, is refused saying why.
func TestTelegramFileCommand(t *testing.T) {
	base := t.TempDir()
	project := filepath.Join(base, "shop")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "secret"), []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "secret"), filepath.Join(project, "leak")); err != nil {
		t.Fatal(err)
	}
	r, _, ctx := startSteerRigWith(t, withUpload(1<<20), ann.ID)
	notice := r.noticeIn(ctx, t, project)

	id, err := r.srv.Reply(chatID, notice.ID, ann, "/file main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := replyTo(ctx, t, r, id)
	if doc.Document == nil || doc.Document.FileName != "main.go" || string(doc.Document.Content) != "package main\n" || doc.PlainText != "main.go" {
		t.Fatalf("/file main.go sent %+v", doc)
	}
	for path, want := range map[string]string{
		"../secret": "that path leads outside the session's project",
		"leak":      "that path leads outside the session's project",
		".":         "that is no regular file",
		"nope.go":   "no such file in the session's project",
	} {
		id, err := r.srv.Reply(chatID, notice.ID, ann, "/file "+path)
		if err != nil {
			t.Fatal(err)
		}
		reply := replyTo(ctx, t, r, id)
		if reply.Document != nil || !strings.Contains(reply.PlainText, want) {
			t.Errorf("/file %s answered %q (document %v), want %q", path, reply.PlainText, reply.Document != nil, want)
		}
	}
	id, err = r.srv.SendText(chatID, ann, "/file main.go")
	if err != nil {
		t.Fatal(err)
	}
	if reply := replyTo(ctx, t, r, id); !strings.Contains(reply.PlainText, "reply /file PATH to a message about the session") {
		t.Errorf("/file not replying to anything answered %q", reply.PlainText)
	}
	for _, m := range r.srv.Messages(chatID) {
		if m.Document != nil && strings.Contains(string(m.Document.Content), "hunter2") {
			t.Errorf("the secret outside the project was sent")
		}
	}
}

// /new with words after it, or as a photo's caption, holds them: the tap
// on a project (Ann's, not Eve's) starts the session with them, once, and
// the /new message gets the 👍.
func TestTelegramNewWithPrompt(t *testing.T) {
	r, st, ctx := startSteerRigWith(t, withUpload(1<<20), ann.ID)
	id, err := r.srv.SendText(chatID, ann, "/new write a haiku about ports")
	if err != nil {
		t.Fatal(err)
	}
	choose := replyTo(ctx, t, r, id)
	if b := buttonTexts(choose); len(b) != 1 || b[0] != "demo" {
		t.Fatalf("/new offered %q", b)
	}
	cb, err := r.srv.PressButtonText(chatID, choose.ID, eve, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "not allowed") {
		t.Errorf("Eve's tap was told %q, %v", a.Text, err)
	}
	if _, err := r.srv.PressButtonText(chatID, choose.ID, ann, "demo"); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, id, "👍"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool {
		return m.ID == choose.ID && strings.HasPrefix(m.PlainText, "→ new session in demo") && len(m.Keyboard) == 0
	}); err != nil {
		t.Fatal(err)
	}
	if p, _ := st.calls(); len(p) != 1 || p[0] != "ses_new: write a haiku about ports" {
		t.Errorf("prompts %q", p)
	}

	photo, err := r.srv.SendFile(chatID, ann, telegramtest.File{Photo: true, Content: tinyPNG(t), Caption: "/new what is this?"})
	if err != nil {
		t.Fatal(err)
	}
	choose = replyTo(ctx, t, r, photo)
	if _, err := r.srv.PressButtonText(chatID, choose.ID, ann, "demo"); err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, photo, "👍"); err != nil {
		t.Fatal(err)
	}
	cb, err = r.srv.PressButtonText(chatID, choose.ID, ann, "demo")
	if err == nil {
		if a, err := r.srv.WaitAnswer(ctx, cb); err != nil || !strings.Contains(a.Text, "sent already") {
			t.Errorf("a second tap was told %q, %v", a.Text, err)
		}
	}
	if c := st.fileCalls(); len(c) != 1 || c[0].id != "ses_new" || c[0].text != "what is this?" || len(c[0].files) != 1 || c[0].files[0].MIME != "image/png" {
		t.Errorf("PromptFiles calls %+v, want the photo once, to the new session", c)
	}
}

// A photo replying to /new's prompt starts the session with it.
func TestTelegramPhotoStartsSession(t *testing.T) {
	r, st, ctx := startSteerRigWith(t, withUpload(1<<20), ann.ID)
	id, err := r.srv.SendText(chatID, ann, "/new")
	if err != nil {
		t.Fatal(err)
	}
	choose := replyTo(ctx, t, r, id)
	if _, err := r.srv.PressButtonText(chatID, choose.ID, ann, "demo"); err != nil {
		t.Fatal(err)
	}
	ask, err := r.srv.WaitMessage(ctx, chatID, func(m telegramtest.Message) bool { return m.ForceReply != nil && m.ReplyTo == choose.ID })
	if err != nil {
		t.Fatal(err)
	}
	photo, err := r.srv.SendFile(chatID, ann, telegramtest.File{Photo: true, Content: tinyPNG(t), Caption: "make the page look like this", ReplyTo: ask.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.WaitReaction(ctx, chatID, photo, "👍"); err != nil {
		t.Fatal(err)
	}
	if c := st.fileCalls(); len(c) != 1 || c[0].id != "ses_new" || c[0].text != "make the page look like this" {
		t.Errorf("PromptFiles calls %+v", c)
	}
}

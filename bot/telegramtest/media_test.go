package telegramtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
)

// A reaction is one emoji of Telegram's list, on a message that exists;
// an empty list takes it off.
func TestSetMessageReaction(t *testing.T) {
	s := newServer(t)
	id, err := s.SendText(groupID, alice, "go on")
	if err != nil {
		t.Fatal(err)
	}
	set := func(reaction string) apiResponse {
		_, r := call(t, s, "setMessageReaction", map[string]string{"chat_id": "-1001234567890", "message_id": strconv.Itoa(id), "reaction": reaction})
		return r
	}
	for reaction, want := range map[string]string{
		`[{"type":"emoji","emoji":"✅"}]`:                              "Bad Request: REACTION_INVALID",
		`[{"type":"emoji","emoji":"👀"},{"type":"emoji","emoji":"👍"}]`: "Bad Request: REACTIONS_TOO_MANY",
		`[{"type":"custom_emoji","custom_emoji_id":"1"}]`:             "Bad Request: REACTION_INVALID",
		`{`: "Bad Request: can't parse reaction types JSON object",
	} {
		if r := set(reaction); r.OK || r.Description != want {
			t.Errorf("%s: %v %q, want %q", reaction, r.OK, r.Description, want)
		}
	}
	if r := set(`[{"type":"emoji","emoji":"👀"}]`); !r.OK {
		t.Fatal(r.Description)
	}
	if err := s.WaitReaction(testContext(t), groupID, id, "👀"); err != nil {
		t.Fatal(err)
	}
	if r := set(`[]`); !r.OK {
		t.Fatal(r.Description)
	}
	if m, _ := s.Message(groupID, id); len(m.Reaction) != 0 {
		t.Errorf("reaction %q after clearing it", m.Reaction)
	}
	_, r := call(t, s, "setMessageReaction", map[string]string{"chat_id": "-1001234567890", "message_id": "999", "reaction": `[{"type":"emoji","emoji":"👍"}]`})
	if r.OK || r.Description != "Bad Request: message to react not found" {
		t.Errorf("reaction on a missing message: %v %q", r.OK, r.Description)
	}
}

// A file a person sends arrives as a photo or document whose content the
// bot downloads with getFile; over 20 MB it cannot.
func TestSendFileDownload(t *testing.T) {
	s := newServer(t)
	doc, err := s.SendFile(groupID, alice, telegramtest.File{Name: "notes.txt", MIME: "text/plain", Content: []byte("hello"), Caption: "read this"})
	if err != nil {
		t.Fatal(err)
	}
	photo, err := s.SendFile(groupID, alice, telegramtest.File{Photo: true, Content: []byte("\xff\xd8jpeg"), ReplyTo: doc})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.SendFile(groupID, alice, telegramtest.File{Name: "big.bin", Content: make([]byte, 20<<20+1)})
	if err != nil {
		t.Fatal(err)
	}
	var updates []struct {
		Message struct {
			MessageID int    `json:"message_id"`
			Caption   string `json:"caption"`
			Document  *struct {
				FileID   string `json:"file_id"`
				FileName string `json:"file_name"`
				MIMEType string `json:"mime_type"`
			} `json:"document"`
			Photo []struct {
				FileID string `json:"file_id"`
				Width  int    `json:"width"`
			} `json:"photo"`
			ReplyTo *struct {
				MessageID int `json:"message_id"`
			} `json:"reply_to_message"`
		} `json:"message"`
	}
	if err := json.Unmarshal(mustCall(t, s, "getUpdates", nil), &updates); err != nil || len(updates) != 3 {
		t.Fatalf("updates %d, %v", len(updates), err)
	}
	d, p := updates[0].Message, updates[1].Message
	if d.Document == nil || d.Document.FileName != "notes.txt" || d.Document.MIMEType != "text/plain" || d.Caption != "read this" {
		t.Fatalf("document message %+v", d)
	}
	if len(p.Photo) != 2 || p.Photo[1].Width != 1280 || p.ReplyTo == nil || p.ReplyTo.MessageID != doc || p.MessageID != photo {
		t.Fatalf("photo message %+v", p)
	}
	download := func(fileID string) (int, string) {
		var f struct {
			FilePath string `json:"file_path"`
		}
		_, r := call(t, s, "getFile", map[string]string{"file_id": fileID})
		if !r.OK {
			return 0, r.Description
		}
		_ = json.Unmarshal(r.Result, &f)
		resp, err := http.Get(s.URL + "/file/bot" + token + "/" + f.FilePath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := download(d.Document.FileID); code != 200 || body != "hello" {
		t.Errorf("document download %d %q", code, body)
	}
	if code, body := download(p.Photo[1].FileID); code != 200 || body != "\xff\xd8jpeg" {
		t.Errorf("photo download %d %q", code, body)
	}
	if _, desc := download(updates[2].Message.Document.FileID); desc != "Bad Request: file is too big" {
		t.Errorf("a 20 MB+ file: %q", desc)
	}
	if _, desc := download("file-1-1"); desc != "Bad Request: invalid file_id" {
		t.Errorf("an unknown file: %q", desc)
	}
	resp, err := http.Get(s.URL + "/file/botwrong/files/" + d.Document.FileID)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("download with another token: %d", resp.StatusCode)
	}
}

// A long text arrives in parts of at most 4096 characters, cut at a
// space, the first replying.
func TestSendLongText(t *testing.T) {
	s := newServer(t)
	to, _ := s.SendText(groupID, alice, "question")
	text := strings.Repeat("word ", 1000) // 5000 characters
	ids, err := s.SendLongText(groupID, bob, to, text)
	if err != nil || len(ids) != 2 {
		t.Fatalf("parts %v, %v", ids, err)
	}
	first, _ := s.Message(groupID, ids[0])
	second, _ := s.Message(groupID, ids[1])
	if len(first.Text) > 4096 || !strings.HasSuffix(first.Text, "word") || first.ReplyTo != to || second.ReplyTo != 0 {
		t.Errorf("first part %d chars, replying to %d; second replying to %d", len(first.Text), first.ReplyTo, second.ReplyTo)
	}
	if first.Text+" "+second.Text != strings.TrimSpace(text) {
		t.Error("the parts do not make up the text")
	}
}

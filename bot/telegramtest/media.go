package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// maxDownloadBytes is the Bot API's limit on a file a bot may download.
const maxDownloadBytes = 20 << 20

// reactionEmoji are the emoji ReactionTypeEmoji accepts; any other is
// REACTION_INVALID.
var reactionEmoji = strings.Fields("❤ 👍 👎 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 💔 🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘 💊 🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡")

// setMessageReaction sets the bot's reaction on any message of a chat: at
// most one emoji (a bot is not premium), from Telegram's list.
func (s *Server) setMessageReaction(_ context.Context, p params) (any, *apiError) {
	id, err := strconv.Atoi(p["message_id"])
	if err != nil || id <= 0 {
		return nil, badRequest("message_id is invalid")
	}
	var rs []struct {
		Type  string `json:"type"`
		Emoji string `json:"emoji"`
	}
	if p["reaction"] != "" {
		if err := json.Unmarshal([]byte(p["reaction"]), &rs); err != nil {
			return nil, badRequest("can't parse reaction types JSON object")
		}
	}
	if len(rs) > 1 {
		return nil, badRequest("REACTIONS_TOO_MANY")
	}
	var set []string
	for _, r := range rs {
		if r.Type != "emoji" || !slices.Contains(reactionEmoji, r.Emoji) {
			return nil, badRequest("REACTION_INVALID")
		}
		set = append(set, r.Emoji)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(p["chat_id"])
	if c == nil {
		return nil, badRequest("chat not found")
	}
	m := c.msgs[id]
	if m == nil {
		return nil, badRequest("message to react not found")
	}
	m.reaction = set
	s.notifyLocked()
	return true, nil
}

// WaitReaction waits until the bot's reaction on message id of a chat (a
// user's message too) is emoji, "" meaning none.
func (s *Server) WaitReaction(ctx context.Context, chatID int64, id int, emoji string) error {
	err := s.Wait(ctx, func() bool {
		m, ok := s.Message(chatID, id)
		return ok && strings.Join(m.Reaction, "") == emoji
	})
	if err != nil {
		return fmt.Errorf("wait for reaction %q on message %d: %w", emoji, id, err)
	}
	return nil
}

// File is a file a person sends in a chat: a photo (Telegram recompresses
// photos to JPEG, so Name and MIME are not sent for one) or a document.
type File struct {
	Photo   bool
	Name    string
	MIME    string
	Content []byte
	Caption string
	// ReplyTo is the message it replies to, 0 for none.
	ReplyTo int
}

// SendFile queues a message update carrying f as if from sent it, and
// returns the new message's ID. The bot fetches its content with getFile
// and the file URL, as from Telegram.
func (s *Server) SendFile(chatID int64, from User, f File) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil {
		return 0, fmt.Errorf("send file in chat %d: %w", chatID, ErrUnknownChat)
	}
	m := &message{from: from, text: f.Caption, plain: f.Caption, file: &f,
		document: &Document{FileName: f.Name, Content: slices.Clone(f.Content)}}
	if f.ReplyTo != 0 {
		target := c.msgs[f.ReplyTo]
		if target == nil {
			return 0, fmt.Errorf("send file: message %d in chat %d: %w", f.ReplyTo, chatID, ErrUnknownMessage)
		}
		m.replyTo, m.threadID = target.id, target.threadID
	}
	s.addMessageLocked(c, m)
	s.enqueueLocked(map[string]any{"message": s.wireMessageLocked(m, true)})
	return m.id, nil
}

// SendLongText sends text as a Telegram client does when it is longer than
// one message: parts of at most 4096 UTF-16 units, cut at the last line
// break or space before the limit, only the first replying to replyTo
// (0: none). It returns the parts' message IDs.
func (s *Server) SendLongText(chatID int64, from User, replyTo int, text string) ([]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var target *message
	if replyTo != 0 {
		var err error
		if target, err = s.pressableLocked(chatID, replyTo); err != nil {
			return nil, fmt.Errorf("send long text: %w", err)
		}
	}
	var ids []int
	for _, part := range splitText(text, maxTextLength) {
		id, err := s.userMessageLocked(chatID, from, part, target)
		if err != nil {
			return ids, err
		}
		ids, target = append(ids, id), nil
	}
	return ids, nil
}

// splitText cuts text into parts of at most limit UTF-16 units.
func splitText(text string, limit int) []string {
	var parts []string
	for UTF16Len(text) > limit {
		cut := prefixOfUnits(text, limit)
		if i := strings.LastIndexAny(text[:cut], "\n "); i > 0 {
			cut = i
		}
		parts = append(parts, strings.TrimRight(text[:cut], "\n "))
		text = strings.TrimLeft(text[cut:], "\n ")
	}
	return append(parts, strings.TrimRight(text, "\n "))
}

// prefixOfUnits is the byte length of text's longest prefix of at most n
// UTF-16 units.
func prefixOfUnits(text string, n int) int {
	units := 0
	for i, r := range text {
		units += utf16.RuneLen(r)
		if units > n {
			return i
		}
	}
	return len(text)
}

// getFile returns the path of a file a person sent, to download from
// /file/bot<token>/<path>; larger than 20 MB, a bot cannot.
func (s *Server) getFile(_ context.Context, p params) (any, *apiError) {
	m := s.fileMessage(p["file_id"])
	if m == nil {
		return nil, badRequest("invalid file_id")
	}
	size := len(m.document.Content)
	if size > maxDownloadBytes {
		return nil, badRequest("file is too big")
	}
	id := p["file_id"]
	return map[string]any{"file_id": id, "file_unique_id": id, "file_size": size, "file_path": "files/" + id}, nil
}

// fileMessage is the message a person sent carrying file id, or nil.
func (s *Server) fileMessage(id string) *message {
	var chatID int64
	var msgID int
	if _, err := fmt.Sscanf(id, "file-%d-%d", &chatID, &msgID); err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.messageLocked(chatID, msgID); m != nil && m.file != nil && fileID(m) == id {
		return m
	}
	return nil
}

func fileID(m *message) string { return fmt.Sprintf("file-%d-%d", m.chatID, m.id) }

// serveFile serves a download of a file a person sent.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, rest string) {
	token, path, ok := strings.Cut(rest, "/")
	m := s.fileMessage(strings.TrimPrefix(path, "files/"))
	switch {
	case !ok || token != s.token:
		writeError(w, &apiError{code: http.StatusUnauthorized, description: "Unauthorized"})
	case m == nil || len(m.document.Content) > maxDownloadBytes:
		writeError(w, &apiError{code: http.StatusNotFound, description: "Not Found"})
	default:
		w.Header().Set("Content-Length", strconv.Itoa(len(m.document.Content)))
		_, _ = w.Write(m.document.Content)
	}
}

// wireFile fills w with the photo or document a person sent.
func wireFile(w *wireMessage, m *message) {
	id, size := fileID(m), len(m.file.Content)
	if m.file.Photo {
		w.Photo = []wirePhotoSize{{FileID: id + "-s", FileUniqueID: id + "-s", Width: 90, Height: 90, FileSize: size / 8},
			{FileID: id, FileUniqueID: id, Width: 1280, Height: 960, FileSize: size}}
	} else {
		w.Document = &wireDocument{FileID: id, FileUniqueID: id, FileName: m.file.Name, MIMEType: m.file.MIME, FileSize: size}
	}
	w.Text, w.Entities, w.Caption = "", nil, m.plain
}

type wirePhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int    `json:"file_size,omitempty"`
}

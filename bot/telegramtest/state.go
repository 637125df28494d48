package telegramtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Message is a message in a chat, in its current state.
type Message struct {
	ChatID    int64
	ID        int
	ThreadID  int  // message_thread_id, for messages in a forum topic
	From      User // the bot, for messages the bot sent
	FromBot   bool
	Date      time.Time
	Text      string // as sent, e.g. raw HTML
	PlainText string // what a user sees: tags stripped, entities decoded
	ParseMode string
	Entities  []Entity // for HTML messages
	// Keyboard is the current inline keyboard, nil when there is none.
	Keyboard   [][]Button
	ForceReply *ForceReply
	ReplyTo    int // the message this one replies to, 0 if none
	Edits      int // successful edits of text or keyboard
	// Document is the file of a sendDocument, nil for a text message; its
	// caption is then in Text, PlainText and Entities.
	Document *Document
	// Reaction is the bot's reaction on the message (setMessageReaction).
	Reaction []string
}

// Document is a file the bot sent with sendDocument.
type Document struct {
	FileName string
	Content  []byte
}

// Chat types Telegram knows.
const (
	ChatPrivate    = "private"
	ChatGroup      = "group"
	ChatSupergroup = "supergroup"
	ChatChannel    = "channel"
)

type chat struct {
	id     int64
	typ    string
	forum  bool
	nextID int
	topics []Topic
	msgs   map[int]*message
}

type message struct {
	chatID    int64
	id        int
	threadID  int
	from      User
	fromBot   bool
	date      int64
	editDate  int64
	text      string
	plain     string
	parseMode string
	entities  []Entity
	keyboard  [][]button
	force     *ForceReply
	replyTo   int
	edits     int
	document  *Document // the text fields hold its caption
	file      *File     // what a person sent with SendFile; document holds its content
	reaction  []string
}

// AddChat makes a chat known to the server, so the bot may send to it. typ is
// one of ChatPrivate, ChatGroup, ChatSupergroup or ChatChannel. Adding a
// known chat again changes its type and keeps its messages.
func (s *Server) AddChat(id int64, typ string) error {
	switch typ {
	case ChatPrivate, ChatGroup, ChatSupergroup, ChatChannel:
	default:
		return fmt.Errorf("telegramtest: add chat %d: unknown chat type %q", id, typ)
	}
	if id == 0 {
		return fmt.Errorf("telegramtest: add chat: chat ID 0 is not valid")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.chats[id]; ok {
		c.typ = typ
	} else {
		s.chats[id] = &chat{id: id, typ: typ, msgs: make(map[int]*message)}
	}
	s.notifyLocked()
	return nil
}

// AddForum makes a supergroup with topics known to the server. Messages sent
// with a message_thread_id come back with is_topic_message set.
func (s *Server) AddForum(id int64) error {
	if err := s.AddChat(id, ChatSupergroup); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats[id].forum = true
	return nil
}

// Topic is a forum topic the bot created with createForumTopic.
type Topic struct {
	ThreadID int // message_thread_id
	Name     string
}

// Topics returns the topics the bot created in a chat, oldest first.
func (s *Server) Topics(chatID int64) []Topic {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.chats[chatID]; ok {
		return slices.Clone(c.topics)
	}
	return nil
}

// Messages returns the messages the bot sent to a chat, each in its
// current state, oldest first.
func (s *Server) Messages(chatID int64) []Message {
	return s.messages(chatID, true)
}

// History returns every message of a chat, the users' as well as the
// bot's, each in its current state, oldest first: the chat as
// a member sees it.
func (s *Server) History(chatID int64) []Message {
	return s.messages(chatID, false)
}

func (s *Server) messages(chatID int64, botOnly bool) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chats[chatID]
	if !ok {
		return nil
	}
	var out []Message
	for _, m := range c.msgs {
		if m.fromBot || !botOnly {
			out = append(out, m.export())
		}
	}
	slices.SortFunc(out, func(a, b Message) int { return a.ID - b.ID })
	return out
}

// Message returns one message of a chat, sent by the bot or by a user, in
// its current state.
func (s *Server) Message(chatID int64, id int) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.messageLocked(chatID, id)
	if m == nil {
		return Message{}, false
	}
	return m.export(), true
}

func (s *Server) messageLocked(chatID int64, id int) *message {
	c, ok := s.chats[chatID]
	if !ok {
		return nil
	}
	return c.msgs[id]
}

// addMessageLocked stores a new message and gives it the chat's next ID.
func (s *Server) addMessageLocked(c *chat, m *message) {
	c.nextID++
	m.chatID, m.id, m.date = c.id, c.nextID, time.Now().Unix()
	c.msgs[m.id] = m
}

func (m *message) export() Message {
	out := Message{
		ChatID: m.chatID, ID: m.id, ThreadID: m.threadID, From: m.from, FromBot: m.fromBot,
		Date: time.Unix(m.date, 0), Text: m.text, PlainText: m.plain, ParseMode: m.parseMode,
		Entities: slices.Clone(m.entities), ReplyTo: m.replyTo, Edits: m.edits, Reaction: slices.Clone(m.reaction),
	}
	for _, row := range m.keyboard {
		r := make([]Button, len(row))
		for i, b := range row {
			r[i] = b.Button
		}
		out.Keyboard = append(out.Keyboard, r)
	}
	if m.force != nil {
		f := *m.force
		out.ForceReply = &f
	}
	if m.document != nil {
		d := *m.document
		d.Content = slices.Clone(d.Content)
		out.Document = &d
	}
	return out
}

// Wire forms of Bot API objects: only the fields the fake fills.

type wireUser struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

type wireChat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	IsForum   bool   `json:"is_forum,omitempty"`
}

type wireMessage struct {
	MessageID       int                 `json:"message_id"`
	MessageThreadID int                 `json:"message_thread_id,omitempty"`
	From            *wireUser           `json:"from,omitempty"`
	Date            int64               `json:"date"`
	Chat            wireChat            `json:"chat"`
	IsTopicMessage  bool                `json:"is_topic_message,omitempty"`
	ReplyToMessage  *wireMessage        `json:"reply_to_message,omitempty"`
	EditDate        int64               `json:"edit_date,omitempty"`
	Text            string              `json:"text,omitempty"`
	Entities        []Entity            `json:"entities,omitempty"`
	Document        *wireDocument       `json:"document,omitempty"`
	Photo           []wirePhotoSize     `json:"photo,omitempty"`
	Caption         string              `json:"caption,omitempty"`
	CaptionEntities []Entity            `json:"caption_entities,omitempty"`
	ReplyMarkup     *wireInlineKeyboard `json:"reply_markup,omitempty"`
}

type wireDocument struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MIMEType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

type wireInlineKeyboard struct {
	InlineKeyboard [][]map[string]any `json:"inline_keyboard"`
}

func (s *Server) wireUser(u User, isBot bool) *wireUser {
	name := u.FirstName
	if name == "" {
		name = "User" // Telegram requires a first name
	}
	return &wireUser{ID: u.ID, IsBot: isBot, FirstName: name, Username: u.Username}
}

func (c *chat) wire() wireChat {
	w := wireChat{ID: c.id, Type: c.typ, IsForum: c.forum}
	if c.typ == ChatPrivate {
		w.FirstName = "User"
	} else {
		w.Title = fmt.Sprintf("Chat %d", c.id)
	}
	return w
}

// wireMessageLocked renders m as the Bot API does. withReply includes the
// replied-to message, one level deep, as Telegram does.
func (s *Server) wireMessageLocked(m *message, withReply bool) *wireMessage {
	c := s.chats[m.chatID]
	w := &wireMessage{
		MessageID: m.id, From: s.wireUser(m.from, m.fromBot), Date: m.date, Chat: c.wire(),
		EditDate: m.editDate, Text: m.plain, Entities: m.entities,
	}
	if m.threadID != 0 {
		w.MessageThreadID = m.threadID
		w.IsTopicMessage = c.forum
	}
	if m.file != nil {
		wireFile(w, m)
	} else if m.document != nil {
		id := fmt.Sprintf("doc-%d-%d", m.chatID, m.id)
		w.Document = &wireDocument{FileID: id, FileUniqueID: id, FileName: m.document.FileName, FileSize: len(m.document.Content)}
		w.Text, w.Entities, w.Caption, w.CaptionEntities = "", nil, m.plain, m.entities
	}
	if len(m.keyboard) > 0 {
		kb := &wireInlineKeyboard{}
		for _, row := range m.keyboard {
			var r []map[string]any
			for _, b := range row {
				wb := map[string]any{"text": b.Text}
				if b.Style != "" {
					wb["style"] = b.Style
				}
				switch {
				case b.CallbackData != "":
					wb["callback_data"] = b.CallbackData
				case b.URL != "":
					wb["url"] = b.URL
				default:
					wb[b.otherKind] = json.RawMessage(b.otherValue)
				}
				r = append(r, wb)
			}
			kb.InlineKeyboard = append(kb.InlineKeyboard, r)
		}
		w.ReplyMarkup = kb
	}
	if withReply && m.replyTo != 0 {
		if replied := c.msgs[m.replyTo]; replied != nil {
			w.ReplyToMessage = s.wireMessageLocked(replied, false)
		}
	}
	return w
}

package telegramtest

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Telegram's limits on what a bot sends.
const (
	maxTextLength         = 4096 // UTF-16 code units of the visible text
	maxCaptionLength      = 1024 // of a document's caption, likewise
	maxUploadBytes        = 50 << 20
	maxCallbackAnswerText = 200
	maxCommands           = 100
	maxCommandDescription = 256
)

const notModified = "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"

func (s *Server) getMe(context.Context, params) (any, *apiError) {
	return map[string]any{
		"id": s.bot.ID, "is_bot": true, "first_name": s.bot.FirstName, "username": s.bot.Username,
		"can_join_groups": true, "can_read_all_group_messages": s.privacyOff, "supports_inline_queries": false,
	}, nil
}

type queuedUpdate struct {
	id   int64
	kind string // "message", "callback_query", …
	body json.RawMessage
}

// optInUpdateKinds are left out until a poll names them in allowed_updates,
// as Telegram does.
var optInUpdateKinds = map[string]bool{"chat_member": true, "message_reaction": true, "message_reaction_count": true}

func (s *Server) getUpdates(ctx context.Context, p params) (any, *apiError) {
	offset, _ := strconv.ParseInt(strings.TrimSpace(p["offset"]), 10, 64)
	limit, err := strconv.Atoi(strings.TrimSpace(p["limit"]))
	if err != nil || limit < 1 || limit > 100 {
		limit = 100
	}
	timeout, _ := strconv.Atoi(strings.TrimSpace(p["timeout"]))
	wait := min(time.Duration(max(timeout, 0))*time.Second, s.maxPoll)
	if wait == 0 {
		wait = idleShortPoll
	}
	var allowed map[string]bool
	if raw := p["allowed_updates"]; raw != "" {
		var kinds []string
		if err := json.Unmarshal([]byte(raw), &kinds); err != nil {
			return nil, badRequest("can't parse allowed updates JSON array")
		}
		allowed = make(map[string]bool, len(kinds))
		for _, k := range kinds {
			allowed[k] = true
		}
	}

	s.mu.Lock()
	if s.webhook != "" {
		s.mu.Unlock()
		return nil, &apiError{code: http.StatusConflict, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
	}
	if allowed != nil {
		// Telegram remembers the list; an empty one means the default set.
		s.allowed = allowed
		if len(allowed) == 0 {
			s.allowed = nil
		}
	}
	s.pollGen++
	gen := s.pollGen
	s.confirmLocked(offset)
	s.notifyLocked() // an older poll still waiting must now end with 409
	s.mu.Unlock()

	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if s.pollGen != gen {
			s.mu.Unlock()
			return nil, &apiError{code: http.StatusConflict, description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}
		}
		batch := s.batchLocked(offset, limit)
		changed := s.changed
		s.mu.Unlock()
		if len(batch) > 0 {
			return batch, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return []json.RawMessage{}, nil
		case <-s.done:
			return []json.RawMessage{}, nil
		case <-ctx.Done():
			return nil, errClientGone
		}
	}
}

// confirmLocked forgets the updates an offset confirms.
func (s *Server) confirmLocked(offset int64) {
	switch {
	case offset > 0:
		i := 0
		for i < len(s.updates) && s.updates[i].id < offset {
			i++
		}
		s.updates = s.updates[i:]
	case offset < 0:
		if keep := int(-offset); keep < len(s.updates) {
			s.updates = s.updates[len(s.updates)-keep:]
		}
	}
}

// batchLocked drops updates of kinds the poller does not want, as Telegram
// never queues them, and returns up to limit of the rest.
func (s *Server) batchLocked(offset int64, limit int) []json.RawMessage {
	s.updates = slices.DeleteFunc(s.updates, func(u queuedUpdate) bool {
		if s.allowed == nil {
			return optInUpdateKinds[u.kind]
		}
		return !s.allowed[u.kind]
	})
	var batch []json.RawMessage
	for _, u := range s.updates {
		if u.id >= offset && len(batch) < limit {
			batch = append(batch, u.body)
		}
	}
	return batch
}

// enqueueLocked queues an update built from fields and returns its ID.
func (s *Server) enqueueLocked(fields map[string]any) int64 {
	id := s.nextUpdateID
	s.nextUpdateID++
	fields["update_id"] = id
	kind := ""
	for k := range fields {
		if k != "update_id" {
			kind = k
		}
	}
	body, err := json.Marshal(fields)
	if err != nil {
		// Only values this package builds reach here, and they all marshal.
		body = []byte(`{"update_id":` + strconv.FormatInt(id, 10) + `}`)
	}
	s.updates = append(s.updates, queuedUpdate{id: id, kind: kind, body: body})
	s.notifyLocked()
	return id
}

// text is a message text after parse_mode was applied.
type text struct {
	raw, plain, parseMode string
	entities              []Entity
}

// parseText checks text and parse_mode the way sendMessage and
// editMessageText do.
func parseText(p params) (text, *apiError) {
	t := text{raw: p["text"], parseMode: p["parse_mode"]}
	if t.raw == "" {
		return text{}, badRequest("message text is empty")
	}
	if !utf8.ValidString(t.raw) {
		return text{}, badRequest("strings must be encoded in UTF-8")
	}
	var err error
	switch strings.ToLower(t.parseMode) {
	case "":
		t.plain = t.raw
	case "html":
		t.plain, t.entities, err = ParseHTML(t.raw)
	case "markdownv2", "markdown":
		return text{}, badRequest("unsupported parse_mode " + t.parseMode + ": hermes-bot sends HTML (telegramtest is stricter than Telegram here)")
	default:
		return text{}, badRequest("unsupported parse_mode")
	}
	if err != nil {
		return text{}, badRequest("can't parse entities: " + err.Error())
	}
	if strings.TrimSpace(t.plain) == "" {
		return text{}, badRequest("message text is empty")
	}
	if UTF16Len(t.plain) > maxTextLength {
		return text{}, badRequest("message is too long")
	}
	return t, nil
}

func (s *Server) chatLocked(raw string) *chat {
	id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil {
		return nil // @channelusername is not modelled
	}
	return s.chats[id]
}

type replyParameters struct {
	MessageID                int             `json:"message_id"`
	ChatID                   json.RawMessage `json:"chat_id"`
	AllowSendingWithoutReply bool            `json:"allow_sending_without_reply"`
}

func parseReplyParameters(p params) (*replyParameters, *apiError) {
	if raw := p["reply_parameters"]; raw != "" {
		var rp replyParameters
		if err := json.Unmarshal([]byte(raw), &rp); err != nil {
			return nil, badRequest("can't parse reply parameters JSON object")
		}
		return &rp, nil
	}
	if raw := p["reply_to_message_id"]; raw != "" { // before Bot API 7.0
		id, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil {
			return nil, badRequest("message to be replied not found")
		}
		return &replyParameters{MessageID: id, AllowSendingWithoutReply: parseBool(p["allow_sending_without_reply"])}, nil
	}
	return nil, nil
}

func (s *Server) sendMessage(_ context.Context, p params) (any, *apiError) {
	if strings.TrimSpace(p["chat_id"]) == "" {
		return nil, badRequest("chat_id is empty")
	}
	mk, rp, apiErr := parseReplyOptions(p)
	if apiErr != nil {
		return nil, apiErr
	}
	t, apiErr := parseText(p)
	if apiErr != nil {
		return nil, apiErr
	}
	return s.post(p, mk, rp, &message{text: t.raw, plain: t.plain, parseMode: t.parseMode, entities: t.entities})
}

// parseReplyOptions reads a new message's reply_markup and reply parameters.
func parseReplyOptions(p params) (markup, *replyParameters, *apiError) {
	mk, apiErr := parseReplyMarkup(p["reply_markup"], p.has("reply_markup"))
	if apiErr != nil {
		return markup{}, nil, apiErr
	}
	rp, apiErr := parseReplyParameters(p)
	return mk, rp, apiErr
}

// post places a new message m of the bot in the chat p names, with its
// markup: in its topic (message_thread_id) and as a reply (rp), as
// sendMessage and sendDocument do, and returns it as Telegram would.
func (s *Server) post(p params, mk markup, rp *replyParameters, m *message) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(p["chat_id"])
	if c == nil {
		return nil, badRequest("chat not found")
	}
	m.from, m.fromBot, m.force = s.bot, true, mk.force
	if mk.isInline {
		m.keyboard = mk.inline
	}
	if raw := strings.TrimSpace(p["message_thread_id"]); raw != "" && raw != "0" {
		thread, err := strconv.Atoi(raw)
		if err != nil || !c.forum {
			return nil, badRequest("message thread not found")
		}
		m.threadID = thread
	}
	if rp != nil && rp.MessageID != 0 {
		target := c
		if len(rp.ChatID) > 0 && !isNull(rp.ChatID) {
			target = s.chatLocked(strings.Trim(string(rp.ChatID), `"`))
		}
		switch {
		case target != nil && target.msgs[rp.MessageID] != nil:
			if target == c {
				m.replyTo = rp.MessageID
			}
		case !rp.AllowSendingWithoutReply:
			return nil, badRequest("message to be replied not found")
		}
	}
	s.addMessageLocked(c, m)
	s.notifyLocked()
	return s.wireMessageLocked(m, true), nil
}

// sendDocument takes an uploaded file (multipart, field "document") with
// an optional caption, as Telegram does for bots: at most 50 MB, not
// empty, a caption of at most 1024 characters after its entities are
// parsed. A file_id or URL instead of an upload is not modelled.
func (s *Server) sendDocument(_ context.Context, p params) (any, *apiError) {
	if strings.TrimSpace(p["chat_id"]) == "" {
		return nil, badRequest("chat_id is empty")
	}
	name, content, ok := p.file("document")
	switch {
	case !ok && p["document"] != "":
		return nil, badRequest("wrong remote file identifier specified: can't unserialize it")
	case !ok:
		return nil, badRequest("there is no document in the request")
	case len(content) == 0:
		return nil, badRequest("file must be non-empty")
	case len(content) > s.maxUpload:
		return nil, &apiError{code: 413, description: "Request Entity Too Large"}
	}
	mk, rp, apiErr := parseReplyOptions(p)
	if apiErr != nil {
		return nil, apiErr
	}
	var t text
	if p["caption"] != "" {
		cp := params{"text": p["caption"], "parse_mode": p["parse_mode"]}
		if t, apiErr = parseText(cp); apiErr != nil {
			return nil, apiErr
		}
		if UTF16Len(t.plain) > maxCaptionLength {
			return nil, badRequest("message caption is too long")
		}
	}
	return s.post(p, mk, rp, &message{text: t.raw, plain: t.plain, parseMode: t.parseMode, entities: t.entities,
		document: &Document{FileName: name, Content: content}})
}

// editTarget reads the chat_id and message_id an edit names, and its
// reply_markup, which must be an inline keyboard.
func editTarget(p params) (string, int, markup, *apiError) {
	if p["inline_message_id"] != "" {
		return "", 0, markup{}, badRequest("MESSAGE_ID_INVALID") // inline messages are not modelled
	}
	if strings.TrimSpace(p["chat_id"]) == "" {
		return "", 0, markup{}, badRequest("chat_id is empty")
	}
	id, err := strconv.Atoi(strings.TrimSpace(p["message_id"]))
	if err != nil || id <= 0 {
		return "", 0, markup{}, badRequest("message identifier is not specified")
	}
	mk, apiErr := parseReplyMarkup(p["reply_markup"], p.has("reply_markup"))
	if apiErr == nil && mk.present && !mk.isInline {
		apiErr = badRequest("inline keyboard expected")
	}
	return p["chat_id"], id, mk, apiErr
}

// editableLocked finds the bot message an edit names; a document's
// message has a caption, not a text, so editMessageText refuses it.
func (s *Server) editableLocked(chatID string, id int) (*message, *apiError) {
	c := s.chatLocked(chatID)
	if c == nil {
		return nil, badRequest("chat not found")
	}
	m := c.msgs[id]
	switch {
	case m == nil:
		return nil, badRequest("message to edit not found")
	case !m.fromBot:
		return nil, badRequest("message can't be edited")
	case m.document != nil:
		return nil, badRequest("there is no text in the message to edit")
	}
	return m, nil
}

func (s *Server) editMessageText(_ context.Context, p params) (any, *apiError) {
	chatID, id, mk, apiErr := editTarget(p)
	if apiErr != nil {
		return nil, apiErr
	}
	t, apiErr := parseText(p)
	if apiErr != nil {
		return nil, apiErr
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	m, apiErr := s.editableLocked(chatID, id)
	if apiErr != nil {
		return nil, apiErr
	}
	// Telegram compares what users see, so <b> and <strong> are the same.
	// An edit without reply_markup removes the keyboard.
	if m.plain == t.plain && slices.Equal(m.entities, t.entities) && sameKeyboard(m.keyboard, mk.inline) {
		return nil, badRequest(notModified)
	}
	m.text, m.plain, m.parseMode, m.entities, m.keyboard = t.raw, t.plain, t.parseMode, t.entities, mk.inline
	m.edits++
	m.editDate = time.Now().Unix()
	s.notifyLocked()
	return s.wireMessageLocked(m, true), nil
}

func (s *Server) answerCallbackQuery(_ context.Context, p params) (any, *apiError) {
	id := p["callback_query_id"]
	if id == "" {
		return nil, badRequest(`parameter "callback_query_id" is required`)
	}
	if UTF16Len(p["text"]) > maxCallbackAnswerText {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if answered, ok := s.callbacks[id]; !ok || answered {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	s.callbacks[id] = true
	s.answers = append(s.answers, CallbackAnswer{ID: id, Text: p["text"], ShowAlert: parseBool(p["show_alert"]), URL: p["url"]})
	s.notifyLocked()
	return true, nil
}

func (s *Server) deleteWebhook(_ context.Context, p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = ""
	if parseBool(p["drop_pending_updates"]) {
		s.updates = nil
	}
	s.notifyLocked()
	return true, nil
}

var commandName = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

func (s *Server) setMyCommands(_ context.Context, p params) (any, *apiError) {
	raw, ok := p["commands"]
	if !ok {
		return nil, badRequest(`parameter "commands" is required`)
	}
	var commands []struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal([]byte(raw), &commands); err != nil {
		return nil, badRequest("can't parse commands JSON object")
	}
	if len(commands) > maxCommands {
		return nil, badRequest("too many commands specified")
	}
	for _, c := range commands {
		if !commandName.MatchString(c.Command) {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if n := utf8.RuneCountInString(strings.TrimSpace(c.Description)); n == 0 || n > maxCommandDescription {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
	}
	return true, nil
}

func (s *Server) getChat(_ context.Context, p params) (any, *apiError) {
	if strings.TrimSpace(p["chat_id"]) == "" {
		return nil, badRequest("chat_id is empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(p["chat_id"])
	if c == nil {
		return nil, badRequest("chat not found")
	}
	// ChatFullInfo has the fields of Chat plus many optional ones; these two
	// are always present.
	return struct {
		wireChat
		AccentColorID    int `json:"accent_color_id"`
		MaxReactionCount int `json:"max_reaction_count"`
	}{wireChat: c.wire(), MaxReactionCount: 11}, nil
}

// maxTopicName is the longest name createForumTopic accepts, in characters.
const maxTopicName = 128

func (s *Server) createForumTopic(_ context.Context, p params) (any, *apiError) {
	if strings.TrimSpace(p["chat_id"]) == "" {
		return nil, badRequest("chat_id is empty")
	}
	name := p["name"]
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return nil, badRequest("TOPIC_TITLE_EMPTY")
	case n > maxTopicName:
		return nil, badRequest("TOPIC_TITLE_TOO_LONG (telegramtest: want at most 128 characters)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chatLocked(p["chat_id"])
	if c == nil {
		return nil, badRequest("chat not found")
	}
	if !c.forum {
		return nil, badRequest("the chat is not a forum")
	}
	// A topic's ID is that of its forum_topic_created service message,
	// which takes the chat's next message ID; the service message itself
	// is not kept, so Messages lists what the bot wrote only.
	c.nextID++
	t := Topic{ThreadID: c.nextID, Name: name}
	c.topics = append(c.topics, t)
	s.notifyLocked()
	return struct {
		MessageThreadID int    `json:"message_thread_id"`
		Name            string `json:"name"`
		IconColor       int    `json:"icon_color"`
	}{t.ThreadID, t.Name, 0x6FB9F0}, nil
}

package telegramtest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CallbackAnswer is one successful answerCallbackQuery call.
type CallbackAnswer struct {
	ID        string
	Text      string
	ShowAlert bool
	URL       string
}

// PressButton queues a callback_query update as if from pressed the button
// carrying data on the message's current keyboard, and returns the callback
// query ID. It fails, queueing nothing, if the message is unknown or its
// keyboard has no such button: a test cannot press what a user cannot see.
func (s *Server) PressButton(chatID int64, messageID int, from User, data string) (string, error) {
	return s.pressButton(chatID, messageID, from, "press", data, func(b Button) bool { return b.CallbackData == data })
}

// PressButtonText is PressButton for the first callback button whose text is
// buttonText. Tests use it to prove the button is really there.
func (s *Server) PressButtonText(chatID int64, messageID int, from User, buttonText string) (string, error) {
	return s.pressButton(chatID, messageID, from, "press button", buttonText, func(b Button) bool { return b.Text == buttonText })
}

// pressButton presses the first callback button of the message that match
// picks; verb and what name the press in errors.
func (s *Server) pressButton(chatID int64, messageID int, from User, verb, what string, match func(Button) bool) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.pressableLocked(chatID, messageID)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", verb, what, err)
	}
	for _, row := range m.keyboard {
		for _, b := range row {
			if b.CallbackData != "" && match(b.Button) {
				return s.pressLocked(chatID, messageID, from, b.CallbackData), nil
			}
		}
	}
	return "", fmt.Errorf("%s %q on message %d in chat %d: %w", verb, what, messageID, chatID, ErrNoSuchButton)
}

// PressData queues a callback_query carrying data for a message without
// checking its keyboard, as a client holding an old keyboard, or a forged
// request, would send. The message may be gone: the update then carries an
// inaccessible message (date 0), as Telegram's does.
func (s *Server) PressData(chatID int64, messageID int, from User, data string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.chats[chatID] == nil {
		return "", fmt.Errorf("press data %q in chat %d: %w", data, chatID, ErrUnknownChat)
	}
	return s.pressLocked(chatID, messageID, from, data), nil
}

func (s *Server) pressableLocked(chatID int64, messageID int) (*message, error) {
	if s.chats[chatID] == nil {
		return nil, fmt.Errorf("chat %d: %w", chatID, ErrUnknownChat)
	}
	m := s.messageLocked(chatID, messageID)
	if m == nil {
		return nil, fmt.Errorf("message %d in chat %d: %w", messageID, chatID, ErrUnknownMessage)
	}
	return m, nil
}

func (s *Server) pressLocked(chatID int64, messageID int, from User, data string) string {
	s.nextCallback++
	id := strconv.FormatUint(s.nextCallback, 10)
	s.callbacks[id] = false
	s.callbackIDs = append(s.callbackIDs, id)

	query := map[string]any{
		"id": id, "from": s.wireUser(from, false), "data": data,
		"chat_instance": strconv.FormatInt(chatID*7919+104729, 10),
	}
	if m := s.messageLocked(chatID, messageID); m != nil {
		query["message"] = s.wireMessageLocked(m, true)
	} else {
		query["message"] = map[string]any{"chat": s.chats[chatID].wire(), "message_id": messageID, "date": 0}
	}
	s.enqueueLocked(map[string]any{"callback_query": query})
	return id
}

// Reply queues a message update as if from replied with text to message
// replyTo (typically a force_reply prompt of the bot), and returns the new
// message's ID. reply_to_message carries the replied message as it is now.
func (s *Server) Reply(chatID int64, replyTo int, from User, text string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, err := s.pressableLocked(chatID, replyTo)
	if err != nil {
		return 0, fmt.Errorf("reply: %w", err)
	}
	return s.userMessageLocked(chatID, from, text, target)
}

// SendText queues a message update as if from wrote text in the chat, not
// as a reply, and returns the new message's ID.
func (s *Server) SendText(chatID int64, from User, text string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.userMessageLocked(chatID, from, text, nil)
}

func (s *Server) userMessageLocked(chatID int64, from User, text string, replyTo *message) (int, error) {
	c := s.chats[chatID]
	if c == nil {
		return 0, fmt.Errorf("send %q in chat %d: %w", text, chatID, ErrUnknownChat)
	}
	if strings.TrimSpace(text) == "" {
		return 0, fmt.Errorf("send to chat %d: %w", chatID, ErrEmptyText)
	}
	m := &message{from: from, text: text, plain: text, entities: commandEntities(text)}
	if replyTo != nil {
		m.replyTo, m.threadID = replyTo.id, replyTo.threadID
	}
	s.addMessageLocked(c, m)
	s.enqueueLocked(map[string]any{"message": s.wireMessageLocked(m, true)})
	return m.id, nil
}

// commandEntities marks a leading /command, as Telegram clients do.
func commandEntities(text string) []Entity {
	cmd := text
	if end := strings.IndexAny(text, " \n\t"); end >= 0 {
		cmd = text[:end]
	}
	if len(cmd) < 2 || cmd[0] != '/' {
		return nil
	}
	return []Entity{{Type: "bot_command", Offset: 0, Length: UTF16Len(cmd)}}
}

// Enqueue queues any update for getUpdates and returns its update_id, which
// replaces any the update carries. update is JSON (json.RawMessage, []byte or
// string) or a value that marshals to an update object, such as a
// models.Update from go-telegram/bot.
func (s *Server) Enqueue(update any) (int64, error) {
	var raw []byte
	switch u := update.(type) {
	case json.RawMessage:
		raw = u
	case []byte:
		raw = u
	case string:
		raw = []byte(u)
	default:
		var err error
		if raw, err = json.Marshal(u); err != nil {
			return 0, fmt.Errorf("enqueue update: %w", err)
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return 0, fmt.Errorf("enqueue update: %w", ErrNotAnUpdate)
	}
	delete(fields, "update_id")
	asAny := make(map[string]any, len(fields))
	for k, v := range fields {
		if !isNull(v) {
			asAny[k] = v
		}
	}
	if len(asAny) != 1 {
		return 0, fmt.Errorf("enqueue update with %d kinds of content: %w", len(asAny), ErrNotAnUpdate)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enqueueLocked(asAny), nil
}

// PendingUpdates returns how many queued updates the poller has not yet
// confirmed (by polling with a higher offset).
func (s *Server) PendingUpdates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.updates)
}

// CallbackAnswers returns every successful answerCallbackQuery, in order.
func (s *Server) CallbackAnswers() []CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers)
}

// UnansweredCallbacks returns the IDs of callback queries issued by the
// Press methods that were never answered, oldest first.
func (s *Server) UnansweredCallbacks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, id := range s.callbackIDs {
		if !s.callbacks[id] {
			out = append(out, id)
		}
	}
	return out
}

// WaitMessage waits until a bot message in the chat satisfies pred, and
// returns the oldest that does.
func (s *Server) WaitMessage(ctx context.Context, chatID int64, pred func(Message) bool) (Message, error) {
	var found Message
	err := s.Wait(ctx, func() bool {
		for _, m := range s.Messages(chatID) {
			if pred(m) {
				found = m
				return true
			}
		}
		return false
	})
	if err != nil {
		return Message{}, fmt.Errorf("wait for a message in chat %d: %w", chatID, err)
	}
	return found, nil
}

// WaitAnswer waits until the callback query is answered and returns the answer.
func (s *Server) WaitAnswer(ctx context.Context, callbackID string) (CallbackAnswer, error) {
	var found CallbackAnswer
	err := s.Wait(ctx, func() bool {
		for _, a := range s.CallbackAnswers() {
			if a.ID == callbackID {
				found = a
				return true
			}
		}
		return false
	})
	if err != nil {
		return CallbackAnswer{}, fmt.Errorf("wait for the answer to callback %s: %w", callbackID, err)
	}
	return found, nil
}

// WaitPolls waits until n calls of getUpdates have begun to poll: each
// has ended the poll before it (with 409, as Telegram does), so the n-th
// is the one a later call ends. WaitRequests says only that a call
// arrived, which is before it polls.
func (s *Server) WaitPolls(ctx context.Context, n int) error {
	err := s.Wait(ctx, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.pollGen >= uint64(n)
	})
	if err != nil {
		return fmt.Errorf("wait for %d polls: %w", n, err)
	}
	return nil
}

// WaitRequests waits until the server has received at least n calls of
// method, and returns them all.
func (s *Server) WaitRequests(ctx context.Context, method string, n int) ([]Request, error) {
	var found []Request
	err := s.Wait(ctx, func() bool {
		found = s.RequestsFor(method)
		return len(found) >= n
	})
	if err != nil {
		return nil, fmt.Errorf("wait for %d %s calls (got %d): %w", n, method, len(found), err)
	}
	return found, nil
}

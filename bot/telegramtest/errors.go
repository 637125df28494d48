package telegramtest

import "errors"

// These errors are returned by the test controls (PressButton, Reply, …)
// when a test asks for something a real user could not do. The API methods
// never return them: a bot sees Telegram's own error answers instead.
var (
	// ErrUnknownChat is returned when the chat was never added with AddChat.
	ErrUnknownChat = errors.New("telegramtest: unknown chat")
	// ErrUnknownMessage is returned when the chat has no such message,
	// for example because it was deleted.
	ErrUnknownMessage = errors.New("telegramtest: unknown message")
	// ErrNoSuchButton is returned when the message's current keyboard has
	// no callback button with that data or text.
	ErrNoSuchButton = errors.New("telegramtest: no such button on the message's current keyboard")
	// ErrEmptyText is returned when a user message would have no text.
	ErrEmptyText = errors.New("telegramtest: empty message text")
	// ErrNotAnUpdate is returned by Enqueue for a value that is not an
	// update object with exactly one kind of content.
	ErrNotAnUpdate = errors.New("telegramtest: not an update")
)

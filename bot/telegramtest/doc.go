// Package telegramtest provides a fake Telegram Bot API server for tests,
// shaped like net/http/httptest: NewServer starts it on a loopback port, URL
// goes to bot.WithServerURL, and Close stops it.
//
// The server is strict where Telegram is strict, and answers with Telegram's
// own error texts, so a bot that passes against it does not fail against the
// real API for the same reasons. It checks HTML the way tdlib parses it
// (see ParseHTML), the 4096-character limit on visible text, the 1–64 byte
// limit on callback data and the shape of inline keyboards and force_reply
// markup, that replied-to and edited messages exist, that an edit changes
// something, and that each callback query is answered once. getUpdates long
// polls and honours offset, limit and allowed_updates; a second concurrent
// poller ends the first with 409, as Telegram does.
//
// Tests act as users with PressButton, PressButtonText, PressData, Reply,
// SendText, SendLongText (split as a client splits it), SendFile (a photo
// or document, fetched with getFile and the file URL; 20 MB at most, as
// Telegram lets bots download) and Enqueue; they inspect what the bot did with Messages,
// Message, Requests, CallbackAnswers and UnansweredCallbacks; they inject
// failures with FailNext, and hold calls, or their answers, with Hold and
// HoldReplies (to kill a bot between Telegram taking a call and the bot
// learning it); and they wait for the bot with Wait, WaitMessage,
// WaitAnswer and WaitRequests instead of sleeping. History lists the
// users' messages as well as the bot's; package webview shows a chat as a
// web page where a person can press and reply.
//
// It owns only the fake: no bot logic, and only the API methods hermes-bot
// calls (getMe, getUpdates, sendMessage, sendDocument, editMessageText,
// answerCallbackQuery, deleteWebhook, setMyCommands, getChat,
// getChatMember, createForumTopic,
// setMessageReaction (one emoji of Telegram's list; WaitReaction), getFile; set what
// getChatMember reports with SetMember; Topics lists the topics created).
// Other methods answer 404 Not Found. sendDocument takes an uploaded file
// (not a file_id or URL) with Telegram's limits: 50 MB (WithMaxUpload lowers it), not empty, a
// caption of 1024 characters; Message.Document holds the bytes received.
// Inline messages, other media, reply keyboards (accepted, not kept),
// chat usernames and rate limits (inject them with FailNext) are left out.
//
// Where it is stricter than Telegram, the error text says so: a stray '&'
// in HTML (Telegram keeps it as text), an inline button with two actions
// (Telegram uses the first), and parse_mode Markdown or MarkdownV2 (the
// bot sends HTML).
//
// # Concurrency
//
// Every method of Server is safe for concurrent use, by the test and by any
// number of HTTP clients. State changes are atomic: a call sees a message
// either before or after an edit, never half of it. Values returned by
// inspection methods are copies that later calls do not change. Wait runs
// its condition outside the server's lock, so the condition may call any
// Server method. Close blocks until in-flight requests end; long polls end
// at once when it is called.
package telegramtest

// Package telegramtest provides a fake Telegram Bot API server for tests,
// shaped like net/http/httptest: NewServer starts it on a loopback port, URL
// goes to bot.WithServerURL, and Close stops it.
//
// The server is strict where Telegram is strict, with Telegram's own error
// texts, so a bot that passes against it does not fail against the real API
// for the same reasons: HTML parsed as tdlib parses it (ParseHTML), the
// 4096-character text limit, 1–64 bytes of callback data, the shape of inline
// keyboards and force_reply markup, replied-to and edited messages that
// exist, edits that change something, callback queries answered once.
// getUpdates long polls, honours offset, limit and allowed_updates, and a
// second concurrent poller ends the first with 409, as Telegram does.
//
// Tests act as users (PressButton, PressButtonText, PressData, Reply,
// SendText, SendLongText, SendFile, Enqueue), inspect what the bot did
// (Messages, History, Message, Requests, CallbackAnswers,
// UnansweredCallbacks), inject failures (FailNext), hold calls or their
// answers (Hold, HoldReplies: to kill a bot between Telegram taking a call
// and the bot learning it), and wait for the bot instead of sleeping (Wait,
// WaitMessage, WaitAnswer, WaitRequests). Package webview shows a chat as a
// web page where a person can press and reply.
//
// It owns only the fake: no bot logic, and only the API methods hermes-bot
// calls: getMe, getUpdates, sendMessage, sendDocument, editMessageText,
// answerCallbackQuery, deleteWebhook, setMyCommands, getChat, getChatMember
// (as SetMember says), createForumTopic (Topics), setMessageReaction (one
// emoji of Telegram's list; WaitReaction) and getFile; others answer 404 Not
// Found. sendDocument takes an uploaded file (not a file_id or URL) with Telegram's limits: 50 MB
// (WithMaxUpload lowers it), not empty, a caption of 1024 characters; getFile
// serves what a user sent, 20 MB at most. Inline messages, other media, reply
// keyboards (accepted, not kept), chat usernames and rate limits (inject them
// with FailNext) are left out.
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

// Package telegram is hermes-bot's Telegram front-end: everything
// particular to the Bot API, kept out of the request life cycle of
// package bot, which it serves through the interfaces of bot/frontend.
//
// Frontend shows requests in one group: it renders them as HTML within
// Telegram's limits (4,096 UTF-16 units a message, 64 bytes of callback
// data, about 100 buttons), with inline keyboards; posts each project's
// requests in its forum topic when asked to (Config.TopicPerProject);
// and follows the group when it is upgraded to a supergroup. A command,
// diff or question text cut to fit a message is said to be cut, and sent
// whole as a file (sendDocument) replying to the message, right after it.
// A toggle's refresh is handed to the Outbox (RefreshLater, through
// Config.Later) rather than waited for, so taps in quick succession are
// not refused. A request of a named opencode server
// (frontend.View.Server, set when OPENCODE_URL names servers) has the
// server's name at the head of its message, its /pending line and its
// notices; /status has a line per server (Config.Servers). Its places
// (pending.Place) are the JSON of a chat, a message and a forum topic,
// the shape the store of 03d8d17 kept, under the name "telegram" (Name).
// Its Handler reads updates: a button press becomes a frontend.Press; a
// reply to a force_reply prompt of Collect (whose binding to the request
// and field it keeps in its State), or text replying to nothing when one
// prompt is open in its topic, a frontend.Input; each after checking the
// chat and the person (Config.AllowedUserIDs); it answers the commands /pending, /status,
// /autoapprove and /help itself (Commands lists them for setMyCommands). Its Middlewares
// count running handlers (Wait), record the update ID up to which every
// update was handled (InitialOffset reads it for ClientOptions.Offset, so
// a restart does not fetch those updates again), and recover a panic.
//
// State is the front-end's own bookkeeping, in its key/value space of the
// store (pending.Store.FrontendState "telegram"): the update ID up to
// which each bot handled its updates (SetInputCursor, InputCursor), the
// chats that became supergroups (MoveChat, which also has the store's
// entries shown in the old chat posted again, with pending.Store.Unpost,
// and ChatFor, which bot/daemon asks at start-up), the forum topic of
// each project (ThreadFor, RememberThread), and the prompts waiting for
// typed text. The first three are as hermes-bot 03d8d17 kept them in the
// store's meta bucket, which pending.Open moves here.
//
// Client is the connection to the Bot API, the one place besides the
// command line that makes a go-telegram/bot client: it asks who the bot
// is (Me), drops a webhook, registers the command menu, and polls,
// handing every update to the Frontend (Handle, Poll); API gives the
// redacted client for the Outbox.
//
// Callback data is "qopt:<uid>:<qi>:<oi>", "qcustom:<uid>:<qi>",
// "qtog:<uid>:<qi>:<oi>", "qsub:<uid>:<qi>" or "qskip:<uid>:<qi>" (an
// optional field of a form) for questions, "qsub:<uid>:0" (done) and
// "qcancel:<uid>:0" for a form that is a link, "ponce:<uid>",
// "palways:<uid>", "preject:<uid>" or "preason:<uid>" for permissions
// (ButtonData makes it), never over 64 bytes; anything else is refused as
// an unknown button. Steering buttons carry "snew:<project key>",
// "scont:<session>", "sstop:<session>", "sstopy:<session>" or
// "sstopn:<session>".
//
// An OpenCode 2 form shows its current field like a question: its title
// (or key), description and a hint of what it takes (a whole number from
// 1 to 10, an email address, choose 1–2, optional, an example, the
// default); options as buttons (a boolean's Yes and No), toggles and
// Submit for a multiselect, "Type an answer" for typed values, and Skip
// when it is optional. A form that is a link has a button opening it
// (http and https only; any other link is shown as text), Done and
// Cancel.
//
// Steering (only for Config.AllowedUserIDs, and off when that is empty):
// a reply to a message about a session continues it, /new starts one in
// a project, /sessions lists sessions with ⏹ buttons and /stop, replying
// to a session's message, stops it after a confirmation tap.
//
// Telegram lists every Bot API method the front-end calls; the
// go-telegram/bot client, the Outbox and RedactTelegram's wrapper each
// have them all. The Outbox starts each chat's calls in order under
// Telegram's rate limits, obeys 429s, retries what the network or a 5xx
// failed, coalesces edits of one message and follows a chat upgraded to a
// supergroup. The Redactor keeps the bot token (which go-telegram/bot
// puts into the URLs in its errors) and every opencode server's password
// out of every log line: wrap the client with RedactTelegram and pass
// errors that reach a log through a Redactor. When to poll, and the
// wiring, are bot/daemon's.
//
// # Concurrency
//
// Frontend, its handler, the Outbox and the Redactor are safe for
// concurrent use. A handler's work runs under a context detached from the
// polling context, bounded by a timeout, so an answer being sent when
// polling stops still completes; Wait blocks until the handlers return.
// The middlewares may run for many updates at once; the update ID they
// record never passes one still being handled.
package telegram

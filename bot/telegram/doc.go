// Package telegram is hermes-bot's Telegram front-end: everything
// particular to the Bot API, kept out of the request life cycle of
// package bot, which it serves through the interfaces of bot/frontend.
//
// Frontend shows requests in one group, as HTML within Telegram's limits
// (4,096 UTF-16 units a message, 64 bytes of callback data, about 100
// buttons), with inline keyboards, in each project's forum topic when
// asked to (Config.TopicPerProject); a text cut to fit is said to be cut
// and sent whole as a file replying to the message. Its places
// (pending.Place) are the JSON of a chat, a message and a forum topic,
// under the name "telegram" (Name). Its Handler reads updates, checks the
// chat and the person (Config.AllowedUserIDs) and turns a button press
// into a frontend.Press, a reply to a force_reply prompt of Collect into
// a frontend.Input, a reply to a message about a session into steering;
// it answers /pending, /status, /autoapprove and /help itself. Its
// Middlewares count running handlers (Wait), record the update ID up to
// which every update was handled (InitialOffset), and recover a panic.
//
// State is the front-end's bookkeeping in its key/value space of the
// store: update offsets, chats that became supergroups (MoveChat, which
// has their requests posted again), each project's forum topic, and the
// prompts waiting for typed text. Client is the connection to the Bot
// API, the one place besides the command line that makes a
// go-telegram/bot client. Telegram lists every Bot API method the
// front-end calls; the go-telegram/bot client, the Outbox and
// RedactTelegram's wrapper each have them all. The Redactor keeps the bot
// token (which go-telegram/bot puts into the URLs in its errors) and
// every opencode server's password out of every log line: wrap the client
// with RedactTelegram and pass errors that reach a log through a
// Redactor.
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

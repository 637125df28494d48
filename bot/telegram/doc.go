// Package telegram is hermes-bot's Telegram front-end: what is particular
// to the Bot API, kept out of the request life cycle of package bot.
//
// It owns the Outbox, which starts each chat's calls in order under
// Telegram's rate limits, obeys 429s, retries what the network or a 5xx
// failed, coalesces edits of one message and follows a chat upgraded to a
// supergroup; and the Redactor, which keeps the bot token (which
// go-telegram/bot puts into the URLs in its errors) and the opencode
// password out of every log line. It leaves polling and wiring to
// bot/daemon.
//
// # Concurrency
//
// The Outbox and the Redactor are safe for concurrent use.
package telegram

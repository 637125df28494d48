// Package bot is the bridge between opencode and a Telegram group: it
// decides what to post for an opencode event, what a button press or a
// typed reply means, who may answer, and how requests are rendered (HTML
// text, inline keyboards, callback data). It owns the life of a question
// request from "asked" to "answered" (DESIGN.md, "A request's life"),
// keeping each request in a pending.Store between steps.
//
// It talks to opencode and Telegram only through the small interfaces it
// declares, Opencode and Telegram, so its logic runs against in-memory
// fakes in tests; *github.com/go-telegram/bot.Bot satisfies Telegram, and
// the opencode client satisfies Opencode. It leaves to others: reading the
// event stream and reconnecting (package opencode), the bbolt file and its
// indexes (package pending), polling Telegram and wiring it all together
// (cmd/hermes-bot).
//
// # Basics
//
// Build a Bridge with NewBridge. The opencode watcher calls HandleEvent for
// every event; go-telegram/bot calls HandleUpdate for every update. The
// Bridge needs the *bot.Bot as its Telegram, so register the handler after
// making both:
//
//	tb, _ := tgbot.New(token, tgbot.WithDefaultHandler(noop), …)
//	br := bot.NewBridge(cfg, store, oc, bot.RedactTelegram(tb, redactor), log)
//	tb.RegisterHandlerMatchFunc(func(*models.Update) bool { return true },
//		br.HandleUpdate, br.Middlewares()...)
//
// Call SendUnsent at start-up and after each reconnect so requests whose
// message was never sent are posted, and ExpireDue now and then to close
// requests nobody answered in time. At shutdown, stop polling, then call
// Wait so in-flight answers finish.
//
// Every callback query is answered exactly once. Callback data is
// "qopt:<uid>:<qi>:<oi>", "qcustom:<uid>:<qi>", "qtog:<uid>:<qi>:<oi>" or
// "qsub:<uid>:<qi>", never over 64 bytes; it names the question index, so a
// button of a question already answered is refused.
//
// Errors of go-telegram/bot carry the request URL, which holds the bot
// token: wrap the client with RedactTelegram and pass errors that reach a
// log through a Redactor.
//
// # Concurrency
//
// HandleEvent, HandleUpdate, SendUnsent and Wait are safe for concurrent
// use. Work on one request is serialised by a lock per entry UID, and the
// entry is read again under that lock, so a double tap cannot answer twice
// and an event cannot race a press. A press that cannot take the lock
// within a couple of seconds (another answer for the same request is
// being sent) is told so rather than left waiting. HandleUpdate does its
// work under a context detached from the polling context, bounded by a
// timeout, so an answer being sent when polling stops still completes;
// Wait blocks until those handlers return.
package bot

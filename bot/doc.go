// Package bot is the bridge between opencode and a Telegram group: it
// decides what to post for an opencode event, what a button press or a
// typed reply means, who may answer, and how requests are rendered (HTML
// text, inline keyboards, callback data). How risky a permission request
// looks, and whether it may be approved without a person, it leaves to
// package bot/risk. It owns the life of a question or permission request
// from "asked" to "answered", "answered elsewhere" or "expired", keeping
// each request in a pending.Store between steps.
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
//	offset, _ := bot.InitialOffset(store, botID, time.Now())
//	tb, _ := tgbot.New(token, tgbot.WithInitialOffset(offset),
//		tgbot.WithDefaultHandler(noop), …)
//	br := bot.NewBridge(cfg, store, oc, bot.RedactTelegram(tb, redactor), log)
//	tb.RegisterHandlerMatchFunc(func(*models.Update) bool { return true },
//		br.HandleUpdate, br.Middlewares()...)
//
// Watch the event stream with NewLanes(bridge, 0) rather than the bridge
// itself: the lanes hand each opencode session's events to HandleEvent in
// order, and different sessions' at the same time, so a burst of
// questions is not posted one after the other; call the lanes' Wait at
// shutdown, before the bridge's.
//
// Call SendUnsent at start-up and after each reconnect so requests whose
// message was never sent are posted, and ExpireDue now and then to close
// requests nobody answered in time. At shutdown, stop polling, then call
// Wait so in-flight answers finish, then SendOwed with a short deadline.
// Call SendOwed at start-up too; the bridge calls both after each connect.
//
// The bridge also answers the group's commands (/pending, /status,
// /help; see Commands for what to register with setMyCommands), in its
// chat and to allowed users only; /status reads the event stream's state
// through Config.Status.
//
// # Exactly once
//
// A request gets one answer to opencode however often it is pressed: a
// double tap, several people at once, or a press Telegram delivers again
// after a restart. Work on a request is serialised (see Concurrency), a
// closed request leaves the store, and the store remembers for a day how
// it closed, so a later press, even in another process, is told
// ("already answered", "expired", …) rather than answered again, and an
// asked event read after its request was answered does not post it
// again. The middlewares record the update ID up to which every update was handled;
// pass InitialOffset to go-telegram/bot's WithInitialOffset so a restart
// does not fetch those updates again. An update being handled when the
// process died is fetched again and finds its request as the first try
// left it: a press whose answer reached opencode but whose entry was not
// yet deleted is answered again, and opencode refuses it as no longer
// pending.
//
// # Closing edits
//
// A request's message ends showing its outcome, without buttons, even
// across a crash. The edit that shows it is recorded as owed in the store
// write that closes the request (for identical permission requests
// sharing a message, the write that closes the last of them), and
// forgotten once Telegram took it, or said the message is gone. SendOwed
// sends what is left: the edits a crash, a stop or a Telegram outage cut
// off. A press on a closed request whose message still shows buttons is
// told how it closed and puts the outcome back on the message.
//
// # Messages that went missing
//
// When Telegram says a request's message is gone (someone deleted it) as
// the bridge edits it for a request still pending, a new message with the
// same text and buttons is posted and its ID saved; an outcome for a
// deleted message is dropped with a debug line. A request posted twice
// (the process died between sending and saving the message ID, so the
// restart posted it again) has a stale first copy whose buttons still
// work, since an entry's UID is derived from its request (the opencode
// server and request ID), not drawn at random: a press on it is handled,
// then the copy shows the outcome if the press closed the request, or
// else becomes a note, without buttons, pointing at the current message
// (a t.me link in a supergroup).
//
// Every callback query is answered exactly once. Callback data is
// "qopt:<uid>:<qi>:<oi>", "qcustom:<uid>:<qi>", "qtog:<uid>:<qi>:<oi>" or
// "qsub:<uid>:<qi>" for questions, "ponce:<uid>", "palways:<uid>",
// "preject:<uid>" or "preason:<uid>" for permissions, never over 64 bytes;
// a question's names the question index, so a button of a question
// already answered is refused.
//
// # Permissions
//
// A permission request's message shows its kind, command or file and
// diff excerpt, patterns, what "always" would allow, and a risk level
// from risk.Assess; its buttons allow once, always, reject, or ask for a
// reason (a force_reply prompt, like a typed answer) that goes to opencode
// with the reject. Identical requests of one session (same kind and
// patterns) share one message: the later ones are stored with SharedWith
// naming the first, whose UID the buttons carry, and one decision answers
// them all. Work on such a group takes the lock of that UID, then of each
// member's.
//
// Messages name the project and the session's title (from GetSession,
// cached; 3 s at most, falling back to the session ID), and a subagent's
// parent session.
//
// With Config.AutoApprove set to AutoApproveLow, a request risk.Assess
// rates low is allowed once without asking and the group gets a notice
// instead of buttons; if that reply fails, the request is asked as usual.
// Low is decided by bot/risk's grammar alone (risk.Approve): the bridge
// asks it that one question and adds no judgement of its own.
//
// # Notifications and metrics
//
// With Config.Notify, session.idle and session.error events post a short
// notice (the agent's last words, or the error in words), never while a
// request of that session waits, at most one per session a minute and ten
// a minute in all. A non-nil Config.Metrics counts what happens (posted,
// closed by outcome, latencies, 429s) for the /metrics endpoint; a nil one
// costs nothing.
//
// ExpireDue rejects what nobody answered in time; a reject that fails is
// retried at the next call, for 10 minutes at most, while the message
// already says "expired".
//
// Errors of go-telegram/bot carry the request URL, which holds the bot
// token: wrap the client with RedactTelegram and pass errors that reach a
// log through a Redactor.
//
// # Concurrency
//
// HandleEvent, HandleUpdate, SendUnsent, SendOwed and Wait are safe for
// concurrent use, as is ExpireDue. Work on one request is serialised by a lock per
// entry UID (per group of identical permission requests: the group's,
// then each member's), and the entry is read again under that lock, so a
// double tap cannot answer twice and an event cannot race a press. A press that cannot take the lock
// within a couple of seconds (another answer for the same request is
// being sent) is told so rather than left waiting. HandleUpdate does its
// work under a context detached from the polling context, bounded by a
// timeout, so an answer being sent when polling stops still completes;
// Wait blocks until those handlers return. The middlewares may run for
// many updates at once; the update ID they record never passes one still
// being handled. Settling a stale copy and re-posting a deleted message
// happen under the request's lock, like the rest of its work.
//
// A new question is sent before it is stored, under its entry's lock
// (taken before any press can name it), and stored with its message ID
// in one write, so no question waits for the disk before it shows; a
// press that comes in between waits for the lock. /pending and /status
// first let the questions being sent be stored. HandleEvent must not be
// called for two events of one session at once: Lanes see to that.
package bot

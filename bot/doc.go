// Package bot is hermes-bot's request life cycle, front-end neutral: it
// decides what happens to a question or permission request of opencode
// from "asked" to "answered", "answered elsewhere" or "expired", keeping
// each request in a pending.Store between steps. It drives the
// frontend.Frontends it is given and is the frontend.Core they hand
// presses and typed text to. It leaves to others how a request looks and
// where it goes (the front-ends), risk and auto-approval (bot/risk), the
// texts (bot/i18n), the event stream (opencode), the bbolt file
// (pending) and the wiring (bot/daemon). What it guarantees (one answer
// per request, closing edits across crashes, permission groups, forms,
// several servers, steering) is in docs/architecture.md, "The life
// cycle".
//
// # Basics
//
// Build a Bridge with NewBridge, giving it the front-ends (every request
// is shown in each; the first answer wins and the others' copies close
// with the outcome) and, in Config.Servers, the opencode clients. Watch
// the event stream with NewLanes(bridge, 0) rather than the bridge
// itself: the lanes hand each session's events to HandleEvent in order,
// and different sessions' at the same time; call the lanes' Wait at
// shutdown, before the bridge's. The front-ends call HandlePress and
// HandleInput for what people do.
//
// Call SendUnsent at start-up and after each reconnect so requests whose
// message was never sent are posted, and ExpireDue now and then to close
// requests nobody answered in time. At shutdown, stop the front-end's
// input, then call Wait so in-flight answers finish, then SendOwed with a
// short deadline. Call SendOwed at start-up too; the bridge calls both
// after each connect.
//
// # Concurrency
//
// HandleEvent, HandlePress, HandleInput, Open, SendUnsent, SendOwed,
// ExpireDue and Wait are safe for concurrent use. Work on one request is
// serialised by a lock per entry UID (a permission group's, then each
// member's), and the entry is read again under that lock. HandleEvent
// must not be called for two events of one session at once: Lanes see
// to that.
package bot

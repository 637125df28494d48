// Package bot is hermes-bot's request life cycle, front-end neutral: it
// decides what happens to a question or permission request of opencode
// from "asked" to "answered", "answered elsewhere" or "expired", keeping
// each request in a pending.Store between steps. It shows requests, and
// hears what people do with them, through a front-end: it drives the
// frontend.Frontend it is given and is the frontend.Core a front-end
// hands presses and typed text to (package bot/telegram is the Telegram
// one). It leaves to others: how a request looks and where it goes (the
// front-end), how risky a permission looks and whether it may be
// approved without a person (package bot/risk), the texts in each
// language (bot/i18n), reading the event stream and reconnecting
// (package opencode), the bbolt file and its indexes (package pending),
// and wiring it all together (bot/daemon).
//
// # Basics
//
// Build a Bridge with NewBridge, giving it the front-ends (every request
// is shown in each; the first answer wins and the others' copies close
// with the outcome) and, in Config.Servers, the opencode clients. The
// opencode watcher calls HandleEvent for every event; the front-ends call
// HandlePress and HandleInput for what people do. Watch the event stream
// with NewLanes(bridge, 0) rather than the bridge itself: the lanes hand
// each opencode session's events to HandleEvent in order, and different
// sessions' at the same time, so a burst of questions is not posted one
// after the other; call the lanes' Wait at shutdown, before the bridge's.
//
// Call SendUnsent at start-up and after each reconnect so requests whose
// message was never sent are posted, and ExpireDue now and then to close
// requests nobody answered in time. At shutdown, stop the front-end's
// input, then call Wait so in-flight answers finish, then SendOwed with a
// short deadline. Call SendOwed at start-up too; the bridge calls both
// after each connect.
//
// # Exactly once
//
// A request gets one answer to opencode however often it is pressed: a
// double tap, several people at once, or a press delivered again after a
// restart. Work on a request is serialised (see Concurrency), a closed
// request leaves the store, and the store remembers for a day how it
// closed, so a later press, even in another process, is told ("already
// answered", "expired", …) rather than answered again, and an asked event
// read after its request was answered does not post it again. A press
// handled when the process died is delivered again and finds its request
// as the first try left it: one whose answer reached opencode but whose
// entry was not yet deleted is answered again, and opencode refuses it as
// no longer pending.
//
// # Closing edits
//
// A request's message ends showing its outcome, without buttons, even
// across a crash. The outcome, as the front-end renders it
// (Frontend.Outcome), is recorded as owed in the store write that closes
// the request (for identical permission requests sharing a message, the
// write that closes the last of them), and forgotten once the front-end
// showed it, or said the message is gone. SendOwed sends what is left:
// the edits a crash, a stop or an outage of the chat cut off. A press on a
// closed request whose message still shows buttons is told how it closed
// and puts the outcome back on the message.
//
// # Messages that went missing
//
// When the front-end says a request's message is gone (someone deleted
// it) as the bridge refreshes it for a request still pending, the request
// is posted again and its new place saved; an outcome for a deleted
// message is dropped with a debug line. A request posted twice (the
// process died between sending and saving the message's place, so the
// restart posted it again) has a stale first copy whose buttons still
// work, since an entry's UID is derived from its request (the opencode
// server and request ID), not drawn at random: a press on it is handled,
// then the copy shows the outcome if the press closed the request, or
// else becomes a note pointing at the current message (Frontend.Moved).
// A press is acknowledged exactly once (frontend.Press.Ack); a question's
// buttons name the question, so a button of a question already answered
// is refused.
//
// # Permissions
//
// A permission request is shown with a risk level from risk.AssessRun;
// its buttons allow once, always, reject, or ask for a reason (a prompt,
// like a typed answer) that goes to opencode with the reject. A shell
// command's request leaves out where the command runs and for how long:
// the bridge reads them from its tool call (Opencode.ToolCall) before
// posting it, and the message shows a folder other than the project's, a
// long timeout, or that the call could not be read. Identical requests of
// one session (kind, patterns, metadata and where and how long they run
// alike) share one message:
// the later ones are stored with SharedWith naming the first, whose UID
// the buttons carry, and one decision answers them all. Work on such a
// group takes the lock of that UID, then of each member's.
//
// Requests carry the session's title (from GetSession, cached; 3 s at
// most, falling back to the session ID), and a subagent's parent session.
//
// With Config.AutoApprove set to AutoApproveLow, a request risk.AssessRun
// rates low is allowed once without asking and the front-end posts a
// notice instead of buttons; if that reply fails, the request is asked as
// usual. Low is bot/risk's judgement (risk.Approve's grammar, and the
// command running in the project folder itself, links followed, within
// opencode's default timeout). The bridge then also requires that
// opencode's rules (every agent's, and the session's own) ask before an
// edit of the files the command reads for configuration (risk.Trust), and
// that no "always" answer to an edit in that directory widened them since:
// opencode keeps those answers where no one can list them, so the bridge
// records its own and those it sees in permission.replied. The first such
// answer in a directory has the front-end tell the group
// (Frontend.AutoApprovalPaused); ResumeAutoApproval forgets it once a
// person says opencode restarted, which forgets it too. Whatever cannot
// be read is asked, with a log line saying why.
//
// # Forms
//
// OpenCode 2 asks with forms (form.created), held as question requests
// whose questions are the form's fields (pending.Entry.Form set), so one
// path posts, walks, answers, expires, lists and closes both
// generations. Walking a form passes over the fields whose conditions
// (when) do not hold given the answers so far, and the last field asked
// sends the answer; an optional field can be skipped (frontend.Skip) and
// is left out of it. A typed answer is checked as opencode would (a
// number and its bounds, a whole number, length in characters, a
// pattern Go can compile, email, URL, date, date-time) and, when wrong,
// the person is told the rule and asked again. The answer goes to
// Opencode.ReplyForm typed: an option's value, a JSON number, a boolean,
// a list for a multiselect. When opencode refuses it
// (opencode.FormInvalidError), the person is told why and the form is
// asked again from its first field. A form that is a link is done
// (frontend.Submit, an empty answer) or cancelled (frontend.Cancel,
// Opencode.CancelForm) from its buttons. form.replied and form.cancelled
// close it as answered or dismissed elsewhere, and an expired form, or
// one of a stopped session, is cancelled.
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
// ExpireDue rejects (a form: cancels) what nobody answered in time; a reject that fails is
// retried at the next call, for 10 minutes at most, while the message
// already says "expired".
//
// # Several servers
//
// The bridge serves the opencode servers of Config.Servers, by name; the
// server of a bare OPENCODE_URL is the one named "", whose log lines and
// UIDs stay as before servers had names. An event names its server
// (opencode.Event.Server, stamped by whoever watches it), its request's
// entry records it (pending.Entry.Server), and every list, answer, reject,
// toast and session look-up about the request goes to that server; the
// store finds a request by server and ID, so two servers may use the same
// ID. A snapshot closes only its own server's requests, and identical
// permission requests share a message only on one server.
//
// # Steering
//
// The bridge is also the frontend.Steerer a front-end hands steering to:
// ContinueSession prompts a session (a reply to a message about it,
// which SessionAt resolves), StartSession creates one and prompts it,
// Projects and Sessions list what there is, and StopSession aborts a
// session, then rejects its requests still held (an aborted session
// leaves its question pending in opencode) and closes their messages as
// frontend.Stopped. Which message is about which session is kept in the
// store for a day: notices are remembered when posted, a request's
// message when it closes. Who may steer is the front-end's decision;
// the bridge logs every action with the user. It steers through the
// Opencode of the session's server, as it answers a request through its
// own.
//
// # Concurrency
//
// HandleEvent, HandlePress, HandleInput, Open, SendUnsent, SendOwed,
// ExpireDue and Wait are safe for concurrent use. Work on one request is
// serialised by a lock per entry UID (per group of identical permission
// requests: the group's, then each member's), and the entry is read again
// under that lock, so a double tap cannot answer twice and an event cannot
// race a press. A press that cannot take the lock within a couple of
// seconds (another answer for the same request is being sent) is told so
// rather than left waiting; so a toggle of a multi-select does not wait
// for its message's edit under the lock but hands it over
// (Frontend.RefreshLater), and a message found gone then is posted again
// under the lock, if its request is still open and shown there. Events
// are handled under a context detached from the stream's, bounded by a
// timeout, so an answer being sent when the stream stops still completes. Settling a stale copy and re-posting
// a deleted message happen under the request's lock, like the rest of its
// work.
//
// A new question is shown before it is stored, under its entry's lock
// (taken before any press can name it), and stored with its place in one
// write, so no question waits for the disk before it shows; a press that
// comes in between waits for the lock. Open first lets the questions
// being shown be stored. HandleEvent must not be called for two events of
// one session at once: Lanes see to that.
package bot

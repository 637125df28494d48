// Package matrix is hermes-bot's Matrix front-end (Frontend) and its
// transport to a Matrix homeserver (Client): it owns the bot's account
// session, the sync loop over one room, the event shapes it sends and
// reads, and how a request looks and is answered there.
//
// A request is an HTML message (where it comes from, what it asks, a
// command in full in a code block with its risk) and, when the step it is
// at has choices, a poll replying to it: the options, once/always/reject,
// Yes/No, Skip, Done/Cancel. A vote answers; a multiple choice is taken
// from the voter's own latest vote when they react ✅ or reply "done"; a
// reply to the message or poll is typed text (a permission's: the reason
// of a reject); a reply to a notice or a closed request steers its
// session. A step after the first gets a poll of its own; at close every
// poll ends and the message is edited to the outcome. Only the allow-list
// counts. What the front-end posted, and each vote that a ✅ may take, is
// kept in the State, so the room is understood after a restart.
//
// New connects with an access token, or with a password it logs in with
// once, keeping the device and token in the State (pending.State of the
// store's "matrix" space) so restarts reuse the device. Run long-polls
// /sync, joins the configured room when invited to it (no other), pages
// back with /messages when a timeline comes back limited, hands each event
// of the room to a Handler and only then stores the sync token with the
// room's last event (where paging back stops): a restart neither misses
// nor replays. It starts at the present on its first start, in a room new
// to it, and for another account.
//
// Sending (Send, Edit, React, StartPoll, EndPoll) takes the caller's
// transaction ID, so a post retried after a crash is the same event. Polls
// are MSC3381's unstable types, which Element reads. Decode reads what
// people send: messages (reply fallbacks stripped), commands, poll
// responses (unstable and stable) and reactions.
//
// The homeserver enforces nothing about polls or reactions; AllowList
// and Reactions hold the rules a client applies itself.
package matrix

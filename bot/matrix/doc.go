// Package matrix is hermes-bot's transport to a Matrix homeserver, below
// the Matrix front-end: it owns the bot's account session, the sync loop
// over one room, and the event shapes it sends and reads.
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
// The homeserver enforces nothing about polls or reactions; AllowList,
// Tally and Reactions hold the rules a client applies itself.
package matrix

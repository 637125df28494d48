// Package matrix is hermes-bot's Matrix front-end (Frontend) and its
// transport to a Matrix homeserver (Client): the bot's account session,
// the sync loop over one room, the event shapes it sends and reads, and
// how a request looks and is answered there (docs/architecture.md, the
// bot/matrix row, says what it shows and keeps).
//
// New connects with an access token, or with a password it logs in with
// once, keeping the device and token in the State so restarts reuse the
// device. Run hands each event of the room to a Handler and only then
// stores the sync token with the room's last event (where paging back a
// gap stops): a restart neither misses nor replays. It starts at the
// present on its first start, in a room new to it, and for another
// account.
//
// Sending (Send, Edit, React, StartPoll, EndPoll) takes the caller's
// transaction ID, so a post retried after a crash is the same event. Polls
// are MSC3381's unstable types, which Element reads. Decode reads what
// people send: messages (reply fallbacks stripped), commands, poll
// responses (unstable and stable) and reactions. The homeserver enforces
// nothing about polls or reactions; AllowList and Reactions hold the
// rules a client applies itself, and only the allow-list's events count.
package matrix

// Package matrix is hermes-bot's Matrix front-end (Frontend) and its
// transport to a Matrix homeserver (Client): the bot's account session,
// the sync loop over one room, the event shapes it sends and reads, and
// how a request looks and is answered there (docs/architecture.md, the
// bot/matrix row, says what it shows and keeps).
//
// Polls are MSC3381's unstable types, which Element reads. Decode reads
// what people send: messages (reply fallbacks stripped), commands, poll
// responses (unstable and stable) and reactions. The homeserver enforces
// nothing about polls or reactions; AllowList and Reactions hold the
// rules a client applies itself, and only the allow-list's events count.
package matrix

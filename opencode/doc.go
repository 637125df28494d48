// Package opencode is hermes-bot's client of an opencode server, 1.x or
// OpenCode 2: the question, permission and form calls, request-ID
// resolution, the steering calls, what a permission's tool call runs
// (ToolCall) and the rules it is judged by (Ruleset), and the event
// streams with their reconnects and re-listing after every connect
// (Watch). Which event types it keeps is one table (eventKinds in
// events.go); what it uses of OpenCode 2 is another (Contract2). How the
// two surfaces of 1.x, OpenCode 2 and the streams are handled is in
// docs/architecture.md, "The opencode client".
//
// It knows nothing of chats or storage: events go to a Handler the
// caller supplies, and deciding whether an event was seen before is the
// caller's job (a reconnect lists the same requests again, on purpose).
// What a directory had pending at a connect reaches the Handler as one
// Snapshot, with flags saying which lists succeeded, so the caller can
// also close what is gone. Client.Requests returns the adapter that
// lists and answers the requests of one Surface, so a caller keeps the
// surface with each request instead of branching on it.
//
// # Errors
//
// Every error a Client method returns wraps exactly one of ErrNotFound,
// ErrUnauthorized, ErrNotAccepted or ErrTransient, so callers decide with
// errors.Is; an answer other than 2xx is an *APIError. Every 404 is
// ErrNotFound, also the /api surface's SessionNotFoundError: a request
// under a session that does not exist waits for nobody. A web page where
// JSON was expected (opencode's answer to an /api path it does not serve)
// also wraps ErrNoRoute; an unsupported server, ErrUnsupportedServer. A
// cancelled context also stays visible as context.Canceled or
// context.DeadlineExceeded. Neither the password nor any other
// credential is ever part of an error or a log line.
//
// # Concurrency
//
// A Client is safe for concurrent use; its settings are fixed by NewClient,
// but for the address and credentials WithEndpoint may look up again.
// Unary calls may run while Watch runs. Watch calls its Handler from its
// own goroutine, one event at a time and in stream order, so a slow
// handler delays the next event but never makes the stream look dead.
// HandleSnapshot is called from that same goroutine, in sorted directory
// (OpenCode 2: session) order, before the events of the connection it
// belongs to. Run one Watch per Client at a time. An EventReader is not
// safe for concurrent use.
package opencode

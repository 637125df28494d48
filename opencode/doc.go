// Package opencode is hermes-bot's client of an opencode server: HTTP basic
// auth, per-call timeouts, the question and permission calls (list, reply,
// reject), request-ID resolution, the calls that steer a session
// (create, prompt, abort, list, a toast in the terminal), and the event
// stream GET /global/event with its reader, silence detection, reconnect
// backoff and re-listing of pending questions and permission requests
// after every connect. Which event types it keeps is one table (eventKinds
// in events.go).
//
// It knows nothing of Telegram or storage: events go to a Handler the
// caller supplies, and deciding whether an event was seen before is the
// caller's job (a reconnect lists the same requests again, on purpose).
// What a directory had pending at a connect reaches a SnapshotHandler as
// one Snapshot, with flags saying which lists succeeded, so the caller can
// also close what is gone; a plain Handler gets listed events instead.
//
// # Errors
//
// Every error a Client method returns wraps exactly one of ErrNotFound,
// ErrUnauthorized, ErrNotAccepted or ErrTransient, so callers decide with
// errors.Is; an answer other than 2xx is an *APIError. A cancelled context
// also stays visible as context.Canceled or context.DeadlineExceeded.
// Neither the password nor any other credential is ever part of an error or
// a log line.
//
// # Events
//
// EventReader reads the SSE records and decides on payload.type before
// decoding anything: irrelevant records (the great majority: streaming
// message parts, sync duplicates, …) are skipped without allocating.
// Records longer than the limit (DefaultMaxRecord, 16 MiB) and malformed
// ones are skipped with a warning; the stream goes on.
//
// A stream counts as dead when the server sends no byte for the silence
// timeout (30 s; it sends a heartbeat every 10 s). Only time spent waiting
// for the server counts, never time spent in the Handler.
//
// A failure that keeps coming back at every reconnect (a wrong password, a
// server that is down) is logged once a minute, not once per attempt: the
// first at once with its hint, the repeats at debug level, counted in the
// next line.
//
// # Concurrency
//
// A Client is safe for concurrent use; its settings are fixed by NewClient.
// Unary calls may run while Watch runs. Watch calls its Handler from its
// own goroutine, one event at a time and in stream order, so a slow
// handler delays the next event but never makes the stream look dead.
// HandleSnapshot is called from that same goroutine, in sorted directory
// order, before the events of the connection it belongs to. After a
// connect, Watch lists up to four directories at once on goroutines of
// its own; they end before Watch goes on to the stream or returns. Run
// one Watch per Client at a time. An EventReader is not safe for
// concurrent use.
package opencode

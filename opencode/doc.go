// Package opencode is hermes-bot's client of an opencode server: HTTP basic
// auth, per-call timeouts, the question and permission calls (list, reply,
// reject), request-ID resolution, the calls that steer a session
// (create, prompt, abort, list, a toast in the terminal), what a
// permission request's tool call runs (ToolCall) and the permission rules
// it is judged by (Agents, Session.Permission, evaluated as opencode does
// by Ruleset), and the event
// stream GET /global/event with its reader, silence detection, reconnect
// backoff and re-listing of pending questions and permission requests
// after every connect. Which event types it keeps is one table (eventKinds
// in events.go).
//
// It knows nothing of Telegram or storage: events go to a Handler the
// caller supplies, and deciding whether an event was seen before is the
// caller's job (a reconnect lists the same requests again, on purpose).
// What a directory had pending at a connect reaches the Handler as one
// Snapshot, with flags saying which lists succeeded, so the caller can
// also close what is gone.
//
// # Two surfaces
//
// An opencode 1.x server (1.18 and later) asks in two ways side by side.
// A session prompted through the old routes raises question.asked and
// permission.asked, listed and answered through /question and
// /permission: SurfaceLegacy. A session prompted through
// POST /api/session/{id}/prompt raises question.v2.asked and
// permission.v2.asked, listed and answered only through /api/…:
// SurfaceAPI. Each surface answers 404 for the other's requests. Both
// kinds arrive on GET /global/event; the reader decodes them into the same
// Event fields, marks each Event and request with its Surface, and
// Event.Kind names the legacy type either stands for. Client.Requests
// returns the adapter that lists and answers the requests of one surface,
// with the same calls for both, so a caller keeps the surface with each
// request instead of branching on it. After a connect Watch lists both
// surfaces, the /api one when the server's health check says it has it.
//
// The /api lists are per directory (there is none across directories) or
// per session. A permission request of the /api surface is mapped into
// PermissionRequest: action, resources, save and source are Permission,
// Patterns, Always and Tool.
//
// # Which servers
//
// Probe tells opencode 1.x (which serves both surfaces) from OpenCode 2,
// a separate release that serves only /api and adds forms: it answers no
// JSON on GET /global/health but JSON, with its version, on GET
// /api/health. Client.Generation says which one the last probe found.
// Later majors are refused with an *UnsupportedServerError naming the
// supported versions.
// ReadServiceFile finds where an OpenCode service runs, and WithEndpoint
// lets a Client follow it when it comes back elsewhere.
//
// Contract2 is that as data: every route, event and shape of OpenCode 2
// hermes-bot uses, each with the upstream file and commit it was read
// from. The table in docs/opencode2.md is its copy for users (a test keeps them
// alike), and opencodetest.Server with WithOpencode2 serves exactly it.
//
// NewEventReader2 reads OpenCode 2's GET /api/event, whose records are
// envelopes {id, created, type, data, location?}, into the same Events
// as the /api surface's, plus form.created, form.replied and
// form.cancelled (envelopeTypes says which types), and ChangeReader
// reads GET /api/event/changes into Changes. On OpenCode 2, Watch reads
// both streams and lists per session (a sweep) after every connect and
// whenever the changes stream says events were lost.
//
// # Away from the terminal
//
// RecentContext returns the last lines the agent wrote (and the tools it
// called, one line each) before a request, clipped, from the session's
// few newest messages. PromptFiles sends images and text files with a
// prompt, under a size cap (NewFile tells which a file is), and
// SessionModel says whether the session's model takes images. With
// WithLiveStatus, Watch also delivers a turn's progress: Event.ToolStep,
// StepFinished (tokens, cost) and Status. Contract2Phone lists what these
// use of OpenCode 2.
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
// context.DeadlineExceeded.
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
// A Client is safe for concurrent use; its settings are fixed by NewClient,
// but for the address and credentials WithEndpoint may look up again.
// Unary calls may run while Watch runs. Watch calls its Handler from its
// own goroutine, one event at a time and in stream order, so a slow
// handler delays the next event but never makes the stream look dead.
// HandleSnapshot is called from that same goroutine, in sorted directory
// (OpenCode 2: session) order, before the events of the connection it
// belongs to. After a connect, Watch lists up to four directories or
// sessions at once on goroutines of its own; they end before Watch goes
// on to the stream or returns. On OpenCode 2 the event stream and the
// changes stream are read on goroutines of their own, which hand over to
// Watch's; they end with the connection. Run
// one Watch per Client at a time. An EventReader is not safe for
// concurrent use.
package opencode

// Package opencodetest provides test doubles for opencode, the way
// net/http/httptest does for HTTP.
//
// It holds three things:
//
//   - Server (fake.go): one fake opencode server for unit tests, of
//     either generation: opencode 1.x (fake1.go: its event stream,
//     request, session and steering routes and 1.x's /api surface, as
//     1.18.33 answers them) or, with WithOpencode2, OpenCode 2 (fake2.go,
//     form.go: exactly opencode.Contract2, and its service.json). One
//     store and one set of controls (AddQuestion, AddForm, AnswerQuestion,
//     FinishTurn, WaitReplies, WaitPrompts, …) serve both.
//   - Model: a scripted OpenAI-compatible chat-completions server. A real
//     opencode pointed at it calls the question or bash tool on cue, and
//     the Model records what opencode told it, so a test can assert the
//     answer the model received.
//   - StartOpencode: a harness that runs a real `opencode serve`
//     (OpencodeVersion, installed with npm into a cache folder when missing,
//     or $OPENCODE_BIN) on a loopback port, isolated from the user's own
//     opencode, with a Model as its only provider. Its process helpers
//     (NeedProgram, StartProcess) also run matrixtest's Dendrite.
//
// The package owns no production behaviour: it only imitates opencode and
// its model. Reading events, replying and retrying are the opencode
// package's job; tests of the real server here use plain net/http so they
// do not depend on that client.
//
// Nothing here contacts anything outside loopback: the real opencode gets
// no model catalogue, no update check and a closed port as npm registry.
// Only OpencodeBinary may run npm against the configured registry, once,
// when the cached install is missing.
//
// # Real opencode
//
// A real server takes a few seconds to start (longer on a cold disk) and
// the first prompt of a session a few more, so tests that use one should
// run in parallel and share little. When opencode cannot be had (no npm,
// install failed) those tests are skipped, unless HERMES_E2E=1, which makes
// it a failure; HERMES_E2E=0 skips them without trying. A TestMain calls
// AnnounceUnavailable after the tests, so a skip shows without -v.
// opencode 1.18.33 facts the harness relies on: a health probe that
// connects while the server is still starting may never be answered;
// the title request carries no tools and a "You are a title generator"
// system prompt; no git repository is needed in the project.
//
// # Concurrency
//
// Server and Model document their own limits; Opencode's helpers are safe
// for concurrent use. StartOpencode and OpencodeBinary must be called from
// the test's goroutine (they may call tb.Fatal or tb.Skip).
package opencodetest

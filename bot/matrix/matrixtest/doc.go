// Package matrixtest runs a real Matrix homeserver for tests: Dendrite
// (DendriteVersion, installed with go install into the cache folder the
// opencode install uses) on a loopback port, with SQLite, federation off
// and shared-secret registration, in a temporary folder.
//
// StartDendrite starts one; Register makes accounts, and a User acts as a
// person in Element would: creates rooms, invites, sends messages and
// replies (with or without the old quoted fallback), reacts, votes on
// polls (unstable and stable types), and waits for events (WaitFor).
//
// The package owns no production behaviour and talks plain HTTP, so tests
// of package matrix do not check that client against itself. Nothing here
// contacts anything outside loopback, except go install when the binaries
// are missing.
package matrixtest

// Command hermes-bench measures a real hermes-bot binary against the fake
// opencode server (opencode/opencodetest) and the fake Telegram Bot API
// (bot/telegramtest), both run inside hermes-bench on loopback ports, and
// prints the figures of the table in docs/performance.md, each with the
// target it is held to.
//
//	go run ./cmd/hermes-bench latency     event → post and press → answer, p50/p99
//	go run ./cmd/hermes-bench startup     process start → ready, empty and with 10,000 entries
//	go run ./cmd/hermes-bench footprint   resident memory and idle CPU (-idle 60s)
//	go run ./cmd/hermes-bench all         the three, in that order
//
// It builds hermes-bot with "go build" (never -race) into a temporary
// folder, unless -bin names a binary, and runs it as a child process with
// HERMES_TELEGRAM_RATE=0 and a fresh HERMES_DB under -dir, so what is
// measured is the wiring of cmd/hermes-bot itself: serve is not importable
// from another main package. Timestamps are taken in hermes-bench, on one
// monotonic clock, where the fakes see things happen: a record handed to
// the fake's event stream, a sendMessage stored by the fake Telegram, a
// reply accepted by the fake opencode. Each is observed through the fakes'
// public wait methods, so a figure includes the fake's own handling of the
// request and the wake-up of the observing goroutine (tens of µs): the
// figures err on the slow side.
//
// With -pprof DIR, the binary is built with one extra file laid over
// cmd/hermes-bot by "go build -overlay" (the tree is not touched): it
// profiles the CPU from start-up until hermes-bench signals the end of a
// measurement, then writes cpu-<phase>.pprof, heap-<phase>.pprof and
// allocs-<phase>.pprof to DIR for "go tool pprof".
//
// hermes-bench owns only measuring: what hermes-bot does, and what the
// fakes imitate, belongs to their packages. It contacts nothing outside
// loopback.
//
// # Concurrency
//
// One measurement runs at a time. Within one, a producer goroutine writes
// events or presses while the fakes' wait methods observe the results; the
// samples each writes are read only after both are done.
package main

// Package risk judges opencode permission requests: how risky one looks
// to a person (Assess: low, medium or high, with reasons), and whether a
// shell command may run without asking anyone (Approve).
//
// The two are kept apart on purpose. Medium and high come from a deny-list
// heuristic (assess.go, simple.go, programs.go and paths.go, on the words
// shell.go reads): it reads a command as a shell would, far enough to
// recognise destructive, escalating or far-reaching work, and where in
// doubt answers higher. It informs a person and decides nothing. Low, and
// so auto-approval, is a proof: Approve accepts a command only when all of
// it lies inside a small closed grammar written as data (grammar.go:
// programs, subcommands, options and the kinds of their values and
// operands) under rules that hold for every program (approve.go), and the
// configuration those programs would read in the project holds nothing
// that runs a program or widens what they read (Trust, trust.go). Whatever
// the grammar does not cover is asked. Assess gives low exactly when
// Approve accepts, so the level a person sees is the decision
// auto-approval makes.
//
// AssessRun adds what a command's tool call says (Run): one that runs in
// another folder than the project's, may run longer than MaxTimeout, or
// whose call could not be read is at least medium, so low is only given
// to what auto-approval would allow. Trust names the files a command's
// programs read for their configuration, which the bridge requires a
// person to guard.
//
// The reasons are codes (ReasonCode, a closed set listed by ReasonCodes)
// with the detail they quote; the package says them in no language. The
// catalogs of package bot/i18n say them, so a new language is a catalog
// there, nothing here.
//
// The package imports nothing of the bridge: it knows a permission's kind,
// patterns and metadata as opencode sends them, and the project directory.
// It does not know who asked, nor what the bridge does with the answer.
//
// # Concurrency
//
// Every function is safe for concurrent use: the grammar and the
// heuristic's tables are read-only after package initialisation.
package risk

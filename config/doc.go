// Package config builds hermes-bot's one Config from defaults, an optional
// env-file (the KEY=VALUE format of systemd's EnvironmentFile), the process
// environment and command-line flags, in that order of rising precedence,
// and validates it with errors that name the variable at fault.
//
// It knows nothing of Telegram or opencode beyond the shape of their
// settings, and it sets up no logging: callers decide what to do with a
// Config.
//
// Secrets (the bot token, the opencode password) are never part of an
// error message, a usage text or Config.String.
//
// # Concurrency
//
// Everything here is a pure function of its inputs; a Config is a value and
// safe to share once built.
package config

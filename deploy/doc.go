// Package deploy holds the files that run hermes-bot as a service: a
// systemd system unit, a systemd user unit, a launchd agent and an example
// env-file with every setting. They are plain files meant to be read and
// copied; this package only embeds them, so that "hermes-bot service
// install" can write the example as a new env-file and the tests can check
// that the units "hermes-bot service print" generates match these files.
//
// It owns no behaviour: generating the units with real paths is the job of
// the command in cmd/hermes-bot.
//
// # Concurrency
//
// The embedded files are read-only and safe to read from any goroutine.
package deploy

import "embed"

// Files holds every file of this folder but the Go sources.
//
//go:embed hermes-bot.service hermes-bot.user.service io.github.hermes-bot.plist hermes-bot.env.example
var Files embed.FS

// EnvExample is hermes-bot.env.example: every setting, documented, with
// the required ones left empty.
//
//go:embed hermes-bot.env.example
var EnvExample []byte

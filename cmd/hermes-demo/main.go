// Command hermes-demo shows hermes-bot at work without a bot: it runs the
// whole bridge in-process against a built-in fake Telegram and, unless
// OPENCODE_URL is set, a built-in fake opencode, and serves a local page
// that shows the group and lets a person act in it.
//
// It is a command of its own, not a sub-command of hermes-bot, so that
// hermes-bot's binary links none of the fakes, nor Go's testing package.
//
//	go run ./cmd/hermes-demo [--addr 127.0.0.1:PORT]
package main

import (
	"context"
	"io"

	"github.com/hermes-bot/hermes-bot/cmd/internal/cli"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

func main() { cli.Main("hermes-demo", run) }

// run runs the demo with args, its flags, until ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, _ func() []string, stdout, stderr io.Writer) error {
	return (&demoCommand{getenv: getenv, stdout: stdout, stderr: stderr}).Run(ctx, args)
}

// exitCode prints err, if any, and returns the exit status it calls for.
func exitCode(err error, stderr io.Writer) int { return cli.ExitCode("hermes-demo", err, stderr) }

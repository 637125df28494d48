// Command hermes-bot carries opencode's questions to a Telegram group and
// the answers back. See the README for set-up.
package main

import (
	"context"
	"errors"
	"io"
	"runtime"

	"github.com/hermes-bot/hermes-bot/cmd/internal/cli"
)

func main() { cli.Main("hermes-bot", run) }

// usageError marks a problem with how hermes-bot was called or configured:
// exit code 2, like flag's own errors.
type usageError = cli.UsageError

// exitStatusError ends hermes-bot with a status of its own choosing: see
// serve's --config-error-exit.
type exitStatusError = cli.ExitStatusError

// exitCode prints err, if any, and returns the exit status it calls for.
func exitCode(err error, stderr io.Writer) int { return cli.ExitCode("hermes-bot", err, stderr) }

// demoMoved answers "hermes-bot demo", which is a command of its own now,
// so that hermes-bot links none of its fakes.
var demoMoved = usageError{Err: errors.New(`the demo is a command of its own now: run "go run ./cmd/hermes-demo" in the source tree, or "hermes-demo"`)}

// run dispatches on the sub-command; no sub-command means serve. environ
// lists the environment (KEY=VALUE), to spot misspelled settings in it;
// nil skips that.
func run(ctx context.Context, args []string, getenv func(string) string, environ func() []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "-version":
			return (&versionCommand{stdout: stdout}).Run(ctx, args[1:])
		case "check":
			return (&checkCommand{getenv: getenv, environ: environ, stdout: stdout, stderr: stderr}).Run(ctx, args[1:])
		case "demo":
			return demoMoved
		case "service":
			return (&serviceCommand{getenv: getenv, stdout: stdout, stderr: stderr,
				goos: runtime.GOOS, executable: executablePath}).Run(ctx, args[1:])
		case "serve":
			args = args[1:]
		case "help":
			args = []string{"-h"}
		}
	}
	return (&serveCommand{getenv: getenv, environ: environ, stdout: stdout, stderr: stderr}).Run(ctx, args)
}

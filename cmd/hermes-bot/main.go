// Command hermes-bot carries opencode's questions to a Telegram group and
// the answers back. See the README for set-up.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Environ, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// usageError marks a problem with how hermes-bot was called or configured:
// exit code 2, like flag's own errors.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitStatusError ends hermes-bot with a status of its own choosing: see
// serve's --config-error-exit.
type exitStatusError struct {
	err  error
	code int
}

func (e exitStatusError) Error() string { return e.err.Error() }
func (e exitStatusError) Unwrap() error { return e.err }

func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	var se exitStatusError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &se):
		fmt.Fprintf(stderr, "hermes-bot: %v\n", err)
		return se.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "hermes-bot: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "hermes-bot: %v\n", err)
		return 1
	}
}

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
			return (&demoCommand{getenv: getenv, stdout: stdout, stderr: stderr}).Run(ctx, args[1:])
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

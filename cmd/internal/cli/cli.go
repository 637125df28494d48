// Package cli holds what hermes-bot's commands share: how they start and
// stop on a signal, parse flags, end with an exit status, log and name
// their version. It links no test double: hermes-bot's release binary
// imports it.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/config"
)

// Main runs a command's run with the process's arguments, environment and
// output until it returns, or until SIGINT or SIGTERM cancels its context,
// and exits with ExitCode's status; prog prefixes the error printed.
func Main(prog string, run func(ctx context.Context, args []string, getenv func(string) string, environ func() []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Environ, os.Stdout, os.Stderr)
	stop()
	os.Exit(ExitCode(prog, err, os.Stderr))
}

// UsageError marks a problem with how a command was called or configured:
// exit status 2, like flag's own errors.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ExitStatusError ends a command with a status of its own choosing: see
// hermes-bot serve's --config-error-exit.
type ExitStatusError struct {
	Err  error
	Code int
}

func (e ExitStatusError) Error() string { return e.Err.Error() }
func (e ExitStatusError) Unwrap() error { return e.Err }

// ExitCode prints err, if any, on stderr after "prog: ", and returns the
// exit status it calls for: 0 without an error or for help asked for, an
// ExitStatusError's own, 2 for a UsageError, 1 otherwise.
func ExitCode(prog string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	var se ExitStatusError
	switch {
	case errors.As(err, &se):
		return se.Code
	case errors.As(err, new(UsageError)):
		return 2
	}
	return 1
}

// ParseFlags parses args and rejects positional arguments. A problem is a
// UsageError, except flag.ErrHelp, which is returned as it is.
//
// Help that was asked for (-h, --help) is printed on stdout, so that
// "hermes-bot --help | less" shows it; a mistake gets one line on stderr,
// which points at --help, rather than the whole usage.
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard) // flag would print the error, which ExitCode prints
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			PrintHelp(fs, stdout)
			return err
		}
		return UsageError{fmt.Errorf("%w (try --help)", err)}
	}
	if fs.NArg() > 0 {
		return UsageError{fmt.Errorf("unexpected argument %q (try --help)", fs.Arg(0))}
	}
	return nil
}

// PrintHelp prints fs's usage on w, where a person who asked for help
// looks for it.
func PrintHelp(fs *flag.FlagSet, w io.Writer) {
	out := fs.Output()
	fs.SetOutput(w)
	fs.Usage()
	fs.SetOutput(out)
}

// NewLogger returns the log cfg asks for, written to w: JSON, or lines
// for a person when w is a terminal and HERMES_LOG_FORMAT does not say.
func NewLogger(cfg *config.Config, w io.Writer) zerolog.Logger {
	level, err := zerolog.ParseLevel(cfg.LogLevel)
	if err != nil {
		level = zerolog.InfoLevel
	}
	format := cfg.LogFormat
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			format = "console"
		}
	}
	if format == "console" {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.DateTime}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger()
}

// BuildVersion returns set, the version a release build sets with
// -ldflags "-X main.version=v1.2.3", if any; otherwise the module version
// from the build info, or "(devel)".
func BuildVersion(set string) string {
	if set != "" {
		return set
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

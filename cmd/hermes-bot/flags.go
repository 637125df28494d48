package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/hermes-bot/hermes-bot/config"
)

// configFlags are the flags serve and check share: --env-file and one flag
// per setting, so both commands read the configuration the same way.
type configFlags struct {
	envFile *string
	given   func() map[string]string
}

// registerConfigFlags adds --env-file and every setting's flag to fs.
func registerConfigFlags(fs *flag.FlagSet) *configFlags {
	return &configFlags{
		envFile: fs.String("env-file", "", "read KEY=VALUE settings from this file (systemd EnvironmentFile format)"),
		given:   config.RegisterFlags(fs),
	}
}

// load builds the configuration from the env-file, the environment and
// the flags given, in that order of rising precedence. Call it after
// fs.Parse.
func (f *configFlags) load(getenv func(string) string) (*config.Config, error) {
	src := config.Sources{Getenv: getenv, Flags: f.given()}
	if *f.envFile != "" {
		vars, err := config.ReadEnvFile(*f.envFile)
		if err != nil {
			return nil, err
		}
		src.EnvFile = vars
	}
	return config.Load(src)
}

// parseFlags parses args and rejects positional arguments. A problem is a
// usageError, except flag.ErrHelp, which is returned as it is.
//
// Help that was asked for (-h, --help) is printed on stdout, so that
// "hermes-bot --help | less" shows it; a mistake gets one line on stderr,
// which points at --help, rather than the whole usage.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard) // flag would print the error, which exitCode prints
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(fs, stdout)
			return err
		}
		return usageError{fmt.Errorf("%w (try --help)", err)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (try --help)", fs.Arg(0))}
	}
	return nil
}

// printHelp prints fs's usage on w, where a person who asked for help
// looks for it.
func printHelp(fs *flag.FlagSet, w io.Writer) {
	out := fs.Output()
	fs.SetOutput(w)
	fs.Usage()
	fs.SetOutput(out)
}

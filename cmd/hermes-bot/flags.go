package main

import (
	"errors"
	"flag"
	"fmt"

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
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (try --help)", fs.Arg(0))}
	}
	return nil
}

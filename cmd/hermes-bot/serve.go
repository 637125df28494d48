package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hermes-bot/hermes-bot/bot/daemon"
	"github.com/hermes-bot/hermes-bot/cmd/internal/cli"
)

type serveCommand struct {
	getenv         func(string) string
	environ        func() []string // nil: the environment is not searched for misspelled settings
	stdout, stderr io.Writer
}

const serveUsage = `Usage:
  hermes-bot [flags]          run the bridge (same as "hermes-bot serve")
  hermes-bot check [flags]    check the settings, Telegram, opencode and the store
  hermes-bot service install|uninstall|print [--system]
                              run hermes-bot as a systemd or launchd service
  hermes-bot version          print the version (also: --version)

To see it work without a bot, against a built-in fake Telegram and opencode
shown on a local web page: go run ./cmd/hermes-demo (in the source tree).

Every setting is read from the environment, from --env-file, or from its flag
(flag wins over environment, environment over env-file).

Flags:
`

func (c *serveCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hermes-bot", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	flags := registerConfigFlags(fs)
	configErrorExit := fs.Int("config-error-exit", 2, "exit status after a configuration error (a bad setting, a missing env-file, "+
		"an unusable HERMES_DB); the launchd agent sets 0, as launchd restarts after any other status and a restart does not fix the setting")
	fs.Usage = usage(fs, serveUsage)
	if err := cli.ParseFlags(fs, args, c.stdout); err != nil {
		return err
	}
	if *configErrorExit < 0 || *configErrorExit > 125 {
		return usageError{Err: fmt.Errorf("--config-error-exit %d: want an exit status from 0 to 125", *configErrorExit)}
	}
	err := c.run(ctx, flags)
	var ue usageError
	if errors.As(err, &ue) && *configErrorExit != 2 {
		return exitStatusError{Err: err, Code: *configErrorExit}
	}
	return err
}

// run loads the configuration and serves; a configuration error is a
// usageError.
func (c *serveCommand) run(ctx context.Context, flags *configFlags) error {
	cfg, unknown, err := flags.load(c.getenv, environOf(c.environ))
	if err != nil {
		return usageError{Err: withFix(err, settingsFix(err, *flags.envFile), unknown...)}
	}
	log := cli.NewLogger(cfg, c.stderr)
	if text, fix := envFileWarning(*flags.envFile); text != "" {
		log.Warn().Str("envFile", *flags.envFile).Msg(text + ": " + fix)
	}
	if len(unknown) > 0 {
		// One line, however many: each is probably a misspelled setting
		// whose value hermes-bot is not using.
		texts := make([]string, len(unknown))
		for i, u := range unknown {
			texts[i] = u.String()
		}
		log.Warn().Strs("unknown", texts).Msg("ignoring variables named like settings that are none: " + strings.Join(texts, "; "))
	}
	err = daemon.Run(ctx, cfg, log, daemon.Options{Version: buildVersion(), Getenv: c.getenv})
	var ce *daemon.ConfigError
	if errors.As(err, &ce) {
		fix := "check " + ce.Setting
		if ce.Setting == "HERMES_DB" {
			fix = storeFix
		}
		// A restart would not help: a configuration error, exit 2.
		return usageError{Err: withFix(err, fix)}
	}
	return err
}

// environOf calls environ, if set.
func environOf(environ func() []string) []string {
	if environ == nil {
		return nil
	}
	return environ()
}

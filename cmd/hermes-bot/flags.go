package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hermes-bot/hermes-bot/config"
)

// configFlags are the flags serve and check share: --env-file and one flag
// per setting, so both commands read the configuration the same way.
type configFlags struct {
	envFile *string
	given   func() map[string]string
}

// usage returns fs.Usage for a command: text, then the flags.
func usage(fs *flag.FlagSet, text string) func() {
	return func() {
		fmt.Fprint(fs.Output(), text)
		fs.PrintDefaults()
	}
}

// registerConfigFlags adds --env-file and every setting's flag to fs.
func registerConfigFlags(fs *flag.FlagSet) *configFlags {
	return &configFlags{
		envFile: fs.String("env-file", "", "read KEY=VALUE settings from this file (systemd EnvironmentFile format)"),
		given:   config.RegisterFlags(fs),
	}
}

// load builds the configuration from the env-file, the environment and
// the flags given, in that order of rising precedence, and lists the
// variables of the env-file and of environ (KEY=VALUE pairs; may be nil)
// named like settings that are none. Call it after fs.Parse. The list
// comes with a settings error too, as a misspelling is often its cause
// (TELEGRAM_CHATID, and so TELEGRAM_CHAT_ID is missing).
func (f *configFlags) load(getenv func(string) string, environ []string) (*config.Config, []config.Unknown, error) {
	src := config.Sources{Getenv: getenv, Flags: f.given()}
	if *f.envFile != "" {
		vars, err := config.ReadEnvFile(*f.envFile)
		if err != nil {
			return nil, nil, err
		}
		src.EnvFile = vars
	}
	unknown := config.UnknownKeys(src.EnvFile, environ, config.ServerNames(src)...)
	cfg, err := config.Load(src)
	return cfg, unknown, err
}

// settingsFix says how to mend err, a failure of configFlags.load, in one
// sentence; envFile is the --env-file given, if any.
func settingsFix(err error, envFile string) string {
	var ve *config.ValidationError
	switch {
	case errors.As(err, &ve) && ve.From == "environment":
		// Fixing the file would change nothing: the environment wins.
		return fmt.Sprintf("%s comes from the environment, which overrides the env-file: correct or unset it there "+
			"(your shell's export, or the service's Environment=)", ve.Var)
	case errors.As(err, &ve) && strings.HasPrefix(ve.From, "flag "):
		return "correct the " + ve.From + " on the command line"
	case errors.As(err, &ve):
		where := "the environment or an env-file (--env-file PATH)"
		if envFile != "" {
			where = envFile
		}
		return fmt.Sprintf("set %s in %s; deploy/hermes-bot.env.example documents every setting", ve.Var, where)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("create it: copy deploy/hermes-bot.env.example (in the source tree) to %s and fill in the token and the chat ID; "+
			`or "hermes-bot service install" writes one for a service`, shellQuote(envFile))
	default:
		return "correct the env-file: KEY=VALUE lines, # for comments"
	}
}

// withFix adds fix to err's message on a line of its own, as check
// prints it, and a line for each unknown variable.
func withFix(err error, fix string, unknown ...config.Unknown) error {
	err = fmt.Errorf("%w\n    fix: %s", err, fix)
	for _, u := range unknown {
		err = fmt.Errorf("%w\n    note: %s", err, u)
	}
	return err
}

// envFileWarning is what to say when the env-file at path, which holds the
// bot token, is open to other users; "" when it is not.
func envFileWarning(path string) (text, fix string) {
	perm, open := openToOthers(path)
	if path == "" || !open {
		return "", ""
	}
	return fmt.Sprintf("the env-file %s can be read by other users (mode %04o) and holds secrets", path, perm),
		"chmod 600 " + shellQuote(path)
}

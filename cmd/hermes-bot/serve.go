package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/config"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

const (
	// pollTimeout is how long one getUpdates call may wait on Telegram.
	pollTimeout = 50 * time.Second
	// shutdownTimeout bounds how long in-flight answers may take to finish
	// after a signal.
	shutdownTimeout = 15 * time.Second
)

type serveCommand struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

func (c *serveCommand) usage(fs *flag.FlagSet) func() {
	return func() {
		fmt.Fprint(fs.Output(), `Usage:
  hermes-bot [flags]          run the bridge (same as "hermes-bot serve")
  hermes-bot version          print the version

Every setting is read from the environment, from --env-file, or from its flag
(flag wins over environment, environment over env-file).

Flags:
`)
		fs.PrintDefaults()
	}
}

func (c *serveCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hermes-bot", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	envFile := fs.String("env-file", "", "read KEY=VALUE settings from this file (systemd EnvironmentFile format)")
	given := config.RegisterFlags(fs)
	fs.Usage = c.usage(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (try --help)", fs.Arg(0))}
	}
	src := config.Sources{Getenv: c.getenv, Flags: given()}
	if *envFile != "" {
		vars, err := config.ReadEnvFile(*envFile)
		if err != nil {
			return usageError{err}
		}
		src.EnvFile = vars
	}
	cfg, err := config.Load(src)
	if err != nil {
		return usageError{err}
	}
	log := newLogger(cfg, c.stderr)
	return serve(ctx, cfg, log)
}

func newLogger(cfg *config.Config, w io.Writer) zerolog.Logger {
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

// serve runs the bridge until ctx ends, then shuts down in order: stop
// polling and the event stream, let in-flight answers finish, close the
// store.
func serve(ctx context.Context, cfg *config.Config, log zerolog.Logger) (err error) {
	redact := bot.NewRedactor(cfg.BotToken, cfg.OpencodePassword)

	store, err := pending.Open(cfg.DBPath, pending.WithLogger(log))
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer func() {
		if cerr := store.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close store: %w", cerr))
		}
	}()

	oc, err := opencode.NewClient(cfg.OpencodeURL,
		opencode.WithBasicAuth(cfg.OpencodeUsername, cfg.OpencodePassword),
		opencode.WithLogger(log))
	if err != nil {
		return usageError{fmt.Errorf("opencode client: %w", err)}
	}

	tg, err := tgbot.New(cfg.BotToken,
		tgbot.WithServerURL(cfg.TelegramAPIURL),
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(pollTimeout, &http.Client{Timeout: pollTimeout + 20*time.Second}),
		tgbot.WithAllowedUpdates(tgbot.AllowedUpdates{"message", "callback_query"}),
		// Every update goes to the bridge's handler, registered below; the
		// library's default handler would log each one with log.Printf.
		tgbot.WithDefaultHandler(func(context.Context, *tgbot.Bot, *models.Update) {}),
		tgbot.WithErrorsHandler(func(err error) {
			log.Warn().Err(redact.Error(err)).Msg("telegram polling failed; retrying")
		}),
	)
	if err != nil {
		return fmt.Errorf("telegram client: %w", redact.Error(err))
	}

	me, err := getMe(ctx, tg, redact, log)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped by a signal while waiting for Telegram
		}
		return err
	}
	if _, err := tg.DeleteWebhook(ctx, &tgbot.DeleteWebhookParams{}); err != nil {
		log.Warn().Err(redact.Error(err)).Msg("telegram deleteWebhook failed; polling may be refused")
	}

	bridge := bot.NewBridge(bot.Config{
		ChatID:         cfg.ChatID,
		AllowedUserIDs: cfg.AllowedUserIDs,
		TTL:            cfg.QuestionTTL,
		BotID:          me.ID,
	}, store, oc, bot.RedactTelegram(tg, redact), log)
	tg.RegisterHandlerMatchFunc(func(*models.Update) bool { return true }, bridge.HandleUpdate, bridge.Middlewares()...)

	if len(cfg.AllowedUserIDs) == 0 {
		log.Warn().Int64("chat", cfg.ChatID).Msg("TELEGRAM_ALLOWED_USER_IDS is empty: any member of the chat may answer")
	}
	log.Info().Str("bot", me.Username).Int64("chat", cfg.ChatID).Str("opencode", cfg.OpencodeURL).
		Str("db", cfg.DBPath).Str("version", buildVersion()).Msg("hermes-bot started")

	if err := bridge.SendUnsent(ctx); err != nil {
		log.Warn().Err(redact.Error(err)).Msg("sending stored requests failed; will retry after the next connect")
	}

	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		expireLoop(ctx, bridge, sweepInterval(cfg.QuestionTTL), log)
	}()
	go func() {
		defer wg.Done()
		tg.Start(ctx)
	}()
	go func() {
		defer wg.Done()
		dirs := func(context.Context) []string {
			d, err := store.Directories()
			if err != nil {
				log.Warn().Err(err).Msg("reading known directories from the store failed")
			}
			return d
		}
		if err := oc.Watch(ctx, bridge, dirs); err != nil && !errors.Is(err, context.Canceled) {
			log.Error().Err(redact.Error(err)).Msg("opencode event stream stopped")
		}
	}()

	<-ctx.Done()
	log.Info().Msg("shutting down: stopping polling and the event stream")
	wg.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := bridge.Wait(sctx); err != nil {
		log.Warn().Err(err).Msg("in-flight answers did not finish in time")
	}
	log.Info().Msg("stopped")
	return nil
}

// sweepInterval is how often requests past their TTL are closed: every
// 30 s, or more often when the TTL is so short that 30 s would more than
// double it.
func sweepInterval(ttl time.Duration) time.Duration {
	return max(time.Second, min(30*time.Second, ttl/2))
}

// expireLoop closes expired requests at start-up and then every interval
// until ctx ends.
func expireLoop(ctx context.Context, bridge *bot.Bridge, interval time.Duration, log zerolog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := bridge.ExpireDue(ctx); err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("closing expired requests failed; retrying at the next sweep")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// getMe asks Telegram who the bot is. A refused token ends hermes-bot at
// once; a network failure or a Telegram outage is retried with backoff,
// since a daemon started at boot may come up before the network.
func getMe(ctx context.Context, tg *tgbot.Bot, redact *bot.Redactor, log zerolog.Logger) (*models.User, error) {
	wait := time.Second
	for {
		me, err := tg.GetMe(ctx)
		if err == nil {
			return me, nil
		}
		err = redact.Error(err)
		if errors.Is(err, tgbot.ErrorUnauthorized) || errors.Is(err, tgbot.ErrorNotFound) {
			return nil, fmt.Errorf("telegram refused the bot token (check TELEGRAM_BOT_TOKEN): %w", err)
		}
		log.Warn().Err(err).Dur("retry_in", wait).Msg("cannot reach Telegram (getMe); retrying")
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("telegram getMe: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

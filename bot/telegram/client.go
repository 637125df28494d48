package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
)

// ClientOptions say how NewClient reaches the Bot API.
type ClientOptions struct {
	// Token is the bot token; APIURL the Bot API's address.
	Token, APIURL string
	// Offset is the first update to ask for (see InitialOffset), so a
	// restart is not sent again what it handled before.
	Offset int64
	// PollTimeout is how long a getUpdates waits for an update.
	PollTimeout time.Duration
	// Transport carries every call.
	Transport http.RoundTripper
}

// Client is the connection to the Bot API: the go-telegram client made as
// the front-end needs it, the calls made around the front-end when it
// starts (who the bot is, no webhook, the command menu), and the polling
// that hands every update to it. It keeps the library's types inside this
// package, so that the wiring needs none of them.
type Client struct {
	tg     *tgbot.Bot
	redact *Redactor
	log    zerolog.Logger
}

// NewClient makes the client; it calls nothing until Me or Poll.
// Polling failures are logged, redacted, and retried by the library; a
// conflict (another poller) is left to the caller's transport to say.
func NewClient(o ClientOptions, redact *Redactor, log zerolog.Logger) (*Client, error) {
	tg, err := tgbot.New(o.Token,
		tgbot.WithServerURL(o.APIURL),
		tgbot.WithSkipGetMe(),
		tgbot.WithInitialOffset(o.Offset),
		tgbot.WithHTTPClient(o.PollTimeout, &http.Client{Timeout: o.PollTimeout + 20*time.Second, Transport: o.Transport}),
		tgbot.WithAllowedUpdates(tgbot.AllowedUpdates{"message", "callback_query"}),
		// Every update goes to the front-end's handler, registered by
		// Handle; the library's default handler would log each one with
		// log.Printf.
		tgbot.WithDefaultHandler(func(context.Context, *tgbot.Bot, *models.Update) {}),
		tgbot.WithErrorsHandler(func(err error) {
			if errors.Is(err, tgbot.ErrorConflict) {
				return
			}
			log.Warn().Err(redact.Error(err)).Msg("telegram polling failed; retrying")
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram client: %w", redact.Error(err))
	}
	return &Client{tg: tg, redact: redact, log: log}, nil
}

// API is the client as the Outbox calls it, with the token redacted from
// its errors.
func (c *Client) API() Telegram { return RedactTelegram(c.tg, c.redact) }

// Me asks Telegram who the bot is, for Config.BotID and BotUsername. A
// refused token is an error at once; a network failure or a Telegram
// outage is retried with backoff until ctx ends, since a daemon started
// at boot may come up before the network.
func (c *Client) Me(ctx context.Context) (id int64, username string, err error) {
	wait := time.Second
	for {
		me, err := c.tg.GetMe(ctx)
		if err == nil {
			return me.ID, me.Username, nil
		}
		err = c.redact.Error(err)
		if errors.Is(err, tgbot.ErrorUnauthorized) || errors.Is(err, tgbot.ErrorNotFound) {
			return 0, "", fmt.Errorf("telegram refused the bot token (check TELEGRAM_BOT_TOKEN): %w", err)
		}
		c.log.Warn().Err(err).Dur("retry_in", wait).Msg("cannot reach Telegram (getMe); retrying")
		select {
		case <-ctx.Done():
			return 0, "", fmt.Errorf("telegram getMe: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// DropWebhook removes a webhook, which would make Telegram refuse
// polling. A failure only warns: polling then says what is wrong.
func (c *Client) DropWebhook(ctx context.Context) {
	if _, err := c.tg.DeleteWebhook(ctx, &tgbot.DeleteWebhookParams{}); err != nil {
		c.log.Warn().Err(c.redact.Error(err)).Msg("telegram deleteWebhook failed; polling may be refused")
	}
}

// RegisterCommands tells Telegram the front-end's commands in lang, so
// clients offer them in chat chatID. The front-end answers them
// regardless, so a failure only warns.
func (c *Client) RegisterCommands(ctx context.Context, chatID int64, lang string) {
	if _, err := c.tg.SetMyCommands(ctx, &tgbot.SetMyCommandsParams{
		Commands: Commands(lang),
		Scope:    &models.BotCommandScopeChat{ChatID: chatID},
	}); err != nil {
		c.log.Warn().Err(c.redact.Error(err)).Msg("telegram setMyCommands failed; the commands still work but are not offered in the chat's menu")
	}
}

// Handle hands every update Poll receives to front-end f, which hands
// people's actions to core. Call it before Poll.
func (c *Client) Handle(f *Frontend, core frontend.Core) {
	c.tg.RegisterHandlerMatchFunc(func(*models.Update) bool { return true }, f.Handler(core), f.Middlewares()...)
}

// Poll receives updates until ctx ends.
func (c *Client) Poll(ctx context.Context) { c.tg.Start(ctx) }

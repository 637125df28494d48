package daemon

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
)

// chat is one front-end as the daemon runs it: connected in Run, handed
// the bridge by wire, its input served by start until the context ends,
// waited for and closed by stop. A second chat is one more of these,
// appended to daemon.chats in Run when its settings are set.
type chat interface {
	frontend() frontend.Frontend
	// ready hands the chat the bridge its people's actions go to, before
	// serve; ctx is the daemon's, which work it starts may use.
	ready(ctx context.Context, b *bot.Bridge)
	// serve receives people's actions until ctx ends.
	serve(ctx context.Context)
	// wait waits for the actions being handled; close ends the chat's
	// sending, after the last owed edit.
	wait(ctx context.Context) error
	close()
}

// telegramChat is the Telegram chat: its Bot API client, outbox and
// front-end.
type telegramChat struct {
	d      *daemon
	tg     *telegram.Client
	out    *telegram.Outbox
	fe     *telegram.Frontend
	offset int64
	chatID int64
	// bridge and ctx are ready's, for a chat migration's re-posting.
	bridge *bot.Bridge
	ctx    context.Context
	wg     sync.WaitGroup
}

// newTelegram connects the Telegram chat. Polling resumes after the last
// update handled before a restart, so Telegram does not send it again;
// update IDs count per bot, whose ID leads the token. It returns nil and
// no error when ctx ended while waiting for Telegram.
func (d *daemon) newTelegram(ctx context.Context) (*telegramChat, error) {
	cfg, log := d.cfg, d.log
	c := &telegramChat{d: d}
	botID, _ := strconv.ParseInt(strings.SplitN(cfg.BotToken, ":", 2)[0], 10, 64)
	offset, err := telegram.InitialOffset(d.store, botID, time.Now())
	if err != nil {
		log.Warn().Err(err).Msg("could not read the last Telegram update handled; polling from what Telegram holds")
		offset = 0
	}
	c.offset = offset
	c.tg, err = telegram.NewClient(telegram.ClientOptions{
		Token:       cfg.BotToken,
		APIURL:      cfg.TelegramAPIURL,
		Offset:      offset,
		PollTimeout: pollTimeout,
		// poll records getUpdates answers, for /healthz, and says a
		// conflict with another poller plainly.
		Transport: d.poll,
	}, d.redact, log)
	if err != nil {
		return nil, err
	}
	botID, botName, err := c.tg.Me(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil // stopped by a signal while waiting for Telegram
		}
		return nil, err
	}
	c.tg.DropWebhook(ctx)
	// The chat the store remembers: a group upgraded to a supergroup gets
	// a new ID, which a restart keeps using.
	if c.chatID, err = telegram.StateOf(d.store).ChatFor(cfg.ChatID); err != nil {
		return nil, fmt.Errorf("read remembered chat ID: %w", err)
	}
	if c.chatID != cfg.ChatID {
		log.Warn().Int64("configured", cfg.ChatID).Int64("chat", c.chatID).
			Msg("TELEGRAM_CHAT_ID was migrated to a supergroup; using the new ID (update your settings)")
	}
	c.out = telegram.NewOutbox(c.tg.API(), telegram.OutboxOptions{
		PerMinute: cfg.TelegramRate,
		OnMigrate: c.migrated,
		Metrics:   d.metrics.Chat(telegram.Name, d.poll.LastOK),
	}, log)
	tc := telegram.Config{
		ChatID:          c.chatID,
		AllowedUserIDs:  cfg.AllowedUserIDs,
		BotID:           botID,
		BotUsername:     botName,
		ThreadID:        cfg.ThreadID,
		TopicPerProject: cfg.TopicPerProject,
		Lang:            cfg.Lang,
		Version:         d.opts.Version,
		StartedAt:       d.started,
		Later:           c.out,
		StaleSteer:      cfg.StaleSteer,
		MaxUpload:       cfg.MaxUpload,
		QuickReplies:    cfg.QuickReplies,
		OnChatMigrated: func(oldID, newID int64) {
			c.out.FollowMigration(oldID, newID)
			c.migrated(oldID, newID)
		},
	}
	for _, s := range d.servers {
		tc.Servers = append(tc.Servers, telegram.ServerStatus{Name: s.name, Status: s.client})
	}
	c.fe = telegram.New(tc, c.out, d.store, log)
	if len(cfg.AllowedUserIDs) == 0 {
		log.Warn().Int64("chat", c.chatID).Msg("TELEGRAM_ALLOWED_USER_IDS is empty: any member of the chat may answer")
	}
	log.Info().Str("bot", botName).Int64("chat", c.chatID).Int64("resumeAfterUpdate", offset).Msg("Telegram chat connected")
	return c, nil
}

func (c *telegramChat) frontend() frontend.Frontend { return c.fe }

func (c *telegramChat) ready(ctx context.Context, b *bot.Bridge) {
	c.bridge, c.ctx = b, ctx
	c.tg.Handle(c.fe, b)
	c.tg.RegisterCommands(ctx, c.chatID, c.d.cfg.Lang)
	// Before this run shows any: status messages a crash left "working".
	lctx, cancel := context.WithTimeout(ctx, orphanLiveTimeout)
	c.fe.EndOrphanedLive(lctx)
	cancel()
}

// orphanLiveTimeout bounds ending the last run's status messages, so a
// Telegram that stalls now cannot hold up the start.
const orphanLiveTimeout = 30 * time.Second

func (c *telegramChat) serve(ctx context.Context) { c.tg.Poll(ctx) }

func (c *telegramChat) wait(ctx context.Context) error {
	err := c.fe.Wait(ctx)
	c.wg.Wait()
	return err
}

func (c *telegramChat) close() { c.out.Close() }

// migrated records a supergroup migration, from a failed send (the
// outbox) or the chat's service message (the front-end). It runs on the
// chat's send queue, so the re-posting of moved requests, which sends,
// runs apart from it.
func (c *telegramChat) migrated(oldID, newID int64) {
	log := c.d.log
	if err := telegram.StateOf(c.d.store).MoveChat(oldID, newID); err != nil {
		log.Error().Err(err).Int64("oldChatID", oldID).Int64("newChatID", newID).Msg("could not remember the chat migration")
	}
	c.fe.SetChatID(newID)
	if c.ctx == nil || c.ctx.Err() != nil {
		return // not started, or shutting down: the next start posts them
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := c.bridge.SendUnsent(c.ctx); err != nil {
			log.Warn().Err(err).Msg("re-posting requests in the migrated chat failed; will retry after the next connect")
		}
	}()
}

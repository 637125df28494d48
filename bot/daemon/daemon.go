// Package daemon runs hermes-bot: it opens the store, connects the
// opencode clients and the chats (front-ends: Telegram's is the one
// there is, see chat), wires them to the bridge (and its lanes and
// metrics), serves /healthz and /metrics, sweeps expired requests, and
// stops everything in order when its context ends.
//
// Each opencode server OPENCODE_URL gives gets a client, a watcher and
// lanes of its own, which stamp its events with its name ("" for a bare
// URL's), so a server that is down or slow holds up none of the others.
//
// It owns the wiring and the timing policy of a running hermes-bot (poll
// and shutdown timeouts, sweep and resend intervals), so a command line,
// a benchmark or a test can run the whole thing in-process with Run. It
// leaves the settings to package config, parsing flags and signals to the
// caller, and everything a request goes through to package bot.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/matrix"
	"github.com/hermes-bot/hermes-bot/bot/telegram"
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
	// drainTimeout bounds how long, at shutdown, the closing edits still
	// owed may take to reach Telegram; the rest are sent at the next
	// start. It is short: a service manager kills what takes too long.
	drainTimeout = 3 * time.Second
)

// Options are what Run takes besides the settings.
type Options struct {
	// Version is the build's version, shown by /status and logged.
	Version string
	// Getenv, when set, lets an auto server (config.Server.Auto) be
	// looked up again in the OpenCode service file when it moves.
	Getenv func(string) string
	// Opencode are more options for every opencode client (tests shorten timeouts).
	Opencode []opencode.ClientOption
}

// ConfigError is a setting Run cannot work with; restarting does not fix
// it (a command line exits 2 for it).
type ConfigError struct {
	// Setting names the variable at fault, such as "HERMES_DB".
	Setting string
	Err     error
}

func (e *ConfigError) Error() string { return e.Setting + " cannot be used: " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Run runs hermes-bot with settings cfg until ctx ends, then shuts down in
// order: stop polling and the event stream, let in-flight answers finish,
// send what closing edits it can, close the store. A setting it cannot
// work with is a *ConfigError.
func Run(ctx context.Context, cfg *config.Config, log zerolog.Logger, opts Options) (err error) {
	secrets := []string{cfg.BotToken, cfg.MatrixAccessToken, cfg.MatrixPassword}
	for _, s := range cfg.Servers {
		secrets = append(secrets, s.Password) // every server's: any may be echoed in an error
	}
	d := &daemon{cfg: cfg, log: log, opts: opts, started: time.Now(),
		redact: telegram.NewRedactor(secrets...)}

	if d.store, err = pending.Open(cfg.DBPath, pending.WithLogger(log)); err != nil {
		if badStorePath(err) || errors.Is(err, pending.ErrTooOld) {
			return &ConfigError{Setting: "HERMES_DB", Err: err} // a restart would not help
		}
		return fmt.Errorf("open store: %w", err)
	}
	defer func() {
		if cerr := d.store.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close store: %w", cerr))
		}
	}()
	if err := d.newOpencode(); err != nil {
		return err
	}
	d.metrics = bot.NewMetrics()
	d.metrics.Streams = d.streams()
	d.poll = newPollTracker()
	d.poll.next = telegramTransport()
	d.poll.log = log
	if cfg.Telegram() {
		tc, err := d.newTelegram(ctx)
		if err != nil || tc == nil {
			return err // nil with no error: stopped while waiting for Telegram
		}
		d.chats = append(d.chats, tc)
	}
	var mc *matrixChat
	if cfg.Matrix() {
		mc, err = d.newMatrix(ctx)
		if err != nil || mc == nil {
			return err // nil with no error: stopped while waiting for the homeserver
		}
		d.chats = append(d.chats, mc)
	}
	if len(d.chats) == 0 {
		return &ConfigError{Setting: "TELEGRAM_BOT_TOKEN", Err: errors.New("no chat is configured")}
	}

	if cfg.HTTPAddr != "" {
		var chats []watchedChat
		if cfg.Telegram() {
			chats = append(chats, watchedChat{name: "telegram", poll: d.poll, window: pollTimeout + pollMargin})
		}
		if mc != nil {
			chats = append(chats, watchedChat{name: matrix.Name, poll: syncWatch{last: mc.c.LastSync, since: time.Now()},
				window: matrix.SyncTimeout + pollMargin})
		}
		hs, err := startHTTP(cfg.HTTPAddr, newHTTPHandler(d.metrics, d.streams(), chats, log), log)
		if err != nil {
			return err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if cerr := hs.Close(sctx); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}()
	}

	if err := d.wire(ctx); err != nil {
		return err
	}
	d.start(ctx)
	<-ctx.Done()
	d.stop()
	return nil
}

// daemon is one run of hermes-bot: what Run builds, in the order it
// builds it.
type daemon struct {
	cfg     *config.Config
	log     zerolog.Logger
	opts    Options
	started time.Time
	redact  *telegram.Redactor

	store *pending.Store
	// servers are the opencode servers served, in OPENCODE_URL's order:
	// one unnamed, or one or more named.
	servers []*server
	metrics *bot.Metrics
	poll    *pollTracker
	// chats are the front-ends, each showing every request.
	chats  []chat
	bridge *bot.Bridge
	// wg counts the goroutines start and a chat migration start.
	wg sync.WaitGroup
}

// server is one opencode server served: its client, which watches its
// event stream on its own and reconnects on its own, so one server down
// does not hold up the others, and its lanes, so a listing after its
// connect waits only for its own events.
type server struct {
	name   string
	url    string // as configured: the unnamed server's UIDs derive from it
	client *opencode.Client
	lanes  *bot.Lanes
}

// serviceLookup finds an auto server in the OpenCode service file again.
// No file is an error, so the client keeps its address: a stopped service
// writes it again when it comes back.
func serviceLookup(s config.Server, getenv func(string) string) func() (opencode.Endpoint, error) {
	return func() (opencode.Endpoint, error) {
		found, err := s.FromServiceFile(getenv)
		if err != nil {
			return opencode.Endpoint{}, err
		}
		return opencode.Endpoint{URL: found.URL, User: found.Username, Password: found.Password}, nil
	}
}

// newOpencode makes a client per opencode server. A named server's client
// logs with its name.
func (d *daemon) newOpencode() error {
	for _, s := range d.cfg.Servers {
		log := d.log
		if s.Name != "" {
			log = log.With().Str("server", s.Name).Logger()
		}
		if s.ServiceFile != "" {
			log.Info().Str("url", s.URL).Str("file", s.ServiceFile).Msg("opencode server found in the OpenCode service file")
		}
		opts := []opencode.ClientOption{opencode.WithBasicAuth(s.Username, s.Password), opencode.WithLogger(log)}
		if d.cfg.LiveStatus {
			// The front-ends that show live status get the turns' progress.
			opts = append(opts, opencode.WithLiveStatus())
		}
		opts = append(opts, d.opts.Opencode...)
		if s.Auto && d.opts.Getenv != nil {
			opts = append(opts, opencode.WithEndpoint(opencode.DefaultLookupEvery, serviceLookup(s, d.opts.Getenv)))
		}
		c, err := opencode.NewClient(s.URL, opts...)
		if err != nil {
			if s.Name != "" {
				err = fmt.Errorf("server %s: %w", s.Name, err)
			}
			return &ConfigError{Setting: "OPENCODE_URL", Err: err}
		}
		d.servers = append(d.servers, &server{name: s.Name, url: s.URL, client: c})
	}
	return nil
}

// streams are the servers' event streams, for /healthz and /metrics.
func (d *daemon) streams() []bot.ServerStream {
	out := make([]bot.ServerStream, len(d.servers))
	for i, s := range d.servers {
		out[i] = bot.ServerStream{Name: s.name, Stream: s.client}
	}
	return out
}

// wire builds the bridge over the chats, and its lanes.
func (d *daemon) wire(ctx context.Context) error {
	cfg, log := d.cfg, d.log
	bc := bot.Config{
		TTL:          cfg.QuestionTTL,
		Metrics:      d.metrics,
		AutoApprove:  bot.AutoApprovePolicy(cfg.AutoApprove),
		Lang:         cfg.Lang,
		ContextLines: cfg.ContextLines,
		Notify:       bot.NotifyOptions{Idle: cfg.Notifies(config.NotifyIdle), Error: cfg.Notifies(config.NotifyError)},
	}
	bc.Servers = make(map[string]bot.Opencode, len(d.servers))
	for _, s := range d.servers {
		bc.Servers[s.name] = s.client
		if s.name == "" {
			bc.URL = s.url
		}
	}
	fes := make([]frontend.Frontend, len(d.chats))
	for i, c := range d.chats {
		if fes[i] = c.frontend(); fes[i] == nil {
			return fmt.Errorf("wire chat %d: no front-end", i)
		}
	}
	d.bridge = bot.NewBridge(bc, d.store, fes, log)
	// Requests of different sessions are handled side by side, so a burst
	// of questions is not posted one after the other; each server has
	// lanes of its own, so a listing after one server's connect waits for
	// that server's events only.
	for _, s := range d.servers {
		s.lanes = bot.NewLanes(d.bridge, 0)
	}
	for _, c := range d.chats {
		c.ready(ctx, d.bridge)
	}
	log.Info().Str("opencode", opencodeURLs(cfg)).Str("db", cfg.DBPath).Str("version", d.opts.Version).Msg("hermes-bot started")
	return nil
}

// opencodeURLs is OPENCODE_URL as served, for the start-up line: the URL,
// or the name=url list.
func opencodeURLs(cfg *config.Config) string {
	pairs := make([]string, len(cfg.Servers))
	for i, s := range cfg.Servers {
		pairs[i] = s.URL
		if s.Name != "" {
			pairs[i] = s.Name + "=" + s.URL
		}
	}
	return strings.Join(pairs, ",")
}

// start runs, until ctx ends: the closing edits a crash or a stop left
// unsent, the expiry sweep, each chat's input, and the opencode event
// stream. Requests stored but never posted are posted after the first
// connect to opencode (the bridge does it on server.connected), once the
// listing has closed those that went away meanwhile.
func (d *daemon) start(ctx context.Context) {
	release := releaseMapped(d.store, d.log)
	d.wg.Add(2 + len(d.chats) + len(d.servers))
	go func() {
		defer d.wg.Done()
		// The bridge sends owed edits again after each connect, but
		// opencode may be down now.
		d.bridge.SendOwed(ctx)
	}()
	go func() {
		defer d.wg.Done()
		expireLoop(ctx, d.bridge, sweepInterval(d.cfg.QuestionTTL), resendInterval, release, d.log)
	}()
	for _, c := range d.chats {
		go func() {
			defer d.wg.Done()
			c.serve(ctx)
		}()
	}
	for _, s := range d.servers {
		go func() {
			defer d.wg.Done()
			d.watch(ctx, s, release)
		}()
	}
}

// watch follows server s's event stream until ctx ends, listing after
// each connect the directories (opencode 1.x) or sessions (OpenCode 2)
// its held requests and live statuses come from.
func (d *daemon) watch(ctx context.Context, s *server, release func()) {
	log := d.log
	if s.name != "" {
		log = log.With().Str("server", s.name).Logger()
	}
	if err := s.client.Watch(ctx, settleAfterListing{lanes: s.lanes, release: release, server: s.name}, d.known(s.name, log)); err != nil && !errors.Is(err, context.Canceled) {
		log.Error().Err(d.redact.Error(err)).Msg("opencode event stream stopped")
	}
}

// known is what server lists after a connect besides what opencode names:
// the directories and sessions of its held requests, and the sessions
// with a live status, so an idle missed while away is seen.
func (d *daemon) known(server string, log zerolog.Logger) func(context.Context) opencode.Known {
	return func(context.Context) opencode.Known {
		var k opencode.Known
		var err error
		if k.Directories, err = d.store.DirectoriesOf(server); err != nil {
			log.Warn().Err(err).Msg("reading known directories from the store failed")
		}
		if k.Sessions, err = d.store.SessionsOf(server); err != nil {
			log.Warn().Err(err).Msg("reading known sessions from the store failed")
		}
		k.Sessions = append(k.Sessions, d.bridge.LiveSessions(server)...)
		return k
	}
}

// stop waits for what start ran, then lets the events and answers in hand
// finish and sends what closing edits it can in a short time.
func (d *daemon) stop() {
	d.log.Info().Msg("shutting down: stopping polling and the event stream")
	d.wg.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	for _, s := range d.servers {
		if err := s.lanes.Wait(sctx); err != nil {
			d.log.Warn().Err(err).Msg("opencode events in hand did not finish in time")
		}
	}
	for _, c := range d.chats {
		if err := c.wait(sctx); err != nil {
			d.log.Warn().Err(err).Msg("in-flight answers did not finish in time")
		}
	}
	if err := d.bridge.Wait(sctx); err != nil {
		d.log.Warn().Err(err).Msg("in-flight work on requests did not finish in time")
	}
	lctx, lcancel := context.WithTimeout(context.Background(), drainTimeout)
	d.bridge.EndLive(lctx)
	lcancel()
	dctx, dcancel := context.WithTimeout(context.Background(), drainTimeout)
	d.bridge.SendOwed(dctx)
	dcancel()
	for _, c := range d.chats {
		c.close()
	}
	d.log.Info().Msg("stopped")
}

// sweepInterval is how often requests past their TTL are closed: every
// 30 s, or more often when the TTL is so short that 30 s would more than
// double it.
func sweepInterval(ttl time.Duration) time.Duration {
	return max(time.Second, min(30*time.Second, ttl/2))
}

// resendInterval is how often requests never posted are tried again.
const resendInterval = 3 * time.Minute

// sweeper is the part of the bridge the expiry loop drives.
type sweeper interface {
	ExpireDue(ctx context.Context) error
	SendUnsent(ctx context.Context) error
}

// expireLoop closes expired requests at start-up and then every interval
// until ctx ends.
//
// Every resendInterval it also posts requests whose message could not be
// sent (the bot was removed from the group, Telegram was down): a stream
// that stays connected for days would otherwise leave them unposted until
// the next reconnect.
//
// After each round it calls settle, if set, to hand back the store pages
// the round and the writes since the last one left resident.
func expireLoop(ctx context.Context, bridge sweeper, interval, resendInterval time.Duration, settle func(), log zerolog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	lastResend := time.Now()
	for {
		if err := bridge.ExpireDue(ctx); err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("closing expired requests failed; retrying at the next sweep")
		}
		if time.Since(lastResend) >= resendInterval {
			lastResend = time.Now()
			if err := bridge.SendUnsent(ctx); err != nil && ctx.Err() == nil {
				log.Warn().Err(err).Msg("posting requests whose message could not be sent failed; retrying later")
			}
		}
		if settle != nil {
			settle()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// badStorePath tells whether err, from pending.Open, comes from the path
// itself (a folder that cannot be created, no permission, a read-only
// file system, a folder where the file should be) rather than from the
// file's content or a running hermes-bot holding it.
func badStorePath(err error) bool {
	if errors.Is(err, pending.ErrLocked) || errors.Is(err, pending.ErrCorrupt) {
		return false
	}
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR)
}

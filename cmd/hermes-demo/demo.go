package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/hermes-bot/hermes-bot/bot/daemon"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest"
	"github.com/hermes-bot/hermes-bot/bot/telegramtest/webview"
	"github.com/hermes-bot/hermes-bot/cmd/internal/cli"
	"github.com/hermes-bot/hermes-bot/config"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/opencode/opencodetest"
)

// The demo's group and people. The token only has to look like one: it
// goes to the fake Telegram, never to Telegram.
const (
	demoToken  = "4242424242:demo-token-for-the-built-in-fake"
	demoChatID = int64(-1004242424242)
	demoDir    = "/home/you/projects/shop"
	// demoAddr is where the page listens unless --addr says otherwise: a
	// port the system picks, on loopback only.
	demoAddr = "127.0.0.1:0"
)

// demoUsers are who the page lets a person act as: the first is on the
// allow-list, the second is not, to show what the allow-list does.
func demoUsers() []webview.User {
	return []webview.User{
		{User: telegramtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}, Note: "on the allow-list"},
		{User: telegramtest.User{ID: 1002, FirstName: "Mallory", Username: "mallory"}, Note: "not on the allow-list"},
	}
}

// demoPassThrough lists the settings the demo takes from the environment;
// every other one is the demo's own, so that a real token or chat in the
// environment is never used and nothing but loopback and the given
// OPENCODE_URL is contacted.
func demoPassThrough() []string {
	return []string{
		"OPENCODE_URL", "OPENCODE_SERVER_USERNAME", "OPENCODE_SERVER_PASSWORD",
		"HERMES_DB", "HERMES_LANG", "HERMES_LOG_LEVEL", "HERMES_LOG_FORMAT",
		"HERMES_AUTO_APPROVE", "HERMES_QUESTION_TTL", "HERMES_NOTIFY",
	}
}

// demoCommand runs the whole bridge in-process against the built-in fake
// Telegram and, unless OPENCODE_URL is set, the built-in fake opencode, and
// serves a page that shows the group and lets a person act in it.
type demoCommand struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

func (c *demoCommand) usage(fs *flag.FlagSet) func() {
	return func() {
		fmt.Fprint(fs.Output(), `Usage:
  hermes-demo [--addr 127.0.0.1:PORT]
  go run ./cmd/hermes-demo [--addr 127.0.0.1:PORT]    (in the source tree)

Runs hermes-bot, the whole bridge, in-process against a built-in fake of
Telegram and, unless OPENCODE_URL is set, a built-in fake opencode that
asks a question, a multiple-choice question, a question to answer by
typing, and a permission, one after the other, then starts over. Open the
page it prints: it shows the group as Telegram would, and lets you press the
buttons and reply, as a user on the allow-list or as one who is not.
Steering works too: reply to an answered request to prompt its session, or
send /sessions or /new; the fake takes the prompt and finishes the turn at
once. No bot, token or network is needed; nothing outside loopback is
contacted except OPENCODE_URL. The
address holds a secret made for this run: the page refuses requests
without it, and requests from other sites.

With OPENCODE_URL (and OPENCODE_SERVER_PASSWORD) set, the page shows that
server's real questions and permission requests, and your answers go to it.
The store is a temporary file, removed at exit, unless HERMES_DB is set.
Ctrl-C stops.

Flags:
`)
		fs.PrintDefaults()
	}
}

func (c *demoCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hermes-demo", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	addr := fs.String("addr", demoAddr, "address of the page: loopback only, such as 127.0.0.1:8080; port 0 picks a free one")
	fs.Usage = c.usage(fs)
	if err := cli.ParseFlags(fs, args, c.stdout); err != nil {
		return err
	}
	if err := checkLoopback(*addr); err != nil {
		return cli.UsageError{Err: fmt.Errorf("--addr %s: %w", *addr, err)}
	}
	d, err := startDemo(ctx, demoSettings{addr: *addr, getenv: c.getenv, log: c.stderr})
	if err != nil {
		return demoError(err)
	}
	fmt.Fprintf(c.stdout, "hermes-demo: open %s in a browser to see the group and answer as a user (Ctrl-C stops)\n", d.URL)
	return demoError(d.Wait())
}

// demoError makes a setting the demo cannot work with (a bad HERMES_DB or
// OPENCODE_URL, say) a cli.UsageError, exit 2, as hermes-bot serve does.
func demoError(err error) error {
	var ce *daemon.ConfigError
	var ve *config.ValidationError
	if errors.As(err, &ce) || errors.As(err, &ve) {
		return cli.UsageError{Err: err}
	}
	return err
}

// checkLoopback accepts only addresses on the loopback interface: the page
// lets whoever reaches it answer opencode.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want HOST:PORT: %w", err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return errors.New("the page must listen on loopback (127.0.0.1, ::1 or localhost): whoever reaches it can answer opencode")
	}
	return nil
}

// demoSettings are what startDemo takes.
type demoSettings struct {
	addr   string
	getenv func(string) string
	log    io.Writer // hermes-bot's log
	// settle is the page's wait for the bot after an action; 0: its default.
	settle time.Duration
	// heartbeat is the fake opencode's; 0: the real server's 10 s.
	heartbeat time.Duration
	// opencode are more options for the bridge's opencode client.
	opencode []opencode.ClientOption
}

// demo is one run of the demo: the fakes, the bridge and the page.
type demo struct {
	// URL is the page's address, http://127.0.0.1:port/SECRET/, where
	// SECRET is the run's; the page refuses any other (see pageGuard).
	URL    string
	secret string // the run's, in URL: the person's only copy
	tg     *telegramtest.Server
	oc     *opencodetest.Server // nil with a real OPENCODE_URL
	view   *webview.View

	script *demoScript     // nil with a real OPENCODE_URL
	done   <-chan struct{} // the demo's context ended
	cancel context.CancelFunc
	wg     sync.WaitGroup
	srv    *http.Server
	tmpDir string // removed at the end; "" when HERMES_DB was given

	mu  sync.Mutex
	err error // the first of the bridge's or the page's failures
}

// startDemo starts the fakes, the bridge and the page, and returns once
// the page is listening. Wait ends it when ctx ends or the bridge fails.
func startDemo(ctx context.Context, s demoSettings) (_ *demo, err error) {
	ctx, cancel := context.WithCancel(ctx)
	d := &demo{cancel: cancel, done: ctx.Done()}
	defer func() {
		if err != nil {
			err = errors.Join(err, d.close())
		}
	}()

	env := map[string]string{}
	for _, k := range demoPassThrough() {
		if v := s.getenv(k); v != "" {
			env[k] = v
		}
	}
	if env["HERMES_LOG_LEVEL"] == "" {
		env["HERMES_LOG_LEVEL"] = "warn" // the page is the demo's output
	}
	if env["HERMES_DB"] == "" {
		if d.tmpDir, err = os.MkdirTemp("", "hermes-bot-demo-"); err != nil {
			return nil, fmt.Errorf("demo: temporary store: %w", err)
		}
		env["HERMES_DB"] = filepath.Join(d.tmpDir, "pending.db")
	}

	d.tg = telegramtest.NewServer(demoToken, telegramtest.WithUsername("hermes_demo_bot"),
		telegramtest.WithFirstName("hermes-bot"))
	if err := d.tg.AddChat(demoChatID, telegramtest.ChatSupergroup); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	env["TELEGRAM_BOT_TOKEN"] = demoToken
	env["TELEGRAM_CHAT_ID"] = strconv.FormatInt(demoChatID, 10)
	users := demoUsers()
	env["TELEGRAM_ALLOWED_USER_IDS"] = strconv.FormatInt(users[0].ID, 10)
	env["TELEGRAM_API_URL"] = d.tg.URL
	env["HERMES_TELEGRAM_RATE"] = "0" // the fake has no rate limit to respect
	if env["OPENCODE_URL"] == "" {
		var opts []opencodetest.ServerOption
		if s.heartbeat > 0 {
			opts = append(opts, opencodetest.WithHeartbeat(s.heartbeat))
		}
		d.oc = opencodetest.NewServer(opts...)
		env["OPENCODE_URL"] = d.oc.URL
		delete(env, "OPENCODE_SERVER_USERNAME")
		delete(env, "OPENCODE_SERVER_PASSWORD")
		if env["HERMES_NOTIFY"] == "" {
			env["HERMES_NOTIFY"] = "idle" // the fake's finished turns show notices to reply to
		}
		d.script = newDemoScript(d.oc)
	}
	cfg, err := config.Load(config.Sources{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		return nil, fmt.Errorf("demo settings: %w", err)
	}

	opts := webview.Options{
		Title:  "hermes-bot demo: the Telegram group",
		Users:  users,
		Panels: d.panels(cfg.Servers[0].URL),
		Settle: s.settle,
	}
	if d.view, err = webview.New(d.tg, demoChatID, opts); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("demo: listen for the page on %s: %w", s.addr, err)
	}
	_, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("demo: the page's address %s: %w", ln.Addr(), err)
	}
	d.secret = rand.Text() // 26 base32 characters: 130 random bits
	d.URL = "http://" + ln.Addr().String() + "/" + d.secret + "/"
	d.srv = &http.Server{Handler: newPageGuard(d.secret, port, d.view), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}

	log := cli.NewLogger(cfg, s.log)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		err := daemon.Run(ctx, cfg, log, daemon.Options{Version: cli.BuildVersion(version), Opencode: s.opencode})
		if ctx.Err() == nil {
			// The bridge stopped by itself: the demo has nothing to show.
			err = errors.Join(err, errors.New("demo: the bridge stopped"))
		}
		d.fail(err)
	}()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		if err := d.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			d.fail(fmt.Errorf("demo page: %w", err))
		}
	}()
	if d.script != nil {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.script.run(ctx)
		}()
	}
	return d, nil
}

// fail keeps err, if it is the first, and stops the demo.
func (d *demo) fail(err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	if d.err == nil {
		d.err = err
	}
	d.mu.Unlock()
	d.cancel()
}

// Wait blocks until the demo's context ends or the bridge fails, then
// stops the page, the bridge and the fakes, removes the temporary store,
// and returns the first failure.
func (d *demo) Wait() error {
	d.wg.Add(1) // the page's shutdown, below, joins the others
	go func() {
		defer d.wg.Done()
		<-d.done
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := d.srv.Shutdown(sctx); err != nil {
			d.fail(fmt.Errorf("demo page: shut down: %w", err))
		}
	}()
	d.wg.Wait()
	err := d.close()
	d.mu.Lock()
	defer d.mu.Unlock()
	return errors.Join(d.err, err)
}

// close stops the fakes and removes the temporary store.
func (d *demo) close() error {
	d.cancel()
	if d.tg != nil {
		d.tg.Close()
	}
	if d.oc != nil {
		d.oc.Close()
	}
	if d.tmpDir != "" {
		if err := os.RemoveAll(d.tmpDir); err != nil {
			return fmt.Errorf("demo: remove the temporary store: %w", err)
		}
	}
	return nil
}

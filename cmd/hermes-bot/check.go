package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/bot/telegram"
	"github.com/hermes-bot/hermes-bot/cmd/internal/cli"
	"github.com/hermes-bot/hermes-bot/config"
	"github.com/hermes-bot/hermes-bot/opencode"
	"github.com/hermes-bot/hermes-bot/pending"
)

const (
	// checkTimeout bounds each call check makes to Telegram or opencode.
	checkTimeout = 10 * time.Second
	// checkLockTimeout is how long check waits for the store's lock: a
	// running hermes-bot holds it for good, so waiting longer tells nothing.
	checkLockTimeout = time.Second
	// testedOpencode is the opencode release line hermes-bot is tested with.
	testedOpencode = "1.18."
	// maxUserChecks bounds the getChatMember calls for allowed users.
	maxUserChecks = 10
)

// errCheckFailed is what check returns when a check failed; the report on
// standard output says which and how to fix it.
var errCheckFailed = errors.New("check failed: see the ✗ lines above")

// checkCommand loads the configuration the way serve does, then asks
// Telegram, opencode and the store whether hermes-bot could run with it.
type checkCommand struct {
	getenv         func(string) string
	environ        func() []string // nil: the environment is not searched for misspelled settings
	stdout, stderr io.Writer
	timeout        time.Duration      // per network call; checkTimeout when 0
	redact         *telegram.Redactor // for every text that comes from outside
}

const checkUsage = `Usage:
  hermes-bot check [--env-file PATH] [flags]

Checks what "hermes-bot serve" with the same settings would need: the
settings are valid, Telegram accepts the token and the bot can post in the
chat, opencode answers with the password given (each server, when
OPENCODE_URL names several), and the store can be opened.
Prints one line per check, with a fix for each problem. Exit status 0 when
all is well, 1 when something is wrong. It changes nothing.

Flags (the same as serve's):
`

func (c *checkCommand) Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("hermes-bot check", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	flags := registerConfigFlags(fs)
	fs.Usage = usage(fs, checkUsage)
	if err := cli.ParseFlags(fs, args, c.stdout); err != nil {
		return err
	}
	if c.timeout <= 0 {
		c.timeout = checkTimeout
	}

	r := &checkReport{w: c.stdout}
	cfg, unknown, err := flags.load(c.getenv, environOf(c.environ))
	if err != nil {
		r.fail("settings", err.Error(), settingsFix(err, *flags.envFile))
		warnUnknown(unknown, r)
		return r.finish()
	}
	secrets := []string{cfg.BotToken, cfg.MatrixAccessToken, cfg.MatrixPassword}
	for _, s := range cfg.Servers {
		secrets = append(secrets, s.Password)
	}
	c.redact = telegram.NewRedactor(secrets...)
	from := []string{"the environment"}
	if *flags.envFile != "" {
		from = append([]string{"the env-file " + *flags.envFile}, from...)
	}
	given := flags.given()
	delete(given, "env-file") // fs.Visit sees every flag, not only settings
	if len(given) > 0 {
		from = append(from, "flags")
	}
	r.ok("settings", "valid, from "+strings.Join(from, ", "))
	if text, fix := envFileWarning(*flags.envFile); text != "" {
		r.warn("settings", text, fix)
	}
	warnUnknown(unknown, r)
	if cfg.Telegram() && len(cfg.AllowedUserIDs) == 0 {
		r.warn("allowed users", "TELEGRAM_ALLOWED_USER_IDS is empty: any member of the chat may answer",
			`put your Telegram user ID in it (README, "Five-minute set-up", step 4)`)
		// Not counted as a warning: the one above already is.
		r.line("-", "steering", "off: TELEGRAM_ALLOWED_USER_IDS is empty, and continuing, starting or stopping sessions from the chat runs code with the agent's rights, so only the people named there may", "", "")
	}

	if cfg.Telegram() {
		c.checkTelegram(ctx, cfg, r)
	}
	if cfg.Matrix() {
		c.checkMatrix(ctx, cfg, r)
	}
	// One server that is down or refuses the password does not stop the
	// check of the next.
	for _, srv := range cfg.Servers {
		c.checkOpencodeServer(ctx, srv, r)
	}
	checkStore(cfg.DBPath, r)
	return r.finish()
}

// warnUnknown reports each variable named like a setting that is none.
func warnUnknown(unknown []config.Unknown, r *checkReport) {
	for _, u := range unknown {
		fix := "remove it, or rename it to a setting: deploy/hermes-bot.env.example lists them all"
		if u.Suggest != "" {
			fix = "rename it to " + u.Suggest
		}
		r.warn("settings", u.String(), fix)
	}
}

// checkReport prints one line per check as it finishes, so a slow check
// shows which one is waiting. Texts from outside (error messages, answers)
// reach it through checkCommand.reason, which removes the secrets.
type checkReport struct {
	w              io.Writer
	failed, warned int
}

func (r *checkReport) line(mark, name, text, hintKind, hint string) {
	fmt.Fprintf(r.w, "%s %s: %s\n", mark, name, text)
	if hint != "" {
		fmt.Fprintf(r.w, "    %s: %s\n", hintKind, hint)
	}
}

// ok reports a check that passed; note, if not empty, is worth knowing.
func (r *checkReport) okNote(name, text, note string) { r.line("✓", name, text, "note", note) }
func (r *checkReport) ok(name, text string)           { r.okNote(name, text, "") }

// warn reports something that works but may surprise; it does not fail check.
func (r *checkReport) warn(name, text, fix string) {
	r.warned++
	r.line("!", name, text, "fix", fix)
}

func (r *checkReport) fail(name, text, fix string) {
	r.failed++
	r.line("✗", name, text, "fix", fix)
}

// skip reports a check that could not run because one it needs failed:
// shown, so the report lists every check whatever fails first, and not
// counted, as its cause already is.
func (r *checkReport) skip(name, why string) { r.line("-", name, "not checked: "+why, "", "") }

func (r *checkReport) finish() error {
	switch {
	case r.failed > 0:
		fmt.Fprintf(r.w, "%s, %s.\n", plural(r.failed, "problem"), plural(r.warned, "warning"))
		return errCheckFailed
	case r.warned > 0:
		fmt.Fprintf(r.w, "Ready to run, with %s.\n", plural(r.warned, "warning"))
	default:
		fmt.Fprintln(r.w, "All good: ready to run.")
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// reason is the part of a failed call worth showing, without secrets: the
// network error without the request URL, or the answer's description.
func (c *checkCommand) reason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", c.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return c.redact.String(err.Error())
}

func (c *checkCommand) checkTelegram(ctx context.Context, cfg *config.Config, r *checkReport) {
	tg, err := tgbot.New(cfg.BotToken,
		tgbot.WithSkipGetMe(),
		tgbot.WithServerURL(cfg.TelegramAPIURL),
		tgbot.WithHTTPClient(c.timeout, &http.Client{Timeout: c.timeout}),
		tgbot.WithErrorsHandler(func(error) {}),
	)
	if err != nil {
		r.fail("telegram", c.reason(err), "check TELEGRAM_BOT_TOKEN")
		notChecked(cfg, r, true, "needs a Telegram client")
		return
	}
	call := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, c.timeout) }

	cctx, cancel := call()
	me, err := tg.GetMe(cctx)
	cancel()
	var ue *url.Error
	switch {
	case err == nil:
		r.ok("telegram bot", fmt.Sprintf("@%s (ID %d)", me.Username, me.ID))
	case errors.Is(err, tgbot.ErrorUnauthorized) || errors.Is(err, tgbot.ErrorNotFound):
		r.fail("telegram bot", "Telegram refused the bot token",
			"copy the token again from @BotFather (/mybots → your bot → API Token) into TELEGRAM_BOT_TOKEN")
		notChecked(cfg, r, true, "needs a bot token Telegram accepts")
		return
	case errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded):
		r.fail("telegram bot", fmt.Sprintf("cannot reach Telegram at %s: %s", cfg.TelegramAPIURL, c.reason(err)),
			"check this machine's network, DNS, firewall or proxy (HTTPS_PROXY), and TELEGRAM_API_URL")
		notChecked(cfg, r, true, "Telegram could not be reached")
		return
	default:
		r.fail("telegram bot", "Telegram answered getMe with an error: "+c.reason(err),
			"try again in a minute; if it persists, check TELEGRAM_API_URL")
		notChecked(cfg, r, true, "needs Telegram to answer getMe")
		return
	}

	name := fmt.Sprintf("telegram chat %d", cfg.ChatID)
	cctx, cancel = call()
	chat, err := tg.GetChat(cctx, &tgbot.GetChatParams{ChatID: cfg.ChatID})
	cancel()
	if err != nil {
		var migrated *tgbot.MigrateError
		switch {
		case errors.As(err, &migrated):
			r.fail(name, fmt.Sprintf("the group became a supergroup with the ID %d", migrated.MigrateToChatID),
				fmt.Sprintf("set TELEGRAM_CHAT_ID=%d", migrated.MigrateToChatID))
		case errors.Is(err, tgbot.ErrorBadRequest) && strings.Contains(err.Error(), "chat not found"):
			r.fail(name, "chat not found",
				"is the bot in the group, and is TELEGRAM_CHAT_ID right? Add @"+me.Username+" to the group; "+
					`group IDs are negative, supergroup IDs start with -100 (README, "Five-minute set-up", step 3); `+
					"for a private chat, send the bot /start first")
		case errors.Is(err, tgbot.ErrorForbidden):
			r.fail(name, "Telegram says: "+strings.TrimPrefix(c.reason(err), "forbidden, "),
				"add @"+me.Username+" to the group again")
		default:
			r.fail(name, "getChat failed: "+c.reason(err), "try again in a minute")
		}
		notChecked(cfg, r, false, "needs the chat")
		return
	}
	what := fmt.Sprintf("%q, a %s", chat.Title, chat.Type)
	switch chat.Type {
	case models.ChatTypePrivate:
		r.ok(name, fmt.Sprintf("a private chat with %s: every message reaches the bot", chat.FirstName))
		notChecked(cfg, r, false, "the chat is a private one")
		return
	case models.ChatTypeChannel:
		r.warn(name, what+": buttons work, but typed answers (replies to the bot) do not in a channel",
			"use a group and set TELEGRAM_CHAT_ID to its ID")
		notChecked(cfg, r, false, "the chat is a channel")
		return
	}

	cctx, cancel = call()
	m, err := tg.GetChatMember(cctx, &tgbot.GetChatMemberParams{ChatID: cfg.ChatID, UserID: me.ID})
	cancel()
	if err != nil {
		r.warn(name, what+"; the bot's membership could not be read: "+c.reason(err), "")
	} else {
		c.reportBotMember(name, what, me, m, r)
	}
	c.checkAllowedUsers(ctx, tg, cfg, r)
}

// notChecked reports the checks after a failed one that needed it: the
// chat's, when chat is set, and the allowed users' when there are any
// (when there are none, check has already warned about that).
func notChecked(cfg *config.Config, r *checkReport, chat bool, why string) {
	if chat {
		r.skip(fmt.Sprintf("telegram chat %d", cfg.ChatID), why)
	}
	if len(cfg.AllowedUserIDs) > 0 {
		r.skip("allowed users", why)
	}
}

func (c *checkCommand) reportBotMember(name, what string, me *models.User, m *models.ChatMember, r *checkReport) {
	privacy := "privacy mode is on: the bot receives button presses and replies to its own messages, " +
		"which is all hermes-bot needs; a typed answer must be a reply to the bot's prompt"
	switch m.Type {
	case models.ChatMemberTypeOwner, models.ChatMemberTypeAdministrator:
		r.ok(name, what+"; the bot is an admin and sees every message")
	case models.ChatMemberTypeLeft, models.ChatMemberTypeBanned:
		r.fail(name, what+fmt.Sprintf("; the bot is not a member (%s)", m.Type), "add @"+me.Username+" to the group")
	case models.ChatMemberTypeRestricted:
		if m.Restricted == nil || !m.Restricted.CanSendMessages {
			r.fail(name, what+"; the bot may not send messages there",
				"let it: the group's settings → Permissions, or make the bot an admin")
			return
		}
		fallthrough
	default:
		if me.CanReadAllGroupMessages {
			r.ok(name, what+"; the bot is a member with privacy mode off and sees every message")
			return
		}
		r.okNote(name, what+"; the bot is a member", privacy)
	}
}

// checkAllowedUsers warns about IDs in TELEGRAM_ALLOWED_USER_IDS that are
// not members of the chat: usually a typo, or a chat ID pasted instead.
func (c *checkCommand) checkAllowedUsers(ctx context.Context, tg *tgbot.Bot, cfg *config.Config, r *checkReport) {
	ids := cfg.AllowedUserIDs
	if len(ids) == 0 {
		return
	}
	if len(ids) > maxUserChecks {
		ids = ids[:maxUserChecks]
	}
	var names, missing []string
	for _, id := range ids {
		cctx, cancel := context.WithTimeout(ctx, c.timeout)
		m, err := tg.GetChatMember(cctx, &tgbot.GetChatMemberParams{ChatID: cfg.ChatID, UserID: id})
		cancel()
		u := memberUser(m)
		switch {
		case err != nil && !errors.Is(err, tgbot.ErrorBadRequest):
			r.warn("allowed users", fmt.Sprintf("could not look up user %d: %s", id, c.reason(err)), "")
			return
		case err != nil, u == nil, m.Type == models.ChatMemberTypeLeft, m.Type == models.ChatMemberTypeBanned:
			missing = append(missing, fmt.Sprint(id))
		default:
			names = append(names, displayName(u))
		}
	}
	if len(missing) > 0 {
		r.warn("allowed users", "not members of the chat: "+strings.Join(missing, ", "),
			`check TELEGRAM_ALLOWED_USER_IDS: a user ID is the "from":{"id":…} of that person's message in getUpdates (README, "Five-minute set-up")`)
		return
	}
	text := strings.Join(names, ", ")
	if len(ids) < len(cfg.AllowedUserIDs) {
		text += fmt.Sprintf(" (the first %d of %d checked)", len(ids), len(cfg.AllowedUserIDs))
	}
	r.ok("allowed users", text)
}

func memberUser(m *models.ChatMember) *models.User {
	if m == nil {
		return nil
	}
	switch m.Type {
	case models.ChatMemberTypeOwner:
		return m.Owner.User
	case models.ChatMemberTypeAdministrator:
		return &m.Administrator.User
	case models.ChatMemberTypeMember:
		return m.Member.User
	case models.ChatMemberTypeRestricted:
		return m.Restricted.User
	case models.ChatMemberTypeLeft:
		return m.Left.User
	case models.ChatMemberTypeBanned:
		return m.Banned.User
	}
	return nil
}

func displayName(u *models.User) string {
	if u.Username != "" {
		return "@" + u.Username
	}
	return strings.TrimSpace(u.FirstName + " " + u.LastName)
}

// checkOpencodeServer reports on one server. The unnamed one (OPENCODE_URL
// a single URL) is reported as it was before servers had names; a named
// one's lines carry its name, and name the variables that set its own
// credentials as well as the shared ones.
func (c *checkCommand) checkOpencodeServer(ctx context.Context, srv config.Server, r *checkReport) {
	name, pwName := "opencode "+srv.URL, "opencode password"
	// pwVar is the password's variable as "wrong …" and "… is empty" say
	// it; setPw and userVar as a fix says to set them.
	pwVar, setPw, userVar := "OPENCODE_SERVER_PASSWORD", "OPENCODE_SERVER_PASSWORD", "OPENCODE_SERVER_USERNAME is"
	if srv.Name != "" {
		name, pwName = "opencode "+srv.Name+" "+srv.URL, "opencode "+srv.Name+" password"
		pwVar = srv.PasswordVar() + " (else OPENCODE_SERVER_PASSWORD)"
		setPw = srv.PasswordVar() + " (or OPENCODE_SERVER_PASSWORD, for every server)"
		userVar = srv.UsernameVar() + " (else OPENCODE_SERVER_USERNAME) gives"
	}
	r.line("-", name, c.foundAt(srv), "", "")
	oc, err := opencode.NewClient(srv.URL, opencode.WithBasicAuth(srv.Username, srv.Password))
	if err != nil {
		r.fail(name, c.reason(err), "correct OPENCODE_URL")
		return
	}
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	h, err := oc.Probe(cctx)
	cancel()
	start := "start it, for example: OPENCODE_SERVER_PASSWORD=… opencode serve --port 4096 --hostname 127.0.0.1; or correct OPENCODE_URL"
	// The service file's password is not the settings': a stale file
	// is the likelier cause of a refusal or of nobody listening.
	stale := "the service file may be stale: start the OpenCode service again, or set OPENCODE_URL"
	switch {
	case srv.ServiceFile != "" && errors.Is(err, opencode.ErrUnauthorized):
		r.fail(name, "opencode refused the password of the service file (HTTP 401)", stale)
	case srv.ServiceFile != "" && errors.As(err, new(*url.Error)): // no answer at all
		r.fail(name, "cannot reach the server the service file names: "+c.reason(err), stale)
	case errors.Is(err, opencode.ErrUnsupportedServer):
		r.fail(name, err.Error(), "run opencode "+testedOpencode+"x instead (npm install -g opencode-ai@1.18), or point OPENCODE_URL at one")
	case errors.Is(err, opencode.ErrNoRoute):
		r.fail(name, "web pages there, not opencode's JSON: not an opencode server, or not its address", "correct OPENCODE_URL")
	case errors.Is(err, opencode.ErrUnauthorized) && srv.Password == "":
		r.fail(name, "opencode wants a password and "+pwVar+" is empty",
			"set "+setPw+" to the password opencode serve was started with")
	case errors.Is(err, opencode.ErrUnauthorized):
		r.fail(name, "wrong "+pwVar+": opencode refused it (HTTP 401)",
			fmt.Sprintf("use the password opencode serve was started with (and its user: %s %q)", userVar, srv.Username))
	case errors.Is(err, opencode.ErrNotFound):
		r.fail(name, "no /global/health there (HTTP 404): not an opencode server, or not its address", "correct OPENCODE_URL")
	case err != nil:
		var apiErr *opencode.APIError
		if errors.As(err, &apiErr) {
			r.fail(name, fmt.Sprintf("opencode answered HTTP %d", apiErr.Status), "look at opencode's own log")
			return
		}
		r.fail(name, "cannot reach opencode: "+c.reason(err), start)
	case !h.Healthy:
		r.fail(name, "opencode says it is not healthy (version "+h.Version+")", "look at opencode's own log, or restart it")
	case h.Generation == 2:
		r.ok(name, "healthy, OpenCode 2, version "+h.Version+" (served as its published definitions describe it; "+
			"a mismatch is worth a report with this output and the server's log)")
	case !strings.HasPrefix(h.Version, testedOpencode):
		r.warn(name, fmt.Sprintf("healthy, version %s; hermes-bot is tested with %sx", h.Version, testedOpencode),
			"it may work; if questions do not arrive, use opencode "+testedOpencode+"x (npm install -g opencode-ai@1.18)")
	default:
		r.ok(name, "healthy, opencode 1.x, version "+h.Version)
	}
	if err == nil && srv.Password == "" {
		r.warn(pwName, pwVar+" is empty and opencode accepts that: anyone who can reach "+
			srv.URL+" can drive your agent",
			"start opencode with OPENCODE_SERVER_PASSWORD=… and put the same password in hermes-bot's settings")
	}
	if err == nil && srv.Password != "" && c.acceptsAnyone(ctx, srv) {
		r.warn(pwName, "opencode accepts requests without a password; the one in "+pwVar+
			" is not needed, and anyone who can reach "+srv.URL+" can drive your agent",
			"start opencode with OPENCODE_SERVER_PASSWORD set to that same password, so that it asks for it")
	}
}

// acceptsAnyone reports whether srv answers a request without credentials.
func (c *checkCommand) acceptsAnyone(ctx context.Context, srv config.Server) bool {
	oc, err := opencode.NewClient(srv.URL)
	if err != nil {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	_, err = oc.Probe(cctx)
	return err == nil
}

// foundAt says where srv's URL came from: OPENCODE_URL, the OpenCode
// service file, or the default when auto found no file.
func (c *checkCommand) foundAt(srv config.Server) string {
	switch {
	case srv.ServiceFile != "":
		return "found in the OpenCode service file " + srv.ServiceFile
	case !srv.Auto:
		return "from OPENCODE_URL"
	}
	what := "OPENCODE_URL is auto (or unset)"
	if srv.Name != "" {
		what = "OPENCODE_URL says " + srv.Name + "=auto"
	}
	if path, err := opencode.ServiceFilePath(c.getenv); err == nil {
		return "the default: " + what + " and there is no OpenCode service file at " + path
	}
	return "the default: " + what + " and there is no OpenCode service file"
}

// storeFix is the advice for a HERMES_DB that cannot be opened or created.
const storeFix = "set HERMES_DB to an absolute path of a file you can read and write, in a folder you can write " +
	"(unset, it is $XDG_STATE_HOME/hermes-bot/pending.db, or ~/.local/state/hermes-bot/pending.db)"

// checkStore opens the store the way serve would, without creating it and
// without waiting on a running hermes-bot, which holds its lock for good.
func checkStore(path string, r *checkReport) {
	name := "store " + path
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if dir, err := creatableIn(path); err != nil {
			fix := storeFix
			// Permissions are worth fixing only on a folder of one's own:
			// not on /proc, say, or another user's.
			if errors.Is(err, fs.ErrPermission) && ownedByMe(dir) {
				fix += ", or fix the permissions of " + dir
			}
			r.fail(name, "cannot be created: "+err.Error(), fix)
			return
		}
		r.ok(name, "does not exist yet; hermes-bot creates it at start")
		return
	case err != nil:
		r.fail(name, err.Error(), storeFix)
		return
	case st.IsDir():
		r.fail(name, "is a folder", "set HERMES_DB to a file in it, such as "+filepath.Join(path, "pending.db"))
		return
	}
	store, err := pending.Open(path, pending.WithLockTimeout(checkLockTimeout))
	switch {
	case errors.Is(err, pending.ErrLocked):
		r.warn(name, "in use by a running hermes-bot, so not opened",
			"fine if that is your service; otherwise stop the other hermes-bot before you start one")
		return
	case errors.Is(err, pending.ErrTooOld):
		r.fail(name, "written by a hermes-bot older than "+pending.OldestRelease+", whose records this one no longer reads",
			fmt.Sprintf("open it once with hermes-bot %s (its hermes-bot check is enough), which rewrites it; "+
				"or move it aside (mv %s %s.old): hermes-bot starts with an empty store and finds requests in flight again from opencode",
				pending.OldestRelease, shellQuote(path), shellQuote(path)))
		return
	case errors.Is(err, pending.ErrCorrupt):
		r.fail(name, "damaged or not a hermes-bot store",
			fmt.Sprintf("move it aside (mv %s %s.broken): hermes-bot starts with an empty store and finds requests in flight again from opencode",
				shellQuote(path), shellQuote(path)))
		return
	case err != nil:
		r.fail(name, err.Error(), storeFix)
		return
	}
	defer store.Close()
	entries, err := store.List()
	if err != nil {
		r.fail(name, "cannot read it: "+err.Error(), "")
		return
	}
	r.ok(name, plural(len(entries), "request")+" in flight")
}

// creatableIn tells whether the folders and file of path could be created:
// it writes and removes a scratch file in the nearest existing folder. It
// returns that folder.
func creatableIn(path string) (string, error) {
	dir := filepath.Dir(path)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return dir, fmt.Errorf("%s is not a folder", dir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return dir, err
		}
		dir = filepath.Dir(dir)
	}
	f, err := os.CreateTemp(dir, ".hermes-bot-check-*")
	if err != nil {
		return dir, err
	}
	f.Close()
	return dir, os.Remove(f.Name())
}

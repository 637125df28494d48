package config

import (
	"errors"
	"flag"
	"fmt"
	"github.com/hermes-bot/hermes-bot/bot/i18n"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Config is every setting of hermes-bot.
type Config struct {
	BotToken       string
	ChatID         int64
	ThreadID       int     // forum topic to post in; 0: the chat or the General topic
	AllowedUserIDs []int64 // empty: any member of the chat may answer
	TelegramAPIURL string

	// Matrix is the Matrix chat; its zero value: none (see Matrix).
	MatrixHomeserverURL  string
	MatrixUserID         string
	MatrixAccessToken    string
	MatrixPassword       string
	MatrixRoomID         string
	MatrixAllowedUserIDs []string

	// Servers are the opencode servers OPENCODE_URL gives, in its order,
	// with their credentials; Load always fills it, with one server
	// named "" when OPENCODE_URL is a single URL.
	Servers []Server
	// The credentials every server gets unless it has its own
	// (OPENCODE_SERVER_USERNAME and _PASSWORD).
	sharedUsername, sharedPassword string

	DBPath       string
	QuestionTTL  time.Duration
	TelegramRate int // messages per minute per chat; 0: no pacing

	LogLevel  string // zerolog level name
	LogFormat string // "console", "json", or "" to choose by terminal

	Notify      []string // notifications to post: NotifyIdle, NotifyError
	AutoApprove string   // "off" or "low"
	HTTPAddr    string   // health and metrics listener; "" = off

	TopicPerProject bool // one forum topic per project directory

	Lang string // language of every text the bot writes: "en" or "zh"

	StaleSteer time.Duration // a steering message older than this asks first; 0: never
	MaxUpload  int64         // bytes of files per prompt or /file; 0: no files

	ContextLines int      // lines of what the agent did shown above each request; 0: none
	QuickReplies []string // stock replies offered as buttons for a typed answer
	LiveStatus   bool     // a status message per busy session
}

// Notification kinds HERMES_NOTIFY accepts.
const (
	NotifyIdle  = "idle"
	NotifyError = "error"
)

// Notifies reports whether kind is among the notifications asked for.
func (c *Config) Notifies(kind string) bool { return slices.Contains(c.Notify, kind) }

// Setting describes one configuration variable.
type Setting struct {
	Env     string // environment variable
	Flag    string // flag name, without dashes
	Default string // shown in usage; "" when none or computed
	Usage   string
	Secret  bool
	set     func(c *Config, v string) error
}

// Settings lists every variable in the order a person reads them.
func Settings() []Setting {
	return []Setting{
		{Env: "TELEGRAM_BOT_TOKEN", Flag: "telegram-bot-token", Secret: true,
			Usage: "bot token from @BotFather (with TELEGRAM_CHAT_ID, the chat requests go to; one chat is required; prefer the environment or an env-file)",
			set:   func(c *Config, v string) error { c.BotToken = v; return nil }},
		{Env: "TELEGRAM_CHAT_ID", Flag: "telegram-chat-id",
			Usage: "ID of the group or chat where requests are posted (required with TELEGRAM_BOT_TOKEN)",
			set: func(c *Config, v string) error {
				return parseInto(&c.ChatID, v, parseInt64, func(n int64) bool { return n != 0 },
					"want a non-zero integer such as -1001234567890")
			}},
		{Env: "TELEGRAM_THREAD_ID", Flag: "telegram-thread-id",
			Usage: "forum topic (message_thread_id) to post requests in; empty: the chat, or a forum's General topic",
			set: func(c *Config, v string) error {
				return parseInto(&c.ThreadID, v, strconv.Atoi, func(n int) bool { return n >= 0 },
					"want a topic's message_thread_id, a whole number ≥ 0")
			}},
		{Env: "TELEGRAM_ALLOWED_USER_IDS", Flag: "telegram-allowed-user-ids",
			Usage: "comma-separated user IDs that may answer; empty: any member of the chat",
			set: func(c *Config, v string) error {
				c.AllowedUserIDs = nil
				if strings.TrimSpace(v) == "" {
					return nil // empty: any member, which serve and check warn about
				}
				for _, f := range strings.Split(v, ",") {
					f = strings.TrimSpace(f)
					if f == "" {
						continue
					}
					id, err := strconv.ParseInt(f, 10, 64)
					if err != nil || id <= 0 {
						return fmt.Errorf("%q is not a user ID (a positive integer)", f)
					}
					c.AllowedUserIDs = append(c.AllowedUserIDs, id)
				}
				if len(c.AllowedUserIDs) == 0 {
					// Someone meant to restrict who may answer and wrote
					// no ID: letting everyone answer would turn a typo
					// into an open door.
					return fmt.Errorf("holds no user ID: want IDs such as 123456789,987654321, or leave it empty to let any member of the chat answer")
				}
				return nil
			}},
		{Env: "TELEGRAM_API_URL", Flag: "telegram-api-url", Default: "https://api.telegram.org",
			Usage: "Bot API server",
			set:   func(c *Config, v string) error { c.TelegramAPIURL = strings.TrimRight(v, "/"); return checkURL(v) }},
		{Env: "MATRIX_HOMESERVER_URL", Flag: "matrix-homeserver-url",
			Usage: "Matrix homeserver (client-server API base, such as https://matrix.example.org); with MATRIX_USER_ID, MATRIX_ROOM_ID, MATRIX_ALLOWED_USER_IDS and a token or password, requests also go to a Matrix room",
			set: func(c *Config, v string) error {
				c.MatrixHomeserverURL = strings.TrimRight(strings.TrimSpace(v), "/")
				return checkURL(c.MatrixHomeserverURL)
			}},
		{Env: "MATRIX_USER_ID", Flag: "matrix-user-id",
			Usage: "the bot's Matrix account, @name:server",
			set: func(c *Config, v string) error {
				c.MatrixUserID = strings.TrimSpace(v)
				return checkMatrixID(c.MatrixUserID, '@', "@hermes:example.org")
			}},
		{Env: "MATRIX_ACCESS_TOKEN", Flag: "matrix-access-token", Secret: true,
			Usage: "the bot account's access token (or MATRIX_PASSWORD; prefer the environment or an env-file)",
			set:   func(c *Config, v string) error { c.MatrixAccessToken = strings.TrimSpace(v); return nil }},
		{Env: "MATRIX_PASSWORD", Flag: "matrix-password", Secret: true,
			Usage: "the bot account's password, to log in once and keep the device (instead of MATRIX_ACCESS_TOKEN)",
			set:   func(c *Config, v string) error { c.MatrixPassword = v; return nil }},
		{Env: "MATRIX_ROOM_ID", Flag: "matrix-room-id",
			Usage: "the room requests are posted in, !id:server (the bot joins it when invited)",
			set: func(c *Config, v string) error {
				c.MatrixRoomID = strings.TrimSpace(v)
				return checkMatrixID(c.MatrixRoomID, '!', "!AbCdEf:example.org")
			}},
		{Env: "MATRIX_ALLOWED_USER_IDS", Flag: "matrix-allowed-user-ids",
			Usage: "comma-separated Matrix user IDs that may answer and steer (required with Matrix)",
			set: func(c *Config, v string) error {
				c.MatrixAllowedUserIDs = nil
				for _, f := range strings.Split(v, ",") {
					if f = strings.TrimSpace(f); f == "" {
						continue
					}
					if err := checkMatrixID(f, '@', "@me:example.org"); err != nil {
						return err
					}
					c.MatrixAllowedUserIDs = append(c.MatrixAllowedUserIDs, f)
				}
				if len(c.MatrixAllowedUserIDs) == 0 {
					return fmt.Errorf("holds no user ID: want IDs such as @me:example.org,@you:example.org")
				}
				return nil
			}},
		{Env: "OPENCODE_URL", Flag: "opencode-url", Default: AutoURL,
			Usage: "opencode server: a URL, or auto: the URL and password of the OpenCode service file, else " + DefaultOpencodeURL +
				"; or several, as comma-separated name=url pairs, one url may be auto (laptop=auto,ci=http://10.0.0.5:4096)",
			set: func(c *Config, v string) (err error) {
				c.Servers, err = parseServers(v)
				return err
			}},
		{Env: "OPENCODE_SERVER_USERNAME", Flag: "opencode-username", Default: "opencode",
			Usage: "opencode basic-auth user; OPENCODE_SERVER_USERNAME_<NAME> sets server NAME's own",
			set:   func(c *Config, v string) error { c.sharedUsername = v; return nil }},
		{Env: "OPENCODE_SERVER_PASSWORD", Flag: "opencode-password", Secret: true,
			Usage: "opencode basic-auth password (prefer the environment or an env-file); OPENCODE_SERVER_PASSWORD_<NAME> sets server NAME's own",
			set:   func(c *Config, v string) error { c.sharedPassword = v; return nil }},
		{Env: "HERMES_DB", Flag: "db",
			Usage: "bbolt file of requests in flight (default $XDG_STATE_HOME/hermes-bot/pending.db)",
			set: func(c *Config, v string) error {
				if !filepath.IsAbs(v) {
					return fmt.Errorf("want an absolute path")
				}
				c.DBPath = v
				return nil
			}},
		{Env: "HERMES_QUESTION_TTL", Flag: "question-ttl", Default: "30m",
			Usage: "how long a request waits for an answer",
			set: func(c *Config, v string) error {
				return parseInto(&c.QuestionTTL, v, time.ParseDuration,
					func(d time.Duration) bool { return d >= time.Second }, "want a duration of at least 1s, such as 30m")
			}},
		{Env: "HERMES_TELEGRAM_RATE", Flag: "telegram-rate", Default: "20",
			Usage: "messages per minute per chat the bot allows itself; 0: no pacing",
			set: func(c *Config, v string) error {
				return parseInto(&c.TelegramRate, v, strconv.Atoi, func(n int) bool { return n >= 0 },
					"want a whole number ≥ 0")
			}},
		{Env: "HERMES_LOG_LEVEL", Flag: "log-level", Default: "info",
			Usage: "trace, debug, info, warn or error",
			set: func(c *Config, v string) error {
				return choose(&c.LogLevel, v, "want trace, debug, info, warn or error", "trace", "debug", "info", "warn", "error")
			}},
		{Env: "HERMES_LOG_FORMAT", Flag: "log-format",
			Usage: "console or json (default console on a terminal, else json)",
			set: func(c *Config, v string) error {
				return choose(&c.LogFormat, v, "want console or json", "", "console", "json")
			}},
		{Env: "HERMES_NOTIFY", Flag: "notify",
			Usage: "comma-separated notifications to post: idle (a session finished), error (a session failed)",
			set: func(c *Config, v string) error {
				c.Notify = nil
				for _, f := range strings.Split(v, ",") {
					f = strings.ToLower(strings.TrimSpace(f))
					switch f {
					case "":
					case NotifyIdle, NotifyError:
						if !slices.Contains(c.Notify, f) {
							c.Notify = append(c.Notify, f)
						}
					default:
						return fmt.Errorf("%q is not a notification: want idle and/or error", f)
					}
				}
				return nil
			}},
		{Env: "HERMES_AUTO_APPROVE", Flag: "auto-approve", Default: "off",
			Usage: "off, or low: allow permission requests rated low risk without asking",
			set: func(c *Config, v string) error {
				return choose(&c.AutoApprove, v, "want off or low", "off", "low")
			}},
		{Env: "HERMES_HTTP_ADDR", Flag: "http-addr",
			Usage: "serve /healthz and /metrics on this address (a bare :port means 127.0.0.1:port); empty: off",
			set: func(c *Config, v string) error {
				v = strings.TrimSpace(v)
				host, port, err := net.SplitHostPort(v)
				if err != nil {
					return fmt.Errorf("want host:port or :port")
				}
				if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
					return fmt.Errorf("want a port number from 0 to 65535")
				}
				if host == "" {
					host = "127.0.0.1" // loopback unless asked otherwise
				}
				c.HTTPAddr = net.JoinHostPort(host, port)
				return nil
			}},
		{Env: "HERMES_TOPIC_PER_PROJECT", Flag: "topic-per-project", Default: "0",
			Usage: "1: post each project's requests in a forum topic of its own, created on first use (the group must be a forum)",
			set: func(c *Config, v string) error {
				return parseInto(&c.TopicPerProject, v, strconv.ParseBool, func(bool) bool { return true }, "want 1 or 0")
			}},
		{Env: "HERMES_LANG", Flag: "lang", Default: i18n.Languages()[0],
			Usage: "language of the messages the bot writes: " + strings.Join(i18n.Languages(), ", ") + " (" + languageNames() + ")",
			set: func(c *Config, v string) error {
				return choose(&c.Lang, v, "want one of "+strings.Join(i18n.Languages(), ", "), i18n.Languages()...)
			}},
		{Env: "HERMES_STALE_STEER", Flag: "stale-steer", Default: "5m",
			Usage: "a steering message older than this (Telegram kept it while hermes-bot was down) is sent only after a tap; 0: always sent",
			set: func(c *Config, v string) error {
				return parseInto(&c.StaleSteer, v, time.ParseDuration,
					func(d time.Duration) bool { return d == 0 || d >= time.Second },
					"want 0 or a duration of at least 1s, such as 5m")
			}},
		{Env: "HERMES_MAX_UPLOAD", Flag: "max-upload", Default: strconv.Itoa(DefaultMaxUpload>>20) + "MB",
			Usage: "most bytes of files sent to the agent with one prompt, or sent by /file (such as 10MB, 512KB); 0: no files",
			set: func(c *Config, v string) (err error) {
				c.MaxUpload, err = parseSize(v)
				return err
			}},
		{Env: "HERMES_CONTEXT_LINES", Flag: "context-lines", Default: strconv.Itoa(DefaultContextLines),
			Usage: "how many lines of what the agent wrote before asking each request shows above it; 0: none",
			set: func(c *Config, v string) error {
				return parseInto(&c.ContextLines, v, strconv.Atoi,
					func(n int) bool { return n >= 0 && n <= MaxContextLines },
					fmt.Sprintf("want a number from 0 to %d", MaxContextLines))
			}},
		{Env: "HERMES_QUICK_REPLIES", Flag: "quick-replies",
			Usage: "stock replies offered as buttons where a typed answer is taken, separated by |, such as \"Yes, go ahead|No, stop\"",
			set: func(c *Config, v string) (err error) {
				c.QuickReplies, err = parseQuickReplies(v)
				return err
			}},
		{Env: "HERMES_LIVE_STATUS", Flag: "live-status", Default: "off",
			Usage: "on: one silent status message per busy session, edited every few seconds (current step, time, tokens, cost)",
			set: func(c *Config, v string) error {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "on", "1", "true":
					c.LiveStatus = true
				case "off", "0", "false":
					c.LiveStatus = false
				default:
					return fmt.Errorf("want on or off")
				}
				return nil
			}},
	}
}

// DefaultContextLines is HERMES_CONTEXT_LINES's default, and
// MaxContextLines its most: a few lines on a phone's screen.
const (
	DefaultContextLines = 3
	MaxContextLines     = 10
)

// The limits of HERMES_QUICK_REPLIES: a few buttons, each readable on a
// phone (Telegram clients cut longer labels).
const (
	MaxQuickReplies     = 6
	MaxQuickReplyLen    = 40
	quickReplySeparator = "|"
)

// choose sets *dst to v, trimmed and lower-cased, if it is one of allowed;
// else it fails with want.
func choose(dst *string, v, want string, allowed ...string) error {
	v = strings.ToLower(strings.TrimSpace(v))
	if !slices.Contains(allowed, v) {
		return errors.New(want)
	}
	*dst = v
	return nil
}

// parseInto sets *dst to v, trimmed and parsed, if parse takes it and ok
// accepts the result; else it fails with want.
func parseInto[T any](dst *T, v string, parse func(string) (T, error), ok func(T) bool, want string) error {
	x, err := parse(strings.TrimSpace(v))
	if err != nil || !ok(x) {
		return errors.New(want)
	}
	*dst = x
	return nil
}

func parseInt64(v string) (int64, error) { return strconv.ParseInt(v, 10, 64) }

// parseQuickReplies reads HERMES_QUICK_REPLIES: "" is none.
func parseQuickReplies(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	items := strings.Split(v, quickReplySeparator)
	if len(items) > MaxQuickReplies {
		return nil, fmt.Errorf("want at most %d replies, separated by %s; got %d", MaxQuickReplies, quickReplySeparator, len(items))
	}
	var out []string
	for i, it := range items {
		it = strings.Join(strings.Fields(it), " ")
		switch {
		case it == "":
			return nil, fmt.Errorf("reply %d is empty", i+1)
		case utf8.RuneCountInString(it) > MaxQuickReplyLen:
			return nil, fmt.Errorf("reply %d is longer than %d characters", i+1, MaxQuickReplyLen)
		case slices.Contains(out, it):
			return nil, fmt.Errorf("reply %d is given twice", i+1)
		}
		out = append(out, it)
	}
	return out, nil
}

// DefaultMaxUpload is HERMES_MAX_UPLOAD's default, opencode's own cap
// (opencode.DefaultMaxUpload).
const DefaultMaxUpload = 10 << 20

// parseSize reads a size in bytes, KB or MB (of 1024).
func parseSize(v string) (int64, error) {
	v = strings.ToUpper(strings.TrimSpace(v))
	unit := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"MB", 1 << 20}, {"KB", 1 << 10}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(v, u.suffix) {
			v, unit = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.n
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 1<<40/unit {
		return 0, fmt.Errorf("want a size such as 10MB, 512KB or 1048576 (bytes); 0: no files")
	}
	return n * unit, nil
}

// languageNames lists each language's code with its own name ("en:
// English, zh: 简体中文"), from the catalogs, so that a language is added
// in bot/i18n alone.
func languageNames() string {
	names := i18n.Languages()
	for i, l := range names {
		names[i] = l + ": " + i18n.LanguageName(l)
	}
	return strings.Join(names, ", ")
}

func checkURL(v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("want an http:// or https:// URL")
	}
	if u.User != nil {
		return fmt.Errorf("put credentials in their own settings, not in the URL")
	}
	return nil
}

// Sources are where values come from, lowest precedence first.
type Sources struct {
	EnvFile map[string]string   // from --env-file; may be nil
	Getenv  func(string) string // the process environment
	Flags   map[string]string   // flags given on the command line, by flag name
}

// Load builds a Config: defaults, then the env-file, then the environment,
// then flags. It validates every value and returns the first problem as a
// *ValidationError.
func Load(src Sources) (*Config, error) {
	getenv := src.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := &Config{}
	from := make(map[string]string) // where each variable's value came from
	for _, s := range Settings() {
		v, origin := s.Default, ""
		if x, ok := src.EnvFile[s.Env]; ok && x != "" {
			v, origin = x, "env-file"
		}
		if x := getenv(s.Env); x != "" {
			v, origin = x, "environment"
		}
		if x, ok := src.Flags[s.Flag]; ok {
			v, origin = x, "flag --"+s.Flag
		}
		if v == "" {
			continue
		}
		from[s.Env] = origin
		if err := s.set(c, v); err != nil {
			shown := ""
			if !s.Secret {
				// A password pasted into a URL, or into one of a
				// list of them, is still a password.
				shown = redactURLs(v)
			}
			reason := err.Error()
			if origin != "" {
				reason += " (from " + origin + ")"
			}
			return nil, &ValidationError{Var: s.Env, Value: shown, Reason: reason, Err: ErrInvalid, From: origin}
		}
	}
	if err := c.resolveCredentials(src.EnvFile, getenv); err != nil {
		return nil, err
	}
	if c.DBPath == "" {
		state := getenv("XDG_STATE_HOME")
		if state == "" || !filepath.IsAbs(state) {
			home := getenv("HOME")
			if home == "" {
				return nil, &ValidationError{Var: "HERMES_DB", Err: ErrMissing,
					Reason: "neither XDG_STATE_HOME nor HOME is set; set HERMES_DB to an absolute path"}
			}
			state = filepath.Join(home, ".local", "state")
		}
		c.DBPath = filepath.Join(state, "hermes-bot", "pending.db")
	}
	if err := c.Validate(); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) && ve.From == "" {
			ve.From = from[ve.Var]
		}
		return nil, err
	}
	return c, nil
}

// Telegram reports whether the Telegram chat is configured: its settings
// are optional, but hermes-bot needs one chat.
func (c *Config) Telegram() bool { return c.BotToken != "" || c.ChatID != 0 }

// Matrix reports whether the Matrix room is configured (any MATRIX_
// setting but the allow-list names one).
func (c *Config) Matrix() bool {
	return c.MatrixHomeserverURL != "" || c.MatrixUserID != "" || c.MatrixAccessToken != "" ||
		c.MatrixPassword != "" || c.MatrixRoomID != ""
}

// checkMatrixID checks that id is a Matrix ID of sigil (@ user, ! room):
// the sigil, a local part, a colon and a server.
func checkMatrixID(id string, sigil byte, example string) error {
	local, server, ok := strings.Cut(id, ":")
	if len(id) < 2 || id[0] != sigil || !ok || len(local) < 2 || server == "" || strings.ContainsAny(id, " \t,") {
		return fmt.Errorf("%q is not a Matrix ID such as %s", id, example)
	}
	return nil
}

// Validate checks what Load cannot check one variable at a time.
func (c *Config) Validate() error {
	if !c.Telegram() && !c.Matrix() {
		return &ValidationError{Var: "TELEGRAM_BOT_TOKEN", Err: ErrMissing,
			Reason: "no chat is configured: set TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID (create a bot with @BotFather for its token), or the MATRIX_ settings"}
	}
	if c.Matrix() {
		if err := c.validateMatrix(); err != nil {
			return err
		}
	}
	if !c.Telegram() {
		return nil
	}
	if c.BotToken == "" {
		return &ValidationError{Var: "TELEGRAM_BOT_TOKEN", Err: ErrMissing,
			Reason: "create a bot with @BotFather and set its token"}
	}
	notDigit := func(r rune) bool { return r < '0' || r > '9' }
	id, rest, ok := strings.Cut(c.BotToken, ":")
	if !ok || rest == "" || id == "" || strings.ContainsFunc(id, notDigit) || strings.ContainsAny(c.BotToken, " \t\r\n/") {
		return &ValidationError{Var: "TELEGRAM_BOT_TOKEN", Err: ErrInvalid,
			Reason: "want the form 123456789:AA… as @BotFather gives it"}
	}
	if c.ChatID == 0 {
		return &ValidationError{Var: "TELEGRAM_CHAT_ID", Err: ErrMissing,
			Reason: "the ID of the group where requests are posted, such as -1001234567890"}
	}
	return nil
}

func (c *Config) validateMatrix() error {
	missing := func(v, reason string) error {
		return &ValidationError{Var: v, Err: ErrMissing, Reason: "needed for the Matrix room: " + reason}
	}
	switch {
	case c.MatrixHomeserverURL == "":
		return missing("MATRIX_HOMESERVER_URL", "the homeserver's client-server API base, such as https://matrix.example.org")
	case c.MatrixUserID == "":
		return missing("MATRIX_USER_ID", "the bot's account, such as @hermes:example.org")
	case c.MatrixAccessToken == "" && c.MatrixPassword == "":
		return missing("MATRIX_ACCESS_TOKEN", "the bot account's access token, or set MATRIX_PASSWORD instead")
	case c.MatrixRoomID == "":
		return missing("MATRIX_ROOM_ID", "the room's ID, such as !AbCdEf:example.org (room settings → Advanced)")
	case len(c.MatrixAllowedUserIDs) == 0:
		return missing("MATRIX_ALLOWED_USER_IDS", "the people who may answer, such as @me:example.org")
	}
	return nil
}

// String prints every setting with secrets redacted, one per line, sorted by
// variable name.
func (c *Config) String() string {
	users := make([]string, len(c.AllowedUserIDs))
	for i, id := range c.AllowedUserIDs {
		users[i] = strconv.FormatInt(id, 10)
	}
	lines := []string{
		"TELEGRAM_BOT_TOKEN=" + redacted(c.BotToken),
		"TELEGRAM_CHAT_ID=" + strconv.FormatInt(c.ChatID, 10),
		"TELEGRAM_THREAD_ID=" + strconv.Itoa(c.ThreadID),
		"TELEGRAM_ALLOWED_USER_IDS=" + strings.Join(users, ","),
		"TELEGRAM_API_URL=" + c.TelegramAPIURL,
		"MATRIX_HOMESERVER_URL=" + c.MatrixHomeserverURL,
		"MATRIX_USER_ID=" + c.MatrixUserID,
		"MATRIX_ACCESS_TOKEN=" + redacted(c.MatrixAccessToken),
		"MATRIX_PASSWORD=" + redacted(c.MatrixPassword),
		"MATRIX_ROOM_ID=" + c.MatrixRoomID,
		"MATRIX_ALLOWED_USER_IDS=" + strings.Join(c.MatrixAllowedUserIDs, ","),
		"HERMES_DB=" + c.DBPath,
		"HERMES_QUESTION_TTL=" + c.QuestionTTL.String(),
		"HERMES_TELEGRAM_RATE=" + strconv.Itoa(c.TelegramRate),
		"HERMES_LOG_LEVEL=" + c.LogLevel,
		"HERMES_LOG_FORMAT=" + c.LogFormat,
		"HERMES_NOTIFY=" + strings.Join(c.Notify, ","),
		"HERMES_AUTO_APPROVE=" + c.AutoApprove,
		"HERMES_HTTP_ADDR=" + c.HTTPAddr,
		"HERMES_TOPIC_PER_PROJECT=" + strconv.FormatBool(c.TopicPerProject),
		"HERMES_LANG=" + c.Lang,
		"HERMES_STALE_STEER=" + c.StaleSteer.String(),
		"HERMES_MAX_UPLOAD=" + strconv.FormatInt(c.MaxUpload, 10),
		"HERMES_CONTEXT_LINES=" + strconv.Itoa(c.ContextLines),
		"HERMES_QUICK_REPLIES=" + strings.Join(c.QuickReplies, quickReplySeparator),
		"HERMES_LIVE_STATUS=" + onOff(c.LiveStatus),
	}
	lines = append(lines, c.opencodeLines()...)
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func redacted(s string) string {
	if s == "" {
		return ""
	}
	return "[set]"
}

// RegisterFlags adds one string flag per setting to fs and returns a
// function that, after fs.Parse, reports the flags actually given.
func RegisterFlags(fs *flag.FlagSet) func() map[string]string {
	for _, s := range Settings() {
		usage := s.Usage + " [" + s.Env + "]"
		if s.Default != "" {
			usage += " (default " + s.Default + ")"
		}
		fs.String(s.Flag, "", usage)
	}
	return func() map[string]string {
		given := make(map[string]string)
		fs.Visit(func(f *flag.Flag) { given[f.Name] = f.Value.String() })
		return given
	}
}

package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-bot/hermes-bot/bot/internal/bounded"
)

// Settings say which account the bot uses and where it listens.
type Settings struct {
	// HomeserverURL is the client-server API base, like https://matrix.example.org.
	HomeserverURL string
	// UserID is the bot's account, @name:server.
	UserID string
	// AccessToken is used as given; else Password logs in once and the
	// device and token are kept in the State for the next start.
	AccessToken string
	Password    string
	// RoomID is the one room the bot reads and posts in (!id:server).
	RoomID string
	// AllowedUserIDs are the people whose answers count.
	AllowedUserIDs []string
	// TimelineLimit is how many events a sync returns per room before it
	// says limited and the rest is paged in; default 50.
	TimelineLimit int
	// OnJoin, if set, is called by Run after the bot joined its room on
	// an invite, so what could not be posted before is posted now.
	OnJoin func()
	// Metrics, if set, counts calls answered 429 and those that failed
	// (5xx or no answer), which the sends and the sync loop try again.
	Metrics Counter
}

// Counter counts what the homeserver's answers meet; *bot.ChatMetrics is one.
type Counter interface {
	RateLimited()
	Retried()
}

// State is the key/value space the transport keeps its bookkeeping in;
// *pending.State (Store.FrontendState) is one.
type State interface {
	Get(key string) (value []byte, ok bool, err error)
	Put(key string, value []byte) error
}

// Keys of the State.
const (
	keySession = "session"
	keyCursor  = "cursor"
)

// session is what a password login leaves for the next start.
type session struct {
	Homeserver  string `json:"homeserver"`
	UserID      string `json:"user_id"`
	DeviceID    string `json:"device_id"`
	AccessToken string `json:"access_token"`
}

const defaultTimelineLimit = 50

// requestTimeout bounds one request; a sync's long poll is much shorter.
const requestTimeout = 2 * time.Minute

// deviceName is the login's device display name, shown in the account's
// session list.
const deviceName = "hermes-bot"

// Client is the bot's connection to its homeserver: it sends into the
// configured room and reads it (Run). Its methods are safe for concurrent
// use, except that one Run at a time reads the room.
type Client struct {
	cli      *mautrix.Client
	settings Settings
	allow    AllowList
	state    State
	log      zerolog.Logger
	deviceID string
	recent   *bounded.Map[string, struct{}] // the event IDs Run handled last
	gapPage  int                            // events asked for per /messages page
	// lastSync is when a sync's batch was last handled (Unix ns), for
	// the metrics.
	lastSync atomic.Int64
}

// New connects as settings say: with AccessToken, or with the session a
// password login kept in state, logging in (again, with the same device)
// when there is none or the homeserver no longer knows its token. It
// checks the credentials with whoami.
func New(ctx context.Context, settings Settings, state State, log zerolog.Logger) (*Client, error) {
	if err := settings.check(); err != nil {
		return nil, err
	}
	if settings.TimelineLimit <= 0 {
		settings.TimelineLimit = defaultTimelineLimit
	}
	cli, err := mautrix.NewClient(settings.HomeserverURL, id.UserID(settings.UserID), "")
	if err != nil {
		return nil, fmt.Errorf("matrix homeserver URL %q: %w", settings.HomeserverURL, err)
	}
	// A transport of its own, so Close can drop its idle connections.
	var rt http.RoundTripper = http.DefaultTransport.(*http.Transport).Clone()
	if settings.Metrics != nil {
		rt = countingTransport{rt, settings.Metrics}
	}
	cli.Client = &http.Client{Timeout: requestTimeout, Transport: rt}
	cli.DefaultHTTPBackoff = time.Second // sends' retries; the sync loop has its own
	c := &Client{cli: cli, settings: settings, allow: NewAllowList(settings.AllowedUserIDs),
		state: state, log: log, recent: bounded.New[string, struct{}](recentEvents), gapPage: gapPageSize}
	if settings.AccessToken != "" {
		cli.AccessToken = settings.AccessToken
		err = c.whoami(ctx)
	} else {
		err = c.resume(ctx)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (s Settings) check() error {
	var missing []string
	if s.HomeserverURL == "" {
		missing = append(missing, "homeserver URL")
	}
	if s.UserID == "" {
		missing = append(missing, "user ID")
	}
	if s.AccessToken == "" && s.Password == "" {
		missing = append(missing, "access token or password")
	}
	if s.RoomID == "" {
		missing = append(missing, "room ID")
	}
	if len(missing) > 0 {
		return fmt.Errorf("matrix settings: no %s", strings.Join(missing, ", "))
	}
	if !strings.HasPrefix(s.UserID, "@") || !strings.Contains(s.UserID, ":") {
		return fmt.Errorf("matrix settings: user ID %q is not @name:server", s.UserID)
	}
	if !strings.HasPrefix(s.RoomID, "!") || !strings.Contains(s.RoomID, ":") {
		return fmt.Errorf("matrix settings: room ID %q is not !id:server", s.RoomID)
	}
	return nil
}

// resume uses the stored session of this account and homeserver, and logs
// in when there is none or its token was revoked.
func (c *Client) resume(ctx context.Context) error {
	var s session
	raw, ok, err := c.state.Get(keySession)
	if err != nil {
		return fmt.Errorf("matrix: read session: %w", err)
	}
	if ok {
		if err := json.Unmarshal(raw, &s); err != nil {
			c.log.Warn().Err(err).Msg("matrix: stored session unreadable, logging in afresh")
			s = session{}
		}
	}
	if s.Homeserver == c.settings.HomeserverURL && s.UserID == c.settings.UserID && s.AccessToken != "" {
		c.cli.AccessToken = s.AccessToken
		err := c.whoami(ctx)
		if err == nil {
			return nil
		}
		if !errors.Is(err, mautrix.MUnknownToken) {
			return err
		}
		c.log.Warn().Str("device", s.DeviceID).Msg("matrix: stored access token no longer valid, logging in again with the same device")
	} else {
		s = session{} // another account's device is not ours
	}
	return c.login(ctx, s.DeviceID)
}

func (c *Client) login(ctx context.Context, deviceID string) error {
	resp, err := c.cli.Login(ctx, &mautrix.ReqLogin{
		Type:                     mautrix.AuthTypePassword,
		Identifier:               mautrix.UserIdentifier{Type: mautrix.IdentifierTypeUser, User: c.settings.UserID},
		Password:                 c.settings.Password,
		DeviceID:                 id.DeviceID(deviceID),
		InitialDeviceDisplayName: deviceName,
	})
	if err != nil {
		return fmt.Errorf("matrix: log in as %s: %w", c.settings.UserID, err)
	}
	if string(resp.UserID) != c.settings.UserID {
		return fmt.Errorf("matrix: logged in as %s, not %s", resp.UserID, c.settings.UserID)
	}
	c.cli.AccessToken = resp.AccessToken
	c.deviceID = string(resp.DeviceID)
	s, err := json.Marshal(session{Homeserver: c.settings.HomeserverURL, UserID: c.settings.UserID,
		DeviceID: c.deviceID, AccessToken: resp.AccessToken})
	if err != nil {
		return fmt.Errorf("matrix: encode session: %w", err)
	}
	if err := c.state.Put(keySession, s); err != nil {
		return fmt.Errorf("matrix: keep session: %w", err)
	}
	c.log.Info().Str("user", c.settings.UserID).Str("device", c.deviceID).Msg("matrix: logged in")
	return nil
}

func (c *Client) whoami(ctx context.Context) error {
	who, err := c.cli.Whoami(ctx)
	if err != nil {
		return fmt.Errorf("matrix: whoami as %s: %w", c.settings.UserID, err)
	}
	if string(who.UserID) != c.settings.UserID {
		return fmt.Errorf("matrix: the access token is %s's, not %s's", who.UserID, c.settings.UserID)
	}
	c.deviceID = string(who.DeviceID)
	return nil
}

// Close drops the client's idle connections; it may be used no more.
func (c *Client) Close() { c.cli.Client.CloseIdleConnections() }

// countingTransport counts every attempt answered 429 or failed: mautrix
// retries inside one call, where no hook sees the attempts.
type countingTransport struct {
	next http.RoundTripper
	m    Counter
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	switch {
	case err != nil && req.Context().Err() == nil:
		t.m.Retried()
	case err == nil && resp.StatusCode == http.StatusTooManyRequests:
		t.m.RateLimited()
	case err == nil && resp.StatusCode >= 500:
		t.m.Retried()
	}
	return resp, err
}

// CloseIdleConnections lets Close reach the wrapped transport.
func (t countingTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// LastSync is when Run last handled a sync's answer; zero before.
func (c *Client) LastSync() time.Time {
	if c == nil || c.lastSync.Load() == 0 {
		return time.Time{}
	}
	return time.Unix(0, c.lastSync.Load())
}

// UserID is the bot's account.
func (c *Client) UserID() string { return c.settings.UserID }

// DeviceID is the device the bot's access token belongs to.
func (c *Client) DeviceID() string { return c.deviceID }

// RoomID is the configured room.
func (c *Client) RoomID() string { return c.settings.RoomID }

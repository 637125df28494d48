package daemon

import (
	"context"
	"errors"
	"sync"
	"time"

	"maunium.net/go/mautrix"

	"github.com/hermes-bot/hermes-bot/bot"
	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/bot/matrix"
)

// matrixChat is the Matrix room: its client, which keeps its session and
// sync token in the store's "matrix" space, and its front-end.
type matrixChat struct {
	d  *daemon
	c  *matrix.Client
	fe *matrix.Frontend
	// bridge and ctx are ready's, for posting after a join.
	bridge *bot.Bridge
	ctx    context.Context
	wg     sync.WaitGroup
}

// newMatrix connects the Matrix room, waiting for a homeserver that cannot
// be reached yet. Credentials it refuses, or settings it cannot use, stop
// hermes-bot: a restart would not mend them. It returns nil and no error
// when ctx ended while waiting.
func (d *daemon) newMatrix(ctx context.Context) (*matrixChat, error) {
	cfg, log := d.cfg, d.log.With().Str("frontend", matrix.Name).Logger()
	st := d.store.FrontendState(matrix.Name)
	settings := matrix.Settings{
		HomeserverURL:  cfg.MatrixHomeserverURL,
		UserID:         cfg.MatrixUserID,
		AccessToken:    cfg.MatrixAccessToken,
		Password:       cfg.MatrixPassword,
		RoomID:         cfg.MatrixRoomID,
		AllowedUserIDs: cfg.MatrixAllowedUserIDs,
	}
	// Requests that could not be posted while the bot was in no room are
	// posted once it joins, not at the next resend.
	var mc *matrixChat
	settings.OnJoin = func() { mc.joined() }
	settings.Metrics = d.metrics.Chat(matrix.Name, func() time.Time {
		if mc == nil {
			return time.Time{}
		}
		return mc.c.LastSync()
	})
	wait := time.Second
	for {
		c, err := matrix.New(ctx, settings, st, log)
		if err == nil {
			fc := matrix.FrontendConfig{Version: d.opts.Version, StartedAt: d.started, Lang: cfg.Lang, QuickReplies: cfg.QuickReplies}
			for _, s := range d.servers {
				fc.Servers = append(fc.Servers, matrix.ServerStatus{Name: s.name, Status: s.client})
			}
			log.Info().Str("user", cfg.MatrixUserID).Str("room", cfg.MatrixRoomID).Msg("Matrix room connected")
			mc = &matrixChat{d: d, c: c, fe: matrix.NewFrontend(c, st, fc, log)}
			return mc, nil
		}
		if ctx.Err() != nil {
			return nil, nil
		}
		if permanent(err) {
			setting := "MATRIX_ACCESS_TOKEN"
			if cfg.MatrixAccessToken == "" {
				setting = "MATRIX_PASSWORD"
			}
			return nil, &ConfigError{Setting: setting, Err: d.redact.Error(err)}
		}
		log.Warn().Err(d.redact.Error(err)).Dur("retryIn", wait).Msg("cannot reach the Matrix homeserver; retrying")
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

func (m *matrixChat) frontend() frontend.Frontend { return m.fe }

func (m *matrixChat) ready(ctx context.Context, b *bot.Bridge) { m.bridge, m.ctx = b, ctx }

// joined posts the requests still owed to the room, on a goroutine of its
// own: Run, which calls it, must go on reading the room.
func (m *matrixChat) joined() {
	if m == nil || m.bridge == nil || m.ctx.Err() != nil {
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		if err := m.bridge.SendUnsent(m.ctx); err != nil && m.ctx.Err() == nil {
			m.d.log.Warn().Err(err).Msg("posting requests in the Matrix room it joined failed; retrying later")
		}
	}()
}

func (m *matrixChat) serve(ctx context.Context) {
	if err := m.fe.Serve(ctx, m.bridge); err != nil && !errors.Is(err, context.Canceled) {
		m.d.log.Error().Err(m.d.redact.Error(err)).Msg("Matrix sync stopped")
	}
}

// wait waits for the posting a join started; Serve handles one event at
// a time and returns after it.
func (m *matrixChat) wait(context.Context) error {
	m.wg.Wait()
	return nil
}

func (m *matrixChat) close() { m.c.Close() }

// permanent reports whether err, from matrix.New, is an answer that
// trying again cannot change: the homeserver refused the credentials, or
// they are another account's. A homeserver that cannot be reached, or
// answers 429 or 5xx, may answer later.
func permanent(err error) bool {
	var he mautrix.HTTPError
	if !errors.As(err, &he) {
		return true
	}
	if he.Response == nil {
		return false
	}
	code := he.Response.StatusCode
	return code/100 == 4 && code != 429
}

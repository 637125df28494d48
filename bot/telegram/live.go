package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Live status (HERMES_LIVE_STATUS): one silent message per busy session,
// posted when it goes busy, edited at most every liveEvery with its
// latest status, and edited a last time, not deleted, when it goes idle
// or hermes-bot shuts down (no status says "working" after a restart).
// Each shown message is kept in the store until its last edit, so one a
// crash left "working" is ended at the next start (EndOrphanedLive).
// Edits go through the Outbox, so the chat's pacing holds too.

// liveEvery is the least time between two edits of a status message.
const liveEvery = 5 * time.Second

var _ frontend.LiveShower = (*Frontend)(nil)

// liveMsg is one session's status message. mu serialises its calls: the
// core's, in order, and its timer's.
type liveMsg struct {
	mu     sync.Mutex
	key    string
	at     place
	shown  time.Time
	latest frontend.LiveStatus
	// stop cancels the timer that shows latest; nil when none runs.
	stop  func() bool
	ended bool
}

// liveMsgs are the status messages of the busy sessions.
type liveMsgs struct {
	mu sync.Mutex
	by map[string]*liveMsg
}

func liveKeyOf(s frontend.LiveStatus) string { return s.Server + "\x00" + s.SessionID }

// LiveStatus shows s in its session's status message.
func (f *Frontend) LiveStatus(ctx context.Context, s frontend.LiveStatus) {
	key := liveKeyOf(s)
	f.live.mu.Lock()
	m := f.live.by[key]
	if m == nil {
		if s.Done {
			f.live.mu.Unlock()
			return
		}
		m = &liveMsg{key: key}
		if f.live.by == nil {
			f.live.by = map[string]*liveMsg{}
		}
		f.live.by[key] = m
	}
	if s.Done {
		delete(f.live.by, key)
	}
	f.live.mu.Unlock()

	m.mu.Lock()
	defer m.mu.Unlock()
	log := f.log.With().Str("sessionID", s.SessionID).Str("directory", s.Directory).Logger()
	m.latest = s
	now := f.now()
	switch {
	case m.at.Message == 0 && !m.ended:
		chat := f.ChatID()
		thread := f.threadFor(ctx, log, chat, s.Directory)
		p := htmlMessage(chat, thread, f.renderLive(s), nil, 0)
		p.DisableNotification = true
		msg, err := f.tg.SendMessage(ctx, p)
		if err != nil {
			// Not shown; the next status tries again.
			log.Warn().Err(err).Msg("live status: could not post the status message")
			return
		}
		m.at, m.shown = place{Chat: chat, Message: msg.ID, Thread: thread}, now
		f.keepLive(log, m)
	case s.Done:
		m.ended = true
		if m.stop != nil {
			m.stop()
			m.stop = nil
		}
		if err := f.editMessage(ctx, m.at, f.renderLive(s), nil); err != nil {
			log.Warn().Err(err).Msg("live status: could not show that the turn ended")
		}
		f.forgetLive(log, m.key)
	case now.Sub(m.shown) >= liveEvery:
		f.liveEdit(m, now)
	case m.stop == nil:
		m.stop = f.after(liveEvery-now.Sub(m.shown), func() { f.liveDue(m) })
	}
}

// liveDue shows m's latest status once its wait passed.
func (f *Frontend) liveDue(m *liveMsg) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stop = nil
	if m.ended || m.at.Message == 0 {
		return
	}
	now := f.now()
	m.latest.At = now
	f.liveEdit(m, now)
}

// liveEdit hands over the edit showing m's latest status. The caller
// holds m.mu.
func (f *Frontend) liveEdit(m *liveMsg, now time.Time) {
	m.shown = now
	p := editParams(m.at, f.renderLive(m.latest), nil)
	log := f.log.With().Str("sessionID", m.latest.SessionID).Logger()
	f.keepLive(log, m)
	done := func(_ *models.Message, err error) {
		if err != nil {
			log.Debug().Err(err).Msg("live status: could not edit the status message")
		}
	}
	if f.cfg.Later != nil {
		f.cfg.Later.EditMessageTextLater(p, done)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.handlerTimeout)
	defer cancel()
	done(f.tg.EditMessageText(ctx, p))
}

// liveKeyPrefix starts the state key of a status message shown and not
// yet ended; the key's rest is liveKeyOf its status.
const liveKeyPrefix = "live:"

// liveRecord is what the state keeps of a status message: where it is and
// the status it last showed.
type liveRecord struct {
	At     place               `json:"at"`
	Status frontend.LiveStatus `json:"status"`
}

// keepLive records m's message and latest status. The caller holds m.mu.
func (f *Frontend) keepLive(log zerolog.Logger, m *liveMsg) {
	raw, err := json.Marshal(liveRecord{At: m.at, Status: m.latest})
	if err == nil {
		err = f.state.kv.Put(liveKeyPrefix+m.key, raw)
	}
	if err != nil {
		log.Warn().Err(err).Msg("live status: could not remember the status message; after a crash it would stay as it is")
	}
}

func (f *Frontend) forgetLive(log zerolog.Logger, key string) {
	if err := f.state.kv.Delete(liveKeyPrefix + key); err != nil {
		log.Warn().Err(err).Msg("live status: could not forget an ended status message; the next start edits it again")
	}
}

// EndOrphanedLive edits each status message the last run showed and never
// ended (it crashed) to say the turn is no longer followed, then forgets
// it; one that could not be edited for a moment is tried at the next
// start. Call it at start, before the first LiveStatus.
func (f *Frontend) EndOrphanedLive(ctx context.Context) {
	recs := map[string]liveRecord{}
	err := f.state.kv.View(func(kv pending.KV) error {
		return kv.ForEach(liveKeyPrefix, func(k string, v []byte) error {
			var r liveRecord
			if json.Unmarshal(v, &r) != nil {
				r = liveRecord{} // unreadable: forgotten, as nothing can be edited
			}
			recs[k] = r
			return nil
		})
	})
	if err != nil {
		f.log.Warn().Err(err).Msg("live status: could not read the status messages of the last run")
		return
	}
	for k, r := range recs {
		log := f.log.With().Str("sessionID", r.Status.SessionID).Logger()
		if r.At.Message != 0 {
			s := r.Status
			s.Done, s.Unfollowed = true, true
			err := f.editMessage(ctx, r.At, f.renderLive(s), nil)
			if err != nil && !errors.Is(err, frontend.ErrGone) && !errors.Is(err, frontend.ErrRefused) {
				log.Warn().Err(err).Msg("live status: could not end a status message the last run left; trying at the next start")
				continue
			}
			log.Info().Int("message", r.At.Message).Msg("live status: ended a status message the last run left working")
		}
		f.forgetLive(log, strings.TrimPrefix(k, liveKeyPrefix))
	}
}

// renderLive is s as its status message shows it.
func (f *Frontend) renderLive(s frontend.LiveStatus) string {
	tx := f.text.Live
	icon, what := "⏳", tx.Working(duration(s.Elapsed()))
	switch {
	case s.Unfollowed:
		icon, what = "⏹", tx.Unfollowed(duration(s.Elapsed()))
	case s.Done:
		icon, what = "☑️", tx.Done(duration(s.Elapsed()))
	}
	text := head(f.text, icon, &frontend.View{Server: s.Server, Directory: s.Directory, SessionID: s.SessionID}) + " — " + what
	if s.Tool != "" && !s.Done {
		text += "\n🔧 " + esc(s.Tool, 32)
		if s.Argument != "" {
			text += " <code>" + esc(s.Argument, 80) + "</code>"
		}
	}
	var use []string
	if s.Tokens > 0 {
		use = append(use, tx.Tokens(count(s.Tokens)))
	}
	if s.Cost > 0 {
		use = append(use, cost(s.Cost))
	}
	if len(use) > 0 {
		text += "\n" + strings.Join(use, " · ")
	}
	return text
}

// duration is d in the largest two units: 42s, 1m05s, 2h03m.
func duration(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// count is n short: 950, 12.3k, 1.2M.
func count(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(float64(n)/1_000_000, 'f', 1, 64) + "M"
}

// cost is dollars, to the cent.
func cost(usd float64) string {
	if usd < 0.01 {
		return "<$0.01"
	}
	return fmt.Sprintf("$%.2f", usd)
}

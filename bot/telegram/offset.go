package telegram

import (
	"context"
	"fmt"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-bot/hermes-bot/pending"
)

// go-telegram/bot keeps the offset of getUpdates in memory only, and
// confirms a batch to Telegram with its next poll, whether the handlers
// are done or not. After a restart it would poll from scratch and
// Telegram would send again every update it was not told we took
// (its updates are kept about 24 hours). So the front-end records in
// its State in the store the update ID up to which every update was
// handled, and a restart resumes after it (InitialOffset); what is
// redelivered nonetheless (an update being handled when the process died)
// finds its request closed, and is told so.

// offsetMaxAge is how old a recorded update ID may be and still be
// resumed from. Telegram keeps an update it was not told we took for
// about a day, so an older record protects from nothing; and Telegram may
// number updates afresh after a week without any, which would make it
// skip new ones.
const offsetMaxAge = 24 * time.Hour

// InitialOffset returns the update ID to pass to
// github.com/go-telegram/bot's WithInitialOffset so that polling resumes
// after the last update bot botID handled, as the front-end records it
// (Middlewares): the library sends offset = this + 1 with its first
// getUpdates. It is 0, polling from whatever Telegram holds, when nothing
// was recorded or the record is older than a day. Read it before
// building the bot, once the store is open.
func InitialOffset(store *pending.Store, botID int64, now time.Time) (int64, error) {
	id, at, err := StateOf(store).InputCursor(botID)
	if err != nil {
		return 0, fmt.Errorf("initial update offset: %w", err)
	}
	if id <= 0 || now.Sub(at) > offsetMaxAge {
		return 0, nil
	}
	return id, nil
}

// offsetTracker follows the updates being handled to tell the highest
// update ID up to which every update seen has been handled: one below the
// oldest still running, or the highest done when none runs.
type offsetTracker struct {
	mu      sync.Mutex
	running map[int64]int // update ID → handlers running it
	maxDone int64
	saved   int64
}

func (t *offsetTracker) start(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running == nil {
		t.running = make(map[int64]int)
	}
	t.running[id]++
}

// finish marks update id handled and, when that moves the mark, calls
// save with it. save runs under the tracker's lock, so marks are saved
// in the order they were reached.
func (t *offsetTracker) finish(id int64, save func(int64) error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running[id]--; t.running[id] <= 0 {
		delete(t.running, id)
	}
	t.maxDone = max(t.maxDone, id)
	mark := t.maxDone
	for r := range t.running {
		mark = min(mark, r-1)
	}
	if mark <= 0 || mark == t.saved {
		return
	}
	if save(mark) == nil {
		t.saved = mark
	}
}

// offsetMiddleware records, after each update is handled, the update ID
// up to which every update was handled (see offsetTracker), for
// InitialOffset. Updates without an ID (tests) are not tracked.
func (f *Frontend) offsetMiddleware(next tgbot.HandlerFunc) tgbot.HandlerFunc {
	return func(ctx context.Context, bot *tgbot.Bot, upd *models.Update) {
		if upd == nil || upd.ID <= 0 {
			next(ctx, bot, upd)
			return
		}
		f.offsets.start(upd.ID)
		defer f.offsets.finish(upd.ID, f.saveOffset)
		next(ctx, bot, upd)
	}
}

func (f *Frontend) saveOffset(id int64) error {
	err := f.state.SetInputCursor(f.cfg.BotID, id, f.now())
	if err != nil {
		f.log.Warn().Err(err).Int64("updateID", id).
			Msg("could not record the last Telegram update handled; after a restart Telegram may send some updates again, which are told their request closed")
	}
	return err
}

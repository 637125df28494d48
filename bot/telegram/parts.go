package telegram

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/rs/zerolog"
)

// A Telegram client splits text longer than one message (4096 UTF-16
// units) into parts, cut at a line break or space, which it drops, and
// sends them one after another, only the first replying to anything.
// Consecutive parts from one person in one chat and thread are joined
// again, with a line break, into the one text they typed: a long message
// waits up to joinWindow for the next part; a short one ends the text
// (a part cut off is never short), so a short message alone is never
// held.

// joinWindow is how far apart, by arrival and by message date, parts of
// one text come at most.
const joinWindow = 1500 * time.Millisecond

// partMinUnits is the least UTF-16 length of a part a client cut off: it
// cuts at the last line break or space before 4096 units.
const partMinUnits = 3000

// partSep stands for the line break or space a client dropped at a cut.
const partSep = "\n"

// orderWait bounds the wait for an earlier update, which Telegram may
// have skipped: handlers run concurrently, so parts may reach the joiner
// out of order without it.
const orderWait = 200 * time.Millisecond

// AfterFunc calls f after d, on its own goroutine, unless the returned
// stop is called first (it reports whether it stopped the call); it is
// time.AfterFunc's shape, for a clock tests drive.
type AfterFunc func(d time.Duration, f func()) (stop func() bool)

func realAfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

type partKey struct {
	chat   int64
	thread int
	user   int64
}

// partGroup is a text being joined: its parts so far, in order.
type partGroup struct {
	msgs []*models.Message
	last time.Time
	stop func() bool
	// complete is closed once no part can follow.
	complete chan struct{}
	closed   bool
}

func (g *partGroup) finish() {
	if !g.closed {
		g.closed = true
		close(g.complete)
	}
}

// joiner holds the texts being joined, by person and place.
type joiner struct {
	mu     sync.Mutex
	groups map[partKey]*partGroup
}

func isPart(text string) bool { return u16len(text) >= partMinUnits }

// joinParts returns the text m starts, its later parts joined to it, or
// ok false when m is a later part of a text another handler carries. It
// waits, within joinWindow of each part, while m's text may go on.
// update is m's update, through the ordering once m is in the joiner.
func (f *Frontend) joinParts(ctx context.Context, log zerolog.Logger, m *models.Message, update int64, received time.Time) (text string, ok bool) {
	key := partKey{chat: m.Chat.ID, thread: threadOf(m), user: m.From.ID}
	j := &f.parts
	f.order.wait(ctx, update)
	j.mu.Lock()
	if g := j.groups[key]; g != nil && !g.closed {
		prev := g.msgs[len(g.msgs)-1]
		date := time.Duration(m.Date-prev.Date) * time.Second
		if m.ID > prev.ID && m.ReplyToMessage == nil && received.Sub(g.last) <= joinWindow && date <= joinWindow+time.Second {
			g.msgs, g.last = append(g.msgs, m), received
			if g.stop() && isPart(m.Text) {
				g.stop = f.after(joinWindow, func() { j.end(key, g) })
			} else {
				g.finish()
			}
			j.mu.Unlock()
			f.order.through(update)
			return "", false
		}
		// Not a part of it: that text is whole.
		g.stop()
		g.finish()
		delete(j.groups, key)
	}
	if !isPart(m.Text) {
		j.mu.Unlock()
		f.order.through(update)
		return strings.TrimSpace(m.Text), true
	}
	g := &partGroup{msgs: []*models.Message{m}, last: received, complete: make(chan struct{})}
	g.stop = f.after(joinWindow, func() { j.end(key, g) })
	if j.groups == nil {
		j.groups = map[partKey]*partGroup{}
	}
	j.groups[key] = g
	j.mu.Unlock()
	f.order.through(update)

	select {
	case <-g.complete:
	case <-ctx.Done():
	}
	j.mu.Lock()
	g.finish()
	if j.groups[key] == g {
		delete(j.groups, key)
	}
	texts := make([]string, 0, len(g.msgs))
	for _, p := range g.msgs {
		texts = append(texts, strings.TrimSpace(p.Text))
	}
	j.mu.Unlock()
	if len(texts) > 1 {
		log.Info().Int("parts", len(texts)).Msg("joined the parts of a text Telegram split")
	}
	return strings.Join(texts, partSep), true
}

// end closes g when its window passed with no further part.
func (j *joiner) end(key partKey, g *partGroup) {
	j.mu.Lock()
	defer j.mu.Unlock()
	g.finish()
	if j.groups[key] == g {
		delete(j.groups, key)
	}
}

// updateOrder lets message updates reach the joiner in update order:
// Telegram numbers updates one after another.
type updateOrder struct {
	mu sync.Mutex
	// floor: every update below it is through (0: none seen yet); done
	// holds those through above it.
	floor   int64
	done    map[int64]bool
	waiting map[int64]bool
	changed chan struct{}
	// bound is orderWait, unless a test sets it.
	bound time.Duration
}

// through marks update id as past its ordering point.
func (o *updateOrder) through(id int64) {
	if id == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.floor == 0 {
		o.floor = id
	}
	if id < o.floor {
		return
	}
	if o.done == nil {
		o.done = map[int64]bool{}
	}
	o.done[id] = true
	o.advance()
}

// advance moves floor past the updates through and wakes the waiters.
func (o *updateOrder) advance() {
	for o.done[o.floor] {
		delete(o.done, o.floor)
		o.floor++
	}
	if o.changed != nil {
		close(o.changed)
		o.changed = nil
	}
}

// wait returns once every update before id is through. An update not
// through within orderWait (one Telegram skipped, or one before the first
// seen) is taken as through, up to the earliest update waiting here.
func (o *updateOrder) wait(ctx context.Context, id int64) {
	if id == 0 {
		return
	}
	bound := o.bound
	if bound == 0 {
		bound = orderWait
	}
	timer := time.NewTimer(bound)
	defer timer.Stop()
	o.mu.Lock()
	if o.waiting == nil {
		o.waiting = map[int64]bool{}
	}
	o.waiting[id] = true
	defer func() {
		o.mu.Lock()
		delete(o.waiting, id)
		o.mu.Unlock()
	}()
	for {
		if o.floor != 0 && id <= o.floor {
			o.mu.Unlock()
			return
		}
		if o.changed == nil {
			o.changed = make(chan struct{})
		}
		ch := o.changed
		o.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			timer.Reset(bound)
			o.mu.Lock()
			lowest := id
			for w := range o.waiting {
				lowest = min(lowest, w)
			}
			o.floor = max(o.floor, lowest)
			for k := range o.done {
				if k < o.floor {
					delete(o.done, k)
				}
			}
			o.advance()
			o.mu.Unlock()
		}
		o.mu.Lock()
	}
}

package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// Every request is shown by every front-end: its entry keeps a place per
// front-end, by name ("" while that front-end is owed its message), and
// each front-end is told what becomes of it on its own, so one failing
// holds up none of the others (SendUnsent posts again only where a post
// failed).

// frontendNamed returns the front-end named name; nil when none is.
func (b *Bridge) frontendNamed(name string) frontend.Frontend {
	for _, fe := range b.fes {
		if fe.Name() == name {
			return fe
		}
	}
	return nil
}

// shown is one front-end's message of a request.
type shown struct {
	fe frontend.Frontend
	at pending.Place
}

// shownAt lists the messages at places, in the order of the front-ends.
func (b *Bridge) shownAt(places map[string]pending.Place) []shown {
	var out []shown
	for _, fe := range b.fes {
		if at := places[fe.Name()]; at != "" {
			out = append(out, shown{fe, at})
		}
	}
	return out
}

// unposted is a new entry's places: every front-end owed its message.
func (b *Bridge) unposted() map[string]pending.Place {
	out := make(map[string]pending.Place, len(b.fes))
	for _, fe := range b.fes {
		out[fe.Name()] = ""
	}
	return out
}

// owing returns the front-ends still owed e's message.
func (b *Bridge) owing(e *pending.Entry) []frontend.Frontend {
	var out []frontend.Frontend
	for _, fe := range b.fes {
		if e.Places[fe.Name()] == "" {
			out = append(out, fe)
		}
	}
	return out
}

// closing is how a request closed as its owed edits keep it: a
// frontend.Closing in JSON, which each front-end renders itself.
type closing string

// outcome is r closed as o.
func (b *Bridge) outcome(r frontend.Request, o frontend.Outcome) closing {
	raw, err := json.Marshal(frontend.Closing{Request: r, Outcome: o})
	if err != nil {
		b.log.Error().Err(err).Str("uid", r.Key).Msg("could not encode how the request closed; its messages keep their buttons")
		return ""
	}
	return closing(raw)
}

// closingOf is what owed edit o asks its front-end to show: the closing
// it holds, or the text an earlier release rendered for it.
func closingOf(o pending.Edit) (frontend.Closing, error) {
	if o.Data == "" {
		return frontend.Closing{Shown: o.Text}, nil
	}
	var c frontend.Closing
	if err := json.Unmarshal([]byte(o.Data), &c); err != nil {
		return c, fmt.Errorf("decode the closing of %s message %s: %w", o.Frontend, o.Place, err)
	}
	return c, nil
}

// postTo posts r, a request of kind what, in each of fes at once, and
// returns where each that took it put it; the failures are logged and
// returned joined.
func (b *Bridge) postTo(ctx context.Context, log zerolog.Logger, what string, r frontend.Request, fes []frontend.Frontend) (map[string]pending.Place, error) {
	places := make(map[string]pending.Place, len(fes))
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, fe := range fes {
		wg.Go(func() {
			at, err := fe.Post(ctx, r)
			if err == nil && at == "" {
				err = errors.New("no place returned")
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				log.Error().Err(err).Str("frontend", fe.Name()).
					Msg("could not post " + what + " to the chat; it is sent again at start-up or after a reconnect")
				errs = append(errs, fmt.Errorf("post to %s: %w", fe.Name(), err))
				return
			}
			places[fe.Name()] = at
		})
	}
	wg.Wait()
	return places, errors.Join(errs...)
}

// place sets the places of posted on x where x was owed a message; the
// front-ends still owing it keep an empty place, so Unsent lists x.
func (b *Bridge) place(x *pending.Entry, posted map[string]pending.Place) {
	if x.Places == nil {
		x.Places = b.unposted()
	}
	for _, fe := range b.fes {
		if at := posted[fe.Name()]; x.Places[fe.Name()] == "" {
			x.Places[fe.Name()] = at
		}
	}
}

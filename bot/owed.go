package bot

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/rs/zerolog"

	"github.com/hermes-bot/hermes-bot/bot/frontend"
	"github.com/hermes-bot/hermes-bot/pending"
)

// A request's message must end showing its outcome, without buttons,
// even when hermes-bot dies between closing the request and editing the
// message. The edit is recorded as owed in the store write that closes
// the request (deleteEntry), forgotten once the front-end showed it
// (settleOwed), and sent again by SendOwed at start-up, after each
// reconnect and at shutdown; a press on a closed request whose message
// still shows buttons puts the outcome back too (repairClosed).

// owedSenders bounds how many owed edits SendOwed hands the front-end at
// once; the front-end paces them (Telegram's Outbox), this only keeps the
// goroutines few.
const owedSenders = 8

// owedEdits are the closing edits of e's messages, showing done, as
// deleteEntry records them; none where the message was never sent.
func owedEdits(e *pending.Entry, done closing) []pending.Edit {
	var out []pending.Edit
	for name, at := range e.Places {
		if at != "" {
			out = append(out, pending.Edit{Frontend: name, Place: at, Data: string(done)})
		}
	}
	return out
}

// keyLast returns es with the request whose UID is key, if any, moved
// last. Closing a group's requests in that order owes the message's edit
// from the key's close (see deleteEntry), whose record, holding the
// outcome, is what a later press on the message finds (repairClosed).
func keyLast(es []*pending.Entry, key string) []*pending.Entry {
	i := slices.IndexFunc(es, func(e *pending.Entry) bool { return e.UID == key })
	if i < 0 {
		return es
	}
	return append(slices.Delete(slices.Clone(es), i, i+1), es[i])
}

// settleOwed forgets the owed edit o once err, from the front-end's
// Close, says the chat has it: the edit went through (or changed
// nothing), or can never go through (the message is gone, or the edit was
// refused for good). Any other failure (the bot out of the group, the
// network, a shutdown) keeps it owed.
func (b *Bridge) settleOwed(log zerolog.Logger, o pending.Edit, err error) {
	if err != nil && !errors.Is(err, frontend.ErrGone) && !errors.Is(err, frontend.ErrRefused) {
		return
	}
	// Forgetting it is a store write (an fsync) that nothing waits on:
	// done beside, it does not hold up the next event of the session's
	// lane. Wait waits for it; a crash before it only sends the edit again.
	b.running.Add()
	go func() {
		defer b.running.Done()
		if serr := b.store.Edited(o); serr != nil {
			log.Warn().Err(serr).Msg("could not forget a closing edit the chat took; it is sent again at the next start, harmlessly")
		}
	}()
}

// sendOwed makes message o show its outcome, without buttons, and
// settles it. An edit owed by a front-end no longer configured is
// forgotten: no chat would take it.
func (b *Bridge) sendOwed(ctx context.Context, log zerolog.Logger, o pending.Edit) error {
	fe := b.frontendNamed(o.Frontend)
	if fe == nil {
		log.Info().Msg("forgetting a closing edit owed by a front-end no longer configured")
		b.settleOwed(log, o, frontend.ErrGone)
		return nil
	}
	c, err := closingOf(o)
	if err != nil {
		log.Warn().Err(err).Msg("forgetting a closing edit that cannot be read")
		b.settleOwed(log, o, frontend.ErrRefused)
		return nil
	}
	err = fe.Close(ctx, o.Place, c)
	switch {
	case err == nil:
	case errors.Is(err, frontend.ErrGone):
		log.Debug().Err(err).Msg("request message is gone from the chat; its outcome is not shown")
	default:
		log.Warn().Err(err).Msg("could not edit request message")
	}
	b.settleOwed(log, o, err)
	return err
}

// SendOwed sends again every closing edit still owed: the edits that did
// not reach the chat before a crash, a shutdown, or a failure. They go
// through the front-end, paced like any other call. Call it at start-up
// (the bridge calls it after each connect) and at shutdown with a short
// deadline; what ctx leaves unsent stays owed. A call while another runs
// waits for it (or for ctx), then lists the edits again: the other may
// have listed before an edit was owed, or been cut short, so returning at
// once could leave one unsent at a stop. Failures are logged.
func (b *Bridge) SendOwed(ctx context.Context) {
	select {
	case b.owedTurn <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-b.owedTurn }()
	owed, err := b.store.OwedEdits()
	if err != nil {
		b.log.Warn().Err(err).Msg("could not list the closing edits still owed; retrying at the next connect")
		return
	}
	if len(owed) == 0 {
		return
	}
	b.log.Info().Int("edits", len(owed)).Msg("sending the closing edits a stop or a failure left unsent")
	sem := make(chan struct{}, owedSenders)
	var wg sync.WaitGroup
	for _, o := range owed {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			log := b.log.With().Str("frontend", o.Frontend).Str("place", string(o.Place)).Logger()
			_ = b.sendOwed(ctx, log, o) // logged; what failed stays owed
		}()
	}
	wg.Wait()
}

// repairClosed puts the outcome of closed request p.Key, as remembered
// in c, back on the message p came from when that is the request's own
// message and still shows buttons: its closing edit was lost. It reports
// whether it was that message.
func (b *Bridge) repairClosed(ctx context.Context, log zerolog.Logger, p frontend.Press, c pending.ClosedRequest) bool {
	at, text := c.Places[p.Frontend], c.Texts[p.Frontend]
	if (c.Closing == "" && text == "") || at == "" || p.From != at || !p.FromCarries {
		return false
	}
	log.Info().Str("place", string(at)).Msg("press on a closed request whose message still shows buttons; showing its outcome again")
	_ = b.sendOwed(ctx, log, pending.Edit{Frontend: p.Frontend, Place: at, Data: c.Closing, Text: text})
	return true
}

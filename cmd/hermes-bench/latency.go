package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

const (
	// latencyTarget is the bound on both latencies' p99.
	latencyTarget = 10 * time.Millisecond
	// warmRounds and warmPresses are run first and not timed: the first
	// requests open connections and fill the session cache.
	warmRounds  = 1
	warmPresses = 3
)

// runLatency times event → post with each number of concurrent sessions,
// then press → answer, against one hermes-bot with an empty store.
//
// Event → post: in each round every session asks one question at once
// (its question.asked records handed to the stream back to back); a
// sample is one question, from its record being handed to the fake's
// stream to its sendMessage being stored by the fake Telegram. Between
// rounds the questions are answered in opencode and hermes-bot closes
// their messages, so each round starts idle.
//
// Press → answer: one question is posted; once hermes-bot has saved it,
// a press on its first option is queued in the fake Telegram, whose
// getUpdates long poll hermes-bot is waiting in; a sample ends when the
// fake opencode has accepted POST /question/{id}/reply.
func runLatency(ctx context.Context, o *options, w io.Writer) error {
	r, err := newRig(o.dirs)
	if err != nil {
		return err
	}
	defer r.close()
	sessions := 1
	for _, n := range o.sessions {
		sessions = max(sessions, n)
	}
	r.addSessions(sessions)

	p, err := r.start(o, filepath.Join(o.scratch, "latency.db"), "latency")
	if err != nil {
		return err
	}
	defer p.kill()

	post := &table{
		title: "Latency, event to post: question.asked handed to the stream → sendMessage stored by the fake Telegram",
		head:  []string{"concurrent sessions", "samples", "p50", "p99", "max", "target p99 ≤ 10 ms"},
	}
	for _, n := range o.sessions {
		rounds := max((o.samples+n-1)/n, 3)
		fmt.Fprintf(o.progress, "event → post: %d sessions, %d rounds…\n", n, rounds)
		var lat []time.Duration
		for round := -warmRounds; round < rounds; round++ {
			qs := make([]question, n)
			for i := range qs {
				qs[i] = r.newQuestion(i)
			}
			as, err := r.ask(ctx, qs)
			if err != nil {
				return fmt.Errorf("event → post, %d sessions: %w", n, err)
			}
			if round >= 0 {
				for _, a := range as {
					lat = append(lat, a.latency())
				}
			}
			if err := r.dismiss(ctx, qs, as); err != nil {
				return fmt.Errorf("event → post, %d sessions: %w", n, err)
			}
		}
		p99 := percentile(lat, 99)
		post.add(fmt.Sprint(n), fmt.Sprint(len(lat)), ms(median(lat)), ms(p99), ms(percentile(lat, 100)), verdict(p99 <= latencyTarget))
	}

	fmt.Fprintf(o.progress, "press → answer: %d presses…\n", o.presses)
	var lat []time.Duration
	for i := -warmPresses; i < o.presses; i++ {
		d, err := r.pressOnce(ctx, p)
		if err != nil {
			return fmt.Errorf("press → answer: %w", err)
		}
		if i >= 0 {
			lat = append(lat, d)
		}
	}
	press := &table{
		title: "Latency, press to answer: callback queued in the fake Telegram → POST /question/{id}/reply accepted by the fake opencode",
		head:  []string{"samples", "p50", "p99", "max", "target p99 ≤ 10 ms"},
	}
	p99 := percentile(lat, 99)
	press.add(fmt.Sprint(len(lat)), ms(median(lat)), ms(p99), ms(percentile(lat, 100)), verdict(p99 <= latencyTarget))

	// The echo of the last reply may still be in hand; stopped now,
	// hermes-bot would warn that it gave up on it.
	if err := r.quiesce(ctx, p); err != nil {
		return err
	}
	if err := r.finish(ctx, o, p); err != nil {
		return err
	}
	post.print(w)
	press.print(w)
	return nil
}

// pressOnce posts one question, presses its first option and returns the
// time from the press to opencode accepting the answer. It returns once
// hermes-bot has shown the outcome, so the next press starts idle.
func (r *rig) pressOnce(ctx context.Context, p *botProc) (time.Duration, error) {
	q := r.newQuestion(0)
	as, err := r.ask(ctx, []question{q})
	if err != nil {
		return 0, err
	}
	if err := p.posted(ctx, q); err != nil {
		return 0, err
	}
	id := as[0].msgID
	m, ok := r.tg.Message(benchChatID, id)
	if !ok {
		return 0, fmt.Errorf("message %d is gone", id)
	}
	data := ""
	for _, row := range m.Keyboard {
		for _, b := range row {
			if data == "" && strings.HasPrefix(b.CallbackData, "qopt:") {
				data = b.CallbackData
			}
		}
	}
	if data == "" {
		return 0, errors.New("the question's message has no option button")
	}
	before := len(r.oc.Replies())

	start := time.Now()
	cb, err := r.tg.PressButton(benchChatID, id, presser, data)
	if err != nil {
		return 0, err
	}
	if _, err := r.oc.WaitReplies(ctx, before+1); err != nil {
		return 0, err
	}
	took := time.Since(start)

	if _, err := r.tg.WaitAnswer(ctx, cb); err != nil {
		return 0, err
	}
	if err := r.waitEdited(ctx, []int{id}); err != nil {
		return 0, err
	}
	return took, nil
}

// quiesce asks one more question and waits until it is posted: hermes-bot
// handles the event stream in order, so by then it has finished with
// every event sent before, such as the echo of the last reply. The
// question stays pending: closing it would leave its edit in flight.
func (r *rig) quiesce(ctx context.Context, p *botProc) error {
	q := r.newQuestion(0)
	if _, err := r.ask(ctx, []question{q}); err != nil {
		return err
	}
	return p.posted(ctx, q)
}

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// startupTarget is the bound on start-up with 10,000 entries.
const startupTarget = 200 * time.Millisecond

// milestones are the moments of one start, from just before the process
// was started.
type milestones struct {
	started   time.Duration // "hermes-bot started" logged
	polled    time.Duration // first getUpdates received by the fake Telegram
	connected time.Duration // event stream opened at the fake opencode
	ready     time.Duration // a question asked at that moment is posted
}

// runStartup starts hermes-bot -runs times with an empty store and as
// many with -entries stored requests, and reports the median and worst of
// each milestone. "Ready" is the one that counts: a question.asked sent
// the moment the event stream opens is posted only once hermes-bot has
// compared every stored request with what opencode lists (its sync after
// connect), so it measures the start-up as a user feels it.
func runStartup(ctx context.Context, o *options, w io.Writer) error {
	t := &table{
		title: "Start-up: process start → milestone (median of runs; worst in brackets)",
		head: []string{"stored requests", "runs", `"hermes-bot started" logged`, "first getUpdates",
			"event stream opened", "ready: first question posted", "target ≤ 200 ms (10,000 entries)"},
	}
	cases := []int{0}
	if o.entries > 0 {
		cases = append(cases, o.entries)
	}
	for _, n := range cases {
		r, err := newRig(o.dirs)
		if err != nil {
			return err
		}
		var runs []milestones
		err = func() error {
			defer r.close()
			template := ""
			if n > 0 {
				fmt.Fprintf(o.progress, "start-up: seeding %d stored requests…\n", n)
				if template, err = seed(o, r, n); err != nil {
					return err
				}
			}
			fmt.Fprintf(o.progress, "start-up: %d stored requests, %d runs…\n", n, o.runs)
			for run := range o.runs {
				db := filepath.Join(o.scratch, fmt.Sprintf("startup-%d-%d.db", n, run))
				if template != "" {
					if err := copyFile(template, db); err != nil {
						return err
					}
				}
				m, err := r.startOnce(ctx, o, db, fmt.Sprintf("startup-%d-%d", n, run))
				if err != nil {
					return fmt.Errorf("start-up with %d stored requests: %w", n, err)
				}
				runs = append(runs, m)
			}
			return nil
		}()
		if err != nil {
			return err
		}
		pick := func(f func(milestones) time.Duration) []time.Duration {
			out := make([]time.Duration, len(runs))
			for i, m := range runs {
				out[i] = f(m)
			}
			return out
		}
		cell := func(f func(milestones) time.Duration) string {
			d := pick(f)
			return fmt.Sprintf("%s (%s)", ms(median(d)), ms(percentile(d, 100)))
		}
		target := ""
		if n > 0 {
			target = verdict(median(pick(func(m milestones) time.Duration { return m.ready })) <= startupTarget)
		}
		t.add(fmt.Sprint(n), fmt.Sprint(len(runs)),
			cell(func(m milestones) time.Duration { return m.started }),
			cell(func(m milestones) time.Duration { return m.polled }),
			cell(func(m milestones) time.Duration { return m.connected }),
			cell(func(m milestones) time.Duration { return m.ready }),
			target)
	}
	t.print(w)
	return nil
}

// startOnce starts hermes-bot on the store at db, times its milestones,
// and stops it.
func (r *rig) startOnce(ctx context.Context, o *options, db, phase string) (milestones, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	polls := len(r.tg.RequestsFor("getUpdates"))
	conns := r.oc.Connections()
	// In the last directory: hermes-bot syncs directories in order, so
	// the probe is posted only after every stored request was compared.
	probe := r.newQuestion(len(r.dirs) - 1)

	p, err := r.start(o, db, phase)
	if err != nil {
		return milestones{}, err
	}
	defer p.kill()

	var (
		m    milestones
		errs = make(chan error, 3)
	)
	go func() {
		l, err := p.logs.wait(ctx, func(l logLine) bool { return l.Message == "hermes-bot started" })
		m.started = l.at.Sub(p.start)
		errs <- err
	}()
	go func() {
		_, err := r.tg.WaitRequests(ctx, "getUpdates", polls+1)
		m.polled = time.Since(p.start)
		errs <- err
	}()
	go func() {
		if err := r.oc.WaitConnections(ctx, conns+1); err != nil {
			errs <- err
			return
		}
		m.connected = time.Since(p.start)
		as, err := r.ask(ctx, []question{probe})
		if err != nil {
			errs <- err
			return
		}
		m.ready = as[0].posted.Sub(p.start)
		// Stopped before it saved the message ID, hermes-bot would log
		// the post as failed.
		errs <- p.posted(ctx, probe)
	}()
	for range 3 {
		if err := <-errs; err != nil {
			return milestones{}, fmt.Errorf("%w; log:\n%s", err, p.logs.tail(20))
		}
	}
	if err := r.finish(ctx, o, p); err != nil {
		return milestones{}, err
	}
	// The next start uses a fresh copy of the store: the probe must not be
	// listed as pending there.
	r.oc.RemoveQuestion(probe.dir, probe.req.ID)
	return m, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

const (
	// rssTarget is the bound on idle resident memory, in KiB.
	rssTarget = 15 * 1024
	// idleCPUTarget is the bound on idle CPU, in percent of a core.
	idleCPUTarget = 0.1
)

// runFootprint reads the resident memory of hermes-bot at rest, with an
// empty store and with -entries stored requests, and the CPU it uses over
// -idle with nothing happening but Telegram long polling (the fake holds
// each getUpdates 50 s, as Telegram does) and the event stream's
// heartbeat every 10 s.
func runFootprint(ctx context.Context, o *options, w io.Writer) error {
	t := &table{
		title: fmt.Sprintf("Footprint: resident memory (VmRSS) and CPU while idle for %s", o.idle),
		head: []string{"stored requests", "RSS at rest", "RSS after idle", "peak RSS", "RSS anon / file",
			"idle CPU (utime+stime)", "idle CPU (schedstat)", "target RSS ≤ 15 MiB", "target CPU ≤ 0.1 %"},
	}
	cases := []int{0}
	if o.entries > 0 {
		cases = append(cases, o.entries)
	}
	for _, n := range cases {
		if err := footprintOnce(ctx, o, n, t); err != nil {
			return fmt.Errorf("footprint with %d stored requests: %w", n, err)
		}
	}
	t.print(w)
	return nil
}

func footprintOnce(ctx context.Context, o *options, n int, t *table) error {
	r, err := newRig(o.dirs)
	if err != nil {
		return err
	}
	defer r.close()
	db := filepath.Join(o.scratch, fmt.Sprintf("footprint-%d.db", n))
	if n > 0 {
		fmt.Fprintf(o.progress, "footprint: seeding %d stored requests…\n", n)
		template, err := seed(o, r, n)
		if err != nil {
			return err
		}
		if err := copyFile(template, db); err != nil {
			return err
		}
	}
	p, err := r.start(o, db, fmt.Sprintf("footprint-%d", n))
	if err != nil {
		return err
	}
	defer p.kill()

	// One request goes through, so the process at rest has run every
	// path once, as a bridge in use has.
	r.addSessions(1)
	q := r.newQuestion(0)
	as, err := r.ask(ctx, []question{q})
	if err != nil {
		return err
	}
	if err := p.posted(ctx, q); err != nil {
		return err
	}
	if err := r.dismiss(ctx, []question{q}, as); err != nil {
		return err
	}
	fmt.Fprintf(o.progress, "footprint: %d stored requests, at rest for %s, then idle for %s…\n", n, o.settle, o.idle)
	if err := sleep(ctx, o.settle); err != nil {
		return err
	}
	rest, err := readMemory(p.pid())
	if err != nil {
		return err
	}
	cpu0, err := readCPU(p.pid())
	if err != nil {
		return err
	}
	wall0 := time.Now()
	if err := sleep(ctx, o.idle); err != nil {
		return err
	}
	cpu1, err := readCPU(p.pid())
	if err != nil {
		return err
	}
	wall := time.Since(wall0)
	after, err := readMemory(p.pid())
	if err != nil {
		return err
	}
	if err := r.finish(ctx, o, p); err != nil {
		return err
	}

	used := cpu1.sub(cpu0)
	pct := func(d time.Duration) float64 { return 100 * float64(d) / float64(wall) }
	t.add(fmt.Sprint(n), mib(rest.RSS), mib(after.RSS), mib(after.HWM),
		fmt.Sprintf("%s / %s", mib(after.Anon), mib(after.File)),
		fmt.Sprintf("%s = %.3f %%", used.tickTime(), pct(used.tickTime())),
		fmt.Sprintf("%s = %.4f %%", used.sched.Round(time.Microsecond), pct(used.sched)),
		verdict(max(rest.RSS, after.RSS) <= rssTarget),
		verdict(pct(used.sched) <= idleCPUTarget))
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

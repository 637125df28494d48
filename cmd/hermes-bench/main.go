package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	default:
		fmt.Fprintf(os.Stderr, "hermes-bench: %v\n", err)
		os.Exit(1)
	}
}

// options are the flags every measurement shares.
type options struct {
	bin      string
	dir      string
	keep     bool
	pprofDir string

	sessions []int
	samples  int
	presses  int
	entries  int
	dirs     int
	runs     int
	idle     time.Duration
	settle   time.Duration

	scratch  string    // a fresh folder under dir for this run's files
	progress io.Writer // where progress goes (stderr); results go to stdout
}

const usage = `Usage:
  hermes-bench latency   [flags]   event → post and press → answer latency, p50/p99
  hermes-bench startup   [flags]   process start → ready, empty and with -entries stored
  hermes-bench footprint [flags]   resident memory and CPU while idle for -idle
  hermes-bench all       [flags]   the three in turn

hermes-bot is built with "go build" from this module (or taken from -bin)
and run against fake opencode and Telegram servers on loopback.

Flags:
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, usage)
		newFlags(&options{}, stderr).PrintDefaults()
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			return flag.ErrHelp
		}
		return errors.New("name a measurement: latency, startup, footprint or all")
	}
	cmd := args[0]
	measures := map[string][]func(context.Context, *options, io.Writer) error{
		"latency":   {runLatency},
		"startup":   {runStartup},
		"footprint": {runFootprint},
		"all":       {runLatency, runStartup, runFootprint},
	}[cmd]
	if measures == nil {
		return fmt.Errorf("unknown measurement %q: want latency, startup, footprint or all", cmd)
	}
	o := &options{progress: stderr}
	fs := newFlags(o, stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.samples < 1 || o.presses < 1 || o.runs < 1 || o.dirs < 1 || o.entries < 0 || o.idle < 0 || o.settle < 0 {
		return errors.New("-samples, -presses, -runs and -dirs must be at least 1; -entries, -idle and -settle not negative")
	}

	scratch, err := os.MkdirTemp(o.dir, "hermes-bench-")
	if err != nil {
		return fmt.Errorf("scratch folder: %w", err)
	}
	o.scratch = scratch
	if o.keep {
		fmt.Fprintf(stderr, "keeping files in %s\n", scratch)
	} else {
		defer os.RemoveAll(scratch)
	}
	if o.pprofDir != "" {
		if err := os.MkdirAll(o.pprofDir, 0o755); err != nil {
			return fmt.Errorf("pprof folder: %w", err)
		}
		fmt.Fprintln(stderr, "profiling: the figures of this run include the profiler's cost; do not publish them")
	}
	if o.bin == "" {
		fmt.Fprintln(stderr, "building hermes-bot (go build; CGO_ENABLED=0 on Linux)…")
		if o.bin, err = buildBinary(ctx, scratch, o.pprofDir != ""); err != nil {
			return err
		}
	}
	printMachine(ctx, stdout, o)
	for _, m := range measures {
		if err := m(ctx, o, stdout); err != nil {
			return err
		}
	}
	return nil
}

func newFlags(o *options, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hermes-bench", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.StringVar(&o.bin, "bin", "", "hermes-bot binary to measure (default: go build ./cmd/hermes-bot)")
	fs.StringVar(&o.dir, "dir", "", "folder for the stores and the binary; its disk is what HERMES_DB fsyncs to (default: the system temporary folder)")
	fs.BoolVar(&o.keep, "keep", false, "keep the scratch folder")
	fs.StringVar(&o.pprofDir, "pprof", "", "build hermes-bot with a profiling hook and write CPU, heap and allocs profiles of each phase to this folder")
	fs.Func("sessions", "latency: comma-separated numbers of concurrent sessions (default 1,10,100)", func(v string) error {
		o.sessions = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return fmt.Errorf("%q is not a number of sessions", f)
			}
			o.sessions = append(o.sessions, n)
		}
		return nil
	})
	o.sessions = []int{1, 10, 100}
	fs.IntVar(&o.samples, "samples", 1000, "latency: questions timed per number of sessions")
	fs.IntVar(&o.presses, "presses", 300, "latency: presses timed")
	fs.IntVar(&o.entries, "entries", 10000, "startup, footprint: stored requests of the loaded case")
	fs.IntVar(&o.dirs, "dirs", 10, "project directories the requests are spread over")
	fs.IntVar(&o.runs, "runs", 7, "startup: starts timed per case")
	fs.DurationVar(&o.idle, "idle", 60*time.Second, "footprint: how long the idle CPU is measured")
	fs.DurationVar(&o.settle, "settle", 5*time.Second, "footprint: how long hermes-bot rests after start-up before memory is read, so the figures are of a process at rest rather than one just done with its sync")
	return fs
}

// printMachine says what the figures were measured on.
func printMachine(ctx context.Context, w io.Writer, o *options) {
	cpu := "unknown"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	goVersion := runtime.Version()
	if out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output(); err == nil {
		goVersion = strings.TrimSpace(string(out))
	}
	kernel := runtime.GOOS
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel += " " + strings.TrimSpace(string(raw))
	}
	load := ""
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(raw))[:3], " ")
	}
	fmt.Fprintf(w, "machine: %d CPUs (nproc), %s, %s, %s/%s; load average at start %s\nstores in: %s\n",
		runtime.NumCPU(), cpu, kernel, goVersion, runtime.GOARCH, load, o.scratch)
}

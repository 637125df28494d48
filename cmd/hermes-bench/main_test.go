package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestRunRefusesBadUse(t *testing.T) {
	for _, args := range [][]string{nil, {"nonsense"}, {"latency", "-sessions", "0"}, {"startup", "extra"}, {"latency", "-samples", "0"}} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		if err == nil {
			t.Errorf("run %q succeeded", args)
		}
		if out.Len() > 0 {
			t.Errorf("run %q printed results: %s", args, out.String())
		}
	}
	var errOut bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &bytes.Buffer{}, &errOut); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("run -h = %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(errOut.String(), "hermes-bench footprint") {
		t.Errorf("usage lacks the measurements:\n%s", errOut.String())
	}
}

// TestAllSmall runs every measurement on a real hermes-bot, built here,
// with tiny sizes: each table comes out with a row per case and a verdict.
func TestAllSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs hermes-bot")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to build hermes-bot")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, progress bytes.Buffer
	err := run(ctx, []string{"all", "-dir", t.TempDir(), "-sessions", "1,3", "-samples", "6", "-presses", "2",
		"-entries", "40", "-dirs", "3", "-runs", "1", "-idle", "200ms", "-settle", "0s"}, &out, &progress)
	if err != nil {
		t.Fatalf("run all: %v\nprogress:\n%s", err, progress.String())
	}
	s := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^machine: \d+ CPUs`),
		// 1 session: 6 rounds of 1; 3 sessions: at least 3 rounds of 3.
		regexp.MustCompile(`(?m)^\| 1 +\| 6 +\| [0-9.]+ ms +\| [0-9.]+ ms +\| [0-9.]+ ms +\| (met|MISSED) +\|$`),
		regexp.MustCompile(`(?m)^\| 3 +\| 9 +\| [0-9.]+ ms +\|`),
		regexp.MustCompile(`(?m)^\| 2 +\| [0-9.]+ ms +\| [0-9.]+ ms +\| [0-9.]+ ms +\| (met|MISSED) +\|$`),
		regexp.MustCompile(`(?m)^\| 0 +\| 1 +\| [0-9.]+ ms \([0-9.]+ ms\) +\|`),
		regexp.MustCompile(`(?m)^\| 40 +\| 1 +\| .* \| (met|MISSED) +\|$`),
		regexp.MustCompile(`(?m)^\| 0 +\| [0-9.]+ MiB +\| [0-9.]+ MiB +\|`),
		regexp.MustCompile(`(?m)^\| 40 +\| [0-9.]+ MiB +\| .* \| (met|MISSED) +\| (met|MISSED) +\|$`),
	} {
		if !want.MatchString(s) {
			t.Errorf("output lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(progress.String(), "warnings or errors") {
		t.Errorf("hermes-bot logged problems:\n%s", progress.String())
	}
}

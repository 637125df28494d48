package main

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	raw := []byte("Name:\thermes-bot\nVmPeak:\t 1000 kB\nVmHWM:\t   14000 kB\nVmRSS:\t   13312 kB\n" +
		"RssAnon:\t    2800 kB\nRssFile:\t   10512 kB\nRssShmem:\t       0 kB\nThreads:\t8\n")
	m, err := parseStatus(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want := (memory{RSS: 13312, HWM: 14000, Anon: 2800, File: 10512}); m != want {
		t.Errorf("parseStatus = %+v, want %+v", m, want)
	}
	if _, err := parseStatus([]byte("Name:\tx\nVmRSS:\t 1 kB\n")); err == nil {
		t.Error("a status without VmHWM, RssAnon and RssFile parsed")
	}
	if _, err := parseStatus([]byte("VmRSS:\t x kB\nVmHWM:\t 1 kB\nRssAnon:\t 1 kB\nRssFile:\t 1 kB\n")); err == nil {
		t.Error("a status with a non-number parsed")
	}
}

func TestParseStatTicks(t *testing.T) {
	// The command name may hold spaces and parentheses.
	raw := []byte("4242 (my (odd) bot) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 8 0 100 0 0\n")
	got, err := parseStatTicks(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got != 325 {
		t.Errorf("utime+stime = %d, want 250+75", got)
	}
	if _, err := parseStatTicks([]byte("4242 (bot) S 1 2")); err == nil {
		t.Error("a short stat parsed")
	}
	if _, err := parseStatTicks([]byte("no name here")); err == nil {
		t.Error("a stat without a name parsed")
	}
}

func TestParseSchedstat(t *testing.T) {
	got, err := parseSchedstat([]byte("123456789 2000 17\n"))
	if err != nil || got != 123456789*time.Nanosecond {
		t.Errorf("parseSchedstat = %v, %v; want 123.456789ms", got, err)
	}
	if _, err := parseSchedstat(nil); err == nil {
		t.Error("an empty schedstat parsed")
	}
}

// TestReadOwnProcess reads this test's own process, whose CPU time must
// be seen to grow while it spins.
func TestReadOwnProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux /proc")
	}
	m, err := readMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.HWM < m.RSS || m.Anon+m.File > m.RSS+1 {
		t.Errorf("implausible memory %+v", m)
	}
	before, err := readCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for {
		for range 1_000_000 {
			x++
		}
		now, err := readCPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if used := now.sub(before); used.sched >= 20*time.Millisecond && used.ticks >= 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("spinning for 10s was never counted as 20ms of CPU: %+v (x=%d)", now.sub(before), x)
		}
	}
}

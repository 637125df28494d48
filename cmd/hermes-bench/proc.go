package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of utime and stime in /proc/<pid>/stat: USER_HZ,
// 100 on every Linux the kernel exposes to user space.
const userHZ = 100

// memory is what /proc/<pid>/status says of a process's memory, in KiB.
type memory struct {
	RSS, HWM, Anon, File int64 // VmRSS, VmHWM (peak RSS), RssAnon, RssFile
}

// readMemory reads /proc/<pid>/status.
func readMemory(pid int) (memory, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, fmt.Errorf("read memory of process %d (footprint needs Linux /proc): %w", pid, err)
	}
	return parseStatus(raw)
}

func parseStatus(raw []byte) (memory, error) {
	var m memory
	fields := map[string]*int64{"VmRSS:": &m.RSS, "VmHWM:": &m.HWM, "RssAnon:": &m.Anon, "RssFile:": &m.File}
	found := 0
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		p, ok := fields[f[0]]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("parse %s %q: %w", f[0], f[1], err)
		}
		*p = n
		found++
	}
	if found != len(fields) {
		return memory{}, errors.New("process status lacks VmRSS, VmHWM, RssAnon or RssFile")
	}
	return m, nil
}

// cpuTime is the CPU a process has used: ticks from /proc/<pid>/stat
// (utime+stime, all threads, in 1/userHZ s) and, finer, the sum of its
// threads' run time from /proc/<pid>/task/*/schedstat.
type cpuTime struct {
	ticks int64
	sched time.Duration
}

func (c cpuTime) sub(d cpuTime) cpuTime {
	return cpuTime{ticks: c.ticks - d.ticks, sched: c.sched - d.sched}
}

// tickTime is ticks as a duration.
func (c cpuTime) tickTime() time.Duration { return time.Duration(c.ticks) * time.Second / userHZ }

func readCPU(pid int) (cpuTime, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTime{}, fmt.Errorf("read CPU time of process %d (footprint needs Linux /proc): %w", pid, err)
	}
	ticks, err := parseStatTicks(raw)
	if err != nil {
		return cpuTime{}, err
	}
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil {
		return cpuTime{}, fmt.Errorf("list threads of process %d: %w", pid, err)
	}
	var sched time.Duration
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended meanwhile
		}
		ns, err := parseSchedstat(raw)
		if err != nil {
			return cpuTime{}, fmt.Errorf("%s: %w", t, err)
		}
		sched += ns
	}
	return cpuTime{ticks: ticks, sched: sched}, nil
}

// parseStatTicks returns utime+stime, fields 14 and 15 of
// /proc/<pid>/stat. The command name (field 2) may hold spaces and
// parentheses, so fields are counted from its last ')'.
func parseStatTicks(raw []byte) (int64, error) {
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, errors.New("process stat has no command name")
	}
	f := strings.Fields(string(raw[i+1:]))
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 13 {
		return 0, fmt.Errorf("process stat has %d fields after the name, want at least 13", len(f))
	}
	var sum int64
	for _, s := range f[14-3 : 15-3+1] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parse CPU ticks %q: %w", s, err)
		}
		sum += n
	}
	return sum, nil
}

// parseSchedstat returns the first field of a schedstat file: time spent
// on the CPU, in nanoseconds.
func parseSchedstat(raw []byte) (time.Duration, error) {
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0, errors.New("empty schedstat")
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse schedstat %q: %w", f[0], err)
	}
	return time.Duration(ns), nil
}

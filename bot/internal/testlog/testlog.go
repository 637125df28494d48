// Package testlog is the log buffer the bot packages' tests read what was
// logged from: a bytes.Buffer safe for the goroutines a bridge starts.
package testlog

import (
	"bytes"
	"sync"
)

// Buffer collects log output; it is safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

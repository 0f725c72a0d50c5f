package sharedtest

import (
	"strings"
	"sync"
)

// Buffer is an io.Writer whose text a test reads while another goroutine
// (a front end, a server, a timer) still writes it: a strings.Builder
// behind a mutex. The zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p; it never fails.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

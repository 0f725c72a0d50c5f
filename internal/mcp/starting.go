package mcp

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Defaults of Options.StartingAfter and Options.StartingEvery: a server
// whose start-up takes longer than DefaultStartingAfter is reported as
// starting, then every DefaultStartingEvery as still starting.
const (
	DefaultStartingAfter = 2 * time.Second
	DefaultStartingEvery = 15 * time.Second
)

// watchStart tells Options.Starting about s's start-up while it takes long
// (a package runner installing its package on a cold cache can take a
// minute): after StartingAfter a line naming the server, what runs and the
// start-up timeout, then every StartingEvery how long it has taken, each
// with the server's last stderr line (npm's progress) when there is one.
// done ends it; when a line was shown, it tells that the server is ready
// (a failure is reported as every failure is, see [Manager.Failures]).
func (s *server) watchStart() (done func(err error)) {
	report := s.m.opts.Starting
	if report == nil {
		return func(error) {}
	}
	after, every := s.m.opts.StartingAfter, s.m.opts.StartingEvery
	if after <= 0 {
		after = DefaultStartingAfter
	}
	if every <= 0 {
		every = DefaultStartingEvery
	}
	begun, limit := time.Now(), s.startupTimeout()
	stop, stopped := make(chan struct{}), make(chan bool, 1)
	go func() {
		shown := false
		defer func() { stopped <- shown }()
		timer := time.NewTimer(after)
		defer timer.Stop()
		for {
			select {
			case <-stop:
				return
			case <-timer.C:
			}
			report(s.cfg.Name, s.startingLine(shown, time.Since(begun), limit))
			shown = true
			timer.Reset(every)
		}
	}()
	return func(err error) {
		close(stop)
		if <-stopped && err == nil {
			report(s.cfg.Name, fmt.Sprintf("MCP server %s is ready (started in %s)", s.cfg.Name, time.Since(begun).Round(time.Second)))
		}
	}
}

// startingLine is the line about a start-up under way for elapsed of
// limit: the first (again false) names what runs.
func (s *server) startingLine(again bool, elapsed, limit time.Duration) string {
	var line string
	switch {
	case again:
		line = fmt.Sprintf("MCP server %s is still starting (%s of %s)", s.cfg.Name, elapsed.Round(time.Second), limit)
	case packageRunner(s.cfg.Command, s.cfg.Args):
		line = fmt.Sprintf("MCP server %s is starting: %s may be installing its package first (waiting up to %s)", s.cfg.Name, s.cfg.Command, limit)
	default:
		line = fmt.Sprintf("MCP server %s is starting (waiting up to %s)", s.cfg.Name, limit)
	}
	s.mu.Lock()
	last := ""
	if s.stderr != nil {
		last = s.stderr.LastLine()
	}
	s.mu.Unlock()
	if last = printable(last); last != "" {
		line += ": " + last
	}
	return line
}

// printable is text without control characters (a server's stderr shown
// on a terminal must not move its cursor).
func printable(text string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, text))
}

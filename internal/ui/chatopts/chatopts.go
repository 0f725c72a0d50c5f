// Package chatopts is what the interactive chat (the terminal UI and the
// line mode, package ui/chat) is started with, and how its set-up errors
// are told from the rest. It is a package of its own, light to import, so
// that the command line (package cli) can hand a chat its session service
// without linking the chat's libraries: aidex's chat runs in the program
// aidex-chat (cmd/aidex-chat), which passes chat.Run to cli as
// cli.Process.Chat; aidex itself passes none and starts aidex-chat
// instead (issue 40: the terminal UI's libraries cost every start in
// package init).
package chatopts

import (
	"context"
	"errors"
	"io"

	"github.com/zelvior/aidex/internal/app"
)

// Options is one interactive chat's start: the session service the command
// line opened, the process's streams, and the flags that shape the chat.
type Options struct {
	// Service is the session service (the store open, the configuration
	// loaded); the chat does not close it.
	Service *app.Service
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	// Version is aidex's short version, shown in the banner.
	Version string
	// TUI is true when the terminal UI may run: stdin and stdout are
	// terminals, TERM is not dumb and --plain was not given. Otherwise the
	// line mode runs.
	TUI bool
	// Color is true when the line mode may colour its output: stdout is a
	// terminal, NO_COLOR is unset and TERM is not dumb.
	Color      bool
	Fullscreen bool // --fullscreen: the terminal UI on the alternate screen
	Verbose    bool // --verbose: the line mode prints tool results whole
	// ChatAliases makes iptic-memex's commands typed without a slash work
	// (`aidex chat`).
	ChatAliases bool
	// Resume is the session id of -r, Continue is -c.
	Resume   string
	Continue bool
	// MaxTurns bounds each run's turns (0: the configured default).
	MaxTurns int
	// AppendSystem is added to the system prompt (--append-system-prompt).
	AppendSystem string
	// First, when not "", is sent as the first message.
	First string
}

// Run runs an interactive chat until the user leaves it. Its errors are
// the chat's; a set-up error (configuration, provider, onboarding) is
// wrapped by Setup so that the caller can exit with its usage code.
type Run func(ctx context.Context, o Options) error

// setupError marks an error of the chat's set-up.
type setupError struct{ err error }

func (e setupError) Error() string { return e.err.Error() }
func (e setupError) Unwrap() error { return e.err }

// Setup marks err (nil stays nil) as an error of the chat's set-up: a
// configuration or provider that cannot be used, onboarding given up.
func Setup(err error) error {
	if err == nil {
		return nil
	}
	return setupError{err}
}

// IsSetup reports whether err, or an error it wraps, was marked by Setup.
func IsSetup(err error) bool {
	var s setupError
	return errors.As(err, &s)
}

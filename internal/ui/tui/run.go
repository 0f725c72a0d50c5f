// Package tui is aidex's interactive terminal UI (Bubble Tea v2). It runs
// inline by default: finished messages are printed into the terminal's own
// scrollback (so selection and copy work as in any program) and only the
// live part — the streaming answer's tail, running tool cards, approval
// prompts, pickers, the input and the status line — is redrawn. Fullscreen
// puts the same UI on the alternate screen. The mouse is never captured.
//
// /tasks opens Ralph's split view (the task list on the left, the
// selected task's detail and live transcript on the right; keys a add,
// e edit in $EDITOR, r run the loop, s stop, Esc back). It uses the
// alternate screen while open; chat output produced meanwhile reaches the
// scrollback when it closes. A loop started there keeps running after
// Esc (its task results are printed as they finish) and is interrupted
// when the UI quits (the current task goes back to pending).
//
// Engine events reach the UI through a queue that never blocks the engine
// (text deltas are merged); markdown is rendered with glamour on a short
// debounce, and complete blocks are committed as they finish, so long
// answers cost linear time. Nothing ticks while idle.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// BuildFunc builds the session controller with the TUI's approver.
// provider is "" for the configured one, or the provider picked during
// onboarding. An error satisfying [commands.IsMissingKey] starts the
// onboarding.
type BuildFunc func(ctx context.Context, ap agent.Approver, provider string) (*commands.Controller, error)

// Options configure [Run]. In and Out are the terminal; Color enables
// colours (off with NO_COLOR); Fullscreen uses the alternate screen;
// Version is shown at start; Base is the configuration and catalog without
// a provider (for onboarding; may be nil when Build succeeds); Table is the
// slash-command table (nil: commands.Default()); Getenv looks up $EDITOR.
// Width and Height set the initial size (0: asked from the terminal; tests
// set them).
type Options struct {
	In         io.Reader
	Out        io.Writer
	Color      bool
	Fullscreen bool
	Version    string
	Base       *app.Runtime
	Build      BuildFunc
	Table      commands.Table
	Getenv     func(string) string
	Width      int
	Height     int
}

// ErrTerminal wraps failures to start the terminal UI (no usable
// terminal); the caller falls back to the line mode.
var ErrTerminal = errors.New("the terminal UI could not start")

// Run builds the controller and runs the UI until the user quits. It
// returns an error wrapping ErrTerminal when the terminal cannot be used,
// and Build's error when it is not a missing key.
func Run(ctx context.Context, o Options) error {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	q := newQueue()
	ap := approver{q: q}
	ctrl, err := o.Build(ctx, ap, "")
	switch {
	case commands.IsMissingKey(err) && o.Base != nil:
		ctrl = nil
	case err != nil:
		return err
	}
	defer func() {
		if ctrl != nil {
			ctrl.Close()
		}
	}()
	m := newModel(ctx, o, ctrl, o.Base, q)
	p := tea.NewProgram(m, programOptions(ctx, o)...)
	final, err := p.Run()
	if fm, ok := final.(*model); ok {
		fm.shutdownRalph()
		if fm.ctrl != nil && fm.ctrl != ctrl {
			fm.ctrl.Close()
		}
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		if !m.started() {
			return fmt.Errorf("%w: %v", ErrTerminal, err)
		}
		return err
	}
	return nil
}

func programOptions(ctx context.Context, o Options) []tea.ProgramOption {
	// Bubble Tea flushes on a frame ticker even when idle; 30 frames a
	// second halves that cost and is smooth enough for streaming text.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(30)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	if o.Width > 0 && o.Height > 0 {
		opts = append(opts, tea.WithWindowSize(o.Width, o.Height))
	}
	return opts
}

// started reports whether the UI got as far as a window size.
func (m *model) started() bool { return m.sized }

package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// BuildFunc builds the session controller with the TUI's approver and
// asker (ask_user's form).
// provider is "" for the configured one, or the provider picked during
// onboarding. An error satisfying [commands.IsMissingKey] starts the
// onboarding.
type BuildFunc func(ctx context.Context, ap agent.Approver, ask agent.Asker, provider string) (*commands.Controller, error)

// Options configure [Run]. In and Out are the terminal; Color enables
// colours (off with NO_COLOR); Fullscreen uses the alternate screen;
// Version is shown at start; Base is the configuration and catalog without
// a provider (for onboarding; may be nil when Build succeeds); Table is the
// slash-command table (nil: commands.Default()); Getenv looks up $EDITOR.
// Width and Height set the initial size (0: asked from the terminal; tests
// set them). NotifyAfter is the shortest run whose end rings the terminal
// (0: notify.DefaultAfter; tests shorten it); the config key notify says how.
type Options struct {
	In          io.Reader
	Out         io.Writer
	Color       bool
	Fullscreen  bool
	Version     string
	Base        *app.Runtime
	Build       BuildFunc
	Table       commands.Table
	Getenv      func(string) string
	Width       int
	Height      int
	NotifyAfter time.Duration
	// Prompt is a first message, sent as soon as the UI knows its size
	// (`aidex "PROMPT"` on a terminal); while onboarding asks for a
	// provider it waits in the input instead.
	Prompt string
	// Now is the UI's clock, for the approval card's type-ahead guard and
	// the Ctrl+C quit window (nil: time.Now). Tests pass a fake one.
	Now func() time.Time
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
	defer q.close()
	ap := approver{q: q}
	ctrl, err := o.Build(ctx, ap, ap, "")
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
		fm.tasks.shutdownRalph()
		if fm.ctrl != nil && fm.ctrl != ctrl {
			fm.ctrl.Close()
		}
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		if !m.sized { // the terminal never reported a size
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

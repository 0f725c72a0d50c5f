package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/plain"
	"github.com/zelvior/aidex/internal/ui/tui"
)

// runInteractive starts the terminal UI, or the plain line mode with
// --plain, when stdout or stdin is not a terminal, or with TERM=dumb. A
// terminal UI that cannot start falls back to the line mode with a
// one-line reason. first, when not "", is the first message to send.
func (a *cliApp) runInteractive(ctx context.Context, f *runFlags, first string) error {
	if f.answers != "" {
		return usageErr("--answers is for headless runs (-p PROMPT); the terminal UI and the line mode ask you instead")
	}
	if len(f.attach) > 0 {
		return usageErr("--attach goes with a headless run (-p \"PROMPT\"); in a session attach files with @path or /load FILE")
	}
	if f.budget.estimate {
		return usageErr("--estimate goes with a headless run (-p \"PROMPT\"); in a session type /cost estimate")
	}
	svc, err := a.startRun(ctx, true)
	if err != nil {
		return err
	}
	defer svc.Close()
	b := &sessionBuilder{f: f, svc: svc}
	if !f.plain && a.tuiTerminal() {
		b.recent = tui.RecentMessages // the prompt comes before a long conversation has loaded
		err := tui.Run(ctx, tui.Options{In: a.proc.Stdin, Out: a.proc.Stdout, Color: a.proc.Getenv("NO_COLOR") == "",
			Fullscreen: f.fullscreen, Version: a.proc.shortVersion(), Base: svc.Runtime(),
			Build: b.build, Getenv: a.proc.Getenv, Prompt: first})
		if !errors.Is(err, tui.ErrTerminal) {
			return usageIfSetup(err)
		}
		fmt.Fprintf(a.proc.Stderr, "aidex: %v; using the line mode\n", err)
	}
	return a.runLineMode(ctx, svc.Runtime(), b, first)
}

// tuiTerminal reports whether the terminal UI can run: stdin and stdout
// are terminals and TERM is not dumb.
func (a *cliApp) tuiTerminal() bool {
	return isTerminal(a.proc.Stdout) && isTerminalReader(a.proc.Stdin) && a.proc.Getenv("TERM") != "dumb"
}

// runLineMode runs the plain line mode, with onboarding when no provider
// is usable yet; first, when not "", is read as the first line.
func (a *cliApp) runLineMode(ctx context.Context, base *app.Runtime, b *sessionBuilder, first string) error {
	color := isTerminal(a.proc.Stdout) && a.proc.Getenv("NO_COLOR") == "" && a.proc.Getenv("TERM") != "dumb"
	in := a.proc.Stdin
	if first != "" {
		in = io.MultiReader(strings.NewReader(strings.ReplaceAll(first, "\n", " ")+"\n"), in)
	}
	repl := plain.New(in, a.proc.Stdout, color)
	repl.Printer.Verbose = a.flags.verbose
	if !plain.UTF8Locale(a.proc.Getenv) {
		repl.UseASCII()
	}
	ctrl, err := b.build(ctx, repl.Approver(), repl.Asker(), "")
	if commands.IsMissingKey(err) {
		fmt.Fprintf(a.proc.Stdout, "aidex: %v\n", err)
		provider, oerr := repl.Onboard(ctx, base)
		if oerr != nil {
			return &ExitError{Code: ExitUsage, Err: oerr}
		}
		ctrl, err = b.build(ctx, repl.Approver(), repl.Asker(), provider)
	}
	if err != nil {
		return usageIfSetup(err)
	}
	defer ctrl.Close()
	rt := ctrl.Runtime()
	if rt.Notice != "" {
		fmt.Fprintf(repl.Printer.Out, "aidex: %s\n", rt.Notice)
	}
	fmt.Fprintf(repl.Printer.Out, "aidex %s · %s/%s · %s · /help for commands, /exit to quit\n",
		a.proc.shortVersion(), rt.Provider.Name, rt.Model, ctrl.Mode())
	if b.f.chatAliases {
		fmt.Fprintln(repl.Printer.Out, "iptic-memex's commands work here too: load file PATH, load url URL, save chat, save code, set model X, clear, reprint, quit")
	}
	if msgs, total := ctrl.Recent(); total > 0 {
		// A resumed conversation is reprinted, as the terminal UI shows it.
		commands.Reprint(repl.Printer.Out, msgs, total)
	}
	return repl.Run(ctx, ctrl, commands.Default().WithCustom(ctx, ctrl))
}

// sessionBuilder chooses the provider and builds the session controller
// for a front end; the session is created (or loaded with -c/-r) once and
// kept when the front end changes (TUI fallback) or the provider is
// picked.
type sessionBuilder struct {
	f    *runFlags
	svc  *app.Service
	sess *agent.Conversation
	// recent > 0 resumes with the conversation's last recent messages
	// first, the rest loading meanwhile (app.Service.PickRecent).
	recent int
}

func (b *sessionBuilder) build(ctx context.Context, ap agent.Approver, ask agent.Asker, provider string) (*commands.Controller, error) {
	if _, err := b.svc.Choose(ctx, provider); err != nil {
		return nil, err
	}
	if b.sess == nil {
		pick := b.svc.Pick
		if b.recent > 0 {
			pick = func(ctx context.Context, resume string, cont bool) (*agent.Conversation, error) {
				return b.svc.PickRecent(ctx, resume, cont, b.recent)
			}
		}
		s, err := pick(ctx, b.f.resume, b.f.cont)
		if err != nil {
			return nil, err
		}
		if b.f.resume != "" || b.f.cont {
			// The session's last model; the resume line names it.
			if _, err := b.svc.ResumeModel(ctx, s); err != nil {
				return nil, err
			}
		}
		b.sess = s
	}
	chooser, _ := ap.(multi.Chooser) // the TUI's and the line mode's approvers also choose parallel answers
	return commands.New(ctx, commands.Config{Service: b.svc, Session: b.sess,
		Approver: ap, Asker: ask, MaxTurns: b.f.maxTurns, AppendSystem: b.f.appendSystem, Chooser: chooser,
		ChatAliases: b.f.chatAliases})
}

// usageIfSetup maps set-up errors (config, provider) to exit code 2.
func usageIfSetup(err error) error {
	var ee *ExitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

// isTerminalReader reports whether r is a terminal.
func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

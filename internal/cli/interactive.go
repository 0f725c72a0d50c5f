package cli

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/zelvior/aidex/internal/ui/chatopts"
)

// runInteractive starts the interactive chat: the terminal UI, or the
// plain line mode with --plain, when stdout or stdin is not a terminal,
// or with TERM=dumb (package ui/chat). first, when not "", is the first
// message to send. The chat runs in this process when it has one
// (Process.Chat: aidex-chat, tests); aidex itself hands the command line
// to aidex-chat before opening anything (launchChat).
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
	if a.proc.Chat == nil {
		return a.launchChat()
	}
	svc, err := a.startRun(ctx, true)
	if err != nil {
		return err
	}
	defer svc.Close()
	err = a.proc.Chat(ctx, chatopts.Options{Service: svc,
		Stdin: a.proc.Stdin, Stdout: a.proc.Stdout, Stderr: a.proc.Stderr, Getenv: a.proc.Getenv,
		Version: a.proc.shortVersion(), TUI: !f.plain && a.tuiTerminal(), Fullscreen: f.fullscreen,
		Color:   isTerminal(a.proc.Stdout) && a.proc.Getenv("NO_COLOR") == "" && a.proc.Getenv("TERM") != "dumb",
		Verbose: a.flags.verbose, ChatAliases: f.chatAliases, Resume: f.resume, Continue: f.cont,
		MaxTurns: f.maxTurns, AppendSystem: f.appendSystem, First: first})
	if chatopts.IsSetup(err) {
		return usageIfSetup(errors.Unwrap(err))
	}
	return err
}

// tuiTerminal reports whether the terminal UI can run: stdin and stdout
// are terminals and TERM is not dumb.
func (a *cliApp) tuiTerminal() bool {
	return isTerminal(a.proc.Stdout) && isTerminalReader(a.proc.Stdin) && a.proc.Getenv("TERM") != "dumb"
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

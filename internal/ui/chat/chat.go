// Package chat is aidex's interactive chat: the terminal UI (ui/tui), or
// the line mode (ui/plain) with --plain, when stdin or stdout is not a
// terminal, with TERM=dumb, or when the terminal UI cannot start. It runs
// in the program aidex-chat (cmd/aidex-chat), which aidex starts for an
// interactive session, so that the libraries of the two front ends
// (Bubble Tea, glamour, chroma, goldmark, ...) do not cost the start of
// aidex's other commands.
package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/ui/chatopts"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/plain"
	"github.com/zelvior/aidex/internal/ui/tui"
)

var _ chatopts.Run = Run

// Run runs the terminal UI when o.TUI, else (or when the terminal UI
// cannot start, said in one line on o.Stderr) the line mode, until the
// user leaves. Set-up errors are marked with chatopts.Setup.
func Run(ctx context.Context, o chatopts.Options) error {
	b := &sessionBuilder{o: o}
	if o.TUI {
		b.recent = tui.RecentMessages // the prompt comes before a long conversation has loaded
		err := tui.Run(ctx, tui.Options{In: o.Stdin, Out: o.Stdout, Color: o.Getenv("NO_COLOR") == "",
			Fullscreen: o.Fullscreen, Version: o.Version, Base: o.Service.Runtime(),
			Build: b.build, Getenv: o.Getenv, Prompt: o.First})
		if !errors.Is(err, tui.ErrTerminal) {
			return chatopts.Setup(err)
		}
		fmt.Fprintf(o.Stderr, "aidex: %v; using the line mode\n", err)
	}
	return runLineMode(ctx, o, b)
}

// runLineMode runs the plain line mode, with onboarding when no provider
// is usable yet; o.First, when not "", is read as the first line.
func runLineMode(ctx context.Context, o chatopts.Options, b *sessionBuilder) error {
	in := o.Stdin
	if o.First != "" {
		in = io.MultiReader(strings.NewReader(strings.ReplaceAll(o.First, "\n", " ")+"\n"), in)
	}
	repl := plain.New(in, o.Stdout, o.Color)
	repl.Printer.Verbose = o.Verbose
	if !plain.UTF8Locale(o.Getenv) {
		repl.UseASCII()
	}
	base := o.Service.Runtime()
	ctrl, err := b.build(ctx, repl.Approver(), repl.Asker(), "")
	if commands.IsMissingKey(err) {
		fmt.Fprintf(o.Stdout, "aidex: %v\n", err)
		provider, oerr := repl.Onboard(ctx, base)
		if oerr != nil {
			return chatopts.Setup(oerr)
		}
		ctrl, err = b.build(ctx, repl.Approver(), repl.Asker(), provider)
	}
	if err != nil {
		return chatopts.Setup(err)
	}
	defer ctrl.Close()
	rt := ctrl.Runtime()
	if rt.Notice != "" {
		fmt.Fprintf(repl.Printer.Out, "aidex: %s\n", rt.Notice)
	}
	fmt.Fprintf(repl.Printer.Out, "aidex %s · %s/%s · %s · /help for commands, /exit to quit\n",
		o.Version, rt.Provider.Name, rt.Model, ctrl.Mode())
	if o.ChatAliases {
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
	o    chatopts.Options
	sess *agent.Conversation
	// recent > 0 resumes with the conversation's last recent messages
	// first, the rest loading meanwhile (app.Service.PickRecent).
	recent int
}

func (b *sessionBuilder) build(ctx context.Context, ap agent.Approver, ask agent.Asker, provider string) (*commands.Controller, error) {
	svc := b.o.Service
	if _, err := svc.Choose(ctx, provider); err != nil {
		return nil, err
	}
	if b.sess == nil {
		pick := svc.Pick
		if b.recent > 0 {
			pick = func(ctx context.Context, resume string, cont bool) (*agent.Conversation, error) {
				return svc.PickRecent(ctx, resume, cont, b.recent)
			}
		}
		s, err := pick(ctx, b.o.Resume, b.o.Continue)
		if err != nil {
			return nil, err
		}
		if b.o.Resume != "" || b.o.Continue {
			// The session's last model; the resume line names it.
			if _, err := svc.ResumeModel(ctx, s); err != nil {
				return nil, err
			}
		}
		b.sess = s
	}
	chooser, _ := ap.(multi.Chooser) // the TUI's and the line mode's approvers also choose parallel answers
	return commands.New(ctx, commands.Config{Service: svc, Session: b.sess,
		Approver: ap, Asker: ask, MaxTurns: b.o.MaxTurns, AppendSystem: b.o.AppendSystem, Chooser: chooser,
		ChatAliases: b.o.ChatAliases})
}

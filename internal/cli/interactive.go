package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/setup"
	"github.com/zelvior/aidex/internal/ui/plain"
)

// runInteractive starts the line mode on the terminal.
func (a *app) runInteractive(ctx context.Context, f *runFlags) error {
	rt, err := setup.Load(ctx, a.setupOptions())
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	a.warn(rt)
	color := isTerminal(a.proc.Stdout) && a.proc.Getenv("NO_COLOR") == "" && a.proc.Getenv("TERM") != "dumb"
	repl := plain.New(a.proc.Stdin, a.proc.Stdout, color)
	repl.Printer.Verbose = a.flags.verbose
	if rt.Notice != "" {
		fmt.Fprintf(a.proc.Stdout, "aidex: %s\n", rt.Notice)
	}
	store, err := session.Open(ctx, rt.Config.Paths.DataDir)
	if err != nil {
		return fmt.Errorf("open sessions: %w", err)
	}
	defer store.Close()
	sess, err := a.pickSession(ctx, store, rt, f)
	if err != nil {
		return err
	}
	r := &lineRunner{a: a, rt: rt, store: store, sess: sess, approver: repl.Approver(), flags: f}
	if err := r.build(ctx); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer r.close()
	fmt.Fprintf(a.proc.Stdout, "aidex %s · %s/%s · %s · /help for commands, /exit to quit\n",
		a.proc.version(), rt.Provider.Name, rt.Model, rt.Config.PermissionMode)
	return repl.Loop(ctx, r)
}

// lineRunner connects the line mode to the engine and the session store.
type lineRunner struct {
	a        *app
	rt       *setup.Runtime
	store    *session.Store
	sess     *agent.Session
	approver agent.Approver
	flags    *runFlags
	eng      *agent.Engine
	close    func()
}

func (r *lineRunner) build(ctx context.Context) error {
	eng, closeEngine, err := r.rt.Engine(ctx, setup.EngineOptions{Store: r.store, SessionID: r.sess.ID,
		Approver: r.approver, MaxTurns: r.flags.maxTurns, AppendSystem: r.flags.appendSystem})
	if err != nil {
		return err
	}
	if r.close != nil {
		r.close()
	}
	r.eng, r.close = eng, closeEngine
	return nil
}

// Run sends one prompt.
func (r *lineRunner) Run(ctx context.Context, prompt string, emit func(agent.Event)) error {
	_, err := r.eng.Run(ctx, r.sess, []llm.Part{{Type: llm.PartText, Text: prompt}}, emit)
	if err == context.Canceled {
		return nil
	}
	return err
}

// lineCommands lists the line mode's slash commands for /help.
var lineCommands = [][2]string{
	{"/help", "show this list"},
	{"/clear", "start a new session"},
	{"/compact [focus]", "summarise older turns to free context"},
	{"/cost", "tokens and cost of this session"},
	{"/model [PROVIDER/]MODEL", "show or switch the model"},
	{"/sessions", "list this workspace's sessions"},
	{"/undo", "restore the files changed by the last turn"},
	{"/exit", "quit"},
}

// Command runs a slash command.
func (r *lineRunner) Command(ctx context.Context, line string, out io.Writer) (bool, error) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "/exit", "/quit":
		return true, nil
	case "/help":
		for _, c := range lineCommands {
			fmt.Fprintf(out, "  %-26s %s\n", c[0], c[1])
		}
	case "/clear":
		s, err := r.store.Create(ctx, r.rt.Workspace, r.rt.Provider.Name, r.rt.Model)
		if err != nil {
			return false, err
		}
		r.sess = s
		fmt.Fprintf(out, "new session %s\n", s.ID)
		return false, r.build(ctx)
	case "/compact":
		if err := r.eng.Compact(ctx, r.sess, arg, func(agent.Event) {}); err != nil {
			return false, err
		}
		fmt.Fprintf(out, "compacted: %d messages kept\n", len(r.sess.Messages))
	case "/cost":
		u := r.sess.Usage
		fmt.Fprintf(out, "input %d · output %d · cache read %d · cache write %d tokens · $%.4f\n",
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, r.sess.CostUSD)
	case "/model":
		return false, r.switchModel(ctx, arg, out)
	case "/sessions":
		list, err := r.store.List(ctx, session.ListOptions{Workspace: r.rt.Workspace, Limit: 20})
		if err != nil {
			return false, err
		}
		for _, s := range list {
			fmt.Fprintf(out, "  %s  %s  %s\n", s.ID, s.UpdatedAt.Format("2006-01-02 15:04"), s.Title)
		}
	case "/undo":
		restored, err := r.store.Undo(ctx, r.sess.ID)
		if err != nil {
			return false, err
		}
		if len(restored) == 0 {
			fmt.Fprintln(out, "nothing to undo")
		}
		for _, p := range restored {
			fmt.Fprintf(out, "restored %s\n", p)
		}
	default:
		return false, fmt.Errorf("unknown command %s: /help lists the commands", name)
	}
	return false, nil
}

func (r *lineRunner) switchModel(ctx context.Context, arg string, out io.Writer) error {
	if arg == "" {
		fmt.Fprintf(out, "%s/%s\n", r.rt.Provider.Name, r.rt.Model)
		return nil
	}
	opts := r.a.setupOptions()
	opts.Flags["model"] = arg
	if !strings.Contains(arg, "/") {
		opts.Flags["provider"] = r.rt.Provider.Name
	} else {
		delete(opts.Flags, "provider")
	}
	rt, err := setup.Load(ctx, opts)
	if err != nil {
		return err
	}
	r.rt = rt
	if err := r.build(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "model: %s/%s\n", rt.Provider.Name, rt.Model)
	return nil
}

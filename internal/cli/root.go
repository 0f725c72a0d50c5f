package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
)

// cliApp holds what the commands share. Everything heavy (configuration, the
// catalog, the session store) is loaded on first use by the command that
// needs it, never at start-up.
type cliApp struct {
	proc Process
	// started is set once a command's own code runs; an error before that
	// came from cobra's parsing of flags and arguments (exit 2).
	started bool
	flags   globalFlags
	// flagValues are config keys set by flags (model, provider, ...).
	flagValues map[string]string
	// warned are the warnings printed: each is printed once per process,
	// and a later new one (an MCP server's, a reload's) still is.
	warned map[string]bool
	warnMu sync.Mutex
	// progressEvent, when set (under warnMu), shows Report.Progress lines
	// as events instead of on stderr: a stream-json run's notice events.
	progressEvent func(text string)
	// setup is the trigger of the Setup hooks the next service start
	// runs (--init, --maintenance; "": none), cleared once run.
	setup string
}

// globalFlags are the flags every command accepts.
type globalFlags struct {
	workspace string
	verbose   bool
	quiet     bool
}

func newApp(p Process) *cliApp {
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	return &cliApp{proc: p, flagValues: map[string]string{}, warned: map[string]bool{}}
}

func newRootCmd(a *cliApp) *cobra.Command {
	root := &cobra.Command{
		Use:   "aidex",
		Short: "aidex: an AI coding agent for the terminal, scripts, CI and the browser",
		Long: `aidex is an AI coding agent. It reads, searches, edits and runs code in your
workspace through tools, under a permission policy you control, with many LLM
providers: paid, free and local.

Errors and warnings are logged, with their times, to STATE/aidex.log (readable
only by you, rotated at 1 MiB; ` + "`aidex config path`" + ` prints STATE). It never
holds keys, headers, prompts or file contents.`,
		Example: `  aidex                                      the terminal UI
  aidex "explain this repository"            the terminal UI with that first message (headless when piped)
  aidex --full                               the full-screen terminal UI (--plain: the line mode; --web: the browser UI)
  aidex -p "fix the failing test" --permission-mode auto-edit
  git diff | aidex -p "review this change"   piped stdin is context
  aidex exec --json "list the TODOs"         the event stream, one JSON object a line
  aidex -c                                   continue the latest session of this workspace`,
		Version:       a.proc.version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			a.started = true
		},
	}
	var rf runFlags
	addRunFlags(root, &rf)
	var sf setupFlags
	addSetupFlags(root, &sf)
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		trigger, err := sf.trigger()
		if err != nil {
			return err
		}
		if sf.initOnly {
			return a.initOnly(cmd)
		}
		a.setup = trigger
		first, err := positionalPrompt(cmd, &rf, args)
		if err != nil {
			return err
		}
		return a.runRoot(cmd, &rf, first)
	}
	root.SetVersionTemplate("aidex {{.Version}}\n")
	root.SetUsageTemplate(root.UsageTemplate() + exitCodesHelp)
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	pf.StringVarP(&a.flags.workspace, "workspace", "w", "", "workspace directory (default: the current directory)")
	pf.BoolVar(&a.flags.verbose, "verbose", false, "print request/response summaries and each hook command run on stderr (keys redacted); in agent mode also the system prompt and the messages before each turn")
	pf.BoolVarP(&a.flags.quiet, "quiet", "q", false, "print only the answer and errors")
	root.CompletionOptions.HiddenDefaultCmd = true
	for _, add := range commandBuilders {
		root.AddCommand(add(a))
	}
	return root
}

// runRoot runs aidex without a subcommand (and aidex resume): the
// terminal UI, a headless run or the stream-json mode, as the flags and
// first, the prompt given as arguments, say.
func (a *cliApp) runRoot(cmd *cobra.Command, rf *runFlags, first string) error {
	if err := a.applyRunFlags(rf); err != nil {
		return err
	}
	if rf.inputFormat == inputStreamJSON {
		return a.streamInputCmd(cmd.Context(), first, rf)
	}
	if rf.webPort != -1 && !rf.web {
		return usageErr("--port is for the browser UI: aidex --web --port %d (or aidex web --port %d)", rf.webPort, rf.webPort)
	}
	if rf.web || rf.full {
		return a.runChosenFrontEnd(cmd, rf, first)
	}
	if rf.compat.print {
		// Claude Code's -p/--print: headless, the prompt is the
		// arguments or piped stdin.
		if rf.prompt != "" && first != "" {
			return usageErr("two prompts: pass the prompt either with -p or as an argument, not both")
		}
		if first != "" {
			rf.prompt = first
		}
		if strings.TrimSpace(rf.prompt) == "" && rf.file == "" && !stdinPiped(a.proc.Stdin) {
			return usageErr("the prompt is empty: pass it as an argument after --print, with -p \"PROMPT\", -f FILE, or pipe text into aidex")
		}
		ctx, stop := withSignals(cmd.Context())
		defer stop()
		return a.runHeadless(ctx, rf, "the prompt is empty: pass it as an argument after --print, with -p \"PROMPT\", -f FILE, or pipe text into aidex")
	}
	if first != "" && a.tuiTerminal() {
		// `aidex "PROMPT"` on a terminal: the terminal UI (or with
		// --plain the line mode) with that first message, as Claude
		// Code; elsewhere a headless run.
		return a.runInteractive(cmd.Context(), rf, first)
	}
	if first != "" {
		rf.prompt = first
	} else if rf.plain && rf.prompt == "" && rf.file == "" {
		// The line mode reads its prompts (and approvals) from stdin,
		// piped or not.
		return a.runInteractive(cmd.Context(), rf, "")
	}
	return a.runPrompt(cmd, rf, first != "")
}

// runChosenFrontEnd runs the front end --web or --full picked: the web
// UI (no prompt: it is typed in the page) or the full-screen terminal UI
// (with first, or -p, as its first message). Usage errors: two front ends
// chosen, a prompt for --web, no terminal for --full.
func (a *cliApp) runChosenFrontEnd(cmd *cobra.Command, rf *runFlags, first string) error {
	if n := btoi(rf.web) + btoi(rf.full) + btoi(rf.plain); n > 1 {
		return usageErr("--web, --full and --plain each choose the front end: use one of them")
	}
	if rf.web {
		if first != "" || rf.prompt != "" || rf.file != "" {
			return usageErr("--web serves the browser UI and takes no prompt: type it in the page (or run aidex -p PROMPT headless)")
		}
		ctx, stop := withSignals(cmd.Context())
		defer stop()
		if rf.webPort < -1 || rf.webPort > 65535 {
			return usageErr("--port must be 0 (any free port) or 1-65535, not %d", rf.webPort)
		}
		return a.runWeb(ctx, webFlags{host: "127.0.0.1"}, rf.webPort)
	}
	if !a.tuiTerminal() {
		return usageErr("--full needs a terminal (stdin and stdout, TERM not dumb): use --plain for the line mode, or -p PROMPT headless")
	}
	rf.fullscreen = true
	if first == "" {
		first = rf.prompt
	}
	return a.runInteractive(cmd.Context(), rf, first)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// exitCodesHelp ends the root command's help (and only its help).
const exitCodesHelp = `{{if not .HasParent}}
Exit codes:
  0    done
  1    error: provider, network or I/O
  2    bad usage or input (flags, config, prompt, unknown model or session)
  3    a call was denied by the permission policy (the run went on; see stderr);
       a call a hook blocked is not: the run exits 0
  4    the turn limit was reached (--max-turns, max_tool_turns)
  5    a budget was used up (--max-cost, [budget]); the run stopped after a
       complete step and aidex -c continues it
  6    stopped: the model repeated the same tool call 3 times
  10   aidex permissions check: the call would ask for approval
  130  interrupted (Ctrl+C); aidex -c continues
When several apply, the first of 130, 1, 5, 4, 6, 3 wins.
{{end}}`

// runPrompt runs the prompt of -p, -f, a positional prompt or piped stdin
// headless, or starts the interactive front end when there is none.
func (a *cliApp) runPrompt(cmd *cobra.Command, rf *runFlags, positional bool) error {
	piped := stdinPiped(a.proc.Stdin)
	if strings.TrimSpace(rf.prompt) == "" && !piped && rf.file == "" {
		if positional || cmd.Flags().Changed("prompt") {
			return usageErr("the prompt is empty: pass -p \"PROMPT\", -f FILE, or pipe text into aidex")
		}
		return a.runInteractive(cmd.Context(), rf, "")
	}
	ctx, stop := withSignals(cmd.Context())
	defer stop()
	return a.runHeadless(ctx, rf, "the prompt is empty: pass -p \"PROMPT\", -f FILE, or pipe text into aidex")
}

// commandBuilders lists the constructors of aidex's subcommands, in help
// order. It is a fixed table, never changed at run time.
var commandBuilders = []func(*cliApp) *cobra.Command{newExecCmd, newChatCmd, newResumeCmd, newProvidersCmd, newModelsCmd, newSessionsCmd, newUndoCmd, newCheckpointsCmd, newRewindCmd, newToolsCmd, newToolCmd, newPermissionsCmd,
	newMemoryCmd, newNotesCmd, newImageCmd, newPlanCmd, newRalphCmd, newWebCmd, newConfigCmd, newTrustCmd, newSandboxCmd, newHooksCmd, newAgentsCmd, newPluginCmd, newMCPCmd, newACPCmd, newEvalCmd}

// catalogView is the configuration and catalog without a chosen provider.
type catalogView = app.Runtime

// setupOptions maps the command line onto setup options.
func (a *cliApp) setupOptions() app.Options {
	o := app.Options{Workspace: a.flags.workspace, Flags: a.configFlags(), Getenv: a.proc.Getenv, Version: a.proc.shortVersion()}
	if a.flags.verbose {
		o.HookLog = a.proc.Stderr // one line per hook command run
	}
	return o
}

// configFlags are the config keys set by command-line flags.
func (a *cliApp) configFlags() map[string]string {
	m := map[string]string{}
	for k, v := range a.flagValues {
		m[k] = v
	}
	return m
}

// catalogOnly loads the configuration and catalog, printing config
// warnings on stderr. A configuration error is bad input (exit 2).
func (a *cliApp) catalogOnly() (*catalogView, error) {
	rt, err := app.LoadBase(a.setupOptions())
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	a.warn(rt)
	return rt, nil
}

// start runs the start-up sequence (app.Start): configuration warnings
// and the provider notice go to stderr. base skips choosing a provider.
// A configuration or provider error is bad input (exit 2); a session
// store that cannot be opened is a failure (exit 1).
func (a *cliApp) start(ctx context.Context, base bool) (*app.Service, error) {
	return a.startWith(ctx, app.StartOptions{Options: a.setupOptions(), Base: base, Report: a.report})
}

// startRun is start for the commands that run the model's commands
// (runs, the terminal UI, Ralph): it also decides the OS sandbox, warns
// when commands are not sandboxed, and fails (exit 2) when a sandbox mode
// the user asked for is unavailable.
func (a *cliApp) startRun(ctx context.Context, base bool) (*app.Service, error) {
	return a.startWith(ctx, app.StartOptions{Options: a.setupOptions(), Base: base, Report: a.report, Sandbox: true, PrefetchGit: true})
}

func (a *cliApp) startWith(ctx context.Context, o app.StartOptions) (*app.Service, error) {
	if o.Setup == "" {
		o.Setup, a.setup = a.setup, ""
	}
	svc, err := app.Start(ctx, o)
	switch {
	case errors.Is(err, app.ErrOpenStore):
		return nil, err
	case err != nil:
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return svc, nil
}

// report prints a start-up report on stderr: warnings once per process,
// the provider notice unless --quiet.
func (a *cliApp) report(r app.Report) {
	if r.Progress {
		a.progress(r.Text)
		return
	}
	switch {
	case a.flags.quiet, r.InSession: // a session's run shows it (a notice event)
	case r.Warning:
		a.warning(r.Text)
	case !r.Warning:
		fmt.Fprintf(a.proc.Stderr, "aidex: %s\n", r.Text)
	}
}

// warn prints configuration warnings once.
func (a *cliApp) warn(rt *app.Runtime) {
	if a.flags.quiet {
		return
	}
	for _, w := range rt.Warnings {
		a.warning(w.String())
	}
}

// warning prints a warning on stderr unless it was printed already.
func (a *cliApp) warning(text string) {
	a.warnMu.Lock()
	defer a.warnMu.Unlock()
	if a.warned[text] {
		return
	}
	a.warned[text] = true
	fmt.Fprintf(a.proc.Stderr, "aidex: warning: %s\n", text)
	logLine(a.proc.Getenv, time.Now(), "WARN", text)
}

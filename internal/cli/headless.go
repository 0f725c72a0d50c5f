package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
)

// runFlags are the root command's flags for a run.
type runFlags struct {
	// sets are --set KEY=VALUE: any config key for this run.
	sets         []string
	prompt       string
	file         string
	outputFormat string
	inputFormat  string
	// dialect is --stream-dialect: aidex's events or Claude Code's lines.
	dialect        string
	provider       string
	model          string
	maxTurns       int
	permissionMode string
	allow          []string
	deny           []string
	ask            []string
	addDirs        []string
	cont           bool
	resume         string
	appendSystem   string
	steps          int
	agentWrites    string
	agentOutput    string
	raw            bool
	// requireVerified is --require-verified: verify before finishing on,
	// and exit 7 unless the check passed.
	requireVerified bool
	noStatusTags    bool
	// stepsFromConfig: steps is [agent] default_steps, not --steps.
	stepsFromConfig bool
	plain           bool
	fullscreen      bool
	sandbox         string
	answers         string
	attach          []string
	budget          budgetFlags
	full, web       bool // front ends chosen by flag (--full, --web), as --plain
	// chatAliases: `aidex chat`, where iptic-memex's user commands work.
	chatAliases bool
	routing     routingFlags
	multi       multiFlags
	// compat are the aliases of Claude Code's and Codex CLI's flags.
	compat compatFlags
	// webPort is --port with --web (-1: the first free port from 8420).
	webPort int
}

func addRunFlags(cmd *cobra.Command, f *runFlags) {
	fl := cmd.Flags()
	fl.StringVarP(&f.prompt, "prompt", "p", "", "run headless with this prompt and exit")
	fl.StringVarP(&f.file, "file", "f", "", "read the prompt from a file ('-' for stdin)")
	fl.StringVar(&f.outputFormat, "output-format", "text", "headless output: text, json or stream-json")
	fl.StringVar(&f.dialect, "stream-dialect", "aidex", "shape of --output-format stream-json and json: aidex (aidex's events; its result object) or claude (Claude Code's system/assistant/user/result lines; its result object), for scripts written for claude -p")
	fl.StringVar(&f.inputFormat, "input-format", "text", "headless input: text, or stream-json (JSON lines on stdin: user turns, approval and interaction answers, interrupt; needs --output-format stream-json)")
	fl.StringVar(&f.provider, "provider", "", "`NAME` of the provider to use (see aidex providers)")
	fl.StringVarP(&f.model, "model", "m", "", "model to use, or PROVIDER/MODEL")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "at most N model responses in this run (default: max_tool_turns, 25)")
	fl.StringVar(&f.permissionMode, "permission-mode", "", "plan, ask, auto-edit or yolo, or Claude Code's plan, default, acceptEdits, bypassPermissions (default: permission_mode, ask)")
	repeatedVar(fl, &f.allow, "allow", "allow rule, e.g. 'run_command(go test *)' (repeatable)")
	repeatedVar(fl, &f.deny, "deny", "deny rule, e.g. 'run_command(git push *)' (repeatable)")
	repeatedVar(fl, &f.ask, "ask", "ask rule (repeatable)")
	repeatedVar(fl, &f.addDirs, "add-dir", "grant tools access to another directory (repeatable)")
	repeatedVar(fl, &f.sets, "set", "set a config key for this run, as in config.toml: `KEY=VALUE` (e.g. max_tool_turns=40, sandbox.network=true; a list as JSON); wins over files and flags (repeatable)")
	addSandboxFlag(cmd, &f.sandbox)
	repeatedVar(fl, &f.attach, "attach", "attach a `FILE` to the prompt: image, PDF, DOCX, XLSX, CSV, PPTX, notebook, HTML or text (repeatable)")
	fl.BoolVarP(&f.cont, "continue", "c", false, "continue the latest session of this workspace")
	fl.StringVarP(&f.resume, "resume", "r", "", "resume the session with this id")
	fl.StringVar(&f.appendSystem, "append-system-prompt", "", "text added to the end of the system prompt")
	fl.IntVar(&f.steps, "steps", 0, "agent mode: N assistant turns, each told 'Turn X of Y'; only %%DONE%% or the last step ends the run (default: [agent] default_steps)")
	fl.StringVar(&f.agentWrites, "agent-writes", "", "file writes: allow (without asking, in every mode but plan), deny (the model outputs diffs) or dry-run (diffs shown, nothing written) (default: [agent] writes_policy, else the permission mode's)")
	fl.StringVar(&f.agentOutput, "agent-output", "", "agent mode stdout: final, full or none (default: [agent] output, final)")
	fl.BoolVar(&f.noStatusTags, "no-agent-status-tags", false, "agent mode: do not tell the model 'Turn X of Y' each turn")
	fl.BoolVar(&f.requireVerified, "require-verified", false, "headless: verify before finishing (as [harness] verify = true) and exit 7 unless the project's check passed after the last change")
	fl.BoolVar(&f.raw, "raw", false, "print the provider's whole raw last response (JSON; a streamed one as the array of its chunks) instead of the answer")
	fl.BoolVar(&f.plain, "plain", false, "use the plain line mode instead of the terminal UI (also when stdout is not a terminal or TERM=dumb)")
	fl.BoolVar(&f.fullscreen, "fullscreen", false, "run the terminal UI on the alternate screen instead of inline")
	fl.StringVar(&f.answers, "answers", "", "headless: answer the model's ask_user questions from this JSON `FILE` ({\"question\": \"answer\", ...}); without it the model is told no one can answer")
	fl.BoolVar(&f.full, "full", false, "use the full-screen terminal UI (needs a terminal; --fullscreen is the same on a terminal)")
	fl.BoolVar(&f.web, "web", false, "serve the browser UI instead (as `aidex web`: the first free port from 8420, or --port)")
	fl.IntVar(&f.webPort, "port", -1, "with --web: the port to listen on, as `aidex web --port` (0: any free port)")
	addRoutingFlags(cmd, &f.routing)
	addBudgetFlags(cmd, &f.budget)
	addMultiFlags(cmd, &f.multi)
	addCompatFlags(cmd, &f.compat)
}

// applyRunFlags turns run flags into config keys (highest precedence).
func (a *cliApp) applyRunFlags(f *runFlags) error {
	if err := a.applyCompatFlags(f); err != nil {
		return err
	}
	set := func(k, v string) {
		if v != "" {
			a.flagValues[k] = v
		}
	}
	set("provider", f.provider)
	set("model", f.model)
	set("permission_mode", f.permissionMode)
	set("workspace", a.flags.workspace)
	if err := a.applySandboxFlag(f.sandbox); err != nil {
		return err
	}
	if err := a.applyRoutingFlags(&f.routing); err != nil {
		return err
	}
	if err := a.applyMultiFlags(&f.multi); err != nil {
		return err
	}
	for key, list := range map[string][]string{"permissions.allow": f.allow, "permissions.deny": f.deny, "permissions.ask": f.ask, "allowed_dirs": f.addDirs} {
		if len(list) > 0 {
			b, _ := json.Marshal(list)
			a.flagValues[key] = string(b)
		}
	}
	if err := a.applySets(f.sets); err != nil {
		return err
	}
	switch outputFormat(f.outputFormat) {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return usageErr("--output-format must be text, json or stream-json, not %q", f.outputFormat)
	}
	if err := checkInputFormat(f); err != nil {
		return err
	}
	if err := checkDialect(f); err != nil {
		return err
	}
	switch f.agentWrites {
	case "", "allow", "deny", "dry-run":
	default:
		return usageErr("--agent-writes must be allow, deny or dry-run, not %q", f.agentWrites)
	}
	switch f.agentOutput {
	case "", "final", "full", "none":
	default:
		return usageErr("--agent-output must be final, full or none, not %q", f.agentOutput)
	}
	if f.cont && f.resume != "" {
		return usageErr("use either --continue or --resume ID, not both")
	}
	if f.maxTurns < 0 || f.steps < 0 {
		return usageErr("--max-turns and --steps must be positive")
	}
	return a.applyBudgetFlags(f)
}

// stdinPiped reports whether r is a pipe or file rather than a terminal.
func stdinPiped(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice == 0
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runHeadless runs one prompt (from -p, -f and piped stdin, see
// readPrompt) to completion and maps the outcome to the documented exit
// codes. The prompt is read once the model is known (the input cap
// follows its context window) and before any session is picked: input
// over the cap, or an empty prompt (a usage error with the message
// empty), leaves nothing behind.
func (a *cliApp) runHeadless(ctx context.Context, f *runFlags, empty string) error {
	asker, err := a.headlessAsker(f)
	if err != nil {
		return err
	}
	svc, err := a.startRun(ctx, false)
	if err != nil {
		return err
	}
	defer svc.Close()
	prompt, err := a.readPrompt(f, newInputCap(svc.Runtime()), empty)
	if err != nil {
		return err
	}
	sess, err := a.pickHeadless(ctx, svc, f)
	if err != nil {
		return err
	}
	agentDefaults(f, svc.Runtime().Config)
	r := a.renderer(f, svc.Runtime().Config)
	live, err := a.session(ctx, svc, sess, a.headlessSessionOptions(f, asker, r, svc.Runtime().Config), r)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer live.Close()
	if c, ok := r.(*claudeOut); ok {
		c.start(live, svc.Runtime())
	}
	var denials denialLog
	j := jsonOutOf(r)
	var before map[string]bool
	if j != nil { // only the JSON result lists the run's checkpoints
		before = checkpointSet(ctx, svc.Store(), sess.ID)
	}
	if prompt, err = a.headlessCommand(ctx, svc, live, f, prompt); err != nil || prompt == "" {
		return err
	}
	parts, err := a.attachParts(ctx, svc.Runtime(), f.attach, prompt)
	if err != nil {
		return err
	}
	if f.budget.estimate {
		return a.printEstimate(ctx, svc, live, parts, f)
	}
	done, runErr := live.Run(ctx, parts, func(e agent.Event) {
		denials.event(e)
		r.event(e)
	})
	if j != nil {
		j.setCheckpoints(runCheckpoints(context.WithoutCancel(ctx), svc.Store(), sess.ID, before))
	}
	if f.raw && done != nil {
		_, _ = a.proc.Stdout.Write(append(stripRawMarkers(done.Raw), '\n'))
	} else if err := r.finish(done, runErr); err != nil {
		return err
	}
	if outputFormat(f.outputFormat) == formatText {
		printStops(a.proc.Stderr, f, done, denials.denials())
	}
	return requireVerified(f, done, exitFor(done, runErr))
}

// headlessSessionOptions are the options of a headless run's session,
// with asker answering its approvals and r rendering it, under cfg.
func (a *cliApp) headlessSessionOptions(f *runFlags, asker agent.Asker, r renderer, cfg *config.Config) app.SessionOptions {
	so := app.SessionOptions{Asker: asker, MaxTurns: f.maxTurns, AgentWrites: f.agentWrites, AppendSystem: f.appendSystem,
		Client: app.ClientOptions{HTTP: a.verboseClientFor(r), OnRetry: a.onRetryFor(r)}, KeepRaw: f.raw,
		Verify: f.requireVerified || cfg.Harness.Verify, Headless: true}
	if f.steps > 0 {
		so.Agent = &app.AgentMode{Steps: f.steps, StatusTags: !f.noStatusTags}
		if a.flags.verbose && !a.flags.quiet {
			so.Agent.BeforeRequest = newRequestDump(stderrOf(r, a.proc.Stderr)).dump
		}
	}
	return so
}

// renderer picks the output for --output-format; text and json get a
// spinner on stderr when it is a terminal (stream-json has the waiting
// events themselves).
func (a *cliApp) renderer(f *runFlags, cfg *config.Config) renderer {
	if f.claude() {
		return newClaudeOut(a.proc.Stdout, a.proc.Stderr, outputFormat(f.outputFormat) == formatJSON)
	}
	switch outputFormat(f.outputFormat) {
	case formatJSON:
		return a.withProgress(newJSONOut(a.proc.Stdout), false)
	case formatStreamJSON:
		return newStreamJSON(a.proc.Stdout)
	}
	mode := f.agentOutput
	t := &textOut{out: a.proc.Stdout, err: a.proc.Stderr, mode: mode, stream: mode == "full", ttyOut: isTerminal(a.proc.Stdout),
		progress: !a.flags.quiet && (a.flags.verbose || isTerminal(a.proc.Stderr)), agent: f.steps > 0, steps: f.steps,
		dryRun: f.agentWrites == "dry-run" && !a.flags.quiet}
	if t.agent && mode == "full" && !a.flags.quiet {
		t.summary = cfg.ShowContextSummary
		if cfg.Agent.ShowContextDetails {
			t.details = max(cfg.Agent.ContextDetailMaxChars, 1)
		}
	}
	return a.withProgress(t, mode == "full" && isTerminal(a.proc.Stdout))
}

// agentDefaults fills the agent-mode flags not given from [agent]:
// default_steps (agent mode only when more than 1), writes_policy and
// output (final).
func agentDefaults(f *runFlags, cfg *config.Config) {
	if f.steps == 0 && cfg.Agent.DefaultSteps > 1 {
		f.steps, f.stepsFromConfig = cfg.Agent.DefaultSteps, true
	}
	if f.agentWrites == "" {
		f.agentWrites = cfg.Agent.WritesPolicy
	}
	if f.agentOutput == "" {
		f.agentOutput = cfg.Agent.Output
	}
	if f.agentOutput == "" {
		f.agentOutput = "final"
	}
}

// exitFor maps a run's outcome to the process exit code. A provider
// timeout is a failure, not an interruption, even though its timer stops
// the request the way Ctrl+C does.
func exitFor(d *agent.DoneInfo, err error) error {
	switch {
	case llm.KindOf(err) == llm.KindTimeout:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%w; the partial answer is kept in the session (aidex -c continues it)", err)}
	case errors.As(err, new(*app.PromptBlockedError)):
		return &ExitError{Code: ExitUsage, Err: err}
	case errors.Is(err, context.Canceled):
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted; the partial answer is kept in the session (aidex -c continues it)")}
	case err != nil:
		return &ExitError{Code: ExitFailure, Err: err}
	case d == nil:
		return nil
	case d.StopReason == agent.StopBudget:
		return &ExitError{Code: ExitBudget}
	case d.StopReason == agent.StopMaxTurns:
		return &ExitError{Code: ExitLimit}
	case d.StopReason == agent.StopLoop:
		return &ExitError{Code: ExitLoop}
	case d.StopReason == agent.StopError:
		return &ExitError{Code: ExitFailure}
	case d.Denials > 0:
		return &ExitError{Code: ExitDenied}
	}
	return nil
}

// onRetry tells the user (stderr) that a request is being retried.
func (a *cliApp) onRetry(attempt int, err error, wait time.Duration) {
	if !a.flags.quiet {
		fmt.Fprintf(a.proc.Stderr, "aidex: %v; retry %d in %s\n", err, attempt, wait.Round(100*time.Millisecond))
	}
}

// expandCommand expands a prompt that starts with a custom slash command
// ("/review src/main.go"), telling stderr its notice; other prompts are
// returned as they are. Errors: a refused !`command` or @path
// (ExitDenied), anything else wrong with the command (ExitUsage).
func (a *cliApp) expandCommand(ctx context.Context, live *app.Session, prompt string) (string, error) {
	x, err := live.Expand(ctx, prompt, nil)
	switch {
	case errors.Is(err, app.ErrRefused):
		return "", &ExitError{Code: ExitDenied, Err: err}
	case err != nil:
		return "", &ExitError{Code: ExitUsage, Err: err}
	case x == nil:
		return prompt, nil
	}
	if x.Notice != "" {
		fmt.Fprintf(a.proc.Stderr, "aidex: %s\n", x.Notice)
	}
	return x.Text, nil
}

// pickHeadless is the session of a headless run (Service.Pick), back on
// its last model when resumed (resumeModel). Errors: an unknown session
// (exit 2), the store's I/O (exit 1).
func (a *cliApp) pickHeadless(ctx context.Context, svc *app.Service, f *runFlags) (*agent.Conversation, error) {
	sess, err := svc.Pick(ctx, f.resume, f.cont)
	if err != nil {
		return nil, sessionErr(err)
	}
	return sess, a.resumeModel(ctx, svc, f, sess)
}

// resumeModel brings a resumed session (-c, -r) back on the model it
// last used unless --model or --provider chose one (app.Service.
// ResumeModel), and says so on stderr.
func (a *cliApp) resumeModel(ctx context.Context, svc *app.Service, f *runFlags, sess *agent.Conversation) error {
	if f.resume == "" && !f.cont {
		return nil
	}
	line, err := svc.ResumeModel(ctx, sess)
	if line != "" {
		a.report(app.Report{Text: line})
	}
	return err
}

// applySets turns --set KEY=VALUE values into config keys (validated
// when the configuration loads). Errors (usage): a value without '=' or
// with an empty key.
func (a *cliApp) applySets(sets []string) error {
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return usageErr("--set %q: want KEY=VALUE, a config key as in config.toml (e.g. --set max_tool_turns=40)", kv)
		}
		a.flagValues[strings.TrimSpace(k)] = v
	}
	return nil
}

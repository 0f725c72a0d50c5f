package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// newRalphCmd is `aidex ralph`: the task list and the autonomous loop.
func newRalphCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ralph",
		Short: "Queue tasks and let aidex work through them on its own (the Ralph loop)",
		Long: `Ralph works through the workspace's task list (ralph_tasks.json): it picks the
most important pending task (P0 first, then list order; a task waits until its
depends_on are done), works on it in a new session until the agent reports it
done, failed or skipped, records the outcome, and moves on.

Start with 'aidex plan "GOAL"' or 'aidex ralph add "TITLE"', then 'aidex ralph run'.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newRalphAddCmd(a), newRalphListCmd(a), newRalphShowCmd(a), newRalphRunCmd(a),
		newRalphControlCmd(a, "stop", "Stop the running loop after its current task"),
		newRalphControlCmd(a, "pause", "Pause the running loop before its next task"),
		newRalphControlCmd(a, "resume", "Resume a paused loop"),
		newRalphClearCmd(a), newRalphResetCmd(a), newRalphRemoveCmd(a), newRalphImportCmd(a),
		newRalphServeCmd(a), newRalphWorkerCmd(a), newRalphStatusCmd(a))
	return cmd
}

// ralphService returns the workspace's Ralph service without a model
// backend (for the task-list commands).
func (a *cliApp) ralphService() (*ralph.Service, error) {
	rt, err := a.catalogOnly()
	if err != nil {
		return nil, err
	}
	return ralph.NewService(ralph.Options{Workspace: rt.Workspace}), nil
}

func newRalphAddCmd(a *cliApp) *cobra.Command {
	var t struct {
		id, description, priority, typ string
		criteria, dependsOn            []string
	}
	cmd := &cobra.Command{
		Use:   "add TITLE",
		Short: "Add a task to the list",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, err := ralph.ParsePriority(t.priority)
			if err != nil {
				return usageErr("--priority: %v", err)
			}
			tt, err := ralph.ParseTaskType(t.typ)
			if err != nil {
				return usageErr("--type: %v", err)
			}
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			added, err := svc.Add(cmd.Context(), ralph.Task{ID: t.id, Title: args[0], Description: t.description,
				AcceptanceCriteria: t.criteria, Priority: pr, Type: tt, DependsOn: t.dependsOn})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "added %s [%s]: %s\n", added[0].ID, added[0].Priority, added[0].Title)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&t.id, "id", "", "task id (default: the next US-NNN for stories, T-NNN for tasks)")
	fl.StringVarP(&t.description, "description", "d", "", "what to do and where")
	repeatedVar(fl, &t.criteria, "criteria", "an acceptance criterion (repeatable)")
	fl.StringVar(&t.priority, "priority", "P2", "P0 (most urgent), P1, P2 or P3")
	fl.StringVarP(&t.typ, "type", "t", "task", "story or task")
	repeatedVar(fl, &t.dependsOn, "depends-on", "id of a task that must be done first (repeatable)")
	deprecatedShort(fl, a.proc.Stderr, "criteria", "c")
	deprecatedShort(fl, a.proc.Stderr, "priority", "p")
	return cmd
}

func newRalphListCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	var status string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tasks (--json: tasks, counts and run state)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var want ralph.Status
			if status != "" {
				s, err := ralph.ParseStatus(status)
				if err != nil {
					return usageErr("--status: %v", err)
				}
				want = s
			}
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			snap, err := svc.Snapshot()
			if err != nil {
				return err
			}
			if want != "" {
				var keep []ralph.Task
				for _, t := range snap.Tasks {
					if t.Status == want {
						keep = append(keep, t)
					}
				}
				snap.Tasks = keep
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), snap)
			}
			return printTaskTable(cmd.OutOrStdout(), snap)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().StringVar(&status, "status", "", "only tasks with this status")
	return cmd
}

func printTaskTable(out io.Writer, snap ralph.Snapshot) error {
	if len(snap.Tasks) == 0 {
		fmt.Fprintln(out, "no tasks: add some with `aidex ralph add \"TITLE\"` or `aidex plan \"GOAL\"`")
	}
	if snap.From != "" {
		fmt.Fprintf(out, "(read from %s, ayder-cli's tasks: the first change saves them into %s)\n", snap.From, ralph.FileName)
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, t := range snap.Tasks {
		deps := ""
		if len(t.DependsOn) > 0 {
			deps = "after " + strings.Join(t.DependsOn, ",")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Priority, t.Status, t.Type, ralphLine(t.Title, 70), deps)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(snap.Tasks) > 0 {
		c := snap.Counts
		fmt.Fprintf(out, "%d pending · %d in progress · %d done · %d failed · %d skipped\n",
			c[ralph.StatusPending], c[ralph.StatusInProgress], c[ralph.StatusDone], c[ralph.StatusFailed], c[ralph.StatusSkipped])
	}
	if snap.Running {
		state := "running"
		if snap.Paused {
			state = "paused"
		}
		fmt.Fprintf(out, "a loop is %s (pid %d), on %s\n", state, snap.PID, ralphOrNone(snap.Current))
	}
	return nil
}

func ralphOrNone(s string) string {
	if s == "" {
		return "no task yet"
	}
	return s
}

func newRalphShowCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a task in full (by id, title or slug)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			t, err := svc.Get(args[0])
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), t)
			}
			_, err = io.WriteString(cmd.OutOrStdout(), ralph.FormatTask(t))
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func newRalphControlCmd(a *cliApp, verb, short string) *cobra.Command {
	return &cobra.Command{
		Use:   verb,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			st, _ := svc.State()
			switch verb {
			case "stop":
				err = svc.Stop()
			case "pause":
				err = svc.Pause()
			default:
				err = svc.Resume()
			}
			out := cmd.OutOrStdout()
			switch {
			case errors.Is(err, ralph.ErrNotRunning):
				fmt.Fprintln(out, "no Ralph run is going in this workspace")
				return nil
			case err != nil:
				return err
			}
			switch verb {
			case "stop":
				fmt.Fprintf(out, "asked the loop (pid %d) to stop after its current task (%s)\n", st.PID, ralphOrNone(st.Current))
			case "pause":
				fmt.Fprintf(out, "asked the loop (pid %d) to pause before its next task; `aidex ralph resume` goes on\n", st.PID)
			default:
				fmt.Fprintln(out, "resumed")
			}
			return nil
		},
	}
}

func newRalphClearCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "clear",
		Short: "Remove every task from the list (refused while a loop runs)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			n, err := svc.Clear(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %d tasks\n", n)
			return nil
		},
	}
}

func newRalphResetCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "reset ID",
		Short: "Put a task back to pending (one left in_progress by a crash, or a failed one to retry)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			t, err := svc.Reset(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s is pending again: %s\n", t.ID, t.Title)
			return nil
		},
	}
}

func newRalphRemoveCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID",
		Short: "Remove one task from the list",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			t, err := svc.Remove(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %s: %s\n", t.ID, t.Title)
			return nil
		},
	}
}

func newRalphImportCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE|DIR",
		Short: "Add the tasks of a markdown checklist (- [ ] title), a JSON list ('-' reads stdin) or ayder-cli's .ayder/tasks folder",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if fi, err := os.Stat(args[0]); err == nil && fi.IsDir() {
				return ralphImportDir(cmd, a, args[0])
			}
			var data []byte
			var err error
			if args[0] == "-" {
				data, err = io.ReadAll(a.proc.Stdin)
			} else {
				data, err = os.ReadFile(args[0])
			}
			if err != nil {
				return usageErr("import: %v", err)
			}
			svc, err := a.ralphService()
			if err != nil {
				return err
			}
			added, err := svc.Import(cmd.Context(), args[0], data)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			for _, t := range added {
				fmt.Fprintf(cmd.OutOrStdout(), "added %s [%s]: %s\n", t.ID, t.Priority, t.Title)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "imported %d tasks\n", len(added))
			return nil
		},
	}
}

// ralphImportDir imports an ayder-cli tasks folder (TASK-NNN-slug.md).
func ralphImportDir(cmd *cobra.Command, a *cliApp, dir string) error {
	svc, err := a.ralphService()
	if err != nil {
		return err
	}
	added, present, err := svc.ImportAyder(cmd.Context(), dir)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	for _, t := range added {
		fmt.Fprintf(cmd.OutOrStdout(), "added %s [%s] %s: %s\n", t.ID, t.Priority, t.Status, t.Title)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "imported %d tasks", len(added))
	if present > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), " (%d already in %s)", present, ralph.FileName)
	}
	fmt.Fprintln(cmd.OutOrStdout())
	return nil
}

// ralphRunFlags are `aidex ralph run`'s flags.
type ralphRunFlags struct {
	policy        policyFlags
	multi         multiFlags
	provider      string
	model         string
	maxIterations int
	maxTurns      int
	maxAttempts   int
	verify        string
	verifyTimeout time.Duration
	taskTimeout   time.Duration
	tasks         []string
	asJSON        bool
	outputFormat  string
	dist          distFlags
	maxCost       string
}

func newRalphRunCmd(a *cliApp) *cobra.Command {
	var f ralphRunFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Work through the pending tasks, one new session each",
		Long: `Work through the pending tasks: highest priority first (P0 before P3), ties in
list order, a task waiting until its depends_on are done. Each task runs in a
new session, unattended: what the permission policy does not allow is denied
(use --permission-mode auto-edit or --allow rules to let the agent work), and
file tools stay inside the workspace. The agent reports with complete_task or
by ending its answer with <promise>COMPLETE</promise>. With a verification
command (--verify or verify_command) a task is done only when it passes; a
failure goes back to the agent, up to --max-attempts times.

Ctrl+C once stops after the current task; twice interrupts it (it goes back
to pending). 'aidex ralph stop' from another terminal stops after the
current task.

Exit status: 0 when the loop ran out of work with no task failed (or was
stopped), 1 when a task failed or the remaining tasks wait on dependencies
that failed, 4 when --max-iterations ended the run with tasks left,
5 when a budget stopped it (--max-cost, [budget]; the task at work is
pending again), 130 when interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRalph(cmd, &f)
		},
	}
	fl := cmd.Flags()
	addPolicyFlags(cmd, &f.policy)
	fl.StringVar(&f.provider, "provider", "", "provider to use")
	fl.StringVarP(&f.model, "model", "m", "", "model to use, or PROVIDER/MODEL")
	fl.IntVar(&f.maxIterations, "max-iterations", 0, "run at most N tasks (default: no limit)")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "model responses per agent run (default: max_tool_turns)")
	fl.IntVar(&f.maxAttempts, "max-attempts", ralph.DefaultMaxAttempts, "agent attempts per task when verification fails")
	fl.StringVar(&f.verify, "verify", "", "command that checks a task reported done, e.g. \"go test ./...\" (default: verify_command; \"\" disables)")
	fl.DurationVar(&f.verifyTimeout, "verify-timeout", 10*time.Minute, "time limit of one verification (max 10m)")
	fl.DurationVar(&f.taskTimeout, "task-timeout", 0, "time limit of one task, e.g. 30m (default: none)")
	repeatedVar(fl, &f.tasks, "task", "run only this task (repeatable)")
	fl.StringVar(&f.outputFormat, "output-format", "text", "text (progress lines) or stream-json (every event as a JSON line)")
	fl.BoolVar(&f.asJSON, "json", false, "the same as --output-format stream-json")
	addMultiFlags(cmd, &f.multi)
	addRunDistFlags(cmd, &f.dist)
	fl.StringVar(&f.maxCost, "max-cost", "", "stop the Ralph run once its tasks have spent `USD`: the task at work stops after a complete step and is pending again, no task starts after it; exit code 5 (default: [budget] run_usd; 0: no limit)")
	return cmd
}

func (a *cliApp) runRalph(cmd *cobra.Command, f *ralphRunFlags) error {
	if f.maxIterations < 0 || f.maxTurns < 0 || f.maxAttempts < 1 || f.taskTimeout < 0 || f.verifyTimeout < 0 {
		return usageErr("--max-iterations, --max-turns and the timeouts must be positive, --max-attempts at least 1")
	}
	if err := f.dist.checkRun(); err != nil {
		return err
	}
	switch {
	case f.outputFormat != string(formatText) && f.outputFormat != string(formatStreamJSON):
		return usageErr("--output-format must be text or stream-json, not %q", f.outputFormat)
	case f.asJSON && cmd.Flags().Changed("output-format") && f.outputFormat != string(formatStreamJSON):
		return usageErr("--json is --output-format stream-json; it cannot be combined with --output-format %s", f.outputFormat)
	case f.outputFormat == string(formatStreamJSON):
		f.asJSON = true
	}
	rf := runFlags{permissionMode: f.policy.mode, allow: f.policy.allow, deny: f.policy.deny, ask: f.policy.ask,
		addDirs: f.policy.addDirs, provider: f.provider, model: f.model, outputFormat: "text", agentOutput: "final",
		sandbox: f.policy.sandbox, budget: budgetFlags{maxCost: f.maxCost}, multi: f.multi}
	if err := a.applyRunFlags(&rf); err != nil {
		return err
	}
	ctx := cmd.Context()
	appSvc, err := a.startRun(ctx, false)
	if err != nil {
		return err
	}
	defer appSvc.Close()
	rt := appSvc.Runtime()
	svc := appSvc.Ralph(false)
	o := ralph.RunOptions{MaxIterations: f.maxIterations, TaskIDs: f.tasks, Verify: rt.Config.VerifyCommand,
		VerifyTimeout: f.verifyTimeout, MaxAttempts: f.maxAttempts, TaskTimeout: f.taskTimeout, MaxTurns: f.maxTurns,
		MaxCostUSD: rt.Config.Budget.RunUSD}
	if cmd.Flags().Changed("verify") {
		o.Verify = strings.TrimSpace(f.verify)
	}
	p := newRalphPrinter(a.proc.Stdout, a.flags.quiet)
	if !a.flags.quiet && !f.asJSON {
		a.ralphNotices(rt, svc, o)
	}
	emit := p.event
	if f.asJSON {
		enc := json.NewEncoder(a.proc.Stdout)
		emit = func(ev ralph.Event) { _ = enc.Encode(ev) }
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopSignals := a.ralphSignals(svc, cancel)
	defer stopSignals()
	if f.dist.distributed() {
		sum, err := a.runRalphWorkers(ctx, appSvc, svc, o, &f.dist, distEmit(a, p, f.asJSON))
		if err != nil {
			return err
		}
		return ralphExit(sum)
	}
	sum, err := svc.Run(ctx, o, emit)
	if err != nil {
		return err
	}
	return ralphExit(sum)
}

// ralphNotices prints, on stderr, what the user should know before an
// unattended run: a permission mode that denies writes, the verification
// command, tasks stuck in_progress (the provider notice came at start-up).
func (a *cliApp) ralphNotices(rt *app.Runtime, svc *ralph.Service, o ralph.RunOptions) {
	w := a.proc.Stderr
	switch rt.Config.PermissionMode {
	case "ask", "plan", "":
		fmt.Fprintf(w, "aidex: permission mode %q: no one can approve in a Ralph run, so file changes and commands that need approval are denied; use --permission-mode auto-edit or --allow rules\n", rt.Config.PermissionMode)
	}
	if o.Verify != "" {
		fmt.Fprintf(w, "aidex: tasks are verified with: %s\n", o.Verify)
	}
	tasks, err := svc.List()
	if err != nil {
		return
	}
	for _, t := range tasks {
		if t.Status == ralph.StatusInProgress {
			fmt.Fprintf(w, "aidex: %s is in_progress from a run that did not finish; it is left alone (`aidex ralph reset %s` to run it again)\n", t.ID, t.ID)
		}
	}
}

// ralphSignals makes the first Ctrl+C stop the loop after the current
// task and the second (or SIGTERM) cancel it. The returned func stops
// listening.
func (a *cliApp) ralphSignals(svc *ralph.Service, cancel context.CancelFunc) func() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		stopping := false
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				if s == os.Interrupt && !stopping {
					stopping = true
					_ = svc.Stop()
					fmt.Fprintln(a.proc.Stderr, "\naidex: stopping after the current task (Ctrl+C again interrupts it)")
					continue
				}
				cancel()
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// ralphExit maps a run's summary to the documented exit status.
func ralphExit(sum *ralph.Summary) error {
	switch {
	case sum.Reason == ralph.FinishInterrupted:
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted; the current task is pending again")}
	case sum.Reason == ralph.FinishBudget:
		return ralphBudgetExit(sum)
	case len(sum.Failed) > 0:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d task(s) failed: %s (see `aidex ralph show ID`)", len(sum.Failed), strings.Join(sum.Failed, ", "))}
	case sum.Reason == ralph.FinishBlocked:
		var w []string
		for _, x := range sum.Waiting {
			w = append(w, x.String())
		}
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("the pending tasks wait on unfinished dependencies: %s", strings.Join(w, "; "))}
	case sum.Reason == ralph.FinishMaxIterations:
		return &ExitError{Code: ExitLimit, Err: fmt.Errorf("--max-iterations reached with %d task(s) pending", sum.Counts[ralph.StatusPending])}
	}
	return nil
}

// ralphPrinter renders Ralph events as plain progress lines.
type ralphPrinter struct {
	out   io.Writer
	quiet bool
	mu    sync.Mutex
	text  strings.Builder
}

// newRalphPrinter prints to w, escape sequences from the model, tools and
// the task list shown rather than obeyed (termsafe).
func newRalphPrinter(w io.Writer, quiet bool) *ralphPrinter {
	return &ralphPrinter{out: termsafe.Writer(w), quiet: quiet}
}

func (p *ralphPrinter) event(ev ralph.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ev.Agent != nil {
		p.agentEvent(ev.Agent)
		return
	}
	p.flushText()
	switch ev.Type {
	case ralph.EventTaskStart:
		t := ev.Task
		if ev.Worker != "" {
			fmt.Fprintf(p.out, "[%s] started on %s (attempt %d): %s\n", t.ID, ev.Worker, t.Attempts, t.Title)
			return
		}
		fmt.Fprintf(p.out, "[%s] %s %s: %s\n", t.ID, t.Priority, t.Type, t.Title)
		if !p.quiet {
			fmt.Fprintf(p.out, "  session %s (attempt %d)\n", t.SessionID, t.Attempts)
		}
	case ralph.EventTaskDone:
		o := ev.Outcome
		label := string(o.Status)
		if o.Status == ralph.StatusFailed {
			label = "FAILED (" + o.Reason + ")"
		}
		if o.Status == ralph.StatusPending {
			label = "interrupted"
		}
		if ev.Worker != "" {
			label += " on " + ev.Worker
		}
		if o.Branch != "" {
			label += fmt.Sprintf(" (%s %.12s)", o.Branch, o.Commit)
		}
		fmt.Fprintf(p.out, "[%s] %s: %s\n", ev.TaskID, label, ralphLine(o.Summary, 200))
	case ralph.EventVerifyStart:
		if !p.quiet {
			fmt.Fprintf(p.out, "  verify (attempt %d of %d): %s\n", ev.Verify.Attempt, ev.Verify.MaxAttempts, ev.Verify.Command)
		}
	case ralph.EventVerify:
		p.verify(ev.Verify)
	case ralph.EventPaused:
		fmt.Fprintln(p.out, "paused: `aidex ralph resume` goes on")
	case ralph.EventResumed:
		fmt.Fprintln(p.out, "resumed")
	case ralph.EventFinished:
		p.finished(ev.Summary)
	default:
		p.distEvent(ev)
	}
}

func (p *ralphPrinter) verify(v *ralph.VerifyInfo) {
	if p.quiet || v.Result == nil {
		return
	}
	r := v.Result
	if r.OK {
		fmt.Fprintf(p.out, "  verify passed (%s)\n", r.Duration.Round(time.Millisecond))
		return
	}
	fmt.Fprintf(p.out, "  verify failed: %s\n", ralphLine(ralphFirst(r.Error, fmt.Sprintf("exit code %d", r.ExitCode)), 200))
	lines := strings.Split(strings.TrimSpace(r.Output), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	for _, l := range lines {
		if l != "" {
			fmt.Fprintf(p.out, "    | %s\n", ralphLine(l, 200))
		}
	}
}

func (p *ralphPrinter) finished(s *ralph.Summary) {
	c := s.Counts
	fmt.Fprintf(p.out, "finished (%s): ran %d · done %d · failed %d · skipped %d — list: %d pending, %d done, %d failed\n",
		s.Reason, s.Ran, s.Done, len(s.Failed), s.Skipped, c[ralph.StatusPending], c[ralph.StatusDone], c[ralph.StatusFailed])
	for _, w := range s.Waiting {
		fmt.Fprintf(p.out, "  %s\n", w)
	}
	p.branches(s)
}

// agentEvent prints the engine's events: the answer's text as indented
// paragraphs, tool calls, failed tool results and errors.
func (p *ralphPrinter) agentEvent(ev *agent.Event) {
	if p.quiet || (ev.ParentToolCallID != "" && ev.Type != agent.EventToolCall) {
		return // a subagent's: its calls show, its answer is the task's result
	}
	switch ev.Type {
	case agent.EventText:
		p.text.WriteString(ev.Text)
		return
	case agent.EventToolCall:
		p.flushText()
		fmt.Fprintf(p.out, "  > %s %s\n", ev.ToolCall.Name, ralphLine(string(ev.ToolCall.Arguments), 120))
	case agent.EventToolResult:
		p.flushText()
		if r := ev.ToolResult; !r.OK {
			fmt.Fprintf(p.out, "    %s failed: %s\n", r.Name, ralphLine(r.Error, 200))
		}
	case agent.EventError:
		p.flushText()
		fmt.Fprintf(p.out, "  ! %s\n", ralphLine(ev.Error.Message, 300))
	case agent.EventBudget:
		p.flushText()
		fmt.Fprintf(p.out, "  $ budget: %s\n", ralphLine(ev.Budget.Message, 300))
	case agent.EventDone:
		p.flushText()
	}
}

func (p *ralphPrinter) flushText() {
	s := strings.TrimSpace(p.text.String())
	p.text.Reset()
	if s == "" {
		return
	}
	for _, l := range strings.Split(s, "\n") {
		fmt.Fprintf(p.out, "  │ %s\n", l)
	}
}

// oneLine collapses whitespace and cuts s to n runes.
func ralphLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func ralphFirst(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

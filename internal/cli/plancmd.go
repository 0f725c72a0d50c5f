package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ralph"
)

// planFlags are `aidex plan`'s flags.
type planFlags struct {
	yes      bool
	asJSON   bool
	provider string
	model    string
	maxTurns int
}

// newPlanCmd is `aidex plan "GOAL"`: the model studies the workspace
// read-only and proposes tasks for the Ralph list.
func newPlanCmd(a *cliApp) *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan GOAL",
		Short: "Turn a goal into reviewed tasks for the Ralph loop",
		Long: `The model studies the workspace in plan permission mode (read-only tools) and
proposes tasks for the goal, with ids, descriptions, acceptance criteria,
priorities and dependencies. They are shown for review and saved to
ralph_tasks.json when you agree (--yes saves without asking). When stdin is
not a terminal and --yes is not given, the tasks are printed and nothing is
saved. --json prints the proposal as JSON (for 'aidex ralph import -').`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPlan(cmd, &f, strings.Join(args, " "))
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&f.yes, "yes", "y", false, "save the proposed tasks without asking")
	fl.BoolVar(&f.asJSON, "json", false, "print the proposed tasks as JSON")
	fl.StringVar(&f.provider, "provider", "", "provider to use")
	fl.StringVarP(&f.model, "model", "m", "", "model to use, or PROVIDER/MODEL")
	fl.IntVar(&f.maxTurns, "max-turns", 0, "model responses for the planning run (default: max_tool_turns)")
	return cmd
}

func (a *cliApp) runPlan(cmd *cobra.Command, f *planFlags, goal string) error {
	if strings.TrimSpace(goal) == "" {
		return usageErr("the goal is empty: aidex plan \"what you want done\"")
	}
	if f.maxTurns < 0 {
		return usageErr("--max-turns must be positive")
	}
	rf := runFlags{provider: f.provider, model: f.model, outputFormat: "text", agentOutput: "final"}
	if err := a.applyRunFlags(&rf); err != nil {
		return err
	}
	ctx, stop := withSignals(cmd.Context())
	defer stop()
	appSvc, err := a.start(ctx, false)
	if err != nil {
		return err
	}
	defer appSvc.Close()
	svc := appSvc.Ralph(false)
	progress := newRalphPrinter(a.proc.Stderr, a.flags.quiet)
	res, err := svc.Plan(ctx, ralph.PlanOptions{Goal: goal, MaxTurns: f.maxTurns}, func(ev ralph.Event) {
		if ev.Agent != nil && ev.Agent.Type != agent.EventText {
			progress.event(ev)
		}
	})
	if err != nil {
		return err
	}
	out := a.proc.Stdout
	if f.asJSON {
		if err := writeJSON(out, res.Tasks); err != nil {
			return err
		}
	} else {
		printProposal(out, res)
	}
	save := f.yes
	if !save {
		if !stdinIsTerminal(a.proc.Stdin) {
			fmt.Fprintf(a.proc.Stderr, "aidex: nothing saved: rerun with --yes to save these %d tasks, or save the --json output and run `aidex ralph import FILE`\n", len(res.Tasks))
			return nil
		}
		save = askYesNo(a.proc.Stdin, a.proc.Stderr, fmt.Sprintf("Save these %d tasks to %s? [y/N] ", len(res.Tasks), ralph.FileName))
	}
	if !save {
		fmt.Fprintln(a.proc.Stderr, "aidex: nothing saved")
		return nil
	}
	saved, err := svc.SavePlan(ctx, res.Tasks)
	if err != nil {
		return err
	}
	w := a.proc.Stderr
	if !f.asJSON {
		w = out
	}
	fmt.Fprintf(w, "saved %d tasks to %s: run them with `aidex ralph run`\n", len(saved), ralph.FileName)
	return nil
}

// printProposal shows proposed tasks for review.
func printProposal(w io.Writer, res *ralph.PlanResult) {
	if ans := strings.TrimSpace(res.Answer); ans != "" {
		fmt.Fprintf(w, "%s\n\n", ans)
	}
	fmt.Fprintf(w, "Proposed tasks (session %s):\n\n", res.SessionID)
	for _, t := range res.Tasks {
		fmt.Fprintf(w, "%s [%s] %s: %s\n", t.ID, t.Priority, t.Type, t.Title)
		if len(t.DependsOn) > 0 {
			fmt.Fprintf(w, "  after: %s\n", strings.Join(t.DependsOn, ", "))
		}
		if t.Description != "" {
			for _, l := range strings.Split(strings.TrimSpace(t.Description), "\n") {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
		for _, c := range t.AcceptanceCriteria {
			fmt.Fprintf(w, "  - [ ] %s\n", c)
		}
		fmt.Fprintln(w)
	}
}

// stdinTerminal reports whether r is an interactive terminal.
func stdinIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// confirm asks a yes/no question; only y or yes is yes.
func askYesNo(in io.Reader, out io.Writer, question string) bool {
	fmt.Fprint(out, question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// budgetFlags are the cost governor's run flags: --max-cost (budget.run_usd
// for this invocation) and --estimate.
type budgetFlags struct {
	maxCost  string
	estimate bool
}

// maxCostHelp is --max-cost's help, shared by the run commands.
const maxCostHelp = "stop a run once it has spent `USD` (its subagents included): the current step's tool calls finish, then exit code 5; aidex -c continues (default: [budget] run_usd; 0: no limit)"

func addBudgetFlags(cmd *cobra.Command, f *budgetFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.maxCost, "max-cost", "", maxCostHelp)
	fl.BoolVar(&f.estimate, "estimate", false, "print the first request's estimated tokens and its price per turn on the model, the active models (--models) and the fallback models, then exit without calling the model")
}

// applyBudgetFlags checks --max-cost and sets budget.run_usd from it.
// Errors: a value that is not a number of dollars, or negative; --estimate
// with stream-json input (exit 2).
func (a *cliApp) applyBudgetFlags(rf *runFlags) error {
	f := &rf.budget
	if f.estimate && rf.inputFormat == inputStreamJSON {
		return usageErr("--estimate goes with a headless run (-p \"PROMPT\"), not with --input-format stream-json")
	}
	if f.maxCost == "" {
		return nil
	}
	s := strings.TrimPrefix(strings.TrimSpace(f.maxCost), "$")
	usd, err := strconv.ParseFloat(s, 64)
	if err != nil || usd < 0 || math.IsNaN(usd) || math.IsInf(usd, 0) {
		return usageErr("--max-cost takes an amount of US dollars such as 0.50 (0: no limit), not %q", f.maxCost)
	}
	a.flagValues["budget.run_usd"] = strconv.FormatFloat(usd, 'f', -1, 64)
	return nil
}

// printEstimate prints what the first request of a run of parts would
// carry and cost, without calling the model: text, or with
// --output-format json or stream-json one JSON object. A session the run
// created only for this is deleted again.
func (a *cliApp) printEstimate(ctx context.Context, svc *app.Service, live *app.Session, parts []llm.Part, f *runFlags) error {
	est, err := live.Estimate(ctx, parts)
	if f.resume == "" && !f.cont {
		_ = svc.Store().Delete(context.WithoutCancel(ctx), live.ID())
	}
	if err != nil {
		return err
	}
	if outputFormat(f.outputFormat) != formatText {
		return writeJSON(a.proc.Stdout, est)
	}
	format.WriteEstimate(a.proc.Stdout, est)
	return nil
}

// budgetLine prints a budget event on stderr (always: a run that spends
// money says so even without progress output).
func budgetLine(w io.Writer, b *agent.BudgetInfo) {
	if b != nil {
		fmt.Fprintf(w, "aidex: budget: %s\n", termsafe.Clean(b.Message))
	}
}

// budgetStopLine is the stderr line of a run a budget stopped.
func budgetStopLine(w io.Writer, d *agent.DoneInfo) {
	what := "a budget"
	if d.Budget != nil {
		what = d.Budget.Key
	}
	fmt.Fprintf(w, "aidex: stopped by %s after %d model responses, at a step boundary; the session is kept (raise the limit and run aidex -c to continue)\n", what, d.Turns)
}

// showSession prints session id's transcript (markdown), then its usage
// and cost per model, per model response and per tool.
func (a *cliApp) showSession(cmd *cobra.Command, id string) error {
	svc, err := a.start(cmd.Context(), true)
	if err != nil {
		return err
	}
	defer svc.Close()
	out := cmd.OutOrStdout()
	if err := svc.Store().Export(cmd.Context(), id, "md", out); err != nil {
		return sessionErr(err)
	}
	b, err := svc.Breakdown(cmd.Context(), id)
	if err != nil {
		return sessionErr(err)
	}
	fmt.Fprint(out, "\n## Usage and cost\n\n")
	format.WriteBreakdown(out, b, 0)
	return nil
}

// ralphBudgetExit is the exit of a Ralph run a budget stopped (5).
func ralphBudgetExit(sum *ralph.Summary) error {
	return &ExitError{Code: ExitBudget, Err: fmt.Errorf("stopped by the budget after %d task(s), $%.4f spent; %d task(s) pending (raise --max-cost or [budget] and run again)",
		sum.Ran, sum.CostUSD, sum.Counts[ralph.StatusPending])}
}

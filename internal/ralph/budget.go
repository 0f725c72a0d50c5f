package ralph

import (
	"fmt"

	"github.com/zelvior/aidex/internal/agent"
)

// ReasonBudget is the Outcome.Reason of a task whose run a budget stopped
// (see agent.Budget): the task is pending again, and the loop ends with
// [FinishBudget].
const ReasonBudget = "budget"

// budgetLeft is what the run may still spend, in US dollars, when
// o.MaxCostUSD bounds it: ok false when it does not.
func budgetLeft(o RunOptions, sum *Summary) (left float64, ok bool) {
	if o.MaxCostUSD <= 0 {
		return 0, false
	}
	return o.MaxCostUSD - sum.CostUSD, true
}

// budgetUsed reports whether the run may start no further task: its
// --max-cost is spent, or the last task's run stopped on a budget.
func budgetUsed(o RunOptions, sum *Summary, last *Outcome) bool {
	if last != nil && last.Reason == ReasonBudget {
		return true
	}
	left, ok := budgetLeft(o, sum)
	return ok && left <= 0
}

// budgetOutcome is the outcome of a task whose run a budget stopped: back
// to pending, so that a later run with a raised budget takes it again.
func budgetOutcome(done *agent.DoneInfo) Outcome {
	msg := "a budget was used up"
	if done.Budget != nil {
		msg = done.Budget.Message
	}
	return Outcome{Status: StatusPending, Reason: ReasonBudget, Summary: fmt.Sprintf("stopped by the budget (%s); it is pending again", msg)}
}

// costCounter returns emit that also keeps the cost, in US dollars, of the
// task's session as its runs report it (the done events' CostUSD).
func costCounter(emit func(Event), cost *float64) func(Event) {
	return func(ev Event) {
		if a := ev.Agent; a != nil && a.Type == agent.EventDone && a.Done != nil && a.ParentToolCallID == "" {
			*cost = a.Done.CostUSD
		}
		emit(ev)
	}
}

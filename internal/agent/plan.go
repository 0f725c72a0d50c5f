package agent

import "fmt"

// planState is what a run knows for the planning nudge
// (Harness.PlanAfter): its tool calls so far, whether it wrote a plan,
// whether it was asked to.
type planState struct {
	calls   int
	written bool
	nudged  bool
}

// planNudge counts the calls of one response and, once the run has made
// Harness.PlanAfter calls without a todo_write plan (and the session
// holds no unfinished one), asks the model once to write one: a note at
// the end of the response's last result.
func (r *run) planNudge(slots []*slot) {
	after, st := r.cfg.Harness.PlanAfter, &r.plan
	if after <= 0 || st.nudged || st.written || len(slots) == 0 {
		return
	}
	for _, sl := range slots {
		if sl.tc.Name == todoToolName && sl.done && sl.result.OK {
			st.written = true
		} else {
			st.calls++
		}
	}
	if st.written || st.calls < after || openPlan(r.s.Todos) {
		return
	}
	st.nudged = true
	last := slots[len(slots)-1]
	last.note = joinNotes(last.note, fmt.Sprintf("[aidex: you have made %d tool calls without a plan. Before you go on, "+
		"call %s with the steps left to finish the task (one in_progress), and keep it current as you work.]", st.calls, todoToolName))
}

// openPlan reports whether todos has an item not completed.
func openPlan(todos []Todo) bool {
	for _, t := range todos {
		if t.Status != "completed" {
			return true
		}
	}
	return false
}

// joinNotes joins two notes for a result (either may be empty).
func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

package ralph

import (
	"fmt"
	"slices"
	"strings"
)

// Waiting is a pending task held back by its dependencies: Needs lists
// each unfinished dependency as "ID (status)", or "ID (missing)".
type Waiting struct {
	ID    string   `json:"id"`
	Needs []string `json:"needs"`
}

// String is "T-003 waits for T-002 (failed)".
func (w Waiting) String() string {
	return w.ID + " waits for " + strings.Join(w.Needs, ", ")
}

// Next picks the task to run: among pending tasks whose depends_on are all
// done (and, when only is not empty, whose id is in only), the highest
// priority (P0 first), ties by list order. It returns the task's index, or
// -1 with the pending tasks that wait on dependencies.
func Next(tasks []Task, only []string) (int, []Waiting) {
	status := make(map[string]Status, len(tasks))
	for _, t := range tasks {
		status[strings.ToUpper(t.ID)] = t.Status
	}
	best := -1
	var waiting []Waiting
	for i, t := range tasks {
		if t.Status != StatusPending || (len(only) > 0 && !containsFold(only, t.ID)) {
			continue
		}
		if needs := unmet(t, status); len(needs) > 0 {
			waiting = append(waiting, Waiting{ID: t.ID, Needs: needs})
			continue
		}
		if best < 0 || t.Priority.rank() < tasks[best].Priority.rank() {
			best = i
		}
	}
	if best >= 0 {
		return best, nil
	}
	return -1, waiting
}

func unmet(t Task, status map[string]Status) []string {
	var needs []string
	for _, d := range t.DependsOn {
		st, ok := status[strings.ToUpper(d)]
		switch {
		case !ok:
			needs = append(needs, d+" (missing)")
		case st != StatusDone:
			needs = append(needs, fmt.Sprintf("%s (%s)", d, st))
		}
	}
	return needs
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

// Runnable returns the indexes of every task Next could pick now (pending,
// its depends_on all done, in only when only is not empty), in the order
// Next would pick them: P0 first, ties by list order. A run with several
// workers starts them all at once.
func Runnable(tasks []Task, only []string) []int {
	status := make(map[string]Status, len(tasks))
	for _, t := range tasks {
		status[strings.ToUpper(t.ID)] = t.Status
	}
	var out []int
	for i, t := range tasks {
		if t.Status != StatusPending || (len(only) > 0 && !containsFold(only, t.ID)) || len(unmet(t, status)) > 0 {
			continue
		}
		out = append(out, i)
	}
	slices.SortStableFunc(out, func(a, b int) int { return tasks[a].Priority.rank() - tasks[b].Priority.rank() })
	return out
}

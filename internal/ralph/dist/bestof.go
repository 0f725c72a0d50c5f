package dist

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/ralph"
)

// attemptResult is one of best-of-K attempts' outcome, in arrival order.
type attemptResult struct {
	key     string
	out     ralph.Outcome
	changed int
}

// bestOfOutcome collects one attempt; when all K of a task are in, the
// winner (done, fewest changed lines, then the first in) is the task's
// outcome, its branch renamed ralph/<id>, and the losers' branches are
// deleted.
func (c *Coordinator) bestOfOutcome(k string, r ResultMsg) {
	c.state.finished[k] = true
	c.state.dequeue(k)
	id := r.TaskID
	c.state.attempts[id] = append(c.state.attempts[id], attemptResult{key: k, out: *r.Outcome, changed: r.Changed})
	all := c.state.attempts[id]
	if len(all) < c.o.BestOf {
		return
	}
	win := -1
	for i, a := range all {
		if a.out.Status == ralph.StatusDone && (win < 0 || a.changed < all[win].changed) {
			win = i
		}
	}
	for i, a := range all {
		if i != win && a.out.Branch != "" {
			c.deleteBranch(a.out.Branch)
		}
	}
	if win < 0 {
		var why []string
		for _, a := range all {
			why = append(why, a.out.Summary)
		}
		out := ralph.Outcome{Status: ralph.StatusFailed, Reason: "best_of_failed",
			Summary: fmt.Sprintf("none of the %d attempts passed: %s", len(all), strings.Join(why, " | "))}
		c.complete(id, id, out)
		return
	}
	out := all[win].out
	if c.o.Remote == "" && out.Branch != "" {
		if _, err := git(context.Background(), c.ws, "branch", "-M", out.Branch, "ralph/"+id); err == nil {
			out.Branch = "ralph/" + id
		}
	}
	out.Summary = fmt.Sprintf("%s (best of %d: attempt %s won with %d changed lines)", out.Summary, len(all), strings.TrimPrefix(all[win].key, id+"#"), all[win].changed)
	c.complete(id, id, out)
}

func (c *Coordinator) deleteBranch(b string) {
	ctx := context.Background()
	if c.o.Remote != "" {
		_, _ = git(ctx, c.ws, "push", "--quiet", "--delete", "--", c.o.Remote, b)
		return
	}
	_, _ = git(ctx, c.ws, "branch", "-D", b)
}

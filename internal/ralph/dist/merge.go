package dist

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/ralph"
)

// doneBranches returns the branches of the done tasks in dependency order
// (a task after the tasks it depends on; otherwise list order).
func doneBranches(tasks []ralph.Task, branches map[string]string) []string {
	byID := map[string]ralph.Task{}
	for _, t := range tasks {
		byID[strings.ToUpper(t.ID)] = t
	}
	seen := map[string]bool{}
	var out []string
	var visit func(t ralph.Task)
	visit = func(t ralph.Task) {
		id := strings.ToUpper(t.ID)
		if seen[id] {
			return
		}
		seen[id] = true
		for _, d := range t.DependsOn {
			if dt, ok := byID[strings.ToUpper(d)]; ok {
				visit(dt)
			}
		}
		if b := branches[t.ID]; b != "" && t.Status == ralph.StatusDone {
			out = append(out, b)
		}
	}
	for _, t := range tasks {
		visit(t)
	}
	return out
}

// merge merges the branches into the workspace's current branch in
// order, stopping at the first that fails (a conflict is left for the
// user to resolve). It returns the branches merged.
func (c *Coordinator) merge(branches []string) []string {
	ctx := context.Background()
	var merged []string
	for _, b := range branches {
		id := strings.TrimPrefix(b, "ralph/")
		if c.o.Remote != "" {
			if _, err := git(ctx, c.ws, "fetch", "--quiet", "--", c.o.Remote, "+refs/heads/"+b+":refs/heads/"+b); err != nil {
				c.emit(ralph.Event{Type: ralph.EventMergeFailed, TaskID: id, Note: err.Error()})
				return merged
			}
		}
		if _, err := git(ctx, c.ws, "merge", "--no-ff", "--no-edit", "-m", "Merge "+b, b); err != nil {
			c.emit(ralph.Event{Type: ralph.EventMergeFailed, TaskID: id,
				Note: b + " did not merge cleanly; resolve it (git status) or `git merge --abort`: " + err.Error()})
			return merged
		}
		merged = append(merged, b)
		c.emit(ralph.Event{Type: ralph.EventMerged, TaskID: id, Note: b})
	}
	return merged
}

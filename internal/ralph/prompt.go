package ralph

import (
	"fmt"
	"strings"
)

// TaskPrompt is the user message that starts work on a task: its id,
// title, type and priority, description, acceptance criteria and
// dependencies, and how to report. verify is the verification command
// ("" for none). The project's instruction files reach the model through
// the system prompt.
func TaskPrompt(t Task, verify string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Task %s: %s\n\n", t.ID, t.Title)
	fmt.Fprintf(&b, "Type: %s · priority: %s\n", t.Type, t.Priority)
	if len(t.DependsOn) > 0 {
		fmt.Fprintf(&b, "Builds on (already done): %s\n", strings.Join(t.DependsOn, ", "))
	}
	if t.Description != "" {
		fmt.Fprintf(&b, "\n## Description\n\n%s\n", t.Description)
	}
	if len(t.AcceptanceCriteria) > 0 {
		b.WriteString("\n## Acceptance criteria\n\n")
		for _, c := range t.AcceptanceCriteria {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	b.WriteString("\n## How to finish\n\n")
	b.WriteString("Work on this task only, in this workspace, with your tools. Check your work (build, tests) before you report.\n")
	if verify != "" {
		fmt.Fprintf(&b, "When you report done, `%s` is run in the workspace; if it fails you get its output to fix the problem.\n", verify)
	}
	fmt.Fprintf(&b, "When every acceptance criterion is met, call complete_task with status \"done\" and a short summary of what you changed "+
		"(or end your answer with %s). If you cannot complete it, call complete_task with status \"failed\" and say why; "+
		"use \"skipped\" when the task is not needed (already done, obsolete).\n", PromiseTag)
	return b.String()
}

// runNotes are the system-prompt notes of a Ralph run.
func runNotes() []string {
	return []string{"You are running unattended in Ralph, aidex's autonomous task loop: no one can answer questions or approve actions, " +
		"and actions the permission policy does not allow are denied. Do not ask the user anything; make reasonable decisions, " +
		"and report the task's outcome with complete_task."}
}

// nudgeText is sent once when the agent ended its turn without reporting.
func nudgeText(id string) string {
	return fmt.Sprintf("You ended your turn without reporting on task %s. If it is complete, call complete_task with status \"done\" and a summary "+
		"(or end your answer with %s). If you cannot complete it, call complete_task with status \"failed\" and say why.", id, PromiseTag)
}

// verifyFeedback is sent when the verification command failed.
func verifyFeedback(command string, r VerifyResult, attempt, maxAttempts int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The verification command `%s` failed", command)
	if r.ExitCode >= 0 {
		fmt.Fprintf(&b, " (exit code %d)", r.ExitCode)
	}
	if r.Error != "" {
		fmt.Fprintf(&b, ": %s", r.Error)
	}
	b.WriteString(".\n\n")
	if out := strings.TrimSpace(r.Output); out != "" {
		fmt.Fprintf(&b, "Output:\n```\n%s\n```\n\n", out)
	}
	fmt.Fprintf(&b, "Fix the problem and report again with complete_task (attempt %d of %d).", attempt, maxAttempts)
	return b.String()
}

// planNotes are the system-prompt notes of a planning run.
func planNotes() []string {
	return []string{"You are planning, in plan permission mode: you can read and search the workspace but not change it. " +
		"Your output is a task list for Ralph, aidex's autonomous task loop, given with the propose_tasks tool."}
}

// planPrompt is the user message of a planning run.
func planPrompt(goal string) string {
	return "Goal: " + strings.TrimSpace(goal) + `

Study the workspace (read-only) to learn how it is built and where the work goes. Then break the goal into small tasks, each one an agent with no other context can complete and check on its own in one session:
- id: US-001, US-002 ... for user-visible stories, T-001, T-002 ... for technical tasks (call list_tasks first and do not reuse ids already in the list);
- title: short and imperative;
- description: what to change and where (files, functions, commands);
- acceptance_criteria: checkable conditions (tests that pass, behaviour to observe);
- priority: P0 (do first) to P3;
- depends_on: the ids that must be done first.
Then call propose_tasks once with the whole list, and end your turn with a short overview. The user reviews the tasks before they are saved.`
}

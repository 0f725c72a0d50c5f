package ralph

import (
	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// EventType names a Ralph event. The names are a contract: the web UI
// sends them as SSE event names and the CLI and TUI render them. Besides
// the types below, a run forwards every engine event (session, text,
// reasoning, tool_call, approval, tool_result, usage, todos, error, done)
// with the engine's own type name.
type EventType string

// Ralph's own events.
const (
	EventTaskStart   EventType = "task_start"   // a task begins: Task (in_progress, with session_id)
	EventVerifyStart EventType = "verify_start" // the verification command starts: Verify (command, attempt)
	EventVerify      EventType = "verify"       // the verification command ended: Verify (with the result)
	EventTaskDone    EventType = "task_done"    // a task ended: Task (its new status and result), Outcome
	EventPaused      EventType = "paused"       // the loop waits (pause requested) before the next task
	EventResumed     EventType = "resumed"      // the loop goes on after a pause
	EventFinished    EventType = "finished"     // the loop ended: Summary (last event of a run)

	// Events of a run with several workers (aidex ralph run --workers N).
	EventQueued      EventType = "queued"       // a task was put on the work queue: TaskID
	EventRedelivered EventType = "redelivered"  // a task's worker went silent or gave it back; another gets it: TaskID, Note (why), Worker (the one that had it)
	EventMerged      EventType = "merged"       // --merge merged a task's branch: TaskID, Note (the branch)
	EventMergeFailed EventType = "merge_failed" // --merge stopped at a conflict: TaskID, Note (git's message)
)

// Event is one thing that happened in a Ralph run or plan. Type selects
// the fields: Task for task_start and task_done (a snapshot), Outcome for
// task_done, Verify for verify_start and verify, Summary for finished,
// Agent for the engine's events (Type is then the engine event's type).
// TaskID names the task the event belongs to ("" while planning and for
// finished).
type Event struct {
	Type    EventType    `json:"type"`
	TaskID  string       `json:"task_id,omitempty"`
	Task    *Task        `json:"task,omitempty"`
	Outcome *Outcome     `json:"outcome,omitempty"`
	Verify  *VerifyInfo  `json:"verify,omitempty"`
	Summary *Summary     `json:"summary,omitempty"`
	Agent   *agent.Event `json:"event,omitempty"`
	// Worker is the id of the worker the event comes from (a run with
	// several workers); Note is the free text of the distributed events.
	Worker string `json:"worker,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Outcome is how a task ended. Status is done, failed, skipped, or
// pending when the run was interrupted mid-task; Reason is one of
// reported (complete_task), promise (the promise tag), max_turns,
// timeout, provider_error, loop, verify_failed, no_report, interrupted,
// engine_error, changes_denied (ReasonChangesDenied); Summary the agent's
// summary or why it failed; Attempts the agent's tries in this run (1 +
// verification retries).
//
// A distributed run (several workers) adds where the work is: Worker (the
// worker's id), Branch and Commit (the task's git branch and its commit,
// "" when nothing was committed), SessionID (the worker's session), Usage
// and CostUSD (the task's tokens and cost in US dollars, 0 when unknown).
type Outcome struct {
	Status    Status     `json:"status"`
	Reason    string     `json:"reason"`
	Summary   string     `json:"summary"`
	Attempts  int        `json:"attempts"`
	Worker    string     `json:"worker,omitempty"`
	Branch    string     `json:"branch,omitempty"`
	Commit    string     `json:"commit,omitempty"`
	SessionID string     `json:"session_id,omitempty"`
	Usage     *llm.Usage `json:"usage,omitempty"`
	CostUSD   float64    `json:"cost_usd,omitempty"`
}

// ReasonChangesDenied is the Outcome.Reason of a task the agent reported
// done although some of its file changes or commands were denied, with no
// verification command to check it: it is failed, not done.
const ReasonChangesDenied = "changes_denied"

// VerifyInfo describes a verification: Command, the agent's Attempt of
// MaxAttempts, and for the verify event the Result.
type VerifyInfo struct {
	Command     string        `json:"command"`
	Attempt     int           `json:"attempt"`
	MaxAttempts int           `json:"max_attempts"`
	Result      *VerifyResult `json:"result,omitempty"`
}

// FinishReason says why a loop ended.
type FinishReason string

// The reasons a loop ends.
const (
	FinishCompleted     FinishReason = "completed"      // no pending task is left (in scope)
	FinishBlocked       FinishReason = "blocked"        // pending tasks are left, all waiting on dependencies
	FinishMaxIterations FinishReason = "max_iterations" // --max-iterations tasks were run
	FinishStopped       FinishReason = "stopped"        // a stop was requested
	FinishInterrupted   FinishReason = "interrupted"    // the context was cancelled (Ctrl+C)
	FinishBudget        FinishReason = "budget"         // --max-cost was spent, or a budget stopped a task (it is pending again)
)

// Summary closes a run: why it ended, the tasks run in it and their
// outcomes (Failed lists the failed ids), the whole list's counts by
// status afterwards, the pending tasks waiting on dependencies, and the
// tasks left in_progress by an earlier run that did not finish (Stuck:
// reset them with `aidex ralph reset ID`).
type Summary struct {
	Reason  FinishReason   `json:"reason"`
	Ran     int            `json:"ran"`
	Done    int            `json:"done"`
	Failed  []string       `json:"failed,omitempty"`
	Skipped int            `json:"skipped"`
	Counts  map[Status]int `json:"counts"`
	Waiting []Waiting      `json:"waiting,omitempty"`
	Stuck   []string       `json:"stuck,omitempty"`
	// Branches are the branches of the tasks done in a run with several
	// workers (ralph/<id>), in dependency order; Merged those --merge
	// merged into the current branch (it stops at the first conflict).
	Branches []string `json:"branches,omitempty"`
	Merged   []string `json:"merged,omitempty"`
	// CostUSD is what the run's tasks spent, in US dollars (their
	// sessions' cost; 0 when unknown or free).
	CostUSD float64 `json:"cost_usd,omitempty"`
}

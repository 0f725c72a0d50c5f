package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
)

// Harness holds a run's harness mechanisms: ways of steering the model
// that benchmarks found to move scores, each a setting (config table
// [harness]) that `aidex eval` compares on and off. The zero value is
// aidex's behaviour before them. Every run records the settings in force
// in DoneInfo.Harness (see [Harness.Info]).
type Harness struct {
	// Verify, when not nil, is verify before finishing: a run that changed
	// files runs this check before its final answer is accepted, and the
	// model gets a failed check's result once (see verify.go).
	Verify *VerifyCheck
	// FailureLoops stops failure loops: the same command line, or the same
	// edit, failing a third time gets a nudge in its result, a fourth
	// time stops the run (stop reason loop). Identical calls three times
	// in a row stop a run whatever this says.
	FailureLoops bool
	// PlanAfter asks the model once to write a todo_write plan after this
	// many tool calls of a run without one (0: never).
	PlanAfter int
	// EditFormat is the edit format the model's tools use ("replace",
	// "hashline", "patch"): the application sets up the tools; the engine records it.
	EditFormat string
	// TimeNotes tells the model of a run with a time limit (its context's
	// deadline) the limit and the time left, in the newest message of each
	// request (timenote.go).
	TimeNotes bool
	// ParallelReads bounds how many read-only calls of one response run
	// at once (0: no bound; 1: one at a time).
	ParallelReads int
	// OutputHandles: a command result cut to head and tail names a handle
	// to its whole output, which read_output reads (the application saves
	// the outputs and offers the tool; the engine records it).
	OutputHandles bool
}

// VerifyCheck is the check of verify before finishing. Command is the
// shell line ("" when there is none: Reason says why, e.g. "no
// verify_command and no test command detected"); Run runs it (the
// application runs it sandboxed, as Ralph's verify_command) and must
// honour ctx.
type VerifyCheck struct {
	Command string
	Reason  string
	Run     func(ctx context.Context) VerifyResult
}

// VerifyResult is a check's end: OK for exit status 0, ExitCode (-1 when
// it did not run to an exit), its output (cut by the runner) and Error, a
// one-line reason it could not run ("" when it ran).
type VerifyResult struct {
	OK       bool
	ExitCode int
	Output   string
	Error    string
}

// HarnessInfo is the record of a run's harness settings, in DoneInfo
// (headless JSON, stream-json's done event, eval's results). Verify is
// verify before finishing (VerifyCommand the check, "" when none).
type HarnessInfo struct {
	Verify        bool   `json:"verify"`
	VerifyCommand string `json:"verify_command,omitempty"`
	FailureLoops  bool   `json:"failure_loops"`
	PlanAfter     int    `json:"plan_after"`
	EditFormat    string `json:"edit_format,omitempty"`
	TimeNotes     bool   `json:"time_notes"`
	ParallelReads int    `json:"parallel_reads"`
	OutputHandles bool   `json:"output_handles"`
}

// Info returns the record of h.
func (h Harness) Info() HarnessInfo {
	info := HarnessInfo{Verify: h.Verify != nil, FailureLoops: h.FailureLoops, PlanAfter: h.PlanAfter, EditFormat: h.EditFormat, TimeNotes: h.TimeNotes, ParallelReads: h.ParallelReads,
		OutputHandles: h.OutputHandles}
	if h.Verify != nil {
		info.VerifyCommand = h.Verify.Command
	}
	return info
}

// The values of DoneInfo.Verified.
const (
	VerifiedTrue  = "true"  // the check passed after the run's last change
	VerifiedFalse = "false" // the check failed (after the one retry it gives)
	VerifiedNone  = "none"  // no check ran: VerifyReason says why
)

// verifyState is what a run knows for verify before finishing: how many
// calls changed (or may have changed) files, how many of them the last
// check saw, the checks made and the last one's result.
type verifyState struct {
	changes   int
	checkedAt int
	checks    int
	last      VerifyResult
}

// noteChange counts a call's result that changed or may have changed
// files: a write that succeeded, a command that ran (a command the
// policy found read-only does not count).
func (r *run) noteChange(sl *slot, res ToolResultInfo) {
	if sl.call == nil || sl.engine != nil || sl.readsOnly {
		return
	}
	switch {
	case sl.call.Kind == kind.Write && res.OK:
		r.verify.changes++
	case sl.call.Kind == kind.Exec && res.Category != "permission" && res.Category != "validation" && res.Category != "cancelled":
		r.verify.changes++
	}
}

// verifyBeforeFinish runs the check before a final answer is accepted.
// It returns the message that goes back to the model when the check
// failed for the first time ("" accepts the answer).
func (r *run) verifyBeforeFinish(ctx context.Context) string {
	v, st := r.cfg.Harness.Verify, &r.verify
	if v == nil || v.Command == "" || v.Run == nil || st.changes == 0 || ctx.Err() != nil {
		return ""
	}
	if st.checks > 0 && st.checkedAt == st.changes {
		return "" // nothing changed since the last check
	}
	r.emit(Event{Type: EventNotice, SessionID: r.s.ID, Text: "verifying: " + v.Command, Notice: &NoticeInfo{Kind: NoticeVerify}})
	res := v.Run(ctx)
	st.checks++
	st.checkedAt, st.last = st.changes, res
	r.emit(Event{Type: EventNotice, SessionID: r.s.ID, Text: verifyLine(v.Command, res), Notice: &NoticeInfo{Kind: NoticeVerify, Reason: res.Error}})
	if res.OK || st.checks > 1 || ctx.Err() != nil {
		return ""
	}
	return verifyFeedback(v.Command, res)
}

// verifyLine is the notice of a check's end.
func verifyLine(command string, res VerifyResult) string {
	if res.OK {
		return fmt.Sprintf("verified: `%s` passed", command)
	}
	return fmt.Sprintf("verification failed: `%s` %s", command, exitText(res))
}

func exitText(res VerifyResult) string {
	if res.Error != "" {
		return "could not run: " + res.Error
	}
	return fmt.Sprintf("exited %d", res.ExitCode)
}

// maxVerifyOutput is how much of a failed check's output the model gets
// (its tail), in bytes.
const maxVerifyOutput = 4000

// verifyFeedback is the user message after a failed check.
func verifyFeedback(command string, res VerifyResult) string {
	out := strings.TrimSpace(res.Output)
	if len(out) > maxVerifyOutput {
		cut := len(out) - maxVerifyOutput
		for cut < len(out) && out[cut]&0xC0 == 0x80 {
			cut++
		}
		out = "[...]\n" + out[cut:]
	}
	return fmt.Sprintf("Before finishing, aidex ran the project's check `%s` on your changes, and it failed (%s):\n\n%s\n\n"+
		"Fix the problem and finish again, or, if the check cannot pass for a reason outside this task, say why. "+
		"The check runs once more when you finish; its result is reported as is.", command, exitText(res), out)
}

// verification is DoneInfo's Verified and VerifyReason for a run that
// ends with reason ("", "" when verify before finishing is off).
func (r *run) verification(reason StopReason) (string, string) {
	v, st := r.cfg.Harness.Verify, r.verify
	switch {
	case v == nil:
		return "", ""
	case st.checks > 0 && st.checkedAt < st.changes:
		return VerifiedFalse, fmt.Sprintf("files changed after the last check `%s` and the run ended (%s) before it ran again", v.Command, reason)
	case st.checks > 0 && st.last.OK:
		return VerifiedTrue, ""
	case st.checks > 0:
		return VerifiedFalse, fmt.Sprintf("`%s` %s", v.Command, exitText(st.last))
	case st.changes == 0:
		return VerifiedNone, "the run changed no files"
	case v.Command == "":
		return VerifiedNone, v.Reason
	}
	return VerifiedNone, fmt.Sprintf("the run ended (%s) before its final answer was checked", reason)
}

// readSlots returns the semaphore that bounds a batch of read-only calls
// (Harness.ParallelReads; nil: no bound, or not a read-only batch).
func (r *run) readSlots(batch []*slot) chan struct{} {
	n := r.cfg.Harness.ParallelReads
	if n <= 0 || len(batch) <= n || batch[0].batchClass() != 1 {
		return nil
	}
	return make(chan struct{}, n)
}

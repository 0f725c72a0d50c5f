package agent

import (
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
)

// failLimit is how many times the same call may fail before the model is
// nudged (Harness.FailureLoops); one more failure after the nudge stops
// the run.
const failLimit = 3

// loopState counts the failures of each command and edit of a run (by
// the call's signature) and holds the message of a loop that stops it.
type loopState struct {
	failures map[string]int
	stop     string
}

// noteFailure counts a failed command or edit (the same command line,
// or the same tool with the same arguments) when Harness.FailureLoops is
// on. The third failure of one gets a nudge at the end of its result;
// the fourth stops the run after the response's calls (stop reason
// loop). Denied and cancelled calls are not failures of the model's.
func (r *run) noteFailure(sl *slot, res ToolResultInfo) {
	if !r.cfg.Harness.FailureLoops || res.OK || sl.call == nil || sl.engine != nil {
		return
	}
	if res.Category == "permission" || res.Category == "cancelled" || (sl.call.Kind != kind.Exec && sl.call.Kind != kind.Write) {
		return
	}
	what, sig := "the edit "+sl.call.Name, sl.call.Name+"\x00"+string(canonicalJSON(sl.call.Args))
	if sl.call.Kind == kind.Exec && sl.call.Command != "" {
		what, sig = fmt.Sprintf("the command `%s`", sl.call.Command), "exec\x00"+sl.call.Command
	}
	if r.loops.failures == nil {
		r.loops.failures = map[string]int{}
	}
	r.loops.failures[sig]++
	switch n := r.loops.failures[sig]; {
	case n == failLimit:
		sl.note = joinNotes(sl.note, fmt.Sprintf("[aidex: %s has now failed %d times in this run with the same arguments. Repeating it will not help: "+
			"read the error, look at the code or the files it names, and try a different approach. If it fails once more, the run stops.]", what, n))
	case n > failLimit && r.loops.stop == "":
		r.loops.stop = fmt.Sprintf("stopped: %s failed %d times with the same arguments; the model was nudged after the third", what, n)
	}
}

// loopStop ends the run when noteFailure found a loop (nil otherwise).
func (r *run) loopStop() *DoneInfo {
	if r.loops.stop == "" {
		return nil
	}
	r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: r.loops.stop, Kind: "loop", Fatal: true}})
	return r.done(StopLoop, r.loops.stop)
}

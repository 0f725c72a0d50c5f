package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// stopDenied is the stop reason headless JSON output reports for a run
// that ended normally but had at least one call denied by the policy
// (exit 3). The engine itself says "done": the denial went back to the
// model and the run went on.
const stopDenied agent.StopReason = "denied"

// reportedStop is the stop reason a headless run reports: the engine's,
// except that a run that ended normally with denials is "denied".
func reportedStop(d *agent.DoneInfo) agent.StopReason {
	if d.Denials > 0 && (d.StopReason == agent.StopDone || d.StopReason == agent.StopMarker) {
		return stopDenied
	}
	return d.StopReason
}

// denialLog collects the distinct policy denials of a run, in order.
type denialLog struct {
	mu   sync.Mutex
	list []agent.DenialInfo
	seen map[string]bool
}

// event records the denial a tool result carries.
func (l *denialLog) event(e agent.Event) {
	if e.Type != agent.EventToolResult || e.ToolResult == nil || e.ToolResult.Denial == nil {
		return
	}
	d := *e.ToolResult.Denial
	key := d.Tool + "\x00" + denialSubject(d)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if !l.seen[key] {
		l.seen[key] = true
		l.list = append(l.list, d)
	}
}

// denials returns the distinct denials so far (never nil).
func (l *denialLog) denials() []agent.DenialInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]agent.DenialInfo{}, l.list...)
}

// denialSubject is what a denied call was about: its command line or its
// paths.
func denialSubject(d agent.DenialInfo) string {
	if d.Command != "" {
		return d.Command
	}
	return strings.Join(d.Paths, " ")
}

// denialLine is the one stderr line telling why a call was refused and how
// to allow it.
func denialLine(d agent.DenialInfo) string {
	var b strings.Builder
	if d.Hook {
		// A hook's block: the user's own choice, not the policy's.
		b.WriteString("aidex: " + d.Tool)
		if s := denialSubject(d); s != "" {
			fmt.Fprintf(&b, " %q", s)
		}
		b.WriteString(" was blocked by the " + d.Rule)
		if d.Source != "" {
			b.WriteString(" (" + d.Source + ")")
		}
		return termsafe.Clean(b.String())
	}
	b.WriteString("aidex: stopped: " + d.Tool)
	if s := denialSubject(d); s != "" {
		fmt.Fprintf(&b, " %q", s)
	}
	b.WriteString(" was denied by the policy")
	switch {
	case d.Rule != "" && d.Source != "" && d.Source != "built-in":
		b.WriteString(" (rule " + d.Rule + " from " + d.Source + ")")
	case d.Rule != "":
		b.WriteString(" (" + d.Rule + ")")
	}
	switch {
	case d.Decision == agent.Deny && strings.HasPrefix(d.Rule, "mode "):
		b.WriteString("; choose another --permission-mode")
	case d.Decision == agent.Deny:
		// a deny rule or a boundary: no --allow can override it
	case d.Allow != "":
		b.WriteString("; allow it with --allow '" + d.Allow + "'")
	default:
		b.WriteString("; no --allow rule can allow it: it needs a person's approval (run it in an interactive aidex)")
	}
	return termsafe.Clean(b.String())
}

// printStops writes why a text-mode run stopped short, on stderr, one line
// each: every distinct denial, the turn limit, a repeated call. It prints
// even when stderr is not a terminal: the exit code alone does not say
// what to change.
func printStops(w io.Writer, f *runFlags, d *agent.DoneInfo, denials []agent.DenialInfo) {
	if d == nil {
		return
	}
	for _, den := range denials {
		fmt.Fprintln(w, denialLine(den))
	}
	switch d.StopReason {
	case agent.StopMaxTurns:
		fmt.Fprintf(w, "aidex: stopped after %d model responses (%s)\n", d.Turns, limitSource(f, d.Turns))
	case agent.StopLoop:
		fmt.Fprintf(w, "aidex: %s; the session is kept (aidex -c continues it)\n", termsafe.Clean(d.Result))
	case agent.StopBudget:
		budgetStopLine(w, d)
	}
}

// limitSource names the setting that limited a run to n model responses.
func limitSource(f *runFlags, n int) string {
	switch {
	case f.stepsFromConfig:
		return fmt.Sprintf("[agent] default_steps = %d", f.steps)
	case f.steps > 0:
		return fmt.Sprintf("--steps %d", f.steps)
	case f.maxTurns > 0:
		return fmt.Sprintf("--max-turns %d", f.maxTurns)
	}
	return fmt.Sprintf("max_tool_turns = %d; raise it with --max-turns", n)
}

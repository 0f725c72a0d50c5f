package exec

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// cutMarker is the line proc.HeadTail puts where it cut an output.
// (compiled on first use).
var cutMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\[\.\.\. (\d+) characters cut \.\.\.\]$`)
})

// withSaved finishes saving a command's whole output (saved; nil when
// [harness] output_handles is off): a cut output is kept, and the cut
// marker of r names its handle and the last line shown before the cut
// (partly shown when the cut fell inside it); an output
// that was not cut is discarded.
func withSaved(saved *tools.SavedOutput, out proc.Outcome, r tools.Result) tools.Result {
	if saved == nil {
		return r
	}
	if !out.Truncated {
		saved.Discard()
		return r
	}
	id, size, dropped, err := saved.Keep()
	loc := cutMarker().FindStringSubmatchIndex(r.Output)
	if err != nil || loc == nil {
		return r
	}
	line := 1
	if at := cutMarker().FindStringIndex(out.Output); at != nil {
		line = strings.Count(out.Output[:at[0]], "\n")
	}
	stop := ""
	if dropped > 0 {
		stop = fmt.Sprintf("; it stops after %d MiB", tools.MaxSavedOutputBytes>>20)
	}
	note := fmt.Sprintf(`[... %s characters cut; the whole output (%d bytes%s) is saved: read_output {"id": "%s", "offset": %d} reads it on from the last line shown ...]`,
		r.Output[loc[2]:loc[3]], size, stop, id, max(1, line))
	r.Output = r.Output[:loc[0]] + note + r.Output[loc[1]:]
	return r
}

type readOutputArgs struct {
	ID     string `json:"id" jsonschema:"The output's id, as a cut command result gives it"`
	Offset int    `json:"offset,omitempty" jsonschema:"First line (1-based)" default:"1"`
	Limit  int    `json:"limit,omitempty" jsonschema:"Number of lines" default:"2000"`
}

// readOutputDef is read_output: read a command's whole output that its
// result showed cut, by the id the result gives. It is not in the
// standard profile: the application offers it with [harness]
// output_handles.
func readOutputDef() tools.Def {
	return tools.Define(tools.Spec{Name: "read_output", Kind: kind.Read,
		Description: "Read the whole output of a command whose result was cut, by the id the result gives, as numbered lines (offset/limit)."},
		readOutput)
}

func readOutput(_ context.Context, env *tools.Env, a readOutputArgs) tools.Result {
	b, err := env.Outputs.Read(a.ID)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "read_output: %v", err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	first := max(a.Offset, 1)
	if first > len(lines) {
		return tools.Failf(tools.CategoryValidation, "read_output: offset %d is past the end: %s has %d lines", a.Offset, a.ID, len(lines))
	}
	var out strings.Builder
	n := 0
	for i := first - 1; i < len(lines) && n < max(a.Limit, 1); i++ {
		entry := fmt.Sprintf("%6d\t%s", i+1, strings.TrimRight(tools.CutUTF8(lines[i], 2000), "\r\n")+"\n")
		if out.Len()+len(entry) > proc.DefaultMaxOutputChars && n > 0 {
			break
		}
		out.WriteString(entry)
		n++
	}
	if last := first + n - 1; last < len(lines) {
		fmt.Fprintf(&out, "[lines %d-%d of %d; offset %d reads on]\n", first, last, len(lines), last+1)
	}
	return tools.Success(out.String(), &tools.Meta{Lines: n})
}

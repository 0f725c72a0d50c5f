package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

type backgroundOutputArgs struct {
	ID    string `json:"id" jsonschema:"Process id, e.g. bg1"`
	Lines int    `json:"lines,omitempty" jsonschema:"Last lines of stdout and of stderr to show (max 500)" default:"50"`
}

// backgroundOutputDef is get_background_output: the last lines of a
// background process.
func (o Options) backgroundOutputDef() tools.Def {
	return tools.Define(tools.Spec{Name: "get_background_output", Kind: kind.Other, Standard: true,
		Aliases:     []string{"read_background_output", "background_output"},
		Description: "Show the last lines of stdout and stderr of a background process and whether it is still running.", Shell: true, Bookkeeping: true},
		func(ctx context.Context, env *tools.Env, a backgroundOutputArgs) tools.Result {
			return o.backgroundOutput(env, a)
		})
}

func (o Options) backgroundOutput(env *tools.Env, a backgroundOutputArgs) tools.Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	if a.Lines < 0 {
		return tools.Failf(tools.CategoryValidation, "get_background_output: lines must be positive (max %d)", BackgroundRingLines)
	}
	n := a.Lines
	if n == 0 {
		n = defaultBackgroundLines
	}
	n = min(n, BackgroundRingLines)
	info, err := t.Info(a.ID)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "get_background_output: %v", err)
	}
	stdout, stderr, outTotal, errTotal, _ := t.Output(a.ID, n)
	var b strings.Builder
	b.WriteString(describeProcess(info, env))
	b.WriteByte('\n')
	writeStream(&b, "stdout", stdout, outTotal)
	writeStream(&b, "stderr", stderr, errTotal)
	return capResult(b.String(), o.MaxOutputChars, info)
}

func capResult(s string, maxChars int, info ProcessInfo) tools.Result {
	w := proc.NewHeadTail(maxChars)
	_, _ = w.Write([]byte(s))
	out, cut := w.String()
	meta := &tools.Meta{Truncated: cut}
	if !info.Running {
		code := info.ExitCode
		meta.ExitCode = &code
	}
	return tools.Success(out, meta)
}

func writeStream(b *strings.Builder, name string, lines []string, total int) {
	switch {
	case total == 0:
		fmt.Fprintf(b, "--- %s: no output ---\n", name)
		return
	case len(lines) < total:
		fmt.Fprintf(b, "--- %s: last %d of %d lines ---\n", name, len(lines), total)
	default:
		fmt.Fprintf(b, "--- %s: %d lines ---\n", name, total)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

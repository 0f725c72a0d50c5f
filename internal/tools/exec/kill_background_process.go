package exec

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type backgroundIDArgs struct {
	ID string `json:"id" jsonschema:"Process id from run_background_process, e.g. bg1"`
}

// killBackgroundDef is kill_background_process. Kind other, not exec: it
// only stops a process this session started, and the permission policy
// judges exec calls by their command line, which this call does not have.
func (o Options) killBackgroundDef() tools.Def {
	return tools.Define(tools.Spec{Name: "kill_background_process", Kind: kind.Other, Standard: true,
		Aliases:     []string{"stop_background_process"},
		Description: "Stop a background process and everything it started (SIGTERM, then SIGKILL after 5 s).", Shell: true, Bookkeeping: true},
		o.killBackground)
}

func (o Options) killBackground(ctx context.Context, env *tools.Env, a backgroundIDArgs) tools.Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	before, err := t.Info(a.ID)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "kill_background_process: %v", err)
	}
	if !before.Running {
		return tools.Success("Nothing to do: "+describeProcess(before, env), nil)
	}
	info, err := t.Kill(ctx, a.ID, backgroundKillGrace)
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "kill_background_process: %v", err)
	}
	code := info.ExitCode
	return tools.Success("Stopped: "+describeProcess(info, env), &tools.Meta{ExitCode: &code})
}

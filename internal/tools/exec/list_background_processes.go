package exec

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// listBackgroundDef is list_background_processes.
func (o Options) listBackgroundDef() tools.Def {
	return tools.Define(tools.Spec{Name: "list_background_processes", Kind: kind.Other, Standard: true,
		Description: "List the background processes of this session with their status.", Shell: true, Bookkeeping: true},
		func(ctx context.Context, env *tools.Env, _ tools.NoArgs) tools.Result { return o.listBackground(env) })
}

func (o Options) listBackground(env *tools.Env) tools.Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	list := t.List()
	if len(list) == 0 {
		return tools.Success("No background processes in this session.", nil)
	}
	var b strings.Builder
	for _, p := range list {
		b.WriteString(describeProcess(p, env))
		b.WriteByte('\n')
	}
	return tools.Success(b.String(), nil)
}

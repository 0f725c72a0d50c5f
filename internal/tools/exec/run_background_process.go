package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type runBackgroundArgs struct {
	Command string `json:"command" jsonschema:"Shell command line, e.g. npm run dev"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"Working directory inside the workspace" tool:"path" default:"\".\""`
}

// runBackgroundDef is run_background_process: start a long-running
// command.
func (o Options) runBackgroundDef() tools.Def {
	return tools.Define(tools.Spec{Name: "run_background_process", Kind: kind.Exec, Standard: true,
		Aliases:     []string{"start_background_process", "run_in_background"},
		Description: "Start a long-running shell command (dev server, watcher) in the background; returns an id for get_background_output and kill_background_process.", Shell: true, Subject: tools.ArgSubject("command")},
		func(ctx context.Context, env *tools.Env, a runBackgroundArgs) tools.Result {
			return o.runBackground(env, a)
		})
}

func (o Options) runBackground(env *tools.Env, a runBackgroundArgs) tools.Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	if strings.TrimSpace(a.Command) == "" || strings.ContainsRune(a.Command, 0) {
		return tools.Failf(tools.CategoryValidation, "run_background_process: command is empty or contains a NUL byte; give a shell command line")
	}
	dir, res := resolveDir(env, "cwd", a.Cwd)
	if res != nil {
		return *res
	}
	argv, err := o.shellArgv(a.Command)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "run_background_process: %v", err)
	}
	environ := o.environ(env)
	environ = gitSafeEnviron(context.Background(), dir, environ)
	id, err := t.Start(BackgroundSpec{Command: a.Command, Argv: argv, Dir: dir, Env: environ, Confine: confine(env),
		End: beginAudit(env)})
	switch {
	case errors.Is(err, ErrTableClosed):
		return tools.Failf(tools.CategoryExecution, "run_background_process: %v", err)
	case err != nil && strings.Contains(err.Error(), "already running"):
		return tools.Failf(tools.CategoryValidation, "run_background_process: %v", err)
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "run_background_process could not start the command: %v", err)
	}
	info, _ := t.Info(id)
	return tools.Success(fmt.Sprintf("Started %s (pid %d) in %s: %s\nCheck it with get_background_output {\"id\": %q}; stop it with kill_background_process.",
		id, info.PID, env.Rel(dir), a.Command, id), nil)
}

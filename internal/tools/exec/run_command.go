package exec

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

type runCommandArgs struct {
	Command string `json:"command" jsonschema:"Shell command line"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"Seconds before the command is killed (max 600)" default:"120"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"Working directory inside the workspace" tool:"path" default:"\".\""`
}

// runCommandDef is run_command: a shell command line in the workspace.
func (o Options) runCommandDef() tools.Def {
	return tools.Define(tools.Spec{Name: "run_command", Kind: kind.Exec, Standard: true,
		Description: "Run a shell command in the workspace; stdout+stderr combined, capped, exit code reported " +
			"(non-zero is an error). stdin is closed: no interactive commands. " +
			"Use run_background_process for servers and watchers.", Shell: true, Subject: tools.ArgSubject("command")},
		o.runCommand)
}

func (o Options) runCommand(ctx context.Context, env *tools.Env, a runCommandArgs) tools.Result {
	if strings.TrimSpace(a.Command) == "" {
		return tools.Failf(tools.CategoryValidation, "run_command: command is empty; give a shell command line")
	}
	if strings.ContainsRune(a.Command, 0) {
		return tools.Failf(tools.CategoryValidation, "run_command: command contains a NUL byte")
	}
	timeout, note, bad := commandTimeout(a.Timeout)
	if bad != nil {
		return *bad
	}
	dir, res := resolveDir(env, "cwd", a.Cwd)
	if res != nil {
		return *res
	}
	argv, err := o.shellArgv(a.Command)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "run_command: %v", err)
	}
	environ := o.environ(env)
	environ = gitSafeEnviron(ctx, dir, environ)
	end := beginAudit(env)
	saved := env.Outputs.Start()
	out := proc.Run(ctx, proc.Spec{Argv: argv, Dir: dir, Env: environ, Timeout: timeout, MaxChars: o.MaxOutputChars,
		Confine: confine(env), Tee: saved})
	return withReverts(explainSandbox(env, withSaved(saved, out, out.Result("command", timeout, note)), out.Output), end())
}

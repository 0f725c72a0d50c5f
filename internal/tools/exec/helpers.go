package exec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/cmdshell"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// table returns the session's process table. When Env gains a Procs field
// this prefers env.Procs.
func (o Options) table(_ *tools.Env) *ProcessTable { return o.Procs }

func noTable() tools.Result {
	return tools.Failf(tools.CategoryExecution, "background processes are not available in this session; use run_command")
}

// describeProcess is one line: "bg1 running (pid 42, 3s): npm run dev".
func describeProcess(p ProcessInfo, env *tools.Env) string {
	dir := p.Dir
	if env != nil && env.Workspace != nil {
		dir = env.Rel(p.Dir)
	}
	if p.Running {
		return fmt.Sprintf("%s running (pid %d, for %s, in %s): %s", p.ID, p.PID,
			time.Since(p.Started).Round(time.Second), dir, p.Command)
	}
	how := fmt.Sprintf("exited with code %d", p.ExitCode)
	if p.ExitCode < 0 {
		how = "ended (" + p.State + ")"
	}
	if p.Killed {
		how += ", stopped by kill"
	}
	return fmt.Sprintf("%s %s after %s (pid %d, in %s): %s", p.ID, how,
		p.Ended.Sub(p.Started).Round(time.Millisecond), p.PID, dir, p.Command)
}

// commandTimeout turns the model's timeout in seconds into a duration:
// 0 is the default, larger than the maximum is clamped (with a note for
// the output), negative is refused.
func commandTimeout(sec int) (time.Duration, string, *tools.Result) {
	switch {
	case sec < 0:
		r := tools.Failf(tools.CategoryValidation, "timeout must be a positive number of seconds (max %d), got %d",
			int(MaxCommandTimeout/time.Second), sec)
		return 0, "", &r
	case sec == 0:
		return DefaultCommandTimeout, "", nil
	case time.Duration(sec) > MaxCommandTimeout/time.Second:
		return MaxCommandTimeout, fmt.Sprintf("[timeout %d s clamped to the maximum %d s]\n",
			sec, int(MaxCommandTimeout/time.Second)), nil
	}
	return time.Duration(sec) * time.Second, "", nil
}

// resolveDir confines a directory parameter ("" or "." is the workspace
// root) and checks that it is a directory.
func resolveDir(env *tools.Env, param, p string) (string, *tools.Result) {
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	abs, res := env.Resolve(param, p)
	if res != nil {
		return "", res
	}
	fi, err := os.Stat(abs)
	var r tools.Result
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r = tools.Failf(tools.CategoryNotFound, "%s: directory %s does not exist", param, env.Rel(abs))
	case err != nil:
		r = tools.Failf(tools.CategoryExecution, "%s: cannot stat %s: %v", param, env.Rel(abs), err)
	case !fi.IsDir():
		r = tools.Failf(tools.CategoryValidation, "%s: %s is not a directory", param, env.Rel(abs))
	default:
		return abs, nil
	}
	return "", &r
}

// environ is the scrubbed child environment, by the session's policy:
// the base (os.Environ()) with the session's extra variables
// (tools.Env.ExtraEnv) set over it, then scrubbed.
func (o Options) environ(env *tools.Env) []string {
	base := o.Environ
	if base == nil {
		base = os.Environ()
	}
	var pol proc.EnvPolicy
	if env != nil {
		pol = env.EnvPolicy
		if env.ExtraEnv != nil {
			if extra := env.ExtraEnv(); len(extra) > 0 {
				base = append(append([]string(nil), base...), extra...)
			}
		}
	}
	return proc.ChildEnviron(base, o.KeepEnv, pol)
}

// shellArgv returns the argv running command through the session's
// shell: Options.Shell when set, else cmdshell.Find's choice for this
// platform (with Options.Environ's $SHELL).
func (o Options) shellArgv(command string) ([]string, error) {
	if o.Shell != "" {
		return []string{o.Shell, "-c", command}, nil
	}
	e := cmdshell.Env{}
	if o.Environ != nil {
		e.Getenv = func(k string) string { return proc.EnvValue(o.Environ, k) }
	}
	sh, err := cmdshell.Find(e)
	if err != nil {
		return nil, err
	}
	return sh.Argv(command), nil
}

// confine returns the hook that runs a command in env's sandbox, nil when
// commands run unconfined (no Confiner: sandbox off, or a rerun the user
// approved).
func confine(env *tools.Env) func(*exec.Cmd) error {
	if env == nil || env.Confiner == nil {
		return nil
	}
	c := env.Confiner
	return func(cmd *exec.Cmd) error { return c.Confine(cmd, false) }
}

// explainSandbox adds to a failed command's result the sandbox's one line
// when the sandbox stopped it (Error and Meta.Sandbox), so the model and
// the user learn why and how to allow it.
func explainSandbox(env *tools.Env, r tools.Result, output string) tools.Result {
	if r.OK || env == nil || env.Confiner == nil {
		return r
	}
	line := env.Confiner.Explain(output)
	if line == "" {
		return r
	}
	r.Error += "; " + line
	if r.Meta == nil {
		r.Meta = &tools.Meta{}
	}
	r.Meta.Sandbox = line
	return r
}

// beginAudit starts the audit of a confined command (tools.Auditor); the
// function it returns, called when the command ended, returns the lines
// of what was reverted. Unconfined commands are not audited.
func beginAudit(env *tools.Env) func() []string {
	if env != nil && env.Confiner != nil {
		if a, ok := env.Confiner.(tools.Auditor); ok {
			return a.Begin()
		}
	}
	return func() []string { return nil }
}

// withReverts makes r a failure that says what the audit reverted after
// the command (lines), so the model and the user learn that the change
// did not stay and why; the first line becomes Meta.Sandbox, which
// offers running the command again without the sandbox.
func withReverts(r tools.Result, lines []string) tools.Result {
	if len(lines) == 0 {
		return r
	}
	msg := "sandbox: " + strings.Join(lines, "; ") + "; a sandboxed command cannot leave these (they would run later outside the sandbox)"
	if r.OK {
		r.OK, r.Category, r.Error = false, tools.CategorySecurity, msg
	} else {
		r.Error += "; " + msg
	}
	if r.Meta == nil {
		r.Meta = &tools.Meta{}
	}
	r.Meta.Sandbox = "sandbox: " + lines[0]
	return r
}

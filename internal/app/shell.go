package app

import (
	"github.com/zelvior/aidex/internal/cmdshell"
	"github.com/zelvior/aidex/internal/ospath"
	"github.com/zelvior/aidex/internal/permission"
)

// CommandShell returns the shell every command of the session runs in:
// the model's run_command and background processes, the user's !command
// and hooks (cmdshell.Find on this platform). Errors wrap
// cmdshell.ErrNoShell and say what to install.
func (rt *Runtime) CommandShell() (cmdshell.Shell, error) {
	e := cmdshell.Env{}
	if rt.Getenv != nil {
		e.Getenv = rt.Getenv
	}
	return cmdshell.Find(e)
}

// shellLine is the system prompt's Shell line: which shell runs the
// model's commands, in which syntax.
func (rt toolRoom) shellLine() string {
	sh, err := rt.CommandShell()
	if err != nil {
		return "none found (" + err.Error() + "); run_command cannot run commands"
	}
	return sh.Describe()
}

// policyShell tells the permission policy the language of the command
// shell and how its programs read paths, so that it analyses what runs.
func (rt toolRoom) policyShell() permission.Shell {
	sh, err := rt.CommandShell()
	var out permission.Shell
	if err == nil && sh.Kind == cmdshell.PowerShell {
		out.Kind = permission.ShellPowerShell
	}
	if sh.WindowsPaths || err != nil && ospath.Native() == ospath.Windows {
		out.Paths = ospath.Windows
	}
	return out
}

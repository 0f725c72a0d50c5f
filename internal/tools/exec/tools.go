package exec

import (
	"time"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// Limits of the command tools.
const (
	// DefaultCommandTimeout is run_command's and run_python's timeout when
	// the model gives none.
	DefaultCommandTimeout = 120 * time.Second
	// MaxCommandTimeout is the largest timeout a model may give
	// run_command or run_python; larger values are clamped to it.
	MaxCommandTimeout = proc.MaxCommandTimeout
	// DefaultMaxOutputChars is the cap on the output returned to the
	// model when Options.MaxOutputChars is 0, in characters.
	DefaultMaxOutputChars = proc.DefaultMaxOutputChars
	// maxPythonCode caps run_python's code, in bytes.
	maxPythonCode = 1 << 20
)

// Options configures the command and background-process tools.
// The zero value is usable: the user's shell, os.Environ() without
// credentials, DefaultMaxOutputChars, no background processes.
type Options struct {
	// Shell is the program commands run with, as "<Shell> -c <command>".
	// Empty picks the platform's shell (cmdshell.Find): $SHELL when it
	// is a POSIX shell, else sh; on Windows Git for Windows' sh, else
	// PowerShell. The permission policy must be told the same choice.
	Shell string
	// Environ is the base environment ("NAME=value"); nil means
	// os.Environ(). Credentials are removed from it (see proc.ChildEnviron).
	Environ []string
	// KeepEnv names variables passed to commands even though they look
	// like credentials (a user setting, never the model's).
	KeepEnv []string
	// MaxOutputChars caps the output returned to the model, in
	// characters; 0 means DefaultMaxOutputChars.
	MaxOutputChars int
	// Procs is the session's background process table. Nil makes the
	// background tools answer that background processes are unavailable.
	Procs *ProcessTable
}

// Tools returns the command tools run_command and run_python (Kind
// exec) and the background-process tools run_background_process (Kind
// exec), get_background_output, kill_background_process and
// list_background_processes (Kind other: they only touch processes the
// session started), and read_output (Kind read: a cut command output saved
// whole, see tools.OutputStore), in this order. Register them with
// tools.Registry.Register.
//
// A command that ran and exited non-zero is a failed Result (OK false,
// CategoryExecution, "exit code N" in Error) whose Output still holds
// everything it printed followed by "[exit code: N]"; Meta.ExitCode is set
// whenever the process ran. Timeouts and cancellation are failures too.
func Tools(opts Options) []tools.Def {
	return []tools.Def{
		opts.runCommandDef(), opts.runPythonDef(),
		opts.runBackgroundDef(), opts.backgroundOutputDef(), opts.killBackgroundDef(), opts.listBackgroundDef(),
		readOutputDef(),
	}
}

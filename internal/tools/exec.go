package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/kind"
)

// Limits of the command tools.
const (
	// DefaultCommandTimeout is run_command's and run_python's timeout when
	// the model gives none.
	DefaultCommandTimeout = 120 * time.Second
	// MaxCommandTimeout is the largest timeout a model may ask for; larger
	// values are clamped to it.
	MaxCommandTimeout = 600 * time.Second
	// commandKillGrace is the time between SIGTERM and SIGKILL when a
	// command times out or is cancelled.
	commandKillGrace = 2 * time.Second
	// drainWait bounds how long output is still read after the command and
	// its process group are gone (a daemonised grandchild may hold the
	// pipe open).
	drainWait = 500 * time.Millisecond
	// maxPythonCode caps run_python's code, in bytes.
	maxPythonCode = 1 << 20
)

// ExecOptions configures the command and background-process tools.
// The zero value is usable: the user's shell, os.Environ() without
// credentials, DefaultMaxOutputChars, no background processes.
type ExecOptions struct {
	// Shell is the program commands run with, as "<Shell> -c <command>".
	// Empty picks $SHELL when it is a POSIX shell (sh, bash, zsh, dash,
	// ksh, mksh, ash), else sh from PATH, else /bin/sh; on
	// Windows sh from PATH (Git Bash), else powershell -Command.
	Shell string
	// Environ is the base environment ("NAME=value"); nil means
	// os.Environ(). Credentials are removed from it (see ChildEnviron).
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

// ExecTools returns the command tools run_command and run_python (Kind
// exec) and the background-process tools run_background_process (Kind
// exec), get_background_output, list_background_processes and
// kill_background_process (Kind other: they only touch processes the
// session started). Register them with Registry.Register.
//
// A command that ran and exited non-zero is a failed Result (OK false,
// CategoryExecution, "exit code N" in Error) whose Output still holds
// everything it printed followed by "[exit code: N]"; Meta.ExitCode is set
// whenever the process ran. Timeouts and cancellation are failures too.
func ExecTools(opts ExecOptions) []Def {
	return append(commandTools(opts), backgroundTools(opts)...)
}

type runCommandArgs struct {
	Command string `json:"command" jsonschema:"Shell command line"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"Seconds before the command is killed (max 600)" default:"120"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"Working directory inside the workspace" tool:"path" default:"\".\""`
}

type runPythonArgs struct {
	Code    string `json:"code" jsonschema:"Python 3 source to run"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"Seconds before it is killed (max 600)" default:"120"`
}

func commandTools(opts ExecOptions) []Def {
	return []Def{
		Define(Spec{Name: "run_command", Kind: kind.Exec, Standard: true,
			Description: "Run a shell command in the workspace; stdout+stderr combined, capped, exit code reported " +
				"(non-zero is an error). stdin is closed: no interactive commands. " +
				"Use run_background_process for servers and watchers.", Shell: true, Subject: ArgSubject("command")},
			func(ctx context.Context, env *Env, a runCommandArgs) Result { return opts.runCommand(ctx, env, a) }),
		Define(Spec{Name: "run_python", Kind: kind.Exec, Aliases: []string{"python", "execute_python", "run_python_code"},
			Description: "Run a Python 3 script (given as code) in the workspace with python3; output capped, exit code reported.", Shell: true, Subject: func(json.RawMessage) string { return "python3" }},
			func(ctx context.Context, env *Env, a runPythonArgs) Result { return opts.runPython(ctx, env, a) }),
	}
}

func (o ExecOptions) runCommand(ctx context.Context, env *Env, a runCommandArgs) Result {
	if strings.TrimSpace(a.Command) == "" {
		return Failf(CategoryValidation, "run_command: command is empty; give a shell command line")
	}
	if strings.ContainsRune(a.Command, 0) {
		return Failf(CategoryValidation, "run_command: command contains a NUL byte")
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
		return Failf(CategoryNotFound, "run_command: %v", err)
	}
	environ := o.environ()
	environ = append(environ, repoGitEnv(ctx, dir, environ)...)
	out := runProcess(ctx, runSpec{argv: argv, dir: dir, env: environ, timeout: timeout, maxChars: o.MaxOutputChars})
	return out.result("command", timeout, note)
}

func (o ExecOptions) runPython(ctx context.Context, env *Env, a runPythonArgs) Result {
	if strings.TrimSpace(a.Code) == "" {
		return Failf(CategoryValidation, "run_python: code is empty; give Python source")
	}
	if len(a.Code) > maxPythonCode {
		return Failf(CategoryValidation, "run_python: code is %d bytes, over the %d-byte limit; write it to a file and run it with run_command",
			len(a.Code), maxPythonCode)
	}
	timeout, note, bad := commandTimeout(a.Timeout)
	if bad != nil {
		return *bad
	}
	dir, res := resolveDir(env, "cwd", ".")
	if res != nil {
		return *res
	}
	py := findPython()
	if py == "" {
		return Failf(CategoryNotFound, "run_python: no Python interpreter found (python3, python) on PATH; "+
			"install Python 3 or do this another way")
	}
	environ := append(o.environ(), "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1")
	// "-" reads the program from stdin (so nothing is written to disk);
	// input() inside it then sees end of file, as with a closed stdin.
	out := runProcess(ctx, runSpec{argv: []string{py, "-"}, dir: dir, env: environ, stdin: a.Code,
		timeout: timeout, maxChars: o.MaxOutputChars})
	return out.result("python", timeout, note)
}

// findPython returns the path of python3 (or python, or py on Windows),
// "" when none is installed.
func findPython() string {
	names := []string{"python3", "python"}
	if runtime.GOOS == "windows" {
		names = append(names, "py")
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// commandTimeout turns the model's timeout in seconds into a duration:
// 0 is the default, larger than the maximum is clamped (with a note for
// the output), negative is refused.
func commandTimeout(sec int) (time.Duration, string, *Result) {
	switch {
	case sec < 0:
		r := Failf(CategoryValidation, "timeout must be a positive number of seconds (max %d), got %d",
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
func resolveDir(env *Env, param, p string) (string, *Result) {
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	abs, res := env.resolve(param, p)
	if res != nil {
		return "", res
	}
	fi, err := os.Stat(abs)
	var r Result
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r = Failf(CategoryNotFound, "%s: directory %s does not exist", param, env.rel(abs))
	case err != nil:
		r = Failf(CategoryExecution, "%s: cannot stat %s: %v", param, env.rel(abs), err)
	case !fi.IsDir():
		r = Failf(CategoryValidation, "%s: %s is not a directory", param, env.rel(abs))
	default:
		return abs, nil
	}
	return "", &r
}

// environ is the scrubbed child environment.
func (o ExecOptions) environ() []string {
	base := o.Environ
	if base == nil {
		base = os.Environ()
	}
	return ChildEnviron(base, o.KeepEnv)
}

// posixShells are the $SHELL values used as is; any other login shell
// (fish, tcsh, nu) is replaced by sh, since commands are written (and
// checked by the permission policy) as POSIX/bash syntax.
var posixShells = [...]string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"}

// shellArgv returns the argv running command through the shell.
func (o ExecOptions) shellArgv(command string) ([]string, error) {
	if o.Shell != "" {
		return []string{o.Shell, "-c", command}, nil
	}
	if runtime.GOOS == "windows" {
		if sh, err := exec.LookPath("sh"); err == nil {
			return []string{sh, "-c", command}, nil
		}
		if ps, err := exec.LookPath("powershell"); err == nil {
			return []string{ps, "-NoProfile", "-NonInteractive", "-Command", command}, nil
		}
		return nil, errors.New("no shell found: install Git for Windows (sh) or PowerShell")
	}
	env := o.Environ
	if env == nil {
		env = os.Environ()
	}
	if sh := envValue(env, "SHELL"); sh != "" && filepath.IsAbs(sh) &&
		slices.Contains(posixShells[:], strings.TrimSuffix(filepath.Base(sh), ".exe")) {
		if fi, err := os.Stat(sh); err == nil && !fi.IsDir() {
			return []string{sh, "-c", command}, nil
		}
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		return []string{sh, "-c", command}, nil
	}
	if _, err := os.Stat("/bin/sh"); err == nil {
		return []string{"/bin/sh", "-c", command}, nil
	}
	return nil, errors.New("no shell found: neither $SHELL, sh on PATH nor /bin/sh exists")
}

// envValue returns the value of name in environ ("" when unset).
func envValue(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// runSpec describes one foreground process.
type runSpec struct {
	argv     []string
	dir      string
	env      []string
	stdin    string // program input; "" means stdin is /dev/null
	timeout  time.Duration
	maxChars int
}

// runOutcome is what happened to a foreground process.
type runOutcome struct {
	output    string
	truncated bool
	ran       bool // the process started
	exitCode  int  // -1 when killed by a signal
	timedOut  bool
	cancelled bool
	err       error // start failure or wait error
	state     string
}

// runProcess runs s.argv in its own process group with stdout and stderr
// combined into one capped stream. On timeout or ctx cancellation the
// whole group gets SIGTERM, then SIGKILL after commandKillGrace. When the
// command exits, processes it left running in its group are killed too.
func runProcess(ctx context.Context, s runSpec) runOutcome {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir, cmd.Env = s.dir, s.env
	if s.stdin != "" {
		cmd.Stdin = strings.NewReader(s.stdin)
	}
	setProcGroup(cmd)
	pr, pw, err := os.Pipe()
	if err != nil {
		return runOutcome{err: fmt.Errorf("create output pipe: %w", err)}
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return runOutcome{err: err}
	}
	pw.Close()
	buf := newHeadTail(s.maxChars)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(buf, pr)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	o := runOutcome{ran: true}
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case o.err = <-waited:
	case <-timer.C:
		o.timedOut = true
		o.err = stopProcess(cmd.Process, waited, commandKillGrace)
	case <-ctx.Done():
		o.cancelled = true
		o.err = stopProcess(cmd.Process, waited, commandKillGrace)
	}
	_ = signalGroup(cmd.Process, true) // leftovers in the group
	drainPipe(pr, copied)
	o.output, o.truncated = buf.String()
	o.exitCode = cmd.ProcessState.ExitCode()
	o.state = cmd.ProcessState.String()
	var ee *exec.ExitError
	if errors.As(o.err, &ee) {
		o.err = nil // a non-zero exit is reported through exitCode
	}
	return o
}

// stopProcess sends SIGTERM to p's group, waits grace for the process to
// exit, then sends SIGKILL and waits for it.
func stopProcess(p *os.Process, waited <-chan error, grace time.Duration) error {
	_ = signalGroup(p, false)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-waited:
		return err
	case <-t.C:
		_ = signalGroup(p, true)
		return <-waited
	}
}

// drainPipe waits briefly for the reader goroutine to see end of file,
// then closes the read end so a grandchild that escaped the process group
// cannot keep it (and the tool call) alive.
func drainPipe(pr *os.File, copied <-chan struct{}) {
	t := time.NewTimer(drainWait)
	defer t.Stop()
	select {
	case <-copied:
	case <-t.C:
	}
	pr.Close()
	t2 := time.NewTimer(time.Second)
	defer t2.Stop()
	select {
	case <-copied:
	case <-t2.C: // platforms where Close does not interrupt a blocked Read
	}
}

// result turns the outcome into the tool result; what names the program
// ("command", "python").
func (o runOutcome) result(what string, timeout time.Duration, note string) Result {
	if !o.ran {
		if errors.Is(o.err, exec.ErrNotFound) || errors.Is(o.err, fs.ErrNotExist) {
			return Failf(CategoryNotFound, "%s could not start: %v", what, o.err)
		}
		return Failf(CategoryExecution, "%s could not start: %v", what, o.err)
	}
	var b strings.Builder
	b.WriteString(note)
	b.WriteString(o.output)
	if o.output != "" && !strings.HasSuffix(o.output, "\n") {
		b.WriteByte('\n')
	}
	code := o.exitCode
	meta := &Meta{ExitCode: &code, Truncated: o.truncated}
	switch {
	case o.timedOut:
		fmt.Fprintf(&b, "[timed out after %s; the %s and every process it started were killed]", timeout, what)
		r := Failf(CategoryExecution, "%s timed out after %s and was killed; raise timeout (max %d s) or use "+
			"run_background_process for long-running programs", what, timeout, int(MaxCommandTimeout/time.Second))
		r.Output, r.Meta = b.String(), meta
		return r
	case o.cancelled:
		fmt.Fprintf(&b, "[cancelled; the %s was killed]", what)
		r := Failf(CategoryExecution, "%s cancelled before it finished", what)
		r.Output, r.Meta = b.String(), meta
		return r
	case o.err != nil:
		r := Failf(CategoryExecution, "%s failed: %v", what, o.err)
		r.Output, r.Meta = b.String(), meta
		return r
	}
	if code < 0 {
		fmt.Fprintf(&b, "[%s: %s]", what, o.state)
		r := Failf(CategoryExecution, "%s was killed (%s)", what, o.state)
		r.Output, r.Meta = b.String(), meta
		return r
	}
	fmt.Fprintf(&b, "[exit code: %d]", code)
	if code != 0 {
		r := Failf(CategoryExecution, "exit code %d", code)
		r.Output, r.Meta = b.String(), meta
		return r
	}
	return Success(b.String(), meta)
}

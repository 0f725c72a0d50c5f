package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/cmdshell"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// Runner runs the hooks of a project.
//
// ProjectDir is the workspace: the commands run there, with
// CLAUDE_PROJECT_DIR and AIDEX_PROJECT_DIR set to it. Env is the base
// environment of the commands (nil: the process's). Log, when set, gets
// one line per hook run (event, command, exit code, milliseconds):
// --verbose. Sandbox, when set, runs each hook command not marked
// Unsandboxed in the OS sandbox of the model's commands (nil: every hook
// runs unsandboxed). A nil *Runner runs nothing.
type Runner struct {
	Hooks      []Hook
	ProjectDir string
	Env        []string
	Log        io.Writer
	Sandbox    Confiner
	// Shell runs the hook commands; the zero value is the platform's
	// (cmdshell.Find), the shell the model's commands run in.
	Shell cmdshell.Shell

	logMu sync.Mutex
}

// Confiner runs a hook command in the OS sandbox (app adapts the
// runtime's sandbox to it; hooks does not import the sandbox).
// Implementations must be safe for concurrent use.
type Confiner interface {
	// Confine rewrites cmd (Path, Args, SysProcAttr, Env) so that it runs
	// in the sandbox; it is called after cmd's Dir, Env and process group
	// are set, just before Start. It returns ok false when commands run
	// unsandboxed (sandbox mode off); an error means the command must not
	// run.
	Confine(cmd *exec.Cmd) (ok bool, err error)
	// Explain reads the output of a confined command that failed and
	// returns one line saying that the sandbox stopped it and how to
	// allow it, or "" when the sandbox was not the cause.
	Explain(output string) string
	// Begin starts the audit of a confined command; the function it
	// returns, called once after the command ended, reverts what it
	// changed that would run later outside the sandbox and returns one
	// line per revert.
	Begin() (end func() []string)
}

// Active reports whether any hook of ev would run (ignoring matchers),
// so callers can skip preparing an Input.
func (r *Runner) Active(ev Event) bool {
	if r == nil {
		return false
	}
	for i := range r.Hooks {
		if r.Hooks[i].Event == ev && r.Hooks[i].Ignored == "" {
			return true
		}
	}
	return false
}

// Matching returns the hooks that would run for in: of its event, not
// ignored, whose matcher matches, each command once (the first wins).
func (r *Runner) Matching(in *Input) []*Hook {
	if r == nil {
		return nil
	}
	names := in.matchNames()
	seen := map[string]bool{}
	var out []*Hook
	for i := range r.Hooks {
		h := &r.Hooks[i]
		if h.Event != in.Event || h.Ignored != "" || !h.Matches(names...) || seen[h.Command] {
			continue
		}
		seen[h.Command] = true
		out = append(out, h)
	}
	return out
}

// Fire runs the hooks matching in, in parallel, and folds their answers
// (in configuration order). Cwd defaults to ProjectDir. A hook that
// fails (cannot start, times out, exits with a code other than 0 and 2)
// is a message for the user, not an error. Errors: ctx ended, or in
// cannot be encoded.
func (r *Runner) Fire(ctx context.Context, in Input) (Outcome, error) {
	hooks := r.Matching(&in)
	if len(hooks) == 0 {
		return Outcome{}, nil
	}
	if in.Cwd == "" {
		in.Cwd = r.ProjectDir
	}
	stdin, err := marshalPlain(in)
	if err != nil {
		return Outcome{}, fmt.Errorf("hooks: encode the %s input: %w", in.Event, err)
	}
	var extra []string
	var envFile string
	if envFileEvent(in.Event) {
		dir, err := os.MkdirTemp("", "aidex-hook-env-")
		if err != nil {
			return Outcome{}, fmt.Errorf("hooks: %s: the CLAUDE_ENV_FILE folder: %w", in.Event, err)
		}
		defer os.RemoveAll(dir)
		envFile = filepath.Join(dir, "env")
		if err := os.WriteFile(envFile, nil, 0o600); err != nil {
			return Outcome{}, fmt.Errorf("hooks: %s: CLAUDE_ENV_FILE: %w", in.Event, err)
		}
		extra = []string{"CLAUDE_ENV_FILE=" + envFile}
	}
	runs := make([]Run, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Go(func() {
			runs[i] = r.runOne(ctx, h, stdin, extra)
			r.log(runs[i])
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Outcome{Runs: runs}, fmt.Errorf("hooks: %s: %w", in.Event, err)
	}
	var out Outcome
	for _, run := range runs {
		refused := out.Block || out.Decision == DecisionDeny
		fold(&out, in.Event, run)
		if !refused && (out.Block || out.Decision == DecisionDeny) {
			out.Blocker = run.Hook
		}
	}
	if envFile != "" {
		out.Env, out.Messages = r.readEnvFile(envFile, in.Event, out.Messages)
	}
	out.Runs = runs
	return out, nil
}

// marshalPlain encodes v as one line of JSON as Claude Code writes it:
// without Go's escaping of <, > and & (a script greps for
// "<promise>", not "\u003cpromise\u003e").
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// envFileEvent reports whether ev's hooks get CLAUDE_ENV_FILE (Claude
// Code's SessionStart and Setup).
func envFileEvent(ev Event) bool { return ev == SessionStart || ev == Setup }

// readEnvFile reads what the hooks of ev wrote to CLAUDE_ENV_FILE; a
// problem is one more message for the user.
// $NAME in a value is the hooks' environment's.
func (r *Runner) readEnvFile(path string, ev Event, msgs []string) ([]string, []string) {
	f, err := os.Open(path)
	if err != nil {
		return nil, append(msgs, fmt.Sprintf("%s hooks: CLAUDE_ENV_FILE: %v", ev, err))
	}
	defer f.Close()
	getenv := os.Getenv
	if r.Env != nil {
		getenv = func(n string) string {
			for i := len(r.Env) - 1; i >= 0; i-- {
				if k, v, ok := strings.Cut(r.Env[i], "="); ok && k == n {
					return v
				}
			}
			return ""
		}
	}
	vars, warnings, err := ParseEnvFile(f, getenv)
	for _, w := range warnings {
		msgs = append(msgs, fmt.Sprintf("%s hooks: CLAUDE_ENV_FILE %s", ev, w))
	}
	if err != nil {
		msgs = append(msgs, fmt.Sprintf("%s hooks: CLAUDE_ENV_FILE: %v", ev, err))
	}
	return vars, msgs
}

// runOne runs one hook command with stdin and its timeout; extra are
// variables set for it alone (CLAUDE_ENV_FILE).
func (r *Runner) runOne(ctx context.Context, h *Hook, stdin []byte, extra []string) Run {
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	notStarted := func(err error) Run {
		return Run{Hook: h, ExitCode: -1, NotStarted: true, Err: err}
	}
	argv, err := r.argv(h.Command)
	if err != nil {
		return notStarted(fmt.Errorf("cannot start: %w", err))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.ProjectDir
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append(append([]string(nil), env...), "CLAUDE_PROJECT_DIR="+r.ProjectDir, "AIDEX_PROJECT_DIR="+r.ProjectDir), extra...)
	if h.PluginRoot != "" {
		cmd.Env = append(cmd.Env, "CLAUDE_PLUGIN_ROOT="+h.PluginRoot)
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	g := proc.NewGroup(cmd) // a process group, a Job Object on Windows
	defer g.Close()
	confined := false
	if r.Sandbox != nil && !h.Unsandboxed {
		ok, err := r.Sandbox.Confine(cmd)
		if err != nil {
			return notStarted(fmt.Errorf("sandbox: %w (set \"sandbox\": false on the hook to run it outside the sandbox)", err))
		}
		confined = ok
	}
	end := func() []string { return nil }
	if confined {
		end = r.Sandbox.Begin()
	}
	start := time.Now()
	if err := startIn(cmd, g); err != nil {
		return notStarted(fmt.Errorf("cannot start %s: %w", argv[0], err))
	}
	err = waitOrKill(ctx, cmd, g)
	run := Run{Hook: h, ExitCode: cmd.ProcessState.ExitCode(), Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	run.Reverted = end()
	if cmd.ProcessState == nil {
		run.ExitCode = -1
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		run.ExitCode, run.Err = -1, fmt.Errorf("timed out after %s (set \"timeout\" in seconds to allow longer)", h.Timeout)
	case err != nil && !errors.As(err, &exitErr):
		run.ExitCode, run.Err = -1, err
	}
	if confined && run.ExitCode != 0 {
		run.Sandbox = r.Sandbox.Explain(run.Stdout + "\n" + run.Stderr)
	}
	return run
}

// sandboxNote is what a failed hook's message adds when the sandbox
// stopped it or reverted what it left: one line, with the way out.
func sandboxNote(run Run) string {
	var parts []string
	if run.Sandbox != "" {
		parts = append(parts, run.Sandbox)
	}
	if len(run.Reverted) > 0 {
		parts = append(parts, "sandbox: "+strings.Join(run.Reverted, "; ")+"; a sandboxed hook cannot leave these (they would run later outside the sandbox)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ") + " (hooks run in the sandbox; \"sandbox\": false on the hook runs it outside)"
}

func (r *Runner) log(run Run) {
	if r.Log == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	fmt.Fprintf(r.Log, "aidex: hook %s %q: exit %d, %d ms\n", run.Hook.Event, run.Hook.Command, run.ExitCode, run.Duration.Milliseconds())
}

// output is the JSON a hook may print on stdout (Claude Code's fields).
type output struct {
	Continue       *bool           `json:"continue"`
	StopReason     string          `json:"stopReason"`
	SystemMessage  string          `json:"systemMessage"`
	Decision       string          `json:"decision"` // "block"; PreToolUse also "approve" (older form)
	Reason         string          `json:"reason"`
	HookSpecific   *specificOutput `json:"hookSpecificOutput"`
	SuppressOutput bool            `json:"suppressOutput"`
}

type specificOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	// Decision is PermissionRequest's answer.
	Decision *struct {
		Behavior     string          `json:"behavior"`
		Message      string          `json:"message"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
	} `json:"decision"`
}

// blocking reports whether exit code 2 blocks at ev (else its stderr is
// only shown to the user).
func blocking(ev Event) bool {
	switch ev {
	case PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop:
		return true
	}
	return false
}

// guards reports the events whose hooks guard a call (a tool call, a
// permission, a prompt): a hook of them that cannot start blocks it.
func guards(ev Event) bool {
	return ev == PreToolUse || ev == PermissionRequest || ev == UserPromptSubmit
}

// argv returns the argv running command in the Runner's shell.
func (r *Runner) argv(command string) ([]string, error) {
	sh := r.Shell
	if sh.Path == "" {
		var err error
		if sh, err = cmdshell.Find(cmdshell.Env{}); err != nil {
			return nil, err
		}
	}
	return sh.Argv(command), nil
}

// contextEvent reports whether plain stdout of a successful hook of ev
// becomes context for the model.
func contextEvent(ev Event) bool { return ev == UserPromptSubmit || ev == SessionStart || ev == Setup }

// fold adds one run's answer to out.
func fold(out *Outcome, ev Event, run Run) {
	name := run.Hook.Command
	note := sandboxNote(run)
	if note != "" && run.ExitCode == 0 && run.Err == nil {
		// It succeeded, but the audit undid part of what it did.
		out.Messages = append(out.Messages, fmt.Sprintf("%s hook %q%s", ev, name, note))
	}
	switch {
	case run.Err != nil && run.NotStarted && guards(ev):
		block(out, ev, fmt.Sprintf("the %s hook %q could not start (%v), so what it guards is blocked (fail closed); fix the hook or remove it from the settings", ev, name, run.Err), "")
	case run.Err != nil:
		out.Messages = append(out.Messages, fmt.Sprintf("%s hook %q failed: %v%s", ev, name, run.Err, note))
	case run.ExitCode == 2 && blocking(ev):
		block(out, ev, strings.TrimSpace(run.Stderr), fmt.Sprintf("blocked by the %s hook %q", ev, name))
	case run.ExitCode == 2:
		out.Messages = append(out.Messages, fmt.Sprintf("%s hook %q: %s", ev, name, strings.TrimSpace(run.Stderr)))
	case run.ExitCode != 0:
		msg := fmt.Sprintf("%s hook %q failed with exit code %d", ev, name, run.ExitCode)
		if s := strings.TrimSpace(run.Stderr); s != "" {
			msg += ": " + s
		}
		out.Messages = append(out.Messages, msg+note)
	default:
		foldStdout(out, ev, run)
	}
}

func block(out *Outcome, ev Event, reason, fallback string) {
	if reason == "" {
		reason = fallback
	}
	out.Block = true
	out.Reason = joinLine(out.Reason, reason)
	if ev == PreToolUse || ev == PermissionRequest {
		out.Decision, out.DecisionReason = DecisionDeny, joinLine(out.DecisionReason, reason)
	}
}

// foldStdout reads a successful hook's stdout: JSON when it is an object,
// else plain text (context for the model at UserPromptSubmit and
// SessionStart).
func foldStdout(out *Outcome, ev Event, run Run) {
	text := strings.TrimSpace(run.Stdout)
	var o output
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &o) != nil {
		if text != "" && contextEvent(ev) {
			out.Context = append(out.Context, text)
		}
		return
	}
	if o.Continue != nil && !*o.Continue {
		out.Stop = true
		out.StopReason = joinLine(out.StopReason, o.StopReason)
	}
	if o.SystemMessage != "" {
		out.Messages = append(out.Messages, o.SystemMessage)
	}
	switch o.Decision {
	case "block":
		block(out, ev, o.Reason, fmt.Sprintf("blocked by the %s hook %q", ev, run.Hook.Command))
	case "approve":
		decide(out, DecisionAllow, o.Reason)
	}
	if s := o.HookSpecific; s != nil {
		foldSpecific(out, ev, s)
	}
}

func foldSpecific(out *Outcome, ev Event, s *specificOutput) {
	if s.AdditionalContext != "" {
		out.Context = append(out.Context, s.AdditionalContext)
	}
	if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" {
		out.UpdatedInput = s.UpdatedInput
	}
	if d := Decision(s.PermissionDecision); d == DecisionAllow || d == DecisionDeny || d == DecisionAsk {
		decide(out, d, s.PermissionDecisionReason)
	}
	if d := s.Decision; d != nil && ev == PermissionRequest {
		if len(d.UpdatedInput) > 0 && string(d.UpdatedInput) != "null" {
			out.UpdatedInput = d.UpdatedInput
		}
		if b := Decision(d.Behavior); b == DecisionAllow || b == DecisionDeny {
			decide(out, b, d.Message)
		}
	}
}

// decide folds a permission decision: deny beats ask beats allow.
func decide(out *Outcome, d Decision, reason string) {
	rank := map[Decision]int{"": 0, DecisionAllow: 1, DecisionAsk: 2, DecisionDeny: 3}
	if rank[d] > rank[out.Decision] {
		out.Decision, out.DecisionReason = d, reason
	} else if d == out.Decision {
		out.DecisionReason = joinLine(out.DecisionReason, reason)
	}
}

func joinLine(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// startIn starts cmd and puts it in its group g (on Windows the command
// starts suspended and runs once it is in its Job Object).
func startIn(cmd *exec.Cmd, g *proc.Group) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	if err := g.Attach(cmd.Process); err != nil {
		_ = cmd.Wait()
		return err
	}
	return nil
}

// waitOrKill waits for cmd; when ctx ends first (the hook's timeout, or
// the run stopped) it kills the hook's whole group, children included,
// and then waits.
func waitOrKill(ctx context.Context, cmd *exec.Cmd, g *proc.Group) error {
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		return err
	case <-ctx.Done():
		_ = g.Signal(true)
		return <-waited
	}
}

package app

import (
	"encoding/json"
	"strings"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/ralph"
)

// ralphExecutor runs the tasks of a Ralph worker (a run with several
// workers, or `aidex ralph worker`) under the worker's own configuration:
// its permission mode, sandbox, allowed directories and turn limits come
// from the runtime the executor was built from, never from a task
// message. It implements dist.Executor.
type ralphExecutor struct {
	backend *ralphBackend
}

// RalphExecutor returns the executor of the service's current runtime.
func (s *Service) RalphExecutor() *ralphExecutor {
	return &ralphExecutor{backend: s.RalphBackend(false)}
}

// newRalphExecutor returns an executor over a Ralph backend (tests build
// one over their own backend).
func newRalphExecutor(b *ralphBackend) *ralphExecutor { return &ralphExecutor{backend: b} }

// Backend returns a backend whose runtime works in dir (a task's git
// worktree): the same configuration, provider and model, confined to dir,
// with a sandbox of its own whose writable set holds dir and its git
// directories.
func (e *ralphExecutor) Backend(dir string) ralph.Backend {
	rt := *e.backend.Runtime()
	rt.Workspace = dir
	rt.sbx = &sandboxSlot{}
	b := *e.backend
	b.Runtime = staticRuntime(&rt)
	return &b
}

// VerifyAllowed reports whether a task's verify command may run on this
// worker: it is the worker's own verify_command, or the worker's allow
// rules (config or --allow) allow every command of the line. Commands
// only the built-in read-only knowledge would allow do not count: the
// verify command's output goes back to the coordinator.
func (e *ralphExecutor) VerifyAllowed(command string) bool {
	command = strings.TrimSpace(command)
	rt := e.backend.runtime(false)
	if command == "" || command == strings.TrimSpace(rt.Config.VerifyCommand) {
		return true
	}
	cfg := *rt.Config
	cfg.PermissionMode = string(permission.ModeAsk)
	rt.Config = &cfg
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return false
	}
	defer closeTools()
	ws, err := rt.NewWorkspace(false)
	if err != nil {
		return false
	}
	policy, err := rt.engineRoom().policy(ws, false, reg)
	if err != nil {
		return false
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	p, err := reg.Prepare("run_command", args)
	if err != nil {
		return false
	}
	v := policy.Check(permissionRequest(p))
	if v.Decision != permission.Allow {
		return false
	}
	byRule := false
	for _, c := range v.Commands {
		switch {
		case c.Decision != permission.Allow:
			return false
		case c.Source != permission.SourceBuiltin && c.Source != permission.SourceSession:
			byRule = true
		case c.Rule != permission.RuleShellAnalysis:
			return false
		}
	}
	return byRule
}

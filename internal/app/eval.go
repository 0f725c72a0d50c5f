package app

import (
	"context"
	"os/exec"
	"time"

	"github.com/zelvior/aidex/internal/sandbox"
)

// in returns a copy of the runtime working in dir (an eval attempt's
// workspace, a throw-away clone): the same configuration, confined to
// dir, with a sandbox of its own whose writable set holds dir.
func (rt toolRoom) in(dir string) *Runtime {
	c := *rt.runtimeView
	c.Workspace = dir
	c.sbx = &sandboxSlot{}
	return &c
}

// VerifyIn runs command (a POSIX shell line) in dir with run_command's
// machinery in dir's sandbox, as Ralph's verify_command runs (see
// [ralphBackend.Verify]): an eval task's setup script and verifier, the
// test command `aidex eval mine` checks commits with. timeout is clamped
// to 1 s..10 min.
func (rt *Runtime) VerifyIn(ctx context.Context, dir, command string, timeout time.Duration) (ok bool, exitCode int, output string) {
	b := &ralphBackend{Runtime: staticRuntime(rt.toolRoom().in(dir))}
	r := b.Verify(ctx, command, timeout)
	out := r.Output
	if r.Error != "" {
		out += "\n" + r.Error
	}
	return r.OK, r.ExitCode, out
}

// ConfineIn puts cmd (another agent's headless command, Dir set) in the
// OS sandbox of workspace dir with the network on (the agent calls its
// own API). It returns false when commands run unsandboxed here (the
// sandbox is off, or the machine cannot sandbox and it was only the
// default). Errors: as [Runtime.Sandbox]'s; the sandbox cannot confine
// the command.
func (rt *Runtime) ConfineIn(cmd *exec.Cmd, dir string) (bool, error) {
	sbx, err := rt.toolRoom().in(dir).Sandbox()
	if err != nil || sbx == nil {
		return false, err
	}
	return true, sbx.Confine(cmd, sandbox.Options{Network: true})
}

// Package sandbox runs commands under the operating system's isolation:
// on Linux a helper process in new user, mount, PID, IPC and network
// namespaces (the init of the command's PID namespace) with the
// filesystem read-only except a writable set and private toolchain
// caches, then Landlock and, with the network off, a socket filter.
//
// The helper itself is internal/sandbox/helper (the aidex-sandbox binary);
// docs/sandbox.md describes the layers, what is writable and masked, and
// the designs for macOS and Windows.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
)

// Mode is how much a sandboxed command may write.
type Mode string

// The modes, named as Codex CLI names them; "danger-full-access" is
// accepted by ParseMode as Off.
const (
	Off            Mode = "off"
	ReadOnly       Mode = "read-only"
	WorkspaceWrite Mode = "workspace-write"
)

// ParseMode reads a mode from config or a flag. Errors: a message naming
// the value and the allowed ones.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Off, ReadOnly, WorkspaceWrite:
		return Mode(s), nil
	case "danger-full-access":
		return Off, nil
	}
	return "", fmt.Errorf("sandbox mode %q: use read-only, workspace-write or off (danger-full-access)", s)
}

// Policy is what a sandboxed command may touch. Paths are absolute.
type Policy struct {
	Mode Mode
	// Workspace is writable in WorkspaceWrite mode, except its git dir's
	// configuration, hooks and pointers (gitdir.Entries) and its project
	// configuration (protect.Project), which commands can neither change
	// nor create.
	Workspace string
	// Writable are more folders writable in WorkspaceWrite mode (--add-dir
	// folders, the config's writable list, linked worktrees' git dirs).
	// The system temp dir of DefaultWritable is added by the caller.
	Writable []string
	// Caches are the toolchain caches commands get private copies of in
	// WorkspaceWrite mode (DefaultCaches): the user's own caches are never
	// writable to them.
	Caches []Cache
	// Network lets commands reach the network (default false: only a
	// loopback of their own).
	Network bool
	// Home is the user's home; its credential paths (~/.ssh, cloud
	// credential files) are masked with empty mounts.
	Home string
	// Hidden are more paths masked the same way (aidex's own config and
	// key store).
	Hidden []string
}

// DefaultWritable returns the folders commands need to write besides the
// workspace: the system temp dir ($TMPDIR, else /tmp). Toolchain caches
// are not among them: commands get private ones (DefaultCaches). home is
// unused and kept for callers.
func DefaultWritable(home string, getenv func(string) string) []string {
	return defaultWritable(home, getenv)
}

// Caps is what this machine's kernel lets the sandbox do.
type Caps struct {
	// LandlockABI is the Landlock ABI version (0: none).
	LandlockABI int
	// Namespaces reports that unprivileged user, mount and network
	// namespaces work.
	Namespaces bool
	// Helper is the path of the helper program (the aidex-sandbox binary
	// beside aidex, else aidex itself).
	Helper string
	// HelperArg is the hidden first argument the helper needs ("" for the
	// aidex-sandbox binary, helper.Arg when Helper is aidex itself).
	HelperArg string
	// Method names how commands are isolated here: "namespaces+landlock",
	// "namespaces", "landlock", "sandbox-exec" (macOS) or "" (none).
	Method string
	// Limits are what this method cannot enforce, one short sentence each
	// (empty when every layer works); aidex states them at start.
	Limits []string
	// Reason says why commands cannot be sandboxed ("" when they can).
	Reason string
	// unshares: the helper binary creates its namespaces itself (its C
	// part, built with cgo on Linux), so aidex starts it without any.
	unshares bool
}

// Available reports whether commands can be sandboxed at all.
func (c Caps) Available() bool { return c.Reason == "" }

// Start says in one line how a confined command starts on this machine
// ("" without namespaces): whether the helper creates its namespaces
// itself and commands after the first are handed to spare helpers (a
// helper built with cgo on Linux), or aidex creates them for each one.
func (c Caps) Start() string {
	switch {
	case !c.Namespaces:
		return ""
	case c.unshares:
		return "the helper creates the namespaces; each command after the first goes to a helper set up ahead of it"
	default:
		return "aidex creates the namespaces for each command (the helper has no C part: built without cgo, or aidex itself); no helpers set up ahead"
	}
}

// Probe finds what the sandbox can do here; it is cheap (no process is
// started) and has no side effects.
func Probe() Caps {
	return probe()
}

// ErrUnavailable is wrapped by New when the policy's mode needs what the
// machine lacks.
var ErrUnavailable = errors.New("sandbox unavailable")

// Sandbox confines commands by one policy. It is safe for concurrent use.
type Sandbox struct {
	policy Policy
	caps   Caps
	fixed  fixedPlan
	// audit checks what a command left behind (nil: nothing writable).
	audit *auditor
	// spawnLimit overrides spawnFirst's limit (tests and benchmarks;
	// -1: never use the first stage or the C part; 0: the default).
	spawnLimit int64
	// spares are helpers started ahead of commands (nil: none; Linux
	// with the helper's C part only).
	spares *spares
}

// New returns a sandbox for p on a machine with caps c. Errors:
// ErrUnavailable (wrapped, with caps' reason) when p.Mode is not Off and
// c is not Available; a relative Workspace, Home, Writable or Hidden path.
// New creates the missing writable folders and private caches, an empty
// .aidex in the workspace and a missing hooks/ or info/ inside its git
// dirs (so that they can be held read-only), finds the repositories and
// watches the workspace's folders for new ones (the check after each
// command, Begin), and works out once which credential paths exist to
// mask. It creates nothing in the user's home but what the policy names.
func New(p Policy, c Caps) (*Sandbox, error) {
	if p.Mode != Off && !c.Available() {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, c.Reason)
	}
	s := &Sandbox{policy: p, caps: c}
	if p.Mode == Off {
		return s, nil
	}
	fixed, err := newFixedPlan(p)
	if err != nil {
		return nil, err
	}
	s.fixed = fixed
	if c.Namespaces && c.unshares {
		s.spares = newSpares(s, c.Helper)
	}
	if p.Mode == WorkspaceWrite {
		s.audit = newAuditor(fixed, !c.Namespaces)
	}
	return s, nil
}

// Policy returns the sandbox's policy.
func (s *Sandbox) Policy() Policy { return s.policy }

// Options are one command's exceptions to the policy.
type Options struct {
	// Network turns the network on for this command (an approval).
	Network bool
}

// Confine rewrites cmd (Path, Args, SysProcAttr, ExtraFiles, and Env to
// point the toolchains at the private caches) so that it runs in the
// sandbox; it must be called after the caller set Dir, Env
// and SysProcAttr.Setpgid, before Start. In Off mode it changes nothing.
// Call it once per command. Errors: no helper, or the platform cannot
// confine commands.
func (s *Sandbox) Confine(cmd *exec.Cmd, o Options) error {
	if s.policy.Mode == Off || cmd.Err != nil {
		return nil
	}
	if s.policy.Mode == WorkspaceWrite {
		if env := s.cacheEnv(s.policy.Network || o.Network); len(env) > 0 {
			if cmd.Env == nil {
				cmd.Env = os.Environ()
			}
			cmd.Env = append(slices.Clip(cmd.Env), env...)
		}
	}
	return s.confine(cmd, s.spec(o))
}

// Explain reads a sandboxed command's output and says in one line when it
// failed because of the sandbox (a write outside the writable set, a
// refused connection) and how to allow it; "" when it did not.
func (s *Sandbox) Explain(output string) string { return s.explain(output) }

// Check is one attempt of the self-test's escape suite.
type Check struct {
	// Class is the class of escape the attempt tries (one of Classes).
	Class string
	// Name says what the attempt did ("create .git/hooks/pre-commit").
	Name string
	// OK reports that the sandbox held (for ClassControls: that what must
	// work worked); true when the attempt could not run (Unavailable).
	OK bool
	// Note is the first line the command or the check after it printed.
	Note string
	// Unavailable says why the attempt cannot run on this machine ("" it
	// ran).
	Unavailable string
}

// SelfTest runs the escape suite: for every class of escape (Classes)
// one or more attempts, each a small command run in the real sandbox, as
// aidex runs commands (with the check after the command), over a scratch
// workspace (a git repository), home and temp folder built like the
// user's from p (its hidden paths and the user's toolchain caches), with
// the network off. It reports one Check per attempt; Summarize folds them
// per class. It needs the helper; it writes only under a temp dir it
// removes, except a marker file in a cache of the user's that the sandbox
// failed to hold, which it removes at once. It takes a few seconds at
// most (a probe waits up to 3 s for a socket).
func SelfTest(ctx context.Context, p Policy, c Caps) []Check {
	return selfTest(ctx, p, c)
}

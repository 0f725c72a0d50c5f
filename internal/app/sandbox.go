package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/gitdir"
	"github.com/zelvior/aidex/internal/sandbox"
	"github.com/zelvior/aidex/internal/tools"
)

// sandboxSlot is a runtime's OS sandbox, shared by the copies of the
// runtime that SetMode makes. It is decided on first use (so commands
// that run nothing never probe the machine): the mode commands run in,
// the machine's caps, the start notice, or the error of a mode the user
// asked for and the machine lacks. The sandbox itself is built when the
// first command needs it (sandbox.New prepares the workspace).
type sandboxSlot struct {
	once   sync.Once
	mode   sandbox.Mode
	caps   sandbox.Caps
	notice string
	err    error

	build    sync.Once
	sbx      *sandbox.Sandbox
	buildErr error
}

// probeOnce wraps a probe so that the machine is probed once per service,
// however often the runtime is reloaded (nil: sandbox.Probe).
func probeOnce(probe func() sandbox.Caps) func() sandbox.Caps {
	if probe == nil {
		probe = sandbox.Probe
	}
	return sync.OnceValue(probe)
}

// SandboxInfo describes a runtime's sandbox for /sandbox and start-up
// reports: the mode commands run in (Off when the machine cannot sandbox
// and the mode was only the default), whether that mode was asked for
// explicitly (a config file, AIDEX_SANDBOX_MODE or --sandbox), the
// machine's capabilities, the network switch, and Notice, the one-line
// start warning: commands are not sandboxed though the default asked for
// it, or they are with one layer only and its limits ("" otherwise).
type SandboxInfo struct {
	Mode     sandbox.Mode
	Explicit bool
	Caps     sandbox.Caps
	Network  bool
	Notice   string
}

// Method names how commands are isolated: "namespaces + Landlock ABI N",
// "Landlock ABI N", "namespaces", or "none".
func (i SandboxInfo) Method() string {
	if i.Mode == sandbox.Off {
		return "none (commands run unsandboxed)"
	}
	if i.Caps.Method == "sandbox-exec" {
		return "sandbox-exec"
	}
	var parts []string
	if i.Caps.Namespaces {
		parts = append(parts, "user, mount, PID, IPC and network namespaces")
	}
	if i.Caps.LandlockABI > 0 {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", i.Caps.LandlockABI))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " + ")
}

// Sandbox returns the runtime's sandbox, built on first call (nil when
// commands run unsandboxed: mode off, or the default mode on a machine
// that cannot sandbox, which Notice of SandboxInfo reports). Errors: the
// mode was set explicitly and the machine cannot sandbox (fail closed;
// the error names `--sandbox off`); the sandbox cannot be built.
func (rt *Runtime) Sandbox() (*sandbox.Sandbox, error) {
	s := rt.toolRoom().sandboxSlot()
	if s.err != nil || s.mode == sandbox.Off {
		return nil, s.err
	}
	s.build.Do(func() {
		s.sbx, s.buildErr = sandbox.New(rt.SandboxPolicy(s.mode), s.caps)
		if s.buildErr != nil {
			s.buildErr = fmt.Errorf("sandbox: %w; run with --sandbox off to run commands without it", s.buildErr)
		}
	})
	return s.sbx, s.buildErr
}

// sandboxOn reports whether the runtime's commands run in the sandbox,
// without building it. Errors: as Sandbox's fail-closed error.
func (rt toolRoom) sandboxOn() (bool, error) {
	s := rt.sandboxSlot()
	return s.err == nil && s.mode != sandbox.Off, s.err
}

// SandboxInfo returns what /sandbox and `aidex sandbox check` show of the
// runtime's sandbox. It probes the machine (once per service).
func (rt *Runtime) SandboxInfo() SandboxInfo {
	s := rt.toolRoom().sandboxSlot()
	info := SandboxInfo{Mode: sandbox.Off, Explicit: rt.toolRoom().sandboxExplicit(), Caps: s.caps, Notice: s.notice}
	if s.err == nil && s.mode != sandbox.Off {
		info.Mode, info.Network = s.mode, rt.Config.Sandbox.Network
	}
	return info
}

// SandboxPolicy returns the policy the runtime's commands run under in
// mode m (writable set, private toolchain caches in aidex's cache folder,
// hidden paths, network), for the sandbox and its self-test.
func (rt *Runtime) SandboxPolicy(m sandbox.Mode) sandbox.Policy {
	c := rt.Config
	getenv := rt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var writable []string
	add := func(dirs ...string) {
		for _, d := range dirs {
			if d != "" && filepath.IsAbs(d) {
				writable = appendNew(writable, filepath.Clean(d))
			}
		}
	}
	add(c.Sandbox.Writable...)
	add(c.AllowedDirs...)
	add(sandbox.DefaultWritable(c.Paths.Home, getenv)...)
	add(linkedGitDirs(rt.Workspace)...)
	// Keys and config, sessions, and the state a command must not forge:
	// trusted folders, approved rules, checkpoints.
	hidden := append([]string{c.Paths.ConfigDir}, rt.Plugins().hiddenData()...)
	hidden = append(hidden, hiddenState(c.Paths.StateDir, rt.Workspace)...)
	if c.Paths.LegacyFile != "" && !strings.HasPrefix(c.Paths.LegacyFile, c.Paths.ConfigDir+string(filepath.Separator)) {
		hidden = append(hidden, c.Paths.LegacyFile)
	}
	var caches []sandbox.Cache
	if c.Paths.CacheDir != "" && rt.Workspace != "" {
		caches = sandbox.DefaultCaches(sandbox.CacheRoot(c.Paths.CacheDir, rt.Workspace), c.Paths.Home, getenv)
	}
	return sandbox.Policy{Mode: m, Workspace: rt.Workspace, Writable: writable, Caches: caches, Network: c.Sandbox.Network,
		Home: c.Paths.Home, Hidden: hidden}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// sandboxExplicit reports whether the sandbox mode was chosen by the user
// (a config file, the environment, --sandbox or /sandbox) rather than
// being the built-in default.
func (rt toolRoom) sandboxExplicit() bool {
	src := rt.Config.Sources["sandbox.mode"]
	return src != "" && src != config.SourceDefault
}

func (rt toolRoom) sandboxSlot() *sandboxSlot {
	s := rt.sbx
	if s == nil { // a Runtime built by hand (tests): no sandbox
		return &sandboxSlot{mode: sandbox.Off}
	}
	s.once.Do(func() { rt.decideSandbox(s) })
	return s
}

// decideSandbox decides the runtime's sandbox: none in mode off; with
// the machine unable to sandbox, a start notice when the mode was the
// default, an error (fail closed) when the user asked for it; else the
// mode (and a notice of the limits of a one-layer sandbox).
func (rt toolRoom) decideSandbox(s *sandboxSlot) {
	s.mode = sandbox.Off
	mode, err := sandbox.ParseMode(rt.Config.Sandbox.Mode)
	if err != nil {
		s.err = fmt.Errorf("[sandbox] %w", err)
		return
	}
	if mode == sandbox.Off {
		return
	}
	probe := rt.probe
	if probe == nil {
		probe = sandbox.Probe
	}
	s.caps = probe()
	if !s.caps.Available() {
		if rt.sandboxExplicit() {
			s.err = fmt.Errorf("sandbox mode %s was asked for (%s) but commands cannot be sandboxed on this machine (%w: %s); "+
				"run with --sandbox off (or set mode = \"off\" in [sandbox]) to run commands without it",
				mode, sandboxSource(rt.Config.Sources["sandbox.mode"]), sandbox.ErrUnavailable, s.caps.Reason)
			return
		}
		s.notice = fmt.Sprintf("commands are not sandboxed: %s (set mode = \"off\" in [sandbox] to silence this)", s.caps.Reason)
		return
	}
	s.mode = mode
	if len(s.caps.Limits) > 0 {
		s.notice = fmt.Sprintf("commands are sandboxed with %s only, so: %s",
			SandboxInfo{Mode: mode, Caps: s.caps}.Method(), strings.Join(s.caps.Limits, "; "))
	}
}

func sandboxSource(src string) string {
	switch src {
	case config.SourceFlag:
		return "--sandbox"
	case config.SourceEnv:
		return "AIDEX_SANDBOX_MODE"
	}
	return src
}

// linkedGitDirs returns the git folders a linked worktree's commands must
// write (its own git dir, and the objects, refs and logs of the main
// repository), so `git commit` works in the sandbox; for a submodule's
// work tree, its git dir. The main repository's hooks and config stay
// read-only. nil when ws is neither, or when its .git pointer file does
// not point back (gitdir.Find: the target is not its repository).
func linkedGitDirs(ws string) []string {
	r := gitdir.Find(ws)
	if r.Pointer == "" {
		return nil
	}
	out := []string{r.GitDir}
	if r.Linked {
		for _, sub := range []string{"objects", "refs", "logs"} {
			out = append(out, filepath.Join(r.CommonDir, sub))
		}
	}
	return out
}

// lazyConfiner is the tool core's Confiner over a runtime's sandbox,
// which it builds when the first command runs.
type lazyConfiner struct{ rt *Runtime }

// Confine runs cmd in the runtime's sandbox.
func (c lazyConfiner) Confine(cmd *exec.Cmd, network bool) error {
	s, err := c.rt.Sandbox()
	if err != nil {
		return err
	}
	if s == nil {
		return errors.New("internal error: commands are sandboxed but there is no sandbox")
	}
	return confiner{s}.Confine(cmd, network)
}

// Explain says when output shows that the sandbox stopped a command.
func (c lazyConfiner) Explain(output string) string {
	if s, err := c.rt.Sandbox(); err == nil && s != nil {
		return s.Explain(output)
	}
	return ""
}

// Begin starts the audit of a command in the runtime's sandbox
// (tools.Auditor).
func (c lazyConfiner) Begin() func() []string {
	if s, err := c.rt.Sandbox(); err == nil && s != nil {
		return confiner{s}.Begin()
	}
	return func() []string { return nil }
}

// confiner adapts a sandbox to the tool core's Confiner.
type confiner struct{ s *sandbox.Sandbox }

// Confine runs cmd in the sandbox; network turns the network on for it.
func (c confiner) Confine(cmd *exec.Cmd, network bool) error {
	return c.s.Confine(cmd, sandbox.Options{Network: network})
}

// Explain says when output shows that the sandbox stopped a command.
func (c confiner) Explain(output string) string { return c.s.Explain(output) }

// Begin starts the audit of a command in the sandbox (tools.Auditor).
func (c confiner) Begin() func() []string { return c.s.Begin().End }

var (
	_ tools.Confiner = confiner{}
	_ tools.Confiner = lazyConfiner{}
	_ tools.Auditor  = confiner{}
	_ tools.Auditor  = lazyConfiner{}
)

// SetSandbox switches the OS sandbox mode of the sessions' next runs
// (workspace-write, read-only, off; danger-full-access is off). The mode
// is kept as a command-line flag, so it outlasts reloads. Errors: an
// unknown mode; a mode this machine cannot provide (the current runtime
// stays; the error names --sandbox off); those of [Load].
func (s *Service) SetSandbox(ctx context.Context, mode string) (*Runtime, error) {
	m, err := sandbox.ParseMode(mode)
	if err != nil {
		return nil, err
	}
	return s.reload(ctx, map[string]string{"sandbox.mode": string(m)}, func(rt *Runtime) error {
		_, err := rt.toolRoom().sandboxOn()
		return err
	})
}

// hiddenState is what the sandbox hides of the state folder: all of it,
// or, for a workspace inside it (a Ralph worker's git worktree under
// worktrees/), every entry but the one that holds the workspace.
func hiddenState(state, workspace string) []string {
	rel, err := filepath.Rel(state, workspace)
	if state == "" || err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return []string{state}
	}
	top, _, _ := strings.Cut(rel, string(filepath.Separator))
	entries, err := os.ReadDir(state)
	if err != nil {
		return []string{state}
	}
	var out []string
	for _, e := range entries {
		if e.Name() != top {
			out = append(out, filepath.Join(state, e.Name()))
		}
	}
	return out
}

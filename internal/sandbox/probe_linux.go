//go:build linux

package sandbox

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/zelvior/aidex/internal/companion"
	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// helperName is the file name of the helper binary.
const helperName = "aidex-sandbox"

func probe() Caps {
	var c Caps
	c.LandlockABI = helper.ABIVersion()
	c.Namespaces = namespacesWork(readSysctl)
	c.Helper, c.HelperArg = findHelper(os.Executable, exec.LookPath)
	c.unshares = c.HelperArg == "" && helperUnshares(c.Helper)
	describe(&c)
	return c
}

// describe fills Method, Limits and Reason from the layers found.
func describe(c *Caps) {
	switch {
	case c.Helper == "":
		c.Reason = errHelperMissing.Error()
	case c.Namespaces && c.LandlockABI > 0:
		c.Method = "namespaces+landlock"
	case c.Namespaces:
		c.Method = "namespaces"
		c.Limits = []string{
			"no Landlock: sandboxed commands can signal and ptrace your other processes and read their environment",
		}
	case c.LandlockABI > 0:
		c.Method = "landlock"
		c.Limits = []string{
			"no user namespaces: .git/hooks, .git/config and .aidex stay writable inside the workspace",
			"credential files (~/.ssh, cloud keys) are readable when they lie inside a writable folder",
		}
		if c.LandlockABI < 4 {
			c.Limits = append(c.Limits, "Landlock ABI "+strconv.Itoa(c.LandlockABI)+" cannot filter the network: it stays on")
		} else {
			c.Limits = append(c.Limits, "network off blocks TCP only (UDP and Unix sockets stay reachable) and also local test servers")
		}
	default:
		c.Reason = "neither unprivileged user namespaces nor Landlock are available on this kernel " +
			"(Landlock needs Linux 5.13 with lsm=landlock; namespaces need user.max_user_namespaces > 0)"
	}
}

// namespacesWork reports, without starting a process, whether this
// process may create user, mount and network namespaces and use
// mount_setattr (Linux 5.12).
func namespacesWork(sysctl func(string) string) bool {
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return false
	}
	if n := sysctl("user/max_user_namespaces"); n == "0" {
		return false
	}
	if os.Geteuid() != 0 {
		if sysctl("kernel/unprivileged_userns_clone") == "0" ||
			sysctl("kernel/apparmor_restrict_unprivileged_userns") == "1" {
			return false
		}
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 12)
}

func readSysctl(name string) string {
	b, err := os.ReadFile(filepath.Join("/proc/sys", name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// kernelAtLeast compares a release such as "6.18.2-arch1" with maj.min.
func kernelAtLeast(release string, maj, min int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	a, err1 := strconv.Atoi(parts[0])
	minor := parts[1]
	if i := strings.IndexFunc(minor, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = minor[:i]
	}
	b, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return false
	}
	return a > maj || a == maj && b >= min
}

// findHelper finds aidex-sandbox beside the running executable, then on
// PATH; else the running executable itself, which must then be aidex
// (it runs the helper when its first argument is helper.Arg).
func findHelper(self func() (string, error), lookPath func(string) (string, error)) (path, arg string) {
	exe, err := self()
	if err != nil {
		exe = ""
	}
	if p, _, ok := companion.Find(exe, helperName, lookPath); ok {
		return p, ""
	}
	if exe == "" {
		return "", ""
	}
	return exe, helper.Arg
}

// helperUnshares reports whether the helper binary at path has the C
// part that creates the namespaces itself (cmd/aidex-sandbox built with
// cgo): its ELF file has the section unshareSection. It reads only the
// file's headers.
func helperUnshares(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Section(unshareSection) != nil
}

// unshareSection is the ELF section that marks a helper with the C part
// (cmd/aidex-sandbox/unshare_linux.go).
const unshareSection = ".aidex.unshare"

// confine makes cmd start the helper with sp in new namespaces: aidex
// starts the helper plainly and the helper's C part (helperUnshares)
// creates them, or without it aidex creates them when it starts the
// helper or, when aidex's memory makes that fork costly, the helper's
// first stage does (spawnFirst).
func (s *Sandbox) confine(cmd *exec.Cmd, sp helper.Spec) error {
	if s.caps.Helper == "" {
		return errHelperMissing
	}
	sp.Path = cmd.Path
	sp.Args = cmd.Args
	if len(sp.Args) == 0 {
		sp.Args = []string{cmd.Path}
	}
	args := []string{s.caps.Helper}
	if s.caps.HelperArg != "" {
		args = append(args, s.caps.HelperArg)
	}
	cmd.Env, sp.GoMaxProcs = helperEnv(cmd.Env)
	cmd.Path = s.caps.Helper
	cmd.Args = append(slices.Clip(args), sp.Encode()...)
	if !sp.Namespaces {
		return nil
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	if !a.Setsid && s.caps.HelperArg == "" && s.spawnFirst() {
		// aidex starts the helper as any process (vfork: nothing of
		// aidex's memory is copied) and something else creates the
		// namespaces: the helper's C part before its Go runtime starts
		// (helper.UnshareEnv), or without it a first stage that forks
		// the helper into them (helper.SpawnArg). Not for a command
		// that leads a session of its own (a pseudo-terminal aidex made
		// for it), which the helper itself must lead, nor when the
		// helper is aidex itself (its start would be paid twice).
		mode := helper.SpawnNetOn
		if sp.Loopback {
			mode = helper.SpawnNetOff
		}
		if s.caps.unshares {
			cmd.Env = append(cmd.Env, helper.UnshareEnv+"="+mode)
			if s.spares != nil {
				s.spares.attach(cmd, sp, mode)
			}
		} else {
			cmd.Args = append(append(args, helper.SpawnArg, mode, s.caps.Helper), cmd.Args...)
		}
		a.Pdeathsig = syscall.SIGKILL
		return nil
	}
	// The helper is the init of its own PID namespace: every process the
	// command starts ends when the command ends, when aidex kills the
	// helper, or (Pdeathsig) when aidex itself dies. The IPC namespace
	// gives the command System V IPC and message queues of its own. The
	// command keeps the user's own uid and gid inside the namespace; a
	// non-root user's helper gets the capabilities it needs for the
	// mounts as ambient ones, and drops them all before the exec.
	helper.NamespaceAttr(a, sp.Loopback)
	return nil
}

// spawnAbove is how much memory aidex may hold (bytes the Go runtime has
// mapped and not returned) before commands start through the helper's
// first stage (helper.SpawnArg): Go copies the whole address space of a
// process that forks into a new user namespace, which costs more than
// that stage's own start (about 1 ms) above this size
// (docs/benchmarks.md, "The fork into the namespaces and aidex's heap").
const spawnAbove = 32 << 20

// spawnFirst reports whether commands start without namespaces now, for
// the helper's C part or its first stage to create them: always with the
// C part (helperUnshares), whose start costs less than aidex's own fork
// into the namespaces at any size of aidex (0.5–0.9 ms less per command
// from a process of 10 MB, alternated one by one; docs/benchmarks.md,
// "The C part at any size"), and without it above spawnAbove.
func (s *Sandbox) spawnFirst() bool {
	limit := int64(spawnAbove)
	if s.caps.unshares {
		limit = 0
	}
	if s.spawnLimit != 0 {
		limit = s.spawnLimit
	}
	return limit == 0 || limit > 0 && mappedBytes() > limit
}

// mappedBytes returns the memory the Go runtime holds from the operating
// system (mapped and not released).
func mappedBytes() int64 {
	m := [2]metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(m[:])
	if m[0].Value.Kind() != metrics.KindUint64 || m[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(m[0].Value.Uint64()) - int64(m[1].Value.Uint64())
}

// helperEnv returns the helper's environment for a command whose
// environment is env (nil: aidex's own) and the command's own GOMAXPROCS
// ("" none), which the helper gives back to it: the helper runs with
// GOMAXPROCS=1, so that the Go runtime starts fewer threads in it (each
// costs a clone and, under load, a wait for a CPU at start and at exit).
func helperEnv(env []string) ([]string, string) {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	own := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, helper.GoMaxProcsEnv+"="); ok {
			own = v
			continue
		}
		out = append(out, kv)
	}
	return append(out, helper.GoMaxProcsEnv+"=1"), own
}

func tempDefault() string { return "/tmp" }

func userCacheDefault(home string) string { return filepath.Join(home, ".cache") }

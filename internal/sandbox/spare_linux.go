//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// spareMargin: a spare is handed a command only while it has at least
// this long left before it stops waiting (helper.SpareIdle).
const spareMargin = 5 * time.Second

// maxSpares bounds the spares a sandbox keeps waiting (one per spec in
// use: the network off, and on for commands approved to use it).
const maxSpares = 2

// spares keeps helpers started ahead of commands (helper.SpareArg): a
// spare has created the namespaces and mounted the plan of one spec, so
// that the next command with that spec skips the helper's process start,
// its Go runtime's and the mounts, about half of a confined command's
// start (docs/benchmarks.md, "Spare helpers"). After each command that
// starts through the helper's C part, the sandbox starts a spare for the
// next one with the same spec. It is safe for concurrent use.
type spares struct {
	helper string
	mu     sync.Mutex
	idle   map[string]*spare // by the spec's flags (EncodeConfig), NUL-joined
	// retired are the pids of spares handed a command or ended, not
	// reaped yet (aidex reaps them without a waiting goroutine, at the
	// next command). A waiting spare is never reaped, so that its pid
	// is not reused while aidex may still signal it.
	retired []int
	handed  int // commands handed to a spare (which may refuse one)
	refused int // retired spares that exited refusing (helper.ExitSetup)
	closed  bool
}

// spare is one helper waiting for a command.
type spare struct {
	ids  string   // helper.Identities of its spec when it started
	conn *os.File // aidex's end of its connection
	pid  int
	born time.Time
	// mounts is aidex's /proc/self/mountinfo, opened before the spare
	// started: it polls readable with POLLPRI once aidex's mount table
	// changed since (the spare holds a copy of the table of its start).
	mounts int
}

// newSpares returns the spares of a sandbox whose helper is at path; a
// cleanup ends those still waiting when the sandbox is collected.
func newSpares(s *Sandbox, path string) *spares {
	p := &spares{helper: path, idle: map[string]*spare{}}
	runtime.AddCleanup(s, func(p *spares) { p.close() }, p)
	return p
}

// attach makes cmd (which starts the helper with its C part, in mode
// helper.SpawnNetOff or SpawnNetOn) hand its command to a waiting spare
// of sp's key when there is one and sp's paths are what they were when
// it started (otherwise the helper starts the command itself), and starts
// a spare for the next command with sp.
func (p *spares) attach(cmd *exec.Cmd, sp helper.Spec, mode string) {
	flags := sp.EncodeConfig()
	key, ids := strings.Join(flags, "\x00"), helper.Identities(sp)
	if sv := p.take(key, ids); sv != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, sv.conn)
		cmd.Env = append(cmd.Env, helper.AttachEnv+"="+strconv.Itoa(2+len(cmd.ExtraFiles)))
	}
	go p.start(key, ids, flags, mode)
}

// take returns the spare waiting for key, if it was started with ids and
// has time left, and forgets it; a spare that does not qualify is ended.
func (p *spares) take(key, ids string) *spare {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reap()
	sv := p.idle[key]
	if sv == nil {
		return nil
	}
	delete(p.idle, key)
	if sv.ids != ids || time.Since(sv.born) > helper.SpareIdle-spareMargin || mountsChanged(sv.mounts) {
		p.end(sv)
		return nil
	}
	unix.Close(sv.mounts)
	p.handed++
	p.retired = append(p.retired, sv.pid)
	return sv
}

// mountsChanged reports whether the mount table changed since the
// mountinfo file fd was opened (a file system mounted or unmounted: a
// spare started after the open holds the old table). The file is not in
// Go's poller, whose epoll would consume the event.
func mountsChanged(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR|unix.POLLNVAL) != 0
}

// start starts a spare for key (flags: its spec's) and keeps it waiting,
// ending the one it replaces and the oldest beyond maxSpares. A spare
// that cannot start is not an error: the next command starts cold.
func (p *spares) start(key, ids string, flags []string, mode string) {
	mountsFD, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		unix.Close(mountsFD)
		return
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		unix.Close(mountsFD)
		unix.Close(fds[0])
		unix.Close(fds[1])
		return
	}
	args := append([]string{p.helper, helper.SpareArg, ids}, flags...)
	n := null.Fd()
	pid, err := syscall.ForkExec(p.helper, args, &syscall.ProcAttr{
		// Nothing of aidex's environment (keys): the command gets the
		// environment of its own helper.
		Env:   []string{helper.GoMaxProcsEnv + "=1", helper.UnshareEnv + "=" + mode},
		Files: []uintptr{n, n, n, uintptr(fds[1])},
		// Its own session: no terminal, none of aidex's signals. It
		// dies with aidex (Pdeathsig; the C part's child with it).
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	null.Close()
	unix.Close(fds[1])
	if err != nil {
		unix.Close(mountsFD)
		unix.Close(fds[0])
		return
	}
	sv := &spare{ids: ids, conn: os.NewFile(uintptr(fds[0]), "aidex-spare"), pid: pid, born: time.Now(), mounts: mountsFD}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		sv.kill()
		return
	}
	if old := p.idle[key]; old != nil {
		p.end(old)
	}
	p.idle[key] = sv
	for len(p.idle) > maxSpares {
		var oldest string
		for k, v := range p.idle {
			if oldest == "" || v.born.Before(p.idle[oldest].born) {
				oldest = k
			}
		}
		p.end(p.idle[oldest])
		delete(p.idle, oldest)
	}
}

// end kills a spare that will get no command and retires it, to be
// reaped later (with p.mu held).
func (p *spares) end(sv *spare) {
	sv.stop()
	p.retired = append(p.retired, sv.pid)
}

// kill ends a spare that will get no command and waits for it (a killed
// spare ends at once).
func (sv *spare) kill() {
	sv.stop()
	var ws unix.WaitStatus
	_, _ = unix.Wait4(sv.pid, &ws, 0, nil)
}

// stop sends a spare SIGKILL and closes aidex's descriptors of it.
func (sv *spare) stop() {
	_ = unix.Kill(sv.pid, unix.SIGKILL)
	sv.conn.Close()
	unix.Close(sv.mounts)
}

// reap collects the retired spares that have exited (with p.mu held),
// counting those that refused their command.
func (p *spares) reap() {
	kept := p.retired[:0]
	for _, pid := range p.retired {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		switch {
		case got == 0 && err == nil:
			kept = append(kept, pid)
		case got == pid && ws.Exited() && ws.ExitStatus() == helper.ExitSetup:
			p.refused++
		}
	}
	p.retired = kept
}

// close ends the waiting spares and waits for them; spares running a
// command are left to it.
func (p *spares) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for k, sv := range p.idle {
		sv.kill()
		delete(p.idle, k)
	}
	p.reap()
}

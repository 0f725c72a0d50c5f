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
	idle   map[string]*spare // by the spec's flags (specKey)
	// started are the spares' pids not reaped yet (aidex reaps them
	// without a waiting goroutine, at the next command).
	started []int
	handed  int // commands handed to a spare (which may refuse one)
}

// spare is one helper waiting for a command.
type spare struct {
	ids  string   // helper.Identities of its spec when it started
	conn *os.File // aidex's end of its connection
	pid  int
	born time.Time
}

// newSpares returns the spares of a sandbox whose helper is at path; a
// cleanup ends those still waiting when the sandbox is collected.
func newSpares(s *Sandbox, path string) *spares {
	p := &spares{helper: path, idle: map[string]*spare{}}
	runtime.AddCleanup(s, func(p *spares) { p.close() }, p)
	return p
}

// specKey names sp's sandbox: two commands with one key run in the same
// one.
func specKey(sp helper.Spec) string { return strings.Join(sp.EncodeConfig(), "\x00") }

// attach makes cmd (which starts the helper with its C part, in mode
// helper.SpawnNetOff or SpawnNetOn) hand its command to a waiting spare
// of sp's key when there is one and sp's paths are what they were when
// it started (otherwise the helper starts the command itself), and starts
// a spare for the next command with sp.
func (p *spares) attach(cmd *exec.Cmd, sp helper.Spec, mode string) {
	key, ids := specKey(sp), helper.Identities(sp)
	if sv := p.take(key, ids); sv != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, sv.conn)
		cmd.Env = append(cmd.Env, helper.AttachEnv+"="+strconv.Itoa(2+len(cmd.ExtraFiles)))
	}
	go p.start(key, ids, sp.EncodeConfig(), mode)
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
	if sv.ids != ids || time.Since(sv.born) > helper.SpareIdle-spareMargin {
		p.end(sv)
		return nil
	}
	p.handed++
	return sv
}

// start starts a spare for key (flags: its spec's) and keeps it waiting,
// ending the one it replaces and the oldest beyond maxSpares. A spare
// that cannot start is not an error: the next command starts cold.
func (p *spares) start(key, ids string, flags []string, mode string) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return
	}
	env, _ := helperEnv(nil)
	args := append([]string{p.helper, helper.SpareArg, ids}, flags...)
	n := null.Fd()
	pid, err := syscall.ForkExec(p.helper, args, &syscall.ProcAttr{
		Env:   append(env, helper.UnshareEnv+"="+mode),
		Files: []uintptr{n, n, n, uintptr(fds[1])},
		// Its own session: no terminal, none of aidex's signals. It
		// dies with aidex (Pdeathsig; the C part's child with it).
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	null.Close()
	unix.Close(fds[1])
	if err != nil {
		unix.Close(fds[0])
		return
	}
	sv := &spare{ids: ids, conn: os.NewFile(uintptr(fds[0]), "aidex-spare"), pid: pid, born: time.Now()}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = append(p.started, pid)
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

// end kills a spare that will get no command (with p.mu held).
func (p *spares) end(sv *spare) {
	_ = unix.Kill(sv.pid, unix.SIGKILL)
	sv.conn.Close()
}

// reap collects the spares that have exited (with p.mu held).
func (p *spares) reap() {
	kept := p.started[:0]
	for _, pid := range p.started {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if got == 0 && err == nil {
			kept = append(kept, pid)
		}
	}
	p.started = kept
}

// close ends the waiting spares.
func (p *spares) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, sv := range p.idle {
		p.end(sv)
		delete(p.idle, k)
	}
	p.reap()
}

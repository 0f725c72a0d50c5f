//go:build windows

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Group is the Job Object of one command: the command starts suspended,
// joins the job, then runs, so every process it starts (grandchildren
// included) is in the job from its first instruction. Signal terminates
// the whole job; the job is set to kill what is left when its handle
// closes (Close, or aidex exiting in any way).
type Group struct {
	mu  sync.Mutex // Signal and Close may race (a kill as the command exits)
	job windows.Handle
	err error
}

// NewGroup creates the command's Job Object and makes cmd start
// suspended; call it before a Confine hook and before cmd.Start, then
// Attach right after Start.
func NewGroup(cmd *exec.Cmd) *Group {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return &Group{err: fmt.Errorf("create a job object: %w", err)}
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return &Group{err: fmt.Errorf("set the job object to kill on close: %w", err)}
	}
	return &Group{job: job}
}

// Attach puts the started (suspended) process p in the job and resumes
// it. On error p is killed and the error says why: a command that
// cannot be held in its job does not run.
func (g *Group) Attach(p *os.Process) error {
	err := g.err
	if err == nil {
		err = g.assign(p.Pid)
	}
	if err == nil {
		err = resumeThreads(uint32(p.Pid))
	}
	if err != nil {
		_ = p.Kill()
		return fmt.Errorf("job object: %w", err)
	}
	return nil
}

func (g *Group) assign(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(g.job, h); err != nil {
		return fmt.Errorf("assign process %d to its job: %w", pid, err)
	}
	return nil
}

// resumeThreads resumes the threads of the suspended process pid (a new
// process has one).
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, rerr := windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if rerr != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, rerr)
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("the process has no thread to resume")
	}
	return nil
}

// Signal terminates every process of the job (Windows has no SIGTERM:
// the gentle and the hard stop are the same). A job with no process
// left is not an error.
func (g *Group) Signal(bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return g.err
	}
	return windows.TerminateJobObject(g.job, 1)
}

// Close releases the job; processes still in it are killed.
func (g *Group) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
		g.job = 0
	}
}

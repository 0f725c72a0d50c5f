//go:build !windows

package proc

import (
	"os"
	"os/exec"
)

// Group is the process group of one command (SetGroup): Signal reaches
// every process the command started that stayed in its group.
type Group struct{ p *os.Process }

// NewGroup makes cmd the leader of a new process group; call it before a
// Confine hook and before cmd.Start, then Attach right after Start.
func NewGroup(cmd *exec.Cmd) *Group {
	SetGroup(cmd)
	return &Group{}
}

// Attach records the started process; it cannot fail here.
func (g *Group) Attach(p *os.Process) error {
	g.p = p
	return nil
}

// Signal sends SIGTERM (hard false) or SIGKILL (hard true) to the group.
func (g *Group) Signal(hard bool) error {
	if g.p == nil {
		return nil
	}
	return SignalGroup(g.p, hard)
}

// Close does nothing: a process group needs no release.
func (g *Group) Close() {}

//go:build unix

package longsession

import (
	"syscall"
	"time"
)

// nextPhase sends process pid SIGUSR1: a -tags pprof aidex starts its
// next phase's CPU profile.
func nextPhase(pid int) { _ = syscall.Kill(pid, syscall.SIGUSR1) }

// ownCPU is this process's user and system CPU time so far.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

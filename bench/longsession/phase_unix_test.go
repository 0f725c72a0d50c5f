//go:build unix

package longsession

import "syscall"

// nextPhase sends process pid SIGUSR1: a -tags pprof aidex starts its
// next phase's CPU profile.
func nextPhase(pid int) { _ = syscall.Kill(pid, syscall.SIGUSR1) }

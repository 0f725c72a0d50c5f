//go:build !unix

package longsession

import "time"

// nextPhase does nothing where there is no SIGUSR1: one profile a run.
func nextPhase(int) {}

// ownCPU is 0 where there is no getrusage: the floor reads as nothing.
func ownCPU() time.Duration { return 0 }

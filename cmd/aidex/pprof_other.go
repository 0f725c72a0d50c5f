//go:build pprof && !unix

package main

// phases does nothing where there is no SIGUSR1: one profile a run.
func phases(*profiler) {}

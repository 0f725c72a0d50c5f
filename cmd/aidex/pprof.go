//go:build pprof

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

// With -tags pprof (benchmarks only: bench/stream-tui.sh PROFILE=1),
// AIDEX_CPUPROFILE=FILE writes a CPU profile of the first
// AIDEX_CPUPROFILE_SECS seconds (default 30) of the process to FILE, and
// then, with AIDEX_MEMPROFILE=FILE2, the allocations so far to FILE2.
func init() {
	path := os.Getenv("AIDEX_CPUPROFILE")
	if path == "" {
		return
	}
	secs := 30 * time.Second
	if s := os.Getenv("AIDEX_CPUPROFILE_SECS"); s != "" {
		d, err := time.ParseDuration(s + "s")
		if err != nil {
			fmt.Fprintln(os.Stderr, "AIDEX_CPUPROFILE_SECS: want a number of seconds:", err)
			os.Exit(2)
		}
		secs = d
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "AIDEX_CPUPROFILE:", err)
		os.Exit(2)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "AIDEX_CPUPROFILE:", err)
		os.Exit(2)
	}
	go func() {
		time.Sleep(secs)
		pprof.StopCPUProfile()
		_ = f.Close()
		if mem := os.Getenv("AIDEX_MEMPROFILE"); mem != "" {
			if m, err := os.Create(mem); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(m, 0)
				_ = m.Close()
			}
		}
	}()
}

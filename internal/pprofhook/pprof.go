//go:build pprof

package pprofhook

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"time"
)

// With -tags pprof (benchmarks only: bench/stream-tui.sh PROFILE=1,
// bench/longsession's AIDEX_BENCH_PROFILE), AIDEX_CPUPROFILE=FILE writes a
// CPU profile of the first AIDEX_CPUPROFILE_SECS seconds (default 30) of
// the process to FILE, and then, with AIDEX_MEMPROFILE=FILE2, the
// allocations so far to FILE2. On Unix, each SIGUSR1 ends the profile
// being written and starts the next, FILE.1, FILE.2, …: one profile per
// phase of a run (see phases in pprof_unix.go).
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
	p := &profiler{path: path}
	if err := p.next(); err != nil {
		fmt.Fprintln(os.Stderr, "AIDEX_CPUPROFILE:", err)
		os.Exit(2)
	}
	phases(p)
	go func() {
		time.Sleep(secs)
		p.stop()
		if mem := os.Getenv("AIDEX_MEMPROFILE"); mem != "" {
			if m, err := os.Create(mem); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(m, 0)
				_ = m.Close()
			}
		}
	}()
}

// profiler writes the CPU profile of each phase to its own file: path,
// then path.1, path.2, ….
type profiler struct {
	mu    sync.Mutex
	path  string
	phase int
	f     *os.File
	done  bool
}

// next ends the phase being profiled, if any, and starts the next one
// (nothing once stop was called). Errors: creating the file or starting
// the profile.
func (p *profiler) next() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return nil
	}
	p.end()
	name := p.path
	if p.phase > 0 {
		name = fmt.Sprintf("%s.%d", p.path, p.phase)
	}
	p.phase++
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("start CPU profile: %w", err)
	}
	p.f = f
	return nil
}

// stop ends the phase being profiled and profiles no more.
func (p *profiler) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.end()
	p.done = true
}

// end writes out the phase being profiled (p.mu held).
func (p *profiler) end() {
	if p.f == nil {
		return
	}
	pprof.StopCPUProfile()
	_ = p.f.Close()
	p.f = nil
}

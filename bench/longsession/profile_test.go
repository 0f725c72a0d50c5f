package longsession

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// profilePhases returns h for run i of a benchmark: h itself, or, with
// AIDEX_BENCH_PROFILE=DIR, h with aidex told to write its CPU profile to
// DIR/cpu-<i>.pprof and srv set to start the next phase's profile at each
// request of at (0-based: 0 ends start-up, 100 turns 1–100). aidex must
// be a -tags pprof build (a plain one dies of the first SIGUSR1).
func profilePhases(tb testing.TB, h *home, srv *modelServer, i int, at ...int) *home {
	dir := os.Getenv("AIDEX_BENCH_PROFILE")
	if dir == "" {
		return h
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	p := *h
	p.env = append(slices.Clip(h.env), "AIDEX_CPUPROFILE="+filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", i)),
		"AIDEX_CPUPROFILE_SECS=86400")
	srv.mu.Lock()
	srv.phases = at
	srv.mu.Unlock()
	return &p
}

package longsession

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// grepFile returns the text of workspace file g<seed>.txt: numbered
// source-like lines, each naming handler<seed>_, sized so that a grep for
// `handler<seed>_` in it prints about 6.6 KB (grep's `path:line: text`
// lines, its 100-match default).
func grepFile(seed int) string {
	var b strings.Builder
	for line := 1; line <= 68; line++ {
		fmt.Fprintf(&b, "func handler%d_%d(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", seed, line, seed*line)
	}
	return b.String()
}

// grepCall is the scripted model's n-th call: grep for handler<n>_ in
// g<n>.txt.
func grepCall(n int) (name, args string) {
	return "grep", fmt.Sprintf(`{"pattern":"handler%d_","path":"g%d.txt"}`, n, n)
}

// BenchmarkCPU500Turns runs one `aidex -p --max-turns 501` session in
// which the scripted model calls grep 500 times (each result about
// 6.6 KB, a different file each time), then answers; the model server
// reads aidex's own CPU time (utime+stime, not its children's: ripgrep)
// at each request. Metrics: CPU ms per turn over turns 1–100 and
// 100–500, their ratio (target ≤ 1.3), and the run's peak RSS (target ≤
// 50 MiB) and wall seconds (after a first run that applied the data
// directory's migrations), how much each request grows (KB a turn) and
// the last request's size. After each aidex run, a floor client (this
// test binary, floorClient) sends requests of the same sizes to the same
// server, doing nothing else: floor-growth-ms/turn is how much more its
// CPU per request is over requests 100–500 than over 1–100 (the cost of
// the bytes alone: the kernel's socket writes and net/http), and
// floor-ratio the ratio aidex would have if the bytes were all that grew,
// (aidex's turns 1–100 + floor growth) / aidex's turns 1–100.
//
// With AIDEX_BENCH_PROFILE=DIR (and a -tags pprof aidex: the one built
// here, or AIDEX_BIN's), each run i writes aidex's CPU profile per phase
// into DIR: cpu-<i>.pprof its start-up to the first request, .1 turns
// 1–100, .2 turns 100–500 (the phases the metrics compare), .3 what
// follows (cut short by the exit).
func BenchmarkCPU500Turns(b *testing.B) {
	const turns = 500
	bin := aidexBinary(b)
	srv := newModelServer(b, turns)
	srv.call = grepCall
	h := newHome(b, srv.URL)
	for i := 1; i <= turns; i++ {
		if err := os.WriteFile(filepath.Join(h.ws, fmt.Sprintf("g%d.txt", i)), []byte(grepFile(i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	srv.reset(0)
	runAidex(b, bin, h, srv, "-p", "hi") // the data directory's schema migrations, which a first run pays once, out of the figures
	var early, late, ratio, rss, wall, growth, last, floor, best []float64
	for b.Loop() {
		srv.reset(turns)
		srv.call = grepCall
		run := profilePhases(b, h, srv, len(early), 0, 100, turns)
		_, w, r := runAidex(b, bin, run, srv, "--max-turns", fmt.Sprint(turns+1), "-p", "grep the handlers one by one")
		srv.mu.Lock()
		cpu, sizes := srv.cpu, srv.sizes
		srv.mu.Unlock()
		if len(cpu) != turns+1 {
			b.Fatalf("the run made %d model requests, want %d", len(cpu), turns+1)
		}
		e := float64(cpu[100]-cpu[0]) / 1e6 / 100
		l := float64(cpu[500]-cpu[100]) / 1e6 / 400
		early, late, ratio = append(early, e), append(late, l), append(ratio, l/e)
		rss, wall = append(rss, r), append(wall, w.Seconds())
		growth = append(growth, float64(sizes[len(sizes)-1]-sizes[0])/turns/1000)
		last = append(last, float64(sizes[len(sizes)-1])/1e6)
		fe, fl := sendFloor(b, srv, sizes)
		floor, best = append(floor, fl-fe), append(best, (e+fl-fe)/e)
	}
	b.ReportMetric(median(early), "cpu-ms/turn-1-100")
	b.ReportMetric(median(late), "cpu-ms/turn-100-500")
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(median(rss), "peak-MiB")
	b.ReportMetric(median(wall), "wall-s")
	b.ReportMetric(median(growth), "req-KB/turn")
	b.ReportMetric(median(last), "last-req-MB")
	b.ReportMetric(median(floor), "floor-growth-ms/turn")
	b.ReportMetric(median(best), "floor-ratio")
}

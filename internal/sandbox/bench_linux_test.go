//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkTruePlain and BenchmarkTrueConfined measure the sandbox's
// start-up per command: the difference of their times is the overhead
// (target ≤ 5 ms). Besides the mean (ns/op) they report the minimum and
// the median in ms, which a busy machine disturbs less. Run:
//
//	go test ./internal/sandbox -run '^$' -bench True -benchtime 300x
func BenchmarkTruePlain(b *testing.B) {
	truePath := lookTrue(b)
	timeRuns(b, func() *exec.Cmd { return exec.Command(truePath) })
}

// pacedPause is the untimed pause between commands of the "paced" cases:
// an agent's commands come a model turn apart (hundreds of ms and more),
// so the spare helper for the next command (docs/sandbox.md, step 1) is
// ready and waiting when it comes; back to back, it is set up while the
// command before runs, on the same CPUs.
const pacedPause = 20 * time.Millisecond

// The git-repo cases run in a workspace that holds a git repository (of
// this module's size: about 300 folders, a nested repository) and count
// what aidex does around each command: the audit before and after it
// (Sandbox.Begin, Snapshot.End).
func BenchmarkTrueConfined(b *testing.B) {
	truePath := lookTrue(b)
	c := requireCaps(b)
	plain := b.TempDir()
	repo := benchRepo(b)
	for _, ws := range []struct{ name, root string }{{"", plain}, {"git-repo/", repo}} {
		sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: ws.root, Home: plain,
			Writable: DefaultWritable(plain, func(string) string { return "" })}, c)
		if err != nil {
			b.Fatal(err)
		}
		for _, net := range []bool{false, true} {
			for _, pause := range []time.Duration{0, pacedPause} {
				name := ws.name + "network-off"
				if net {
					name = ws.name + "network-on"
				}
				if pause > 0 {
					if ws.name == "" {
						continue
					}
					name += "/paced"
				}
				b.Run(name, func(b *testing.B) {
					var snap *Snapshot
					timeRunsAround(b, func() *exec.Cmd {
						snap = sb.Begin()
						cmd := exec.Command(truePath)
						cmd.Dir = ws.root
						if err := sb.Confine(cmd, Options{Network: net}); err != nil {
							b.Fatal(err)
						}
						return cmd
					}, func() {
						if lines := snap.End(); len(lines) != 0 {
							b.Fatal(lines)
						}
					}, pause)
					reportRefusals(b, sb)
				})
			}
		}
	}
}

// BenchmarkTrueConfinedHeap measures the start of a confined command
// (network off, git-repo workspace, with the check around it) from a
// process that holds more memory, as a working aidex does: heap-N has N
// MB more touched. "direct" forks the helper into the namespaces from
// this process (Go then copies its address space), "spawn" starts the
// helper's first stage, which forks it from a small process
// (helper.SpawnArg), "unshare" starts a helper built with cgo plainly and
// its C part creates the namespaces (helper.UnshareEnv; skipped when the
// helper has none); "plain" is plain true. Run:
//
//	go test ./internal/sandbox -run '^$' -bench TrueConfinedHeap -benchtime 200x
func BenchmarkTrueConfinedHeap(b *testing.B) {
	truePath := lookTrue(b)
	c := requireCaps(b)
	plain := b.TempDir()
	repo := benchRepo(b)
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: repo, Home: plain,
		Writable: DefaultWritable(plain, func(string) string { return "" })}, c)
	if err != nil {
		b.Fatal(err)
	}
	unshares := sb.caps.unshares
	var ballast [][]byte
	defer runtime.KeepAlive(&ballast)
	for _, mb := range []int{0, 16, 64} {
		for len(ballast) < mb {
			chunk := make([]byte, 1<<20)
			for j := 0; j < len(chunk); j += 4096 {
				chunk[j] = 1
			}
			ballast = append(ballast, chunk)
		}
		heap := "heap-" + strconv.Itoa(mb) + "/"
		b.Run(heap+"plain", func(b *testing.B) {
			timeRuns(b, func() *exec.Cmd { return exec.Command(truePath) })
		})
		for _, m := range []struct {
			name    string
			limit   int64
			unshare bool
		}{{"direct", -1, false}, {"spawn", 1, false}, {"unshare", 1, true}} {
			b.Run(heap+m.name, func(b *testing.B) {
				if m.unshare && !unshares {
					b.Skip("the helper has no C part (built without cgo)")
				}
				sb.spawnLimit, sb.caps.unshares = m.limit, m.unshare
				benchConfined(b, sb, truePath, repo)
			})
		}
	}
}

// benchConfined times true confined by sb in ws, network off, with the
// check around it.
func benchConfined(b *testing.B, sb *Sandbox, truePath, ws string) {
	var snap *Snapshot
	timeRunsAround(b, func() *exec.Cmd {
		snap = sb.Begin()
		cmd := exec.Command(truePath)
		cmd.Dir = ws
		if err := sb.Confine(cmd, Options{}); err != nil {
			b.Fatal(err)
		}
		return cmd
	}, func() {
		if lines := snap.End(); len(lines) != 0 {
			b.Fatal(lines)
		}
	}, 0)
}

// BenchmarkAudit measures the check around each command alone (Begin
// and End with nothing changed) in the git-repo workspace of
// BenchmarkTrueConfined: it is part of the overhead that benchmark
// reports. Run:
//
//	go test ./internal/sandbox -run '^$' -bench Audit -benchtime 2000x
func BenchmarkAudit(b *testing.B) {
	c := requireCaps(b)
	plain := b.TempDir()
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: benchRepo(b), Home: plain,
		Writable: DefaultWritable(plain, func(string) string { return "" })}, c)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if lines := sb.Begin().End(); len(lines) != 0 {
			b.Fatal(lines)
		}
		_ = sb.spec(Options{})
	}
}

// benchRepo makes a git repository with a commit, 300 folders and a
// nested repository.
func benchRepo(b *testing.B) string {
	root := b.TempDir()
	for i := range 300 {
		d := filepath.Join(root, "pkg"+strconv.Itoa(i/20), "sub"+strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f.go"), []byte("package x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "x"}, {"init", "-q", "pkg1/nested"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return root
}

// timeRuns runs the command newCmd builds b.N times and reports the
// minimum and median wall time of one run, and the CPU time of this
// process and its children per run (cpu-ms: aidex's, the helpers', the
// command's).
func timeRuns(b *testing.B, newCmd func() *exec.Cmd) { timeRunsAround(b, newCmd, func() {}, 0) }

// timeRunsAround is timeRuns with after run after each command, timed,
// and pause between commands, not timed (0: none).
func timeRunsAround(b *testing.B, newCmd func() *exec.Cmd, after func(), pause time.Duration) {
	var runs []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		t0 := time.Now()
		cmd := newCmd()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		after()
		runs = append(runs, time.Since(t0))
		if pause > 0 {
			time.Sleep(pause)
		}
	}
	cpu := cpuTime() - cpu0
	slices.Sort(runs)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(runs[0]), "min-ms")
	b.ReportMetric(ms(runs[len(runs)/2]), "median-ms")
	b.ReportMetric(ms(cpu)/float64(len(runs)), "cpu-ms")
}

// reportRefusals reports how many of sb's spares refused the command
// they were handed (each then started cold: a refusing spare costs a
// helper start for nothing), so that a change that makes them refuse
// shows.
func reportRefusals(b *testing.B, sb *Sandbox) {
	if sb.spares == nil {
		return
	}
	time.Sleep(20 * time.Millisecond)
	sb.spares.mu.Lock()
	sb.spares.reap()
	n := sb.spares.refused
	sb.spares.refused = 0
	sb.spares.mu.Unlock()
	b.ReportMetric(float64(n), "spare-refusals")
}

// cpuTime returns the user and system time of this process and of its
// children that have been waited for.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	var d time.Duration
	for _, r := range []*syscall.Rusage{&self, &children} {
		d += time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return d
}

func lookTrue(b *testing.B) string {
	p, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

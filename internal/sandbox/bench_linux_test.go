//go:build linux

package sandbox

import (
	"os/exec"
	"slices"
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

func BenchmarkTrueConfined(b *testing.B) {
	truePath := lookTrue(b)
	c := requireCaps(b)
	root := b.TempDir()
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: root, Home: root,
		Writable: DefaultWritable(root, func(string) string { return "" })}, c)
	if err != nil {
		b.Fatal(err)
	}
	for _, net := range []bool{false, true} {
		name := "network-off"
		if net {
			name = "network-on"
		}
		b.Run(name, func(b *testing.B) {
			timeRuns(b, func() *exec.Cmd {
				cmd := exec.Command(truePath)
				cmd.Dir = root
				if err := sb.Confine(cmd, Options{Network: net}); err != nil {
					b.Fatal(err)
				}
				return cmd
			})
		})
	}
}

// timeRuns runs the command newCmd builds b.N times and reports the
// minimum and median wall time of one run.
func timeRuns(b *testing.B, newCmd func() *exec.Cmd) {
	var runs []time.Duration
	for b.Loop() {
		t0 := time.Now()
		cmd := newCmd()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		runs = append(runs, time.Since(t0))
	}
	slices.Sort(runs)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(runs[0]), "min-ms")
	b.ReportMetric(ms(runs[len(runs)/2]), "median-ms")
}

func lookTrue(b *testing.B) string {
	p, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

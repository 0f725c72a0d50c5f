package app

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ralph/dist"
)

// BenchmarkRalphWorkers runs 1,000 tasks through 8 in-process workers on
// the embedded NATS server with an instant scripted model (each task is
// one complete_task call), and reports tasks/s and the coordinator's own
// time per task. "noop" skips worktrees and commits (the coordinator's
// and the queue's overhead); "worktree" makes a worktree and a commit per
// task. RALPH_BENCH_TASKS changes the count.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkRalphWorkers -benchtime 1x
func BenchmarkRalphWorkers(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(envOr("RALPH_BENCH_TASKS", "")); err == nil && v > 0 {
		n = v
	}
	for _, mode := range []string{"noop", "worktree"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				benchRun(b, n, 8, mode == "noop")
			}
		})
	}
}

func envOr(k, def string) string {
	if v := strings.TrimSpace(os.Getenv(k)); v != "" {
		return v
	}
	return def
}

func benchRun(b *testing.B, n, workers int, noop bool) {
	b.StopTimer()
	f := newDistFixtureTB(b, func(body []byte) llmtest.Turn {
		if strings.Contains(string(body), `"role":"tool"`) {
			return llmtest.Turn{Text: "Finished."}
		}
		return llmtest.Turn{Calls: []llmtest.Call{complete("done", "nothing to do")}}
	})
	tasks := make([]ralph.Task, n)
	for i := range tasks {
		tasks[i] = ralph.Task{ID: fmt.Sprintf("T-%04d", i+1), Title: "no-op " + strconv.Itoa(i+1)}
	}
	_, err := f.svc.Add(context.Background(), tasks...)
	require.NoError(b, err)
	nc, err := f.nats.Connect("bench-coordinator")
	require.NoError(b, err)
	defer nc.Close()
	coord, err := dist.NewCoordinator(dist.CoordinatorOptions{Service: f.svc, Conn: nc, AckWait: time.Minute})
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.startWorkersTB(ctx, workers, noop)
	b.StartTimer()
	start := time.Now()
	sum, err := coord.Run(ctx, func(ralph.Event) {})
	elapsed := time.Since(start)
	b.StopTimer()
	require.NoError(b, err)
	require.Equal(b, n, sum.Done)
	b.ReportMetric(float64(n)/elapsed.Seconds(), "tasks/s")
	b.ReportMetric(float64(coord.Overhead().Microseconds())/float64(n)/1000, "coord-ms/task")
}

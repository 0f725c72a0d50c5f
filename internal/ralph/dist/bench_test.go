package dist

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/ralph"
)

// BenchmarkCoordinatorNoopWorkers puts 1,000 tasks through 8 no-op
// workers that take a task, report its start and a done outcome and ack
// it (no agent, no worktree, no commit): the coordinator's and the
// queue's own overhead. It reports tasks/s and the coordinator's loop
// time per task.
//
//	go test ./internal/ralph/dist/ -run '^$' -bench BenchmarkCoordinatorNoopWorkers -benchtime 1x
func BenchmarkCoordinatorNoopWorkers(b *testing.B) {
	for range b.N {
		b.StopTimer()
		e := newEnvTB(b)
		tasks := make([]ralph.Task, 1000)
		for i := range tasks {
			tasks[i] = ralph.Task{ID: fmt.Sprintf("T-%04d", i+1), Title: "no-op"}
		}
		_, err := e.svc.Add(context.Background(), tasks...)
		require.NoError(b, err)
		coord, err := NewCoordinator(CoordinatorOptions{Service: e.svc, Conn: e.nc, AckWait: time.Minute})
		require.NoError(b, err)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() { defer wg.Done(); noopWorker(ctx, e.js) }()
		}
		b.StartTimer()
		start := time.Now()
		sum, err := coord.Run(ctx, func(ralph.Event) {})
		elapsed := time.Since(start)
		b.StopTimer()
		cancel()
		wg.Wait()
		require.NoError(b, err)
		require.Equal(b, len(tasks), sum.Done)
		b.ReportMetric(float64(len(tasks))/elapsed.Seconds(), "tasks/s")
		b.ReportMetric(float64(coord.Overhead().Microseconds())/float64(len(tasks))/1000, "coord-ms/task")
	}
}

// noopWorker is a worker that does nothing but report.
func noopWorker(ctx context.Context, js jetstream.JetStream) {
	var cons jetstream.Consumer
	for ctx.Err() == nil {
		c, err := js.Consumer(ctx, TaskStream, WorkConsumer)
		if err == nil {
			cons = c
			break
		}
		sleep(ctx, 20*time.Millisecond)
	}
	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(200*time.Millisecond))
		if err != nil {
			continue
		}
		for msg := range batch.Messages() {
			m, err := ParseTask(msg.Data())
			if err != nil {
				_ = msg.Term()
				continue
			}
			for _, r := range []ResultMsg{{Run: m.Run, TaskID: m.ID, Kind: KindStart, Worker: "noop", Delivery: 1},
				{Run: m.Run, TaskID: m.ID, Kind: KindOutcome, Worker: "noop", Delivery: 1,
					Outcome: &ralph.Outcome{Status: ralph.StatusDone, Reason: "reported", Summary: "nothing to do", Attempts: 1}}} {
				data, _ := json.Marshal(r)
				_, _ = js.Publish(ctx, resultSubject+m.Run+"."+m.ID, data)
			}
			_ = msg.Ack()
		}
	}
}

// Workers faster than the list's writes (results applied between two
// writes): no finished task is put on the queue again, and the run ends
// with every task done once.
func TestCoordinatorFastWorkers(t *testing.T) {
	e := newEnv(t)
	tasks := make([]ralph.Task, 200)
	for i := range tasks {
		tasks[i] = ralph.Task{ID: fmt.Sprintf("T-%04d", i+1), Title: "no-op"}
	}
	_, err := e.svc.Add(context.Background(), tasks...)
	require.NoError(t, err)
	coord, err := NewCoordinator(CoordinatorOptions{Service: e.svc, Conn: e.nc, AckWait: time.Minute})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); noopWorker(wctx, e.js) }()
	}
	var queued, done int
	sum, err := coord.Run(ctx, func(ev ralph.Event) {
		switch ev.Type {
		case ralph.EventQueued:
			queued++
		case ralph.EventTaskDone:
			done++
		}
	})
	require.NoError(t, err)
	require.Equal(t, ralph.FinishCompleted, sum.Reason)
	require.Equal(t, 200, sum.Done)
	require.Equal(t, 200, queued, "each task queued once")
	require.Equal(t, 200, done)
	list, err := e.svc.List()
	require.NoError(t, err)
	require.Equal(t, 200, ralph.Counts(list)[ralph.StatusDone])
}

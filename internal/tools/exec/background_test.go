//go:build unix

package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
	"go.uber.org/goleak"
)

// waitOutput polls get_background_output until it contains want.
func (f *execFixture) waitOutput(id, want string) tools.Result {
	f.T.Helper()
	var r tools.Result
	require.Eventually(f.T, func() bool {
		r = f.Call("get_background_output", jobj{"id": id})
		return r.OK && strings.Contains(r.Output, want)
	}, 10*time.Second, 20*time.Millisecond, "output of %s never contained %q; last: %s", id, want, r.Output)
	return r
}

func TestBackgroundLifecycle(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	procs := NewProcessTable(0)
	f := newExecFixture(t, Options{Procs: procs})
	f.Write("sub/.keep", "")

	r := f.OK("run_background_process", jobj{"command": "echo out-line; echo err-line >&2; sleep 60 & echo $! > child.pid; wait", "cwd": "sub"})
	require.Contains(t, r.Output, "Started bg1")
	// stdout and stderr are read by two goroutines: wait for both lines.
	f.waitOutput("bg1", "\nout-line\n")
	r = f.waitOutput("bg1", "\nerr-line\n")
	require.Contains(t, r.Output, "bg1 running")
	require.Contains(t, r.Output, "--- stdout: 1 lines ---\nout-line\n")
	require.Contains(t, r.Output, "--- stderr: 1 lines ---\nerr-line\n")
	require.Nil(t, r.Meta.ExitCode)

	var childPID int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(filepath.Join(f.Root, "sub", "child.pid"))
		if err != nil || len(strings.TrimSpace(string(data))) == 0 {
			return false
		}
		_, err = fmt.Sscan(string(data), &childPID)
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)

	r = f.OK("list_background_processes", jobj{})
	require.Contains(t, r.Output, "bg1 running")

	r = f.OK("kill_background_process", jobj{"id": "bg1"})
	require.Contains(t, r.Output, "Stopped: bg1")
	require.Contains(t, r.Output, "stopped by kill")
	waitGone(t, childPID)

	r = f.OK("get_background_output", jobj{"id": "bg1"})
	require.Contains(t, r.Output, "out-line")
	require.NotNil(t, r.Meta.ExitCode)
	r = f.OK("kill_background_process", jobj{"id": "bg1"})
	require.Contains(t, r.Output, "Nothing to do")

	f.Fail("get_background_output", jobj{"id": "bg9"}, tools.CategoryNotFound)
	f.Fail("kill_background_process", jobj{"id": "nope"}, tools.CategoryNotFound)
	f.Fail("run_background_process", jobj{"command": "true", "cwd": "../outside"}, tools.CategorySecurity)
	f.Fail("run_background_process", jobj{"command": ""}, tools.CategoryValidation)
	require.NoError(t, procs.Close())
}

func TestBackgroundExitAndLines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	procs := NewProcessTable(0)
	f := newExecFixture(t, Options{Procs: procs})
	f.OK("run_background_process", jobj{"command": "seq 1 700; exit 4"})
	var r tools.Result
	require.Eventually(t, func() bool {
		r = f.Call("get_background_output", jobj{"id": "bg1", "lines": 5})
		return strings.Contains(r.Output, "exited with code 4")
	}, 10*time.Second, 20*time.Millisecond)
	require.Contains(t, r.Output, "--- stdout: last 5 of 700 lines ---\n696\n697\n698\n699\n700\n")
	require.Equal(t, 4, *r.Meta.ExitCode)
	r = f.OK("get_background_output", jobj{"id": "bg1", "lines": 100000})
	require.Contains(t, r.Output, "last 500 of 700 lines ---\n201\n")
	f.Fail("get_background_output", jobj{"id": "bg1", "lines": -1}, tools.CategoryValidation)
	require.NoError(t, procs.Close())
}

func TestBackgroundLimitAndClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	procs := NewProcessTable(2)
	f := newExecFixture(t, Options{Procs: procs})
	var pids []int
	for range 2 {
		r := f.OK("run_background_process", jobj{"command": "sleep 60"})
		require.Contains(t, r.Output, "Started bg")
	}
	r := f.Fail("run_background_process", jobj{"command": "sleep 60"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "2 background processes are already running (bg1, bg2)")
	for _, p := range procs.List() {
		require.True(t, p.Running)
		pids = append(pids, p.PID)
	}
	// A process that exited frees its slot.
	_, err := procs.Kill(context.Background(), "bg1", time.Second)
	require.NoError(t, err)
	f.OK("run_background_process", jobj{"command": "trap '' TERM; echo ready; sleep 60"})
	f.waitOutput("bg3", "\nready\n")
	start := time.Now()
	info, err := procs.Kill(context.Background(), "bg3", 300*time.Millisecond)
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "SIGTERM is ignored: SIGKILL after the grace")
	require.False(t, info.Running)
	require.Equal(t, -1, info.ExitCode)

	start = time.Now()
	require.NoError(t, procs.Close())
	require.Less(t, time.Since(start), 15*time.Second)
	for _, p := range procs.List() {
		require.False(t, p.Running, p.ID)
		require.True(t, p.Killed, p.ID)
		pids = append(pids, p.PID)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	_, err = procs.Start(BackgroundSpec{Argv: []string{"true"}})
	require.ErrorIs(t, err, ErrTableClosed)
	r = f.Fail("run_background_process", jobj{"command": "true"}, tools.CategoryExecution)
	require.Contains(t, r.Error, "shutting down")
	require.NoError(t, procs.Close(), "Close twice")
}

func TestBackgroundUnavailable(t *testing.T) {
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(Tools(Options{})...))
	r := reg.Call(context.Background(), nil, "run_background_process", []byte(`{"command":"true"}`))
	require.False(t, r.OK)
	require.Contains(t, r.Error, "not available")
}

func TestBackgroundConcurrentUse(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	procs := NewProcessTable(3)
	sh := []string{"/bin/sh", "-c", "for i in 1 2 3 4 5; do echo line $i; done; sleep 0.2"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			id, err := procs.Start(BackgroundSpec{Command: "loop", Argv: sh, Dir: os.TempDir()})
			if err != nil {
				return // over the limit: fine
			}
			for range 5 {
				_, _, _, _, _ = procs.Output(id, 3)
				_ = procs.List()
			}
		})
	}
	wg.Wait()
	running := 0
	for _, p := range procs.List() {
		if p.Running {
			running++
		}
	}
	require.LessOrEqual(t, running, 3)
	require.NoError(t, procs.Close())
}

func TestLineRing(t *testing.T) {
	r := newLineRing(3)
	lines, total := r.last(10)
	require.Empty(t, lines)
	require.Zero(t, total)
	r.write([]byte("a\nb\r\nc"))
	lines, total = r.last(10)
	require.Equal(t, []string{"a", "b", "c"}, lines)
	require.Equal(t, 3, total)
	r.write([]byte("d\ne\nf\n"))
	lines, total = r.last(10)
	require.Equal(t, []string{"cd", "e", "f"}, lines)
	require.Equal(t, 5, total)
	lines, _ = r.last(2)
	require.Equal(t, []string{"e", "f"}, lines)

	long := newLineRing(10)
	long.write([]byte(strings.Repeat("x", maxRingLineBytes*2+10)))
	lines, total = long.last(0)
	require.Len(t, lines, 3)
	require.Equal(t, 3, total)
	require.Len(t, lines[0], maxRingLineBytes)
	require.Len(t, lines[2], 10)
	long.write([]byte("\n" + strings.Repeat("y", maxRingLineBytes+5) + "\n"))
	lines, _ = long.last(1)
	require.Len(t, lines[0], maxRingLineBytes, "an overlong line is cut")
}

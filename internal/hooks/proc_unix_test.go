//go:build unix

package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFireTimeoutKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	r := runner(t, dir, Hook{Event: Stop, Command: "sleep 60 & echo $! > child; wait", Timeout: 300 * time.Millisecond})
	o, err := r.Fire(context.Background(), Input{Event: Stop})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Messages) != 1 || !strings.Contains(o.Messages[0], "timed out") || o.Block {
		t.Fatalf("outcome = %+v", o)
	}
	data, err := os.ReadFile(filepath.Join(dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	childGone(t, data, "the timeout")
}

// childGone checks that the process whose pid the hook wrote (data) is
// gone: killed with its group (a zombie reaped by init at the latest).
func childGone(t *testing.T, data []byte, after string) {
	t.Helper()
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the hook's child %d survived %s", pid, after)
}

func TestFireCancelKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	r := runner(t, dir, Hook{Event: Stop, Command: "sleep 60 & echo $! > child; wait", Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for range 500 {
			if _, err := os.Stat(filepath.Join(dir, "child")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = r.Fire(ctx, Input{Event: Stop})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Fire did not return after the run was stopped")
	}
	data, err := os.ReadFile(filepath.Join(dir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	childGone(t, data, "the stopped run")
}

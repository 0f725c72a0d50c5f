package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv makes this test binary act as a command that starts a
// grandchild (itself again, sleeping), writes the grandchild's pid to
// the file named by the variable, then sleeps ("stay") or exits ("exit").
const helperEnv = "AIDEX_PROC_GROUP_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(groupHelper(mode))
	}
	os.Exit(m.Run())
}

func groupHelper(mode string) int {
	if mode == "sleep" {
		time.Sleep(time.Minute)
		return 0
	}
	gc := exec.Command(os.Args[0], "-test.run=^$")
	gc.Env = append(os.Environ(), helperEnv+"=sleep")
	if err := gc.Start(); err != nil {
		return 3
	}
	if err := os.WriteFile(os.Getenv("AIDEX_PROC_GROUP_PIDFILE"), []byte(strconv.Itoa(gc.Process.Pid)), 0o644); err != nil {
		return 4
	}
	if mode == "stay" {
		time.Sleep(time.Minute)
	}
	return 0
}

// TestRunEndsGrandchildren: a timeout, a cancellation and the command's
// own exit end every process the command started, grandchildren
// included (a process group on Unix, a Job Object on Windows).
func TestRunEndsGrandchildren(t *testing.T) {
	for _, c := range []struct {
		name, mode string
		cancel     bool
	}{{"timeout", "stay", false}, {"cancel", "stay", true}, {"exit", "exit", false}} {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			timeout := time.Minute
			if !c.cancel {
				timeout = 3 * time.Second
			}
			if c.cancel {
				go func() {
					for range 200 {
						if _, err := os.Stat(pidFile); err == nil {
							break
						}
						time.Sleep(50 * time.Millisecond)
					}
					cancel()
				}()
			}
			o := Run(ctx, Spec{Argv: []string{os.Args[0], "-test.run=^$"}, Dir: t.TempDir(), Timeout: timeout,
				Env: append(os.Environ(), helperEnv+"="+c.mode, "AIDEX_PROC_GROUP_PIDFILE="+pidFile)})
			if !o.Ran {
				t.Fatalf("the command did not run: %v", o.Err)
			}
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatalf("no grandchild pid: %v (outcome %+v)", err, o)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			deadline := time.Now().Add(10 * time.Second)
			for Alive(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("grandchild %d still runs after the command ended (%s)", pid, c.name)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

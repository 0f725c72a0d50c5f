//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows

package filelock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hammerEnv makes the test binary a locker process (see hammer) instead of
// running the tests.
const hammerEnv = "AIDEX_FILELOCK_HAMMER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(hammerEnv); spec != "" {
		os.Exit(hammerMain(spec))
	}
	os.Exit(m.Run())
}

// A removable lock is held by one locker at a time, and removed once
// released: many lockers (each its own open, as separate processes are)
// hammering one path never hold it together, and no file remains.
func TestRemovableLockOneHolderAndNoFileLeft(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.lock")
	var holders, maxHolders, took atomic.Int32 // maxHolders: the most seen above 1
	var wg sync.WaitGroup
	deadline := time.Now().Add(700 * time.Millisecond)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				h, err := TryLockRemovable(path, 0o600)
				if errors.Is(err, ErrLocked) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				if n := holders.Add(1); n > 1 {
					maxHolders.Store(n)
				}
				took.Add(1)
				fmt.Fprintf(h.File(), "%d\n", os.Getpid())
				time.Sleep(50 * time.Microsecond)
				holders.Add(-1)
				h.Release()
			}
		}()
	}
	wg.Wait()
	if m := maxHolders.Load(); m != 0 {
		t.Errorf("%d lockers held the lock at once", m)
	}
	if took.Load() < 10 {
		t.Errorf("the lock was taken only %d times", took.Load())
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file remains after its last release: %v", err)
	}
}

// The same across processes: two aidex processes hammering one session's
// lock log when they enter and leave it; the log never shows both inside,
// and no lock file remains.
func TestRemovableLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	path, log := filepath.Join(dir, "s.lock"), filepath.Join(dir, "log")
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), hammerEnv+"="+path+"|"+log+"|600ms")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("locker process: %v", err)
		}
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inside, entries := "", 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		what, pid, _ := strings.Cut(sc.Text(), " ")
		switch what {
		case "in":
			if inside != "" {
				t.Fatalf("process %s took the lock while %s held it", pid, inside)
			}
			inside = pid
			entries++
		case "out":
			inside = ""
		}
	}
	if entries < 10 {
		t.Errorf("the lock was taken only %d times", entries)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file remains after its last release: %v", err)
	}
}

// hammerMain takes and releases the lock at spec's path ("PATH|LOG|DURATION")
// until the duration passes, appending "in PID" and "out PID" to LOG while
// holding it.
func hammerMain(spec string) int {
	parts := strings.Split(spec, "|")
	d, err := time.ParseDuration(parts[2])
	if err != nil {
		return 2
	}
	pid := strconv.Itoa(os.Getpid())
	log, err := os.OpenFile(parts[1], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 2
	}
	defer log.Close()
	for end := time.Now().Add(d); time.Now().Before(end); {
		h, err := TryLockRemovable(parts[0], 0o600)
		if errors.Is(err, ErrLocked) {
			continue
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_, _ = log.WriteString("in " + pid + "\n")
		time.Sleep(20 * time.Microsecond)
		_, _ = log.WriteString("out " + pid + "\n")
		h.Release()
	}
	return 0
}

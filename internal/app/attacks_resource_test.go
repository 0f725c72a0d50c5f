package app

// Attack cases of TestAttackCasesEndToEnd: resource exhaustion (output,
// time, size, FIFOs, ReDoS, symlink loops).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	toolexec "github.com/zelvior/aidex/internal/tools/exec"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/tools"
)

// E-141: `yes` is cut at the output cap and killed at the timeout.
func caseYes(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	mustNotAllow(t, c, e.judge(t, "run_command", map[string]any{"command": "yes"}))
	r := e.runWith(t, e.permissive, "run_command", map[string]any{"command": "yes", "timeout": 1}, 30*time.Second)
	m := meta(t, r)
	if r.OK || !strings.Contains(r.Output, "timed out") {
		t.Errorf("yes: want a timeout failure, got ok=%v %s", r.OK, r.Error)
	}
	if !m.Truncated || len(r.Output) > toolexec.DefaultMaxOutputChars+1000 {
		t.Errorf("yes: output must be cut at %d characters: truncated=%v len=%d", toolexec.DefaultMaxOutputChars, m.Truncated, len(r.Output))
	}
}

// E-142: a huge timeout is clamped; cancelling kills the process group.
func caseSleepClamp(t *testing.T, e *attackEnv, c attackCase) {
	probe := fmt.Sprintf("aidex-attack-%d-%d", os.Getpid(), time.Now().UnixNano())
	// Positive control: the /proc scan finds a live process by its env.
	control := exec.Command("sleep", "30")
	control.Env = append(os.Environ(), "AIDEX_ATTACK_PROBE="+probe+"-control")
	if err := control.Start(); err != nil {
		t.Fatal(err)
	}
	found := processesWithEnv("AIDEX_ATTACK_PROBE=" + probe + "-control")
	_ = control.Process.Kill()
	_ = control.Wait()
	if len(found) != 1 {
		t.Fatalf("the /proc scan did not find the control process: %v", found)
	}
	t.Setenv("AIDEX_ATTACK_PROBE", probe)
	e.snap = e.snapshot(t)
	args := map[string]any{"command": str(c.Input, "command"), "timeout": 99999999}
	mustNotAllow(t, c, e.judge(t, "run_command", args))
	r := e.runWith(t, e.permissive, "run_command", args, 500*time.Millisecond)
	if !strings.Contains(r.Output, "clamped to the maximum 600 s") {
		t.Errorf("the timeout was not clamped to 600 s: %q", r.Output)
	}
	if r.OK || !strings.Contains(r.Output, "cancelled") {
		t.Errorf("want the command cancelled at the context deadline: ok=%v %q", r.OK, r.Output)
	}
	if pids := processesWithEnv("AIDEX_ATTACK_PROBE=" + probe); len(pids) > 0 {
		t.Errorf("processes of the cancelled command are still alive: %v", pids)
		for _, p := range pids {
			killPID(p)
		}
	}
}

// processesWithEnv lists live processes (not zombies) whose environment
// holds kv.
func processesWithEnv(kv string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(b), "\x00"), kv) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); err == nil {
			if f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

// E-144: a 10 GB sparse file is refused by size, without reading it.
func caseSparse(t *testing.T, e *attackEnv, c attackCase) {
	p := filepath.Join(e.ws, "big.bin")
	writeFile(t, p, "", 0o644)
	if err := os.Truncate(p, 10<<30); err != nil {
		t.Fatalf("sparse file: %v", err)
	}
	e.snap = e.snapshot(t)
	r := e.runWith(t, e.headless, "read_file", map[string]any{"path": "big.bin"}, 10*time.Second)
	if r.OK || !strings.Contains(r.Error, "limit") {
		t.Errorf("read_file of a 10 GB file: want a size refusal, got ok=%v %s", r.OK, r.Error)
	}
	r = e.runWith(t, e.headless, "grep", map[string]any{"pattern": "x", "path": "."}, 20*time.Second)
	if r.Category == string(tools.CategoryExecution) && strings.Contains(r.Error, "cancel") {
		t.Errorf("grep over a 10 GB sparse file did not finish: %s", r.Error)
	}
}

// E-146: a FIFO is refused without blocking.
func caseFIFO(t *testing.T, e *attackEnv, c attackCase) {
	p := filepath.Join(e.ws, "fifo")
	if err := mkfifo(p); err != nil {
		skipf(t, e, "mkfifo: %v", err)
	}
	e.snap = e.snapshot(t)
	call, refused := e.ts.Prepare("read_file", rawArgs(t, map[string]any{"path": "fifo"}))
	if refused != nil {
		return
	}
	if v := e.headless.Check(call); v.Decision != "allow" {
		return // refused by the policy: fine
	}
	done := make(chan agent.ToolResultInfo, 1)
	go func() { done <- runCall(e.ts, context.Background(), call) }()
	select {
	case r := <-done:
		if r.OK || !strings.Contains(r.Error, "not a regular file") {
			t.Errorf("read_file fifo: want 'not a regular file', got ok=%v %s", r.OK, r.Error)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("read_file blocked on the FIFO")
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
	}
	for _, name := range []string{"edit_file", "grep"} {
		args := map[string]any{"path": "fifo", "old_string": "a", "new_string": "b"}
		if name == "grep" {
			args = map[string]any{"path": "fifo", "pattern": "a"}
		}
		call, refused := e.ts.Prepare(name, rawArgs(t, args))
		if refused != nil {
			continue
		}
		go func() { done <- runCall(e.ts, context.Background(), call) }()
		select {
		case r := <-done:
			if r.OK && name == "edit_file" {
				t.Errorf("edit_file changed a FIFO")
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s blocked on the FIFO", name)
			if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}
	}
}

// E-147: a catastrophic-backtracking pattern runs in linear time.
func caseReDoS(t *testing.T, e *attackEnv, c attackCase) {
	var b strings.Builder
	for range 2000 {
		b.WriteString(strings.Repeat("a", 60) + "!\n")
	}
	b.WriteString("aaaa\n")
	writeFile(t, filepath.Join(e.ws, "redos.txt"), b.String(), 0o644)
	e.snap = e.snapshot(t)
	r := e.runWith(t, e.headless, "grep", map[string]any{"pattern": str(c.Input, "pattern"), "path": "."}, 20*time.Second)
	if !r.OK || !strings.Contains(r.Output, "redos.txt:2001") {
		t.Errorf("grep (a+)+$: want the one matching line, got ok=%v %s %s", r.OK, firstLine(r.Output), r.Error)
	}
}

// E-148: a deep tree with a symlink loop: the walk ends and does not
// follow the loop.
func caseGlobLoop(t *testing.T, e *attackEnv, c attackCase) {
	deep := e.ws
	for range 40 {
		deep = filepath.Join(deep, "d")
	}
	writeFile(t, filepath.Join(deep, "bottom.txt"), "x\n", 0o644)
	if err := os.Symlink(".", filepath.Join(e.ws, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(e.ws, "sub", "up")); err != nil {
		t.Fatal(err)
	}
	e.snap = e.snapshot(t)
	r := e.runWith(t, e.headless, "search_files", map[string]any{"pattern": str(c.Input, "pattern")}, 20*time.Second)
	if !r.OK || !strings.Contains(r.Output, "bottom.txt") {
		t.Errorf("search_files: want the deep file found, got ok=%v %s %s", r.OK, firstLine(r.Output), r.Error)
	}
	if strings.Contains(r.Output, "a/a/") || strings.Contains(r.Output, "up/sub/") {
		t.Errorf("search_files followed a symlink loop:\n%s", r.Output)
	}
	r = e.runWith(t, e.headless, "list_directory", map[string]any{"path": ".", "depth": 10}, 20*time.Second)
	if !r.OK || strings.Contains(r.Output, "a/a") {
		t.Errorf("list_directory: ok=%v %s", r.OK, r.Error)
	}
}

// E-149: the per-write cap (MaxWriteBytes; 2 GB is not materialised).
func caseWriteCap(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	args := map[string]any{"path": "x.txt", "content": strings.Repeat("x", tools.MaxWriteBytes+1)}
	j := e.judge(t, "write_file", args)
	mustNotAllow(t, c, j)
	if j.refused == nil && j.perm.Decision == "allow" {
		r := e.runCall(t, j.call, 20*time.Second)
		if r.OK || !strings.Contains(r.Error, "limit") {
			t.Errorf("write of %d bytes: want the size cap, got ok=%v %s", tools.MaxWriteBytes+1, r.OK, r.Error)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); err == nil {
		t.Errorf("x.txt was written")
	}
}

// E-152: many lines, and one huge line: the total cap holds.
func caseOutputCap(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	for _, cmd := range []string{str(c.Input, "command"), `head -c 300000 /dev/zero | tr '\0' a`} {
		r := e.runWith(t, e.permissive, "run_command", map[string]any{"command": cmd, "timeout": 20}, 30*time.Second)
		m := meta(t, r)
		if !r.OK || !m.Truncated || len(r.Output) > toolexec.DefaultMaxOutputChars+1000 {
			t.Errorf("%q: want the output cut at %d characters: ok=%v truncated=%v len=%d %s", cmd, toolexec.DefaultMaxOutputChars, r.OK, m.Truncated, len(r.Output), r.Error)
		}
	}
}

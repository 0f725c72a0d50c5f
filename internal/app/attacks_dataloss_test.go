package app

// Attack cases of TestAttackCasesEndToEnd: data loss (stale reads,
// atomic writes, file modes, concurrent sessions).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/tools"
)

// E-181: an edit after the user changed the file is refused.
func caseStaleRead(t *testing.T, e *attackEnv, c attackCase) {
	p := filepath.Join(e.ws, "a.txt")
	writeFile(t, p, "v1\n", 0o644)
	e.snap = e.snapshot(t)
	e.runWith(t, e.headless, "read_file", map[string]any{"path": "a.txt"}, 5*time.Second)
	writeFile(t, p, "v1\nuser edit\n", 0o644)
	r := e.runWith(t, e.permissive, "edit_file", map[string]any{"path": "a.txt", "old_string": "v1", "new_string": "v2"}, 5*time.Second)
	if r.OK || !strings.Contains(r.Error, "changed on disk") {
		t.Errorf("edit after an outside change: want 'changed on disk', got ok=%v %s", r.OK, r.Error)
	}
	if b, _ := os.ReadFile(p); string(b) != "v1\nuser edit\n" {
		t.Errorf("the user's change was lost: %q", b)
	}
}

// E-183: a concurrent reader sees the old or the new content, never a
// truncated file (the write is temp file + rename); no temp file is left.
func caseAtomicWrite(t *testing.T, e *attackEnv, c attackCase) {
	const size = 5 << 20
	p := filepath.Join(e.ws, "big.txt")
	oldC, newC := strings.Repeat("o", size-1)+"\n", strings.Repeat("n", size-1)+"\n"
	writeFile(t, p, oldC, 0o644)
	e.snap = e.snapshot(t)
	e.runWith(t, e.headless, "read_file", map[string]any{"path": "big.txt", "limit": 1}, 10*time.Second)
	stop := make(chan struct{})
	var bad []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(p)
			if err != nil || string(b) != oldC && string(b) != newC {
				bad = append(bad, fmt.Sprintf("len %d err %v", len(b), err))
				return
			}
		}
	}()
	r := e.runWith(t, e.permissive, "write_file", map[string]any{"path": "big.txt", "content": newC}, 20*time.Second)
	close(stop)
	wg.Wait()
	if !r.OK {
		t.Fatalf("write_file big.txt: %s", r.Error)
	}
	if len(bad) > 0 {
		t.Errorf("a reader saw a partial file: %v", bad)
	}
	ents, _ := os.ReadDir(e.ws)
	for _, d := range ents {
		if d.Name() != "big.txt" && strings.Contains(d.Name(), "big.txt") {
			t.Errorf("temporary file left behind: %s", d.Name())
		}
	}
}

// E-185: mode, CRLF and BOM survive write_file and edit_file.
func caseModeCRLF(t *testing.T, e *attackEnv, c attackCase) {
	p := filepath.Join(e.ws, "a.txt")
	writeFile(t, p, "\uFEFFline1\r\nline2\r\n", 0o755)
	e.snap = e.snapshot(t)
	e.runWith(t, e.headless, "read_file", map[string]any{"path": "a.txt"}, 5*time.Second)
	if r := e.runWith(t, e.permissive, "write_file", map[string]any{"path": "a.txt", "content": "line1\nline2\nline3\n"}, 5*time.Second); !r.OK {
		t.Fatalf("write_file: %s", r.Error)
	}
	check := func(step, want string) {
		b, _ := os.ReadFile(p)
		fi, _ := os.Stat(p)
		if string(b) != want || fi.Mode().Perm() != 0o755 {
			t.Errorf("after %s: mode %v content %q; want 0755 and %q", step, fi.Mode().Perm(), b, want)
		}
	}
	check("write_file", "\uFEFFline1\r\nline2\r\nline3\r\n")
	e.runWith(t, e.headless, "read_file", map[string]any{"path": "a.txt"}, 5*time.Second)
	if r := e.runWith(t, e.permissive, "edit_file", map[string]any{"path": "a.txt", "old_string": "line3", "new_string": "line4\nline5"}, 5*time.Second); !r.OK {
		t.Fatalf("edit_file: %s", r.Error)
	}
	check("edit_file", "\uFEFFline1\r\nline2\r\nline4\r\nline5\r\n")
}

// E-186: rm -rf through the shell needs approval (aidex does not snapshot
// shell changes); file-tool changes are checkpointed for rewind.
func caseCheckpoint(t *testing.T, e *attackEnv, c attackCase) {
	writeFile(t, filepath.Join(e.ws, "src", "main.go"), "package main\n", 0o644)
	e.snap = e.snapshot(t)
	mustNotAllow(t, c, e.judge(t, "run_command", map[string]any{"command": str(c.Input, "command")}))
	e.runWith(t, e.headless, "read_file", map[string]any{"path": "src/main.go"}, 5*time.Second)
	if r := e.runWith(t, e.permissive, "write_file", map[string]any{"path": "src/main.go", "content": "package other\n"}, 5*time.Second); !r.OK {
		t.Fatalf("write_file: %s", r.Error)
	}
	cps := e.env.Checkpoints.(*tools.MemCheckpointer).Entries()
	if len(cps) != 1 || !cps[0].Existed || string(cps[0].Old) != "package main\n" {
		t.Errorf("want one checkpoint with the old content, got %+v", cps)
	}
}

// E-189: two sessions edit the same file: the second is stale.
func caseConcurrentSessions(t *testing.T, e *attackEnv, c attackCase) {
	p := filepath.Join(e.ws, "a.txt")
	writeFile(t, p, "shared\n", 0o644)
	e.snap = e.snapshot(t)
	other := &attackEnv{}
	*other = *e
	other.env = tools.NewEnv(e.wsp)
	ts, err := newToolSet(e.reg, other.env, e.rt.Profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	other.ts = ts
	e.runWith(t, e.headless, "read_file", map[string]any{"path": "a.txt"}, 5*time.Second)
	other.runWith(t, other.headless, "read_file", map[string]any{"path": "a.txt"}, 5*time.Second)
	if r := e.runWith(t, e.permissive, "edit_file", map[string]any{"path": "a.txt", "old_string": "shared", "new_string": "first"}, 5*time.Second); !r.OK {
		t.Fatalf("first session's edit: %s", r.Error)
	}
	r := other.runWith(t, other.permissive, "edit_file", map[string]any{"path": "a.txt", "old_string": "shared", "new_string": "second"}, 5*time.Second)
	if r.OK || !strings.Contains(r.Error, "changed on disk") {
		t.Errorf("second session's stale edit: want 'changed on disk', got ok=%v %s", r.OK, r.Error)
	}
	if b, _ := os.ReadFile(p); string(b) != "first\n" {
		t.Errorf("a.txt = %q, want the first session's edit", b)
	}
}

package app

// Attack cases of TestAttackCasesEndToEnd: malformed arguments and tool
// names.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/kind"

	"github.com/zelvior/aidex/internal/tools"
)

func (e *attackEnv) noFile(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(e.ws, n)); err == nil {
			t.Errorf("%s was written", n)
		}
	}
}

// E-154, E-155, E-156, E-157, E-159: refused as write_file arguments; the
// run_command-shaped ones are also tried as run_command.
func caseMalformed(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	raw := str(c.Input, "raw")
	j := e.judge(t, "write_file", raw)
	if j.refused == nil {
		t.Errorf("write_file %s: want Prepare to refuse it, got %s", raw, j)
	} else if j.refused.Category != string(tools.CategoryValidation) {
		t.Errorf("write_file %s: want a validation error, got %s: %s", raw, j.refused.Category, j.refused.Error)
	}
	switch c.ID {
	case "E-155":
		if j := e.judge(t, "write_file", `{"path":123,"content":"x"}`); j.refused == nil || !strings.Contains(j.refused.Error, "path") {
			t.Errorf(`{"path":123,"content":"x"}: want a type error naming path, got %s`, j)
		}
		e.noFile(t, "123")
	case "E-156":
		if j := e.judge(t, "write_file", `{"path":"a.txt","path":"../../etc/passwd","content":"x"}`); j.refused == nil {
			t.Errorf("duplicate path keys: want a refusal, got %s", j)
		}
	case "E-157":
		j := e.judge(t, "run_command", raw)
		if j.refused == nil && j.head.Decision == "allow" {
			r := e.runCall(t, j.call, 10*time.Second)
			if !r.OK && !strings.Contains(r.Error, "timeout") {
				t.Errorf("run_command timeout -1: want the default or a timeout error, got %s", r.Error)
			}
		}
	case "E-159":
		j := e.judge(t, "run_command", raw)
		if j.refused == nil {
			if j.head.Decision == "allow" || j.perm.Decision == "allow" {
				t.Errorf("an empty command was allowed: %s", j)
			}
			if r := e.runCall(t, j.call, 5*time.Second); r.OK || !strings.Contains(r.Error, "empty") {
				t.Errorf("run_command with an empty command: want 'command is empty', got ok=%v %s", r.OK, r.Error)
			}
		} else if !strings.Contains(j.refused.Error, "command") {
			t.Errorf("want the error to name the command: %s", j.refused.Error)
		}
	}
	e.noFile(t, "a.txt")
}

// E-163: an ambiguous edit is refused.
func caseAmbiguousEdit(t *testing.T, e *attackEnv, c attackCase) {
	writeFile(t, filepath.Join(e.ws, "a.txt"), "a a a a a\n", 0o644)
	e.snap = e.snapshot(t)
	raw := str(c.Input, "raw")
	if j := e.judge(t, "write_file", raw); j.refused == nil {
		t.Errorf("write_file with edit arguments: want a refusal, got %s", j)
	}
	e.runWith(t, e.headless, "read_file", map[string]any{"path": "a.txt"}, 5*time.Second)
	r := e.runWith(t, e.permissive, "edit_file", raw, 5*time.Second)
	if r.OK || !strings.Contains(r.Error, "replace_all") {
		t.Errorf("ambiguous edit: want a refusal naming replace_all, got ok=%v %s", r.OK, r.Error)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(b) != "a a a a a\n" {
		t.Errorf("a.txt changed: %q", b)
	}
}

// E-164: a lone surrogate never corrupts the file.
func caseSurrogate(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	raw := str(c.Input, "raw")
	j := e.judge(t, "write_file", raw)
	mustNotAllow(t, c, j)
	if j.refused == nil && j.perm.Decision == "allow" {
		r := e.runCall(t, j.call, 5*time.Second)
		b, err := os.ReadFile(filepath.Join(e.ws, "a.txt"))
		if r.OK && (err != nil || !utf8.Valid(b)) {
			t.Errorf("a.txt is not valid UTF-8 after writing a lone surrogate: %q %v", b, err)
		}
		if !r.OK && err == nil {
			t.Errorf("the write failed but left a.txt: %q", b)
		}
	}
}

// E-167: a tool name with NUL never matches.
func caseNULToolName(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	mustRefuseUnknown(t, e.judge(t, "bash\x00rm", `{"command":"rm -rf ."}`))
	if j := e.judge(t, "write_file", str(c.Input, "raw")); j.refused == nil {
		t.Errorf("write_file %s: want a refusal, got %s", str(c.Input, "raw"), j)
	}
	e.noFile(t, "a.txt")
	if _, err := os.Stat(filepath.Join(e.ws, "notes.txt")); err != nil {
		t.Errorf("workspace file removed: %v", err)
	}
}

// E-168: "Write_File" is write_file by design (case-insensitive names);
// the policy judges it as write_file, so it is not auto-approved.
func caseCaseVariantTool(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	j := e.judge(t, str(c.Input, "tool"), str(c.Input, "raw"))
	if j.refused != nil {
		return // refusing the variant is safe too
	}
	if j.call.Name != "write_file" || j.call.Kind != kind.Write || j.call.ReadOnly {
		t.Errorf("Write_File must be judged as write_file (kind write): %+v", j.call)
	}
	if j.head.Decision != "deny" || j.inter.Decision != "ask" {
		t.Errorf("Write_File must need approval like write_file: %s", j)
	}
	e.noFile(t, "a.txt")
}

// E-179: NFC and NFD spellings get the same decisions and stay inside.
func caseNFC(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	nfc, nfd := "src/caf\u00e9.go", "src/cafe\u0301.go"
	a := e.judge(t, "write_file", map[string]any{"path": nfc, "content": "x"})
	b := e.judge(t, "write_file", map[string]any{"path": nfd, "content": "x"})
	mustNotAllow(t, c, a)
	mustNotAllow(t, c, b)
	if (a.refused == nil) != (b.refused == nil) || a.refused == nil && (a.head.Decision != b.head.Decision ||
		a.inter.Decision != b.inter.Decision || a.perm.Decision != b.perm.Decision) {
		t.Errorf("NFC and NFD spellings judged differently:\n%s\n%s", a, b)
	}
}

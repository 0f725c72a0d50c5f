package hooks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeConfiner records the hooks it confined; err makes Confine fail,
// off answers as with the sandbox mode off, line is Explain's answer and
// reverted the audit's.
type fakeConfiner struct {
	mu       sync.Mutex
	confined []string
	err      error
	off      bool
	line     string
	reverted []string
}

func (f *fakeConfiner) Confine(cmd *exec.Cmd) (bool, error) {
	if f.err != nil {
		return false, f.err
	}
	if f.off {
		return false, nil
	}
	f.mu.Lock()
	f.confined = append(f.confined, cmd.Args[len(cmd.Args)-1])
	f.mu.Unlock()
	return true, nil
}

func (f *fakeConfiner) Explain(string) string { return f.line }

func (f *fakeConfiner) Begin() func() []string { return func() []string { return f.reverted } }

// "sandbox": false (JSON) and sandbox = false (TOML) mark a hook
// Unsandboxed; absent or true leaves it sandboxed.
func TestLoadSandboxKey(t *testing.T) {
	dir := t.TempDir()
	global := write(t, filepath.Join(dir, "config.toml"),
		"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"t-out\"\nsandbox = false\n[[hooks.Stop.hooks]]\ncommand = \"t-in\"\nsandbox = true\n")
	claude := write(t, filepath.Join(dir, "home", ".claude", "settings.json"),
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "j-out", "sandbox": false}, {"type": "command", "command": "j-in"}]}]}}`)
	list, _, err := Load(Sources{GlobalTOML: global, ClaudeGlobal: claude})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, h := range list {
		got[h.Command] = h.Unsandboxed
	}
	want := map[string]bool{"t-out": true, "t-in": false, "j-out": true, "j-in": false}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: Unsandboxed = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}

// Every hook but those marked Unsandboxed goes through the Runner's
// Confiner; a Confiner error keeps the hook from running (fail closed);
// the sandbox's line and the audit's reverts reach the user's messages
// with the way out.
func TestFireConfinesHooks(t *testing.T) {
	dir := t.TempDir()
	hook := func(cmd string, out bool) Hook {
		return Hook{Event: Stop, Command: cmd, Timeout: DefaultTimeout, Unsandboxed: out}
	}
	t.Run("confined unless marked", func(t *testing.T) {
		f := &fakeConfiner{}
		r := &Runner{Hooks: []Hook{hook("true # in", false), hook("true # out", true)}, ProjectDir: dir, Sandbox: f}
		if _, err := r.Fire(context.Background(), Input{Event: Stop}); err != nil {
			t.Fatal(err)
		}
		if len(f.confined) != 1 || f.confined[0] != "true # in" {
			t.Errorf("confined %q, want only the sandboxed hook", f.confined)
		}
	})
	t.Run("confine error: not run", func(t *testing.T) {
		marker := filepath.Join(dir, "ran")
		r := &Runner{Hooks: []Hook{hook("touch "+marker, false)}, ProjectDir: dir, Sandbox: &fakeConfiner{err: errors.New("no helper")}}
		out, err := r.Fire(context.Background(), Input{Event: Stop})
		if err != nil {
			t.Fatal(err)
		}
		if fileExists(marker) {
			t.Error("a hook the sandbox could not confine ran")
		}
		if len(out.Messages) != 1 || !strings.Contains(out.Messages[0], "sandbox: no helper") || !strings.Contains(out.Messages[0], `"sandbox": false`) {
			t.Errorf("messages = %q", out.Messages)
		}
	})
	t.Run("explained failure", func(t *testing.T) {
		r := &Runner{Hooks: []Hook{hook("exit 1", false)}, ProjectDir: dir, Sandbox: &fakeConfiner{line: "sandbox: /x is outside"}}
		out, _ := r.Fire(context.Background(), Input{Event: Stop})
		if len(out.Messages) != 1 || !strings.Contains(out.Messages[0], "exit code 1; sandbox: /x is outside") ||
			strings.Contains(out.Messages[0], "\n") {
			t.Errorf("messages = %q", out.Messages)
		}
	})
	t.Run("reverts reported", func(t *testing.T) {
		r := &Runner{Hooks: []Hook{hook("true", false)}, ProjectDir: dir, Sandbox: &fakeConfiner{reverted: []string{"removed .git/hooks/pre-commit"}}}
		out, _ := r.Fire(context.Background(), Input{Event: Stop})
		if len(out.Messages) != 1 || !strings.Contains(out.Messages[0], "removed .git/hooks/pre-commit") {
			t.Errorf("messages = %q", out.Messages)
		}
	})
	t.Run("sandbox off: no explanation asked", func(t *testing.T) {
		r := &Runner{Hooks: []Hook{hook("exit 1", false)}, ProjectDir: dir, Sandbox: &fakeConfiner{off: true, line: "sandbox: wrong"}}
		out, _ := r.Fire(context.Background(), Input{Event: Stop})
		if len(out.Messages) != 1 || strings.Contains(out.Messages[0], "sandbox") {
			t.Errorf("messages = %q", out.Messages)
		}
	})
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

//go:build unix

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestToolURLFormsDenied is hole 11 of issue 22 through `aidex tool`:
// every spelling of a denied URL is denied (exit 3), even in yolo mode.
func TestToolURLFormsDenied(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	for _, u := range []string{"https://blocked.example/x", "HTTPS://BLOCKED.EXAMPLE/x", "https://blocked.example:443/x",
		"https://blocked.example./x", "https://u@blocked.example/x", " https://blocked.example/x", "https://blocked%2Eexample/x",
		"https://ｂｌｏｃｋｅｄ.example/x", "https://blocked.example"} {
		r := e.run(context.Background(), "tool", "web_fetch", "--permission-mode", "yolo",
			"--deny", "web_fetch(https://blocked.example/*)", "--args", string(mustJSON(map[string]string{"url": u})))
		if r.code != ExitDenied || !strings.Contains(r.stdout, "web_fetch(https://blocked.example/*)") {
			t.Errorf("web_fetch %q: exit %d (want %d)\n%s%s", u, r.code, ExitDenied, r.stdout, r.stderr)
		}
	}
}

// TestToolShellThroughLinksAndGit is holes 3, 9 and 3b of issue 22
// through `aidex tool`: globs and recursive reads through links out of the
// workspace are denied in plan mode with nothing printed from outside, a
// hostile repository's programs do not run for read-only git, a HEAD file
// at the root is refused, and everyday read-only commands still run.
func TestToolShellThroughLinksAndGit(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	outside := t.TempDir()
	mustWriteFile(t, filepath.Join(e.home, ".ssh", "known_hosts"), "HOSTS-FROM-HOME\n")
	mustWriteFile(t, filepath.Join(e.home, ".ssh", "id_rsa"), "PRIVATE-KEY-FROM-HOME\n")
	mustWriteFile(t, filepath.Join(outside, "secret.txt"), "OUTSIDE-SECRET key\n")
	e.write("README.md", "# readme foo\n")
	e.write("src/a.go", "package a // foo\n")
	e.git("add", "README.md", "src/a.go")
	e.git("commit", "-q", "-m", "first")
	marker := filepath.Join(outside, "ran")
	e.git("config", "core.fsmonitor", "touch "+marker+"; false")
	e.git("config", "diff.evil.textconv", "touch "+marker+"; cat")
	hook := filepath.Join(e.ws, ".git", "hooks", "post-index-change")
	mustWriteFile(t, hook, "#!/bin/sh\ntouch "+marker+"\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".gitattributes", "*.md diff=evil\n")
	e.write("README.md", "# readme foo\nmore\n")
	run := func(cmd, mode string) result {
		return e.run(context.Background(), "tool", "run_command", "--permission-mode", mode, "--args", string(mustJSON(map[string]string{"command": cmd})))
	}
	for _, c := range []struct{ cmd, want string }{
		{"git status", "README.md"}, {"git log --oneline -5", "first"}, {"git diff", "+more"}, {"git show HEAD --stat", "first"},
		{"cat README.md", "readme"}, {"grep -rn foo .", "src/a.go"}, {"ls -R", "a.go"},
	} {
		if r := run(c.cmd, "plan"); r.code != ExitOK || !strings.Contains(r.stdout, c.want) {
			t.Errorf("plan mode %q: exit %d, want 0 and %q\n%s%s", c.cmd, r.code, c.want, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a read-only git command ran a program from the repository")
	}
	if err := os.Symlink(filepath.Join(e.home, ".ssh"), filepath.Join(e.ws, "docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.ws, "data")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"cat doc*/id_*", "cat doc*/known_hosts", "cat */known_hosts", "cat dat*/secret.txt",
		"cat {data,x}/secret.txt", "cat data/../" + filepath.Base(outside) + "/secret.txt", "grep -R key .", "grep -r key .", "rg -L key"} {
		r := run(cmd, "plan")
		if r.code != ExitDenied || strings.Contains(r.stdout, "FROM-HOME") || strings.Contains(r.stdout, "OUTSIDE-SECRET") {
			t.Errorf("plan mode %q: exit %d (want %d)\n%s%s", cmd, r.code, ExitDenied, r.stdout, r.stderr)
		}
	}
	r := e.run(context.Background(), "tool", "write_file", "--permission-mode", "yolo", "--args", `{"path":"HEAD","content":"ref: refs/heads/main\n"}`)
	if _, err := os.Stat(filepath.Join(e.ws, "HEAD")); r.code != ExitDenied || err == nil {
		t.Errorf("write_file HEAD in yolo: exit %d (want %d)\n%s", r.code, ExitDenied, r.stdout)
	}
}

func mustWriteFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

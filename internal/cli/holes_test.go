//go:build unix

package cli

import (
	"context"
	"encoding/json"
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

// TestOptionHolesDeniedInPlanMode runs samples of holes 2, 4, 5 and 12 of
// issue 22 through `aidex tool run_command` in plan mode: each must exit
// with ExitDenied and leave no trace (no file deleted or created, no
// config changed, nothing from outside the workspace printed).
func TestOptionHolesDeniedInPlanMode(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	e.write("a.txt", "hello\n")
	outside := filepath.Join(filepath.Dir(e.ws), "outside.txt")
	if err := os.WriteFile(outside, []byte("TOPSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitConfig := e.read(".git/config")
	cases := []struct {
		cmd     string
		created string // a path (relative to the workspace) that must not exist afterwards
	}{
		{"find -- . -delete", ""},
		{"find -- . -fprint F", "F"},
		{"find -L -- . -fprint0 G", "G"},
		{"find . -- -delete", ""},
		{"find -H -- . -fls H", "H"},
		{"find -- . -name a.txt -exec rm a.txt ;", ""},
		{"git config user.name evil", ""},
		{"git config --global user.name evil", "../home/.gitconfig"},
		{"git config --glo core.fsmonitor 'touch pwned'", "../home/.gitconfig"},
		{"git config --add core.fsmonitor 'touch pwned'", ""},
		{"git config set user.name evil", ""},
		{"sed -n '1e touch pwned' a.txt", "pwned"},
		{"sed 's/h/H/w pwned' a.txt", "pwned"},
		{"sed -n 'w pwned' a.txt", "pwned"},
		{"sed --expr='e touch pwned' a.txt", "pwned"},
		{"env -C .. touch pwned", "../pwned"},
		{"env --chdi=.. touch pwned", "../pwned"},
		{"timeout --kill 5 10 touch pwned", "pwned"},
		{"nice --adj 5 touch pwned", "pwned"},
		{"strace -o pwned ls", "pwned"},
		{"xargs -a ../outside.txt echo", ""},
		{"xargs --arg-file=../outside.txt echo", ""},
		{"env -C .. cat outside.txt", ""},
		{"env --chdir=.. cat outside.txt", ""},
		{"tar -C .. -cf ws/pwned.tar outside.txt", "pwned.tar"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": c.cmd})
			r := e.run(context.Background(), "tool", "run_command", "--args", string(args), "--permission-mode", "plan")
			if r.code != ExitDenied {
				t.Errorf("exit %d, want %d (denied); stdout %s stderr %s", r.code, ExitDenied, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "TOPSECRET") {
				t.Errorf("a file outside the workspace was printed: %s", r.stdout)
			}
			if got := e.read("a.txt"); got != "hello\n" {
				t.Errorf("a.txt is now %q", got)
			}
			if got := e.read(".git/config"); got != gitConfig {
				t.Errorf(".git/config changed:\n%s", got)
			}
			if c.created != "" {
				if _, err := os.Lstat(filepath.Join(e.ws, c.created)); err == nil {
					t.Errorf("%s was created", c.created)
				}
			}
		})
	}
}

// TestEverydayReadOnlyAfterOptions: everyday read-only commands still run
// in plan mode.
func TestEverydayReadOnlyAfterOptions(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	e.write("a.txt", "hello\n")
	e.write("src/x.go", "package x\n")
	for _, cmd := range []string{"find . -name '*.go' -print", "find . -type f -newer a.txt", "sed -n '1,20p' a.txt",
		"env LANG=C ls", "timeout 5 ls", "nice ls", "echo a.txt | xargs -0 echo", "git config --list"} {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		r := e.run(context.Background(), "tool", "run_command", "--args", string(args), "--permission-mode", "plan")
		if r.code != ExitOK {
			t.Errorf("%q: exit %d, want 0; stdout %s stderr %s", cmd, r.code, r.stdout, r.stderr)
		}
	}
}

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

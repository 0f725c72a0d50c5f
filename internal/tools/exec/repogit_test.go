//go:build unix

package exec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// A repository's own fsmonitor, pager and filter programs must not run
// when a shell command calls git (attack cases E-078, E-082, E-083).
func TestRunCommandNeutralisesRepoGitPrograms(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	f := newExecFixture(t, Options{})
	ws, outside := f.Root, f.Outside
	marker := filepath.Join(outside, "ran")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run("init", "-q")
	run("config", "core.fsmonitor", "touch "+marker)
	run("config", "core.pager", "touch "+marker)
	run("config", "filter.x.clean", "touch "+marker)
	if err := os.WriteFile(filepath.Join(ws, ".gitattributes"), []byte("* filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"git status", "git add a.txt", "git -p log || true", "git diff --cached"} {
		r := f.Call("run_command", map[string]any{"command": c})
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q ran a program from the repository's config (%s)", c, r.Output)
		}
	}
	env := proc.ChildEnviron([]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=evil"}, nil, proc.EnvPolicy{})
	got, err := proc.RepoGitEnviron(context.Background(), ws, env)
	if err != nil || proc.EnvValue(got, "GIT_CONFIG_VALUE_0") == "evil" || proc.EnvValue(got, "GIT_CONFIG_COUNT") == "" {
		t.Errorf("overrides: %v %v", got, err)
	}
	if got, err := proc.RepoGitEnviron(context.Background(), outside, env); err != nil || len(got) != len(env) {
		t.Errorf("overrides outside a repository: %v %v", got, err)
	}
}

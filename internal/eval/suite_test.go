package eval

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The project's own suite (bench/eval/tasks): every task loads, its tests
// fail on the starting files (a task its tests do not test is broken) and
// pass after its reference solution (a task whose solution fails is
// broken).
func TestOwnSuiteSolutionsPass(t *testing.T) {
	tasks, err := LoadSuite(filepath.Join("..", "..", "bench", "eval", "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 20 {
		t.Fatalf("%d tasks, want about 20 across Go, Python, JavaScript and shell", len(tasks))
	}
	tools := map[string]string{"go": "go", "python": "python3", "javascript": "node", "shell": "sh"}
	for _, task := range tasks {
		t.Run(task.ID, func(t *testing.T) {
			t.Parallel()
			for _, tag := range task.Tags {
				if bin, ok := tools[tag]; ok {
					if _, err := exec.LookPath(bin); err != nil && os.Getenv("CI") == "" {
						t.Skipf("%s is not installed", bin)
					}
				}
			}
			if ok, out := runOwnTask(t, task, false); ok {
				t.Errorf("its tests pass on the starting files:\n%s", out)
			}
			if ok, out := runOwnTask(t, task, true); !ok {
				t.Errorf("its reference solution fails its tests:\n%s", out)
			}
		})
	}
}

// runOwnTask copies task's environment into a fresh workspace (a git
// repository, as attempts get), runs the reference solution when solve
// is set, then the tests; it reports whether they passed.
func runOwnTask(t *testing.T, task Task, solve bool) (bool, string) {
	t.Helper()
	root := t.TempDir()
	ws, tests := filepath.Join(root, "ws"), filepath.Join(root, "tests")
	if _, err := prepareWorkspace(t.Context(), task, ws); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Join(task.Dir, "tests"), tests, nil); err != nil {
		t.Fatal(err)
	}
	script := "TESTS_DIR=" + shellQuote(tests) + " sh " + shellQuote(filepath.Join(tests, "test.sh"))
	if solve {
		script = "sh " + shellQuote(filepath.Join(task.Dir, "solution", "solve.sh")) + " && " + script
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

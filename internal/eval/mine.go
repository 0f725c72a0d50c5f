package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// MineOptions are `aidex eval mine`'s: the repository (its top folder),
// Since (a commit or ref: only commits after it; "" = the last Window
// commits of HEAD's first-parent history), Max tasks to write, the test
// command ("" = detected), Out (the suite folder tasks are written to),
// Work (a folder for throw-away checkouts, under aidex's state dir) and
// the time limit of one test run.
type MineOptions struct {
	Repo        string
	Since       string
	Max         int
	Window      int
	TestCommand string
	Out         string
	Work        string
	Timeout     time.Duration
	Verifier    Verifier
	// Progress, when set, is told about each commit examined.
	Progress func(commit, verdict string)
}

// Mined is a task mine wrote, or a commit it passed over (Task "" and
// Why set).
type Mined struct {
	Commit string `json:"commit"`
	Task   string `json:"task,omitempty"`
	Why    string `json:"why,omitempty"`
}

// DetectTestCommand returns the test command of the project in dir: go
// test (go.mod), pytest (pyproject.toml, setup.py, setup.cfg, pytest.ini,
// tox.ini), npm test (package.json with a test script), cargo test
// (Cargo.toml); "" when none is found.
func DetectTestCommand(dir string) string {
	has := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	switch {
	case has("go.mod"):
		return "go test ./..."
	case has("pyproject.toml"), has("setup.py"), has("setup.cfg"), has("pytest.ini"), has("tox.ini"):
		return "python3 -m pytest -q"
	case has("Cargo.toml"):
		return "cargo test"
	case has("package.json"):
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		data, _ := os.ReadFile(filepath.Join(dir, "package.json"))
		if json.Unmarshal(data, &pkg) == nil && pkg.Scripts["test"] != "" {
			return "npm test"
		}
	}
	return ""
}

// IsTestFile reports whether a repository path (slash-separated) is a
// test: Go's _test.go, Python's test_*.py and *_test.py, JavaScript's and
// TypeScript's *.test.* and *.spec.*, or a file under a tests, test or
// __tests__ folder.
func IsTestFile(p string) bool {
	base := path.Base(p)
	for _, dir := range strings.Split(path.Dir(p), "/") {
		if dir == "tests" || dir == "test" || dir == "__tests__" {
			return true
		}
	}
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return true
	case strings.HasSuffix(base, ".py"):
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
	}
	for _, mid := range []string{".test.", ".spec."} {
		if strings.Contains(base, mid) {
			return true
		}
	}
	return false
}

// Mine finds the commits whose own test changes fail on the parent and
// pass on the commit, and writes a task for each (at most Max) into Out:
// the instruction is the commit message, the workspace the parent with
// the commit's test files left out, the verifier those test files put
// back and the test command run. Every checkout is a throw-away clone
// under Work: the repository's working tree and uncommitted changes are
// never touched. Errors: no test command; git's; Out cannot be written.
func Mine(ctx context.Context, o MineOptions) ([]Mined, error) {
	if o.TestCommand == "" {
		o.TestCommand = DetectTestCommand(o.Repo)
	}
	if o.TestCommand == "" {
		return nil, fmt.Errorf("no test command found in %s: set verify_command or pass --test-command", o.Repo)
	}
	rng := "HEAD"
	if o.Since != "" {
		rng = o.Since + "..HEAD"
	}
	list, err := git(ctx, o.Repo, "rev-list", "--first-parent", "--no-merges", fmt.Sprintf("--max-count=%d", max(o.Window, 1)), rng)
	if err != nil {
		return nil, err
	}
	var out []Mined
	found := 0
	for _, c := range strings.Fields(list) {
		if found >= max(o.Max, 1) {
			break
		}
		m := mineCommit(ctx, o, c)
		if o.Progress != nil {
			o.Progress(c, m.verdict())
		}
		if m.Task != "" {
			found++
		}
		out = append(out, m)
	}
	return out, ctx.Err()
}

// verdict is a one-line account of a commit examined.
func (m Mined) verdict() string {
	if m.Task != "" {
		return "task " + m.Task
	}
	return "skipped: " + m.Why
}

// mineCommit examines commit c: its test files, the tests on the parent
// with them (must fail) and on c (must pass), then writes its task.
func mineCommit(ctx context.Context, o MineOptions, c string) Mined {
	m := Mined{Commit: c}
	parent, err := git(ctx, o.Repo, "rev-parse", "--verify", "--quiet", c+"^")
	if err != nil {
		m.Why = "no parent (the first commit)"
		return m
	}
	parent = strings.TrimSpace(parent)
	changed, err := git(ctx, o.Repo, "diff", "--name-only", "--no-renames", "--diff-filter=AM", parent, c)
	if err != nil {
		m.Why = err.Error()
		return m
	}
	var tests, code []string
	for _, f := range strings.Fields(changed) {
		if IsTestFile(f) {
			tests = append(tests, f)
		} else {
			code = append(code, f)
		}
	}
	switch {
	case len(tests) == 0:
		m.Why = "changes no test"
		return m
	case len(code) == 0:
		m.Why = "changes only tests"
		return m
	}
	if m.Why = checkFix(ctx, o, parent, c, tests); m.Why != "" {
		return m
	}
	id := "commit-" + c[:min(12, len(c))]
	if err := writeMinedTask(ctx, o, id, parent, c, tests); err != nil {
		m.Why = err.Error()
		return m
	}
	m.Task = id
	return m
}

// checkFix runs the test command in a throw-away clone: at parent with
// c's test files it must fail, at c it must pass. It returns why not
// ("" when both hold).
func checkFix(ctx context.Context, o MineOptions, parent, c string, tests []string) string {
	dir, err := os.MkdirTemp(o.Work, "mine-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "repo")
	if _, err := git(ctx, dir, "clone", "--quiet", "--shared", "--no-checkout", o.Repo, ws); err != nil {
		return err.Error()
	}
	if _, err := git(ctx, ws, "checkout", "--quiet", "--detach", parent); err != nil {
		return err.Error()
	}
	if _, err := git(ctx, ws, append([]string{"checkout", c, "--"}, tests...)...); err != nil {
		return err.Error()
	}
	if out := o.Verifier.Verify(ctx, ws, o.TestCommand, o.Timeout); out.OK {
		return "its tests pass on the parent already"
	}
	if _, err := git(ctx, ws, "checkout", "--quiet", "--force", "--detach", c); err != nil {
		return err.Error()
	}
	if out := o.Verifier.Verify(ctx, ws, o.TestCommand, o.Timeout); !out.OK {
		return fmt.Sprintf("its tests fail on the commit itself (exit %d)", out.ExitCode)
	}
	return ""
}

// writeMinedTask writes task id: instruction.md (the commit message),
// task.toml (the repository at parent, c's test files hidden), tests/
// (those files under files/, and test.sh putting them back and running
// the test command) and solution/ (c's other changes as a patch).
func writeMinedTask(ctx context.Context, o MineOptions, id, parent, c string, tests []string) error {
	dir := filepath.Join(o.Out, id)
	msg, err := git(ctx, o.Repo, "log", "-1", "--format=%B", c)
	if err != nil {
		return err
	}
	for _, f := range tests {
		content, err := git(ctx, o.Repo, "show", c+":"+f)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, "tests", "files", filepath.FromSlash(f)), content, 0o644); err != nil {
			return err
		}
	}
	fix, err := git(ctx, o.Repo, append([]string{"diff", "--binary", parent, c, "--", "."}, excludes(tests)...)...)
	if err != nil {
		return err
	}
	var tf taskFile
	tf.Metadata.ID, tf.Metadata.Tags = id, []string{"mined"}
	tf.Agent.TimeoutSec, tf.Verifier.TimeoutSec = DefaultAgentTimeout.Seconds(), max(o.Timeout, time.Minute).Seconds()
	tf.Environment.GitRepo, tf.Environment.GitCommit, tf.Environment.Hide = o.Repo, parent, tests
	data, err := toml.Marshal(tf)
	if err != nil {
		return err
	}
	files := map[string]string{
		"instruction.md":         strings.TrimSpace(msg) + "\n",
		"task.toml":              string(data),
		"tests/test.sh":          "#!/bin/sh\n# Put the commit's tests back, then run them.\nset -e\ncp -R \"$TESTS_DIR/files/.\" .\n" + o.TestCommand + "\n",
		"solution/fix.diff":      fix,
		"solution/solve.sh":      "#!/bin/sh\n# The commit's own fix.\nset -e\ngit apply \"$(dirname \"$0\")/fix.diff\"\n",
		"environment/README.txt": "The workspace is " + o.Repo + " at " + parent + " (task.toml [environment] git_repo, git_commit).\n",
	}
	for name, content := range files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(name)), content, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// excludes are git pathspecs leaving files out.
func excludes(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = ":(exclude)" + f
	}
	return out
}

// writeFile writes content to file, making its folders.
func writeFile(file, content string, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(content), perm)
}

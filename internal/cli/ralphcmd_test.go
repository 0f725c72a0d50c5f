package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// ralphEnv is a temp HOME/XDG environment whose config points at a
// scripted model, and a workspace.
type ralphEnv struct {
	t      *testing.T
	ws     string
	env    map[string]string
	script *llmtest.Script
}

func newRalphEnv(t *testing.T, turns ...llmtest.Turn) *ralphEnv {
	t.Helper()
	return newRalphEnvScript(t, llmtest.NewScript(t, turns...))
}

// newRalphEnvScript is newRalphEnv over a given model server.
func newRalphEnvScript(t *testing.T, script *llmtest.Script) *ralphEnv {
	t.Helper()
	e := &ralphEnv{t: t, ws: t.TempDir(), script: script}
	home := t.TempDir()
	e.env = map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache")}
	dir := filepath.Join(home, "config", "aidex")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	cfg := "provider = \"fake\"\nmodel = \"m\"\nmax_retries = 0\n\n[providers.fake]\ntype = \"openai\"\nbase_url = \"" + e.script.URL + "\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600))
	return e
}

// run executes `aidex -w WS ARGS...` in-process and returns the exit code,
// stdout and stderr, as Main would.
func (e *ralphEnv) run(stdin string, args ...string) (int, string, string) {
	e.t.Helper()
	var out, errb bytes.Buffer
	a := newApp(Process{Chat: chat.Run, Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return e.env[k] }, Version: "test"})
	root := newRootCmd(a)
	for _, b := range []func(*cliApp) *cobra.Command{newRalphCmd, newPlanCmd} {
		c := b(a)
		if found, _, err := root.Find([]string{c.Name()}); err != nil || found == root {
			root.AddCommand(c)
		}
	}
	root.SetArgs(append([]string{"-w", e.ws}, args...))
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(context.Background())
	code := ExitOK
	if err != nil {
		code = ExitFailure
		var ee *ExitError
		if errors.As(err, &ee) {
			code = ee.Code
		} else if !a.started {
			code = ExitUsage
		}
		errb.WriteString("aidex: " + err.Error() + "\n")
	}
	return code, out.String(), errb.String()
}

func (e *ralphEnv) tasks() []ralph.Task {
	e.t.Helper()
	tasks, err := ralph.NewStore(e.ws, nil).Tasks()
	require.NoError(e.t, err)
	return tasks
}

func completeCall(status, summary string) llmtest.Call {
	b, _ := json.Marshal(map[string]string{"status": status, "summary": summary})
	return llmtest.Call{Name: "complete_task", Args: string(b)}
}

func TestRalphCLIListFlow(t *testing.T) {
	e := newRalphEnv(t)
	code, out, errOut := e.run("", "ralph", "add", "Write hello", "-d", "create hello.txt", "-c", "hello.txt says hi", "-c", "nothing else", "-p", "P1")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "added T-001 [P1]: Write hello\n", out)
	code, out, _ = e.run("", "ralph", "add", "Ship it", "--type", "story", "--depends-on", "T-001")
	require.Equal(t, 0, code)
	require.Contains(t, out, "added US-001 [P2]: Ship it")

	code, _, errOut = e.run("", "ralph", "add", "x", "--depends-on", "T-404")
	require.Equal(t, ExitFailure, code)
	require.Contains(t, errOut, "T-404, which is not in the list")
	code, _, errOut = e.run("", "ralph", "add", "x", "--priority", "P7")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "P0 (most urgent)")

	code, out, _ = e.run("", "ralph", "list")
	require.Equal(t, 0, code)
	require.Regexp(t, `T-001\s+P1\s+pending\s+task\s+Write hello`, out)
	require.Regexp(t, `US-001\s+P2\s+pending\s+story\s+Ship it\s+after T-001`, out)
	require.Contains(t, out, "2 pending · 0 in progress")

	code, out, _ = e.run("", "ralph", "list", "--json")
	require.Equal(t, 0, code)
	var snap ralph.Snapshot
	require.NoError(t, json.Unmarshal([]byte(out), &snap))
	require.Len(t, snap.Tasks, 2)
	require.False(t, snap.Running)
	require.Equal(t, 2, snap.Counts[ralph.StatusPending])

	code, out, _ = e.run("", "ralph", "show", "write-hello")
	require.Equal(t, 0, code)
	require.Contains(t, out, "T-001: Write hello")
	require.Contains(t, out, "- hello.txt says hi")
	code, _, errOut = e.run("", "ralph", "show", "nope")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `no task "nope"`)

	md := filepath.Join(t.TempDir(), "todo.md")
	require.NoError(t, os.WriteFile(md, []byte("- [ ] [P0] Imported one\n  - it works\n- [x] Imported done\n"), 0o644))
	code, out, _ = e.run("", "ralph", "import", md)
	require.Equal(t, 0, code)
	require.Contains(t, out, "added T-002 [P0]: Imported one")
	require.Contains(t, out, "imported 2 tasks")
	code, out, _ = e.run(`["from stdin"]`, "ralph", "import", "-")
	require.Equal(t, 0, code)
	require.Contains(t, out, "added T-004 [P2]: from stdin")

	code, out, _ = e.run("", "ralph", "stop")
	require.Equal(t, 0, code)
	require.Contains(t, out, "no Ralph run is going")
	code, out, _ = e.run("", "ralph", "remove", "T-004")
	require.Equal(t, 0, code)
	require.Contains(t, out, "removed T-004")
	code, out, _ = e.run("", "ralph", "clear")
	require.Equal(t, 0, code)
	require.Equal(t, "removed 4 tasks\n", out)
	require.Empty(t, e.tasks())
}

func TestRalphCLIRun(t *testing.T) {
	e := newRalphEnv(t,
		// T-001 (P0): writes a file and reports done.
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hi\n"}`}}},
		llmtest.Turn{Text: "Wrote it.", Calls: []llmtest.Call{completeCall("done", "created hello.txt")}},
		llmtest.Turn{Text: "All set."},
		// T-002: reports failed.
		llmtest.Turn{Calls: []llmtest.Call{completeCall("failed", "needs a database")}},
		llmtest.Turn{Text: "Sorry."},
	)
	_, _, _ = e.run("", "ralph", "add", "second", "-p", "P2")
	_, _, _ = e.run("", "ralph", "add", "first", "-p", "P0")
	code, out, errOut := e.run("", "ralph", "run", "--permission-mode", "auto-edit", "--verify", "test -f hello.txt")
	require.Equal(t, ExitFailure, code, out+errOut)
	require.Contains(t, errOut, "1 task(s) failed: T-001")
	lines := out
	require.Less(t, strings.Index(lines, "[T-002] P0 task: first"), strings.Index(lines, "[T-001] P2 task: second"), lines)
	require.Contains(t, lines, "  > write_file")
	require.Contains(t, lines, "verify passed")
	require.Contains(t, lines, "[T-002] done: created hello.txt")
	require.Contains(t, lines, "[T-001] FAILED (reported): needs a database")
	require.Contains(t, lines, "finished (completed): ran 2 · done 1 · failed 1")
	data, err := os.ReadFile(filepath.Join(e.ws, "hello.txt"))
	require.NoError(t, err)
	require.Equal(t, "hi\n", string(data))

	tasks := e.tasks()
	require.Equal(t, ralph.StatusFailed, tasks[0].Status)
	require.Equal(t, ralph.StatusDone, tasks[1].Status)
	// The session of a task can be opened.
	code, out, _ = e.run("", "sessions", "show", tasks[1].SessionID)
	require.Equal(t, 0, code)
	require.Contains(t, out, "created hello.txt")

	// Reset and run that task again: the script now answers "done"
	// without reporting (twice, after the nudge), so it fails again.
	code, out, _ = e.run("", "ralph", "reset", "T-001")
	require.Equal(t, 0, code)
	require.Contains(t, out, "T-001 is pending again")
	code, out, _ = e.run("", "ralph", "run", "--json", "--task", "T-001")
	require.Equal(t, ExitFailure, code)
	var last ralph.Event
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		require.NoError(t, dec.Decode(&last))
	}
	require.Equal(t, ralph.EventFinished, last.Type)
	require.Equal(t, []string{"T-001"}, last.Summary.Failed)
}

func TestRalphCLIRunExitCodes(t *testing.T) {
	e := newRalphEnv(t, llmtest.Turn{Text: "a <promise>COMPLETE</promise>"}, llmtest.Turn{Text: "b <promise>COMPLETE</promise>"})
	_, _, _ = e.run("", "ralph", "add", "a")
	_, _, _ = e.run("", "ralph", "add", "b")
	code, out, errOut := e.run("", "-q", "ralph", "run", "--max-iterations", "1")
	require.Equal(t, ExitLimit, code, out+errOut)
	require.Contains(t, errOut, "--max-iterations reached with 1 task(s) pending")
	require.NotContains(t, out, "session ", "-q prints task lines only")
	code, out, _ = e.run("", "ralph", "run", "--permission-mode", "auto-edit")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "finished (completed): ran 1 · done 1")
	code, out, errOut = e.run("", "ralph", "run")
	require.Equal(t, 0, code)
	require.Contains(t, out, "ran 0")
	require.Contains(t, errOut, `permission mode "ask"`, "the user is told writes will be denied")
	code, _, errOut = e.run("", "ralph", "run", "--max-attempts", "0")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "--max-attempts at least 1")
}

func TestPlanCLI(t *testing.T) {
	proposal := `{"tasks":[{"id":"T-001","title":"Add the parser","description":"in parse.go","acceptance_criteria":["go test ./... passes"],"priority":"P1"},` +
		`{"id":"T-002","title":"Document it","description":"README","acceptance_criteria":["README has a Parser section"],"priority":"P3","depends_on":["T-001"]}]}`
	turns := func() []llmtest.Turn {
		return []llmtest.Turn{
			{Calls: []llmtest.Call{{Name: "list_tasks", Args: `{}`}}},
			{Calls: []llmtest.Call{{Name: "propose_tasks", Args: proposal}}},
			{Text: "Two tasks."},
		}
	}
	e := newRalphEnv(t, append(append(turns(), turns()...), turns()...)...)

	// stdin is not a terminal and no --yes: shown, not saved.
	code, out, errOut := e.run("", "plan", "add", "a", "parser")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "T-001 [P1] task: Add the parser")
	require.Contains(t, out, "  - [ ] go test ./... passes")
	require.Contains(t, out, "after: T-001")
	require.Contains(t, errOut, "nothing saved: rerun with --yes")
	require.Contains(t, errOut, "> list_tasks", "progress goes to stderr")
	require.Empty(t, e.tasks())
	require.Contains(t, string(e.script.Requests()[0]), "add a parser")

	// --json prints an importable list.
	code, out, _ = e.run("", "plan", "--json", "parser")
	require.Equal(t, 0, code)
	code, _, errOut = e.run(out, "ralph", "import", "-")
	require.Equal(t, 0, code, errOut)
	require.Len(t, e.tasks(), 2)

	// --yes saves, renumbering ids already in use.
	code, out, errOut = e.run("", "plan", "--yes", "parser")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "saved 2 tasks to ralph_tasks.json")
	tasks := e.tasks()
	require.Len(t, tasks, 4)
	require.Equal(t, "T-003", tasks[2].ID)
	require.Equal(t, []string{"T-003"}, tasks[3].DependsOn)

	code, _, errOut = e.run("", "plan", " ")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "goal is empty")
}

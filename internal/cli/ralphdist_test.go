package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// fileModel is a scripted model for Ralph workers: for the task its
// prompt names it writes <task>.txt, then reports the task done. hold
// makes the first request of one task wait until the test releases it
// (or the worker process dies).
type fileModel struct {
	mu       sync.Mutex
	first    map[string]int // first requests per task
	reported map[string]int // complete_task answers per task
	holdID   string
	hold     chan struct{}
	held     chan struct{}
}

var promptTaskID = regexp.MustCompile(`T-\d{3}`)

func newFileModel(holdID string) *fileModel {
	return &fileModel{first: map[string]int{}, reported: map[string]int{}, holdID: holdID,
		hold: make(chan struct{}), held: make(chan struct{}, 1)}
}

func (m *fileModel) respond(body []byte) llmtest.Turn {
	id := promptTaskID.FindString(string(body))
	m.mu.Lock()
	defer m.mu.Unlock()
	switch strings.Count(string(body), `"role":"tool"`) {
	case 0:
		m.first[id]++
		args, _ := json.Marshal(map[string]string{"path": id + ".txt", "content": "work of " + id + "\n"})
		turn := llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: string(args)}}}
		if id == m.holdID && m.first[id] == 1 {
			turn.Hold = m.hold
			m.held <- struct{}{}
		}
		return turn
	case 1:
		m.reported[id]++
		return llmtest.Turn{Calls: []llmtest.Call{completeCall("done", "wrote "+id+".txt")}}
	}
	return llmtest.Turn{Text: "Finished."}
}

func (m *fileModel) counts(id string) (int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.first[id], m.reported[id]
}

// newGitRalphEnv is a Ralph environment over the model whose workspace
// is a git repository with one commit and n tasks.
func newGitRalphEnv(t *testing.T, m *fileModel, n int) *ralphEnv {
	e := newRalphEnvScript(t, llmtest.NewResponder(t, m.respond))
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, ".gitignore"), []byte("ralph_tasks.json\n.aidex/\n"), 0o644))
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "Test User"},
		{"config", "user.email", "test@example.com"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		gitIn(t, e.ws, args...)
	}
	for i := 1; i <= n; i++ {
		code, _, errOut := e.run("", "ralph", "add", fmt.Sprintf("task %d", i))
		require.Equal(t, 0, code, errOut)
	}
	return e
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// aidex ralph run --workers 3 --merge: every task done once on its own
// branch, the branches merged into the workspace in dependency order,
// one line per event.
func TestRalphRunWorkersMerge(t *testing.T) {
	m := newFileModel("")
	e := newGitRalphEnv(t, m, 4)
	code, _, errOut := e.run("", "ralph", "add", "last", "--depends-on", "T-001", "--depends-on", "T-002")
	require.Equal(t, 0, code, errOut)
	code, out, errOut := e.run("", "ralph", "run", "--workers", "3", "--merge", "--permission-mode", "auto-edit", "--verify", "true")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	for _, task := range e.tasks() {
		require.Equal(t, ralph.StatusDone, task.Status, task.ID)
		first, reported := m.counts(task.ID)
		require.Equal(t, 1, first, task.ID)
		require.Equal(t, 1, reported, task.ID)
		require.FileExists(t, filepath.Join(e.ws, task.ID+".txt"), "merged")
		require.Regexp(t, `\[`+task.ID+`\] started on w\d \(attempt 1\)`, out)
		require.Regexp(t, `\[`+task.ID+`\] done on w\d \(ralph/`+task.ID+` [0-9a-f]{12}\): wrote `+task.ID+`.txt`, out)
		require.Contains(t, out, "["+task.ID+"] merged ralph/"+task.ID)
	}
	require.Less(t, strings.Index(out, "merged ralph/T-002"), strings.Index(out, "merged ralph/T-005"), "dependency order")
	require.Contains(t, out, "finished (completed): ran 5 · done 5")
	require.NotContains(t, out, "verify (attempt", "no per-task verify lines from several workers")
	require.NotContains(t, out, "branches (dependency order", "all merged")
	require.Equal(t, "", gitIn(t, e.ws, "status", "--porcelain"))

	code, _, errOut = e.run("", "ralph", "run", "--merge")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "--merge and --nats-listen need --workers N")
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening waits until addr accepts TCP connections (the embedded
// server runs in the aidex-nats helper, which a loaded machine starts
// slowly), failing the test when serve ends first or after 120 s.
func waitListening[T any](t *testing.T, addr string, done <-chan T) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		select {
		case r := <-done:
			t.Fatalf("serve ended before it listened on %s: %+v", addr, r)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("nothing listens on %s after 120s", addr)
}

// `aidex ralph serve` with separate `aidex ralph worker` processes: the
// worker holding T-001 is killed with SIGKILL mid-task; the task goes to
// the other worker after the ack wait, nothing is done twice, and the run
// ends with every task done and pushed.
func TestRalphWorkerProcessKilledTaskRedelivered(t *testing.T) {
	m := newFileModel("T-001")
	e := newGitRalphEnv(t, m, 4)
	url := fmt.Sprintf("nats://127.0.0.1:%d", freePort(t))
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := e.run("", "ralph", "serve", "--nats-listen", strings.TrimPrefix(url, "nats://"), "--nats-token", "s3cret",
			"--remote", e.ws, "--ack-wait", "2s")
		done <- result{code, out, errOut}
	}()
	worker := func(id string) *exec.Cmd {
		return ralphProcess(t, e, t.TempDir(), "ralph", "worker", "--nats", url, "--nats-token", "s3cret", "--id", id,
			"--allow-remote", e.ws, "--permission-mode", "auto-edit")
	}
	waitListening(t, strings.TrimPrefix(url, "nats://"), done)
	a := worker("wA")
	select {
	case <-m.held:
	case r := <-done:
		t.Fatalf("serve ended before a worker took T-001: %d\n%s\n%s", r.code, r.out, r.err)
	case <-time.After(180 * time.Second): // a hang detector: a loaded 2-core CI machine starts workers slowly
		t.Fatal("no worker reached the model with T-001")
	}
	checkStatus(t, e, url)
	worker("wB")
	require.NoError(t, a.Process.Kill())
	_ = a.Wait()
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end")
	}
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.out, r.err)
	require.Contains(t, r.out, "[T-001] back on the queue (was on wA)")
	for _, task := range e.tasks() {
		require.Equal(t, ralph.StatusDone, task.Status, task.ID)
		var worker string
		require.NoError(t, json.Unmarshal(task.Extra["worker"], &worker))
		require.Equal(t, "wB", worker, "%s done by the surviving worker", task.ID)
		_, reported := m.counts(task.ID)
		require.Equal(t, 1, reported, "%s reported done once", task.ID)
		require.Equal(t, task.ID+".txt", gitIn(t, e.ws, "show", "--format=", "--name-only", "ralph/"+task.ID), "pushed branch")
	}
	first, _ := m.counts("T-001")
	require.Equal(t, 2, first, "T-001 started over on the second worker")
	require.Equal(t, 2, e.tasks()[0].Attempts)
}

// ralphProcess starts `aidex -w WS ARGS` in a child process with e's
// environment; the test's end kills it.
func ralphProcess(t *testing.T, e *ralphEnv, ws string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-w", ws}, args...)...)
	cmd.Env = []string{childEnv + "=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range e.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if testing.Verbose() {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// checkStatus: `aidex ralph status` shows worker wA on T-001 (JSON and
// text), the queue depth and the list's counts.
func checkStatus(t *testing.T, e *ralphEnv, url string) {
	var st struct {
		Run     string `json:"run"`
		Workers []struct {
			ID    string   `json:"id"`
			Host  string   `json:"host"`
			Tasks []string `json:"tasks"`
		} `json:"workers"`
		QueueDepth int `json:"queue_depth"`
	}
	require.Eventually(t, func() bool {
		code, out, errOut := e.run("", "ralph", "status", "--nats", url, "--nats-token", "s3cret", "--json")
		require.Equal(t, 0, code, errOut)
		require.NoError(t, json.Unmarshal([]byte(out), &st))
		return len(st.Workers) == 1 && len(st.Workers[0].Tasks) == 1
	}, time.Minute, 50*time.Millisecond, "status shows the worker on its task")
	require.NotEmpty(t, st.Run)
	require.Equal(t, "wA", st.Workers[0].ID)
	require.Equal(t, []string{"T-001"}, st.Workers[0].Tasks)
	require.Equal(t, 4, st.QueueDepth, "T-001 unacknowledged, three waiting")
	code, out, _ := e.run("", "ralph", "status", "--nats", url, "--nats-token", "s3cret")
	require.Equal(t, 0, code)
	require.Regexp(t, `wA\s+\S+\s+T-001\s+\d+s ago`, out)
	require.Contains(t, out, "tasks: 3 pending · 1 in progress · 0 done")

}

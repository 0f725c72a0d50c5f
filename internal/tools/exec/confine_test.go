//go:build unix

package exec

import (
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

// fakeConfiner stands in for the OS sandbox: it wraps every command as
// `sh -c 'SANDBOXED=1 exec "$0" "$@"' ARGV...`, records what the command
// looked like when it was asked, and explains outputs holding "blocked".
type fakeConfiner struct {
	mu    sync.Mutex
	seen  []*exec.Cmd
	dirs  []string
	pgid  []bool
	envs  []int
	err   error
	calls int
}

func (c *fakeConfiner) Confine(cmd *exec.Cmd, network bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.seen = append(c.seen, cmd)
	c.dirs = append(c.dirs, cmd.Dir)
	c.pgid = append(c.pgid, cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid)
	c.envs = append(c.envs, len(cmd.Env))
	if c.err != nil {
		return c.err
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return err
	}
	cmd.Args = append([]string{"sh", "-c", `SANDBOXED=1 exec "$0" "$@"`}, cmd.Args...)
	cmd.Path = sh
	return nil
}

func (c *fakeConfiner) Explain(output string) string {
	if strings.Contains(output, "blocked") {
		return "the sandbox stopped this command; run it with --sandbox off"
	}
	return ""
}

func TestExecToolsRunConfined(t *testing.T) {
	f := newExecFixture(t, Options{})
	c := &fakeConfiner{}
	f.Env.Confiner = c

	r := f.OK("run_command", jobj{"command": "echo sandboxed=$SANDBOXED"})
	require.Contains(t, r.Output, "sandboxed=1\n")
	r = f.OK("run_python", jobj{"code": "import os\nprint('py', os.environ.get('SANDBOXED'))"})
	require.Contains(t, r.Output, "py 1\n")
	r = f.OK("run_background_process", jobj{"command": "echo bg=$SANDBOXED"})
	require.Contains(t, r.Output, "Started bg1")
	f.waitOutput("bg1", "bg=1")

	c.mu.Lock()
	defer c.mu.Unlock()
	require.Equal(t, 3, c.calls)
	for i := range c.calls {
		require.Equal(t, f.Root, c.dirs[i], "Dir is set before Confine")
		require.True(t, c.pgid[i], "the process group is set before Confine")
		require.Positive(t, c.envs[i], "Env is set before Confine")
	}
}

func TestExecToolsUnconfinedWithoutConfiner(t *testing.T) {
	f := newExecFixture(t, Options{})
	r := f.OK("run_command", jobj{"command": "echo sandboxed=$SANDBOXED"})
	require.Contains(t, r.Output, "sandboxed=\n")
}

func TestExecToolsSandboxExplained(t *testing.T) {
	f := newExecFixture(t, Options{})
	f.Env.Confiner = &fakeConfiner{}
	r := f.Fail("run_command", jobj{"command": "echo blocked; exit 1"}, tools.CategoryExecution)
	require.Equal(t, "exit code 1; the sandbox stopped this command; run it with --sandbox off", r.Error)
	require.Equal(t, "the sandbox stopped this command; run it with --sandbox off", r.Meta.Sandbox)
	r = f.Fail("run_python", jobj{"code": "print('blocked'); raise SystemExit(2)"}, tools.CategoryExecution)
	require.Equal(t, "the sandbox stopped this command; run it with --sandbox off", r.Meta.Sandbox)

	// A failure the sandbox did not cause is left alone; so is a success.
	r = f.Fail("run_command", jobj{"command": "echo other; exit 1"}, tools.CategoryExecution)
	require.Equal(t, "exit code 1", r.Error)
	require.Empty(t, r.Meta.Sandbox)
	r = f.OK("run_command", jobj{"command": "echo blocked"})
	require.Empty(t, r.Meta.Sandbox)
}

func TestExecToolsConfineErrorStopsCommand(t *testing.T) {
	f := newExecFixture(t, Options{})
	f.Env.Confiner = &fakeConfiner{err: errors.New("helper missing")}
	r := f.Fail("run_command", jobj{"command": "touch ran"}, tools.CategoryExecution)
	require.Contains(t, r.Error, "sandbox: helper missing")
	require.False(t, f.Exists("ran"))
	r = f.Fail("run_background_process", jobj{"command": "touch ran"}, tools.CategoryExecution)
	require.Contains(t, r.Error, "sandbox: helper missing")
	require.False(t, f.Exists("ran"))
}

// auditingConfiner is a fakeConfiner whose audit after each command
// reports lines (the sandbox's reverts).
type auditingConfiner struct {
	fakeConfiner
	lines []string
	ends  int
}

func (c *auditingConfiner) Begin() func() []string {
	return func() []string { c.ends++; return c.lines }
}

// What the sandbox's audit reverted after a command makes the result a
// failure that names it, and offers a rerun without the sandbox with
// that line (issue 42).
func TestExecToolsReportAuditReverts(t *testing.T) {
	f := newExecFixture(t, Options{})
	c := &auditingConfiner{}
	f.Env.Confiner = c
	f.OK("run_command", jobj{"command": "true"})
	c.lines = []string{"removed /ws/.mcp.json, which the command created: the MCP servers aidex and Claude Code start"}
	r := f.Fail("run_command", jobj{"command": "true"}, tools.CategorySecurity)
	require.Contains(t, r.Error, ".mcp.json")
	require.Contains(t, r.Meta.Sandbox, ".mcp.json, which the command created: the MCP servers")
	r = f.Fail("run_python", jobj{"code": "print(1)"}, tools.CategorySecurity)
	require.Contains(t, r.Meta.Sandbox, ".mcp.json")
	require.Equal(t, 3, c.ends)
	// A background process is checked when it ends; its stderr says so.
	f.OK("run_background_process", jobj{"command": "true"})
	f.waitOutput("bg1", ".mcp.json, which the command created")
}

package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// ayder-cli's .ayder/tasks files are the task list until the first change,
// and `aidex ralph import .ayder/tasks` (a folder) or one task file
// imports them.
func TestRalphCLIReadsAyderTasks(t *testing.T) {
	e := newRalphEnv(t)
	dir := filepath.Join(e.ws, ".ayder", "tasks")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "TASK-001-add-auth.md"),
		[]byte("# Add auth\n\n- **ID:** TASK-001\n- **Status:** pending\n- **Created:** 2025-01-02 03:04:05\n\n## Description\n\nLogin.\n"), 0o644))

	code, out, errOut := e.run("", "ralph", "list")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "read from "+dir)
	require.Regexp(t, `TASK-001\s+P2\s+pending\s+task\s+Add auth`, out)
	code, out, _ = e.run("", "ralph", "show", ".ayder/tasks/TASK-001-add-auth.md")
	require.Equal(t, 0, code)
	require.Contains(t, out, "TASK-001: Add auth")

	code, out, errOut = e.run("", "ralph", "import", dir)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "added TASK-001 [P2] pending: Add auth")
	require.Len(t, e.tasks(), 1)
	code, out, _ = e.run("", "ralph", "list")
	require.Equal(t, 0, code)
	require.NotContains(t, out, "read from", "ralph_tasks.json is the list now")

	one := filepath.Join(t.TempDir(), "TASK-002-docs.md")
	require.NoError(t, os.WriteFile(one, []byte("# Docs\n\n- **Status:** done\n"), 0o644))
	code, out, errOut = e.run("", "ralph", "import", one)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "added TASK-002 [P2]: Docs")
}

// ayder-cli's flags are documented aliases: --stdin is -f -, -I N is
// --max-turns N, --tui is --full; a contradiction is bad usage.
func TestAyderFlags(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "42"})
	e := newE2E(t, srv, "openai", "")
	r := e.runIn("what is 6*7", "--stdin")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "42", strings.TrimSpace(r.stdout))
	require.Contains(t, string(srv.Requests()[0]), "what is 6*7")

	read := llmtest.Call{Name: "list_files", Args: `{"path":"."}`}
	srv = llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{read}}, llmtest.Turn{Calls: []llmtest.Call{read}}, llmtest.Turn{Text: "done"})
	e = newE2E(t, srv, "openai", "")
	r = e.runIn("", "-I", "1", "-p", "look around")
	require.Equal(t, ExitLimit, r.code, r.stderr)
	require.Len(t, srv.Requests(), 1, "-I 1: one model response")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tui"}, "--full needs a terminal"},
		{[]string{"--stdin", "-f", "x.txt"}, "--stdin reads the prompt from stdin (-f -); it cannot be combined with -f x.txt"},
		{[]string{"-I", "2", "--max-turns", "3", "-p", "x"}, "-I/--iterations is --max-turns; it cannot be combined with --max-turns 3"},
		{[]string{"--iterations", "-1", "-p", "x"}, "must be a positive number"},
	} {
		r := e.runIn("", c.args...)
		require.Equal(t, ExitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
	}
}

// `aidex permissions list|remove`: the saved rules with their files and
// lines, and removing one from the aidex config file it is in; a rule from
// a flag names where it comes from instead.
func TestPermissionsListRemove(t *testing.T) {
	e := newRalphEnv(t)
	global := filepath.Join(e.env["XDG_CONFIG_HOME"], "aidex", "config.toml")
	f, err := os.OpenFile(global, os.O_APPEND|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString("\n[permissions]\nallow = [\"run_command(npm test *)\", \"read_file\"]\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	project := filepath.Join(e.ws, ".aidex", "config.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(project), 0o755))
	require.NoError(t, os.WriteFile(project, []byte("[permissions]\ndeny = [\"run_command(git push *)\"]\n"), 0o644))

	code, out, errOut := e.run("", "permissions", "list")
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `deny\s+run_command\(git push \*\)\s+`+regexpQuote(project)+`:2`, out)
	require.Regexp(t, `allow\s+run_command\(npm test \*\)\s+`+regexpQuote(global)+`:\d+`, out)
	require.Less(t, strings.Index(out, "deny"), strings.Index(out, "allow"), "deny first")

	code, out, errOut = e.run("", "permissions", "remove", "run_command(npm test *)")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "removed allow rule run_command(npm test *)")
	code, out, _ = e.run("", "permissions", "list", "--json")
	require.Equal(t, 0, code)
	require.NotContains(t, out, "npm test")
	require.Contains(t, out, `"rule": "read_file"`)

	code, _, errOut = e.run("", "permissions", "remove", "--kind", "deny", "run_command(git push *)")
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(project)
	require.NoError(t, err)
	require.Contains(t, string(data), "deny = []")

	code, _, errOut = e.run("", "permissions", "remove", "nothing_like_it")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, `no saved rule "nothing_like_it"`)
}

func regexpQuote(s string) string { return regexp.QuoteMeta(s) }

// `aidex --web --port N` listens on N, as `aidex web --port N`; --port
// without --web is bad usage that names the right command.
func TestRootWebPort(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	out, errOut := &sharedtest.Buffer{}, &sharedtest.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(Process{Chat: chat.Run, Context: ctx, Args: []string{"-w", e.ws, "--web", "--port", strconv.Itoa(port)}, Stdin: strings.NewReader(""),
			Stdout: out, Stderr: errOut, Getenv: func(k string) string { return e.env[k] }})
	}()
	w := &webRun{out: out, errOut: errOut, cancel: cancel}
	url := w.waitURL(t)
	require.Contains(t, url, "127.0.0.1:"+strconv.Itoa(port)+"/")
	cancel()
	select {
	case code := <-done:
		require.Equal(t, 0, code, errOut.String())
	case <-time.After(10 * time.Second):
		t.Fatal("aidex --web did not stop")
	}
	r := e.runIn("", "--port", "9000", "-p", "x")
	require.Equal(t, ExitUsage, r.code)
	require.Contains(t, r.stderr, "--port is for the browser UI: aidex --web --port 9000")
}

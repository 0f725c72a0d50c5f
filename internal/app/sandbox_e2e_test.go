package app

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sandbox"
)

// requireSandbox skips when this machine cannot sandbox commands, except
// under CI (CI set), where the sandbox must work and the test fails.
func requireSandbox(t *testing.T) {
	t.Helper()
	c := sandbox.Probe()
	if c.Available() {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("commands cannot be sandboxed on this CI machine: %s", c.Reason)
	}
	t.Skipf("commands cannot be sandboxed here: %s (CI unset: skipping)", c.Reason)
}

// sandboxWorld is a home (HOME and the XDG folders are this process's
// environment too, so commands see them) with a workspace holding a git
// repository and a Go module, and a TCP listener on the host's loopback.
type sandboxWorld struct {
	home   *apptest.Home
	bashrc string
	port   int
}

func newSandboxWorld(t *testing.T, script *llmtest.Script) *sandboxWorld {
	t.Helper()
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "permission_mode = \"yolo\""))
	// go build and go test use the machine's build cache (writable in the
	// sandbox as the Go cache), so they need not rebuild the standard
	// library.
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		t.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	}
	for k, v := range home.Env {
		t.Setenv(k, v)
	}
	// The temp folder commands may write is one of its own, not the /tmp
	// the home was made in (a real home is not under the temp folder).
	tmp := filepath.Join(t.TempDir(), "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o700))
	t.Setenv("TMPDIR", tmp)
	w := &sandboxWorld{home: home, bashrc: filepath.Join(home.Root, ".bashrc")}
	require.NoError(t, os.WriteFile(w.bashrc, []byte("# rc\n"), 0o644))
	git := exec.Command("git", "init", "-q", home.WS)
	out, err := git.CombinedOutput()
	require.NoError(t, err, string(out))
	files := map[string]string{
		"go.mod":       "module example.com/sbx\n\ngo 1.21\n",
		"main.go":      "package main\n\nfunc main() { println(add(1, 2)) }\n\nfunc add(a, b int) int { return a + b }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(home.WS, name), []byte(content), 0o644))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	w.port = ln.Addr().(*net.TCPAddr).Port
	return w
}

// attacks are the acceptance's escapes, each a script in the workspace
// run by a plain `sh NAME.sh` (which yolo mode allows: the policy cannot
// see inside the script, so only the sandbox stands in the way).
func (w *sandboxWorld) attacks() map[string]string {
	return map[string]string{
		"home":    "touch ~/x && echo escaped",
		"etc":     "echo x > /etc/aidex-test && echo escaped",
		"bashrc":  "echo x >> ~/.bashrc && echo escaped",
		"hook":    "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && echo escaped",
		"connect": "python3 -c \"import socket; socket.create_connection(('127.0.0.1', " + strconv.Itoa(w.port) + "), 5)\" && echo escaped",
	}
}

// unchanged checks that no attack left a trace.
func (w *sandboxWorld) unchanged(t *testing.T) {
	t.Helper()
	require.NoFileExists(t, filepath.Join(w.home.Root, "x"))
	require.NoFileExists(t, "/etc/aidex-test")
	data, err := os.ReadFile(w.bashrc)
	require.NoError(t, err)
	require.Equal(t, "# rc\n", string(data))
	require.NoFileExists(t, filepath.Join(w.home.WS, ".git", "hooks", "pre-commit"))
}

// runScripted runs the scripted model's calls through the engine of a
// runtime loaded with flags (yolo, headless) and returns the tool results
// by call order.
func runScripted(t *testing.T, script *llmtest.Script, w *sandboxWorld, flags map[string]string) []agent.ToolResultInfo {
	t.Helper()
	ctx := context.Background()
	rt, err := Load(ctx, Options{Workspace: w.home.WS, Getenv: os.Getenv, Flags: flags})
	require.NoError(t, err)
	eng, closeEng, err := rt.Engine(ctx, engineOptions{})
	require.NoError(t, err)
	defer closeEng()
	sess := &agent.Conversation{ID: "s", Workspace: rt.Workspace}
	var results []agent.ToolResultInfo
	_, err = eng.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(ev agent.Event) {
		if ev.ToolResult != nil {
			results = append(results, *ev.ToolResult)
		}
	})
	require.NoError(t, err)
	return results
}

func scriptCalls(names []string) []llmtest.Call {
	var calls []llmtest.Call
	for _, n := range names {
		calls = append(calls, llmtest.Call{Name: "run_command", Args: `{"command":"sh ` + n + `.sh"}`})
	}
	return calls
}

// The acceptance of the sandbox: in yolo mode with the default sandbox,
// writing the home, /etc, ~/.bashrc and .git/hooks and connecting to a
// listener on the host all fail and change nothing, while go build and
// go test in the workspace work.
func TestSandboxEndToEndYolo(t *testing.T) {
	requireSandbox(t)
	t.Cleanup(func() { _ = os.Remove("/etc/aidex-test") })
	names := []string{"home", "etc", "bashrc", "hook", "connect", "build"}
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: scriptCalls(names)},
		llmtest.Turn{Text: "done"})
	w := newSandboxWorld(t, script)
	attacks := w.attacks()
	attacks["build"] = "go build ./... && go test ./... && echo built"
	for name, body := range attacks {
		require.NoError(t, os.WriteFile(filepath.Join(w.home.WS, name+".sh"), []byte(body+"\n"), 0o644))
	}
	results := runScripted(t, script, w, nil)
	require.Len(t, results, len(names))
	for i, name := range names {
		r := results[i]
		if name == "build" {
			require.True(t, r.OK, "go build and go test must work in the sandbox: %s\n%s", r.Error, r.Output)
			require.Contains(t, r.Output, "built")
			continue
		}
		require.False(t, r.OK, "%s escaped the sandbox: %s", name, r.Output)
		require.NotContains(t, r.Output, "escaped", name)
		require.Equal(t, "execution", r.Category, "%s: the policy allowed it; the sandbox stopped it: %s", name, r.Error)
	}
	w.unchanged(t)
}

// The control: the same scripts without the sandbox do escape (so the
// test above cannot pass for a reason other than the sandbox). Only the
// targets inside the temporary home and the listener are tried.
func TestSandboxEndToEndControlWithoutSandbox(t *testing.T) {
	names := []string{"home", "bashrc", "hook", "connect"}
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: scriptCalls(names)},
		llmtest.Turn{Text: "done"})
	w := newSandboxWorld(t, script)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	for name, body := range w.attacks() {
		require.NoError(t, os.WriteFile(filepath.Join(w.home.WS, name+".sh"), []byte(body+"\n"), 0o644))
	}
	results := runScripted(t, script, w, map[string]string{"sandbox.mode": "off"})
	require.Len(t, results, len(names))
	for i, name := range names {
		require.True(t, results[i].OK, "%s: %s %s", name, results[i].Error, results[i].Output)
		require.True(t, strings.Contains(results[i].Output, "escaped"), name)
	}
	require.FileExists(t, filepath.Join(w.home.Root, "x"))
}

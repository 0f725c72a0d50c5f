package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// crashyServer is a stdio MCP server (a POSIX shell script) offering one
// tool, explode, that exits without answering.
const crashyServer = `#!/bin/sh
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
  *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"crashy","version":"1"}}}\n' "$id" ;;
  *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"explode","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
  *'"method":"tools/call"'*) echo "explode: giving up" >&2; exit 3 ;;
  *'"id":'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}\n' "$id" ;;
  esac
done
`

// servers are the paths the real-servers test gives the servers.
type servers struct{ dir, memory, crashy string }

// everythingServe starts the reference server in mode (streamableHttp or
// sse) on a free port and returns its endpoint (path) once it listens.
func everythingServe(t *testing.T, mode, path string) string {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.Command(bin, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			return "http://" + addr + path
		}
		require.True(t, time.Now().Before(deadline), "the everything server (%s) did not listen on %s", mode, addr)
	}
}

// The reference servers from npm, configured as their READMEs tell Claude
// Code users (.mcp.json) and Codex users ([mcp_servers] in config.toml),
// driven by a scripted model: filesystem, memory, sequential thinking and
// everything over stdio (npx -y, as the READMEs say), everything over
// streamable HTTP and over legacy SSE, and a server that crashes on its
// tool. Every result reaches the model once, the allow and deny rules
// hold, and the crash leaves the other servers working.
func TestMCPRealServersFromNPM(t *testing.T) {
	npmDir := filepath.Dir(filepath.Dir(sharedtest.NPMBin(t, "mcp-server-everything"))) // node_modules
	npmDir = filepath.Dir(npmDir)
	for _, bin := range []string{"mcp-server-filesystem", "mcp-server-memory", "mcp-server-sequential-thinking"} {
		sharedtest.NPMBin(t, bin)
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx not found on PATH: install Node.js (CI has it)")
	}
	httpURL := everythingServe(t, "streamableHttp", "/mcp")
	sseURL := everythingServe(t, "sse", "/sse")

	styles := []struct {
		name  string
		write func(t *testing.T, h *apptest.Home, s servers) string // returns extra global config
	}{
		{"Claude Code .mcp.json", func(t *testing.T, h *apptest.Home, s servers) string {
			// npx resolves the pinned packages offline from cwd (the npm test folder).
			doc := map[string]any{"mcpServers": map[string]any{
				"fs":       map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-filesystem", s.dir}, "cwd": npmDir},
				"memory":   map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-memory"}, "env": map[string]string{"MEMORY_FILE_PATH": s.memory}, "cwd": npmDir},
				"thinking": map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-sequential-thinking"}, "cwd": npmDir},
				"ev":       map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-everything"}, "cwd": npmDir},
				"evhttp":   map[string]any{"type": "http", "url": httpURL},
				"evsse":    map[string]any{"type": "sse", "url": sseURL},
				"crashy":   map[string]any{"command": s.crashy},
			}}
			b, err := json.MarshalIndent(doc, "", "  ")
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(h.WS, ".mcp.json"), b, 0o644))
			return ""
		}},
		{"Codex [mcp_servers]", func(t *testing.T, h *apptest.Home, s servers) string {
			return fmt.Sprintf(`
[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", %[1]q]
cwd = %[2]q
startup_timeout_sec = 60

[mcp_servers.memory]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
env = { MEMORY_FILE_PATH = %[3]q }
cwd = %[2]q

[mcp_servers.thinking]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-sequential-thinking"]
cwd = %[2]q

[mcp_servers.ev]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
cwd = %[2]q

[mcp_servers.evhttp]
url = %[4]q

[mcp_servers.evsse]
url = %[5]q

[mcp_servers.crashy]
command = %[6]q
`, s.dir, npmDir, s.memory, httpURL, sseURL, s.crashy)
		}},
	}
	for _, style := range styles {
		t.Run(style.name, func(t *testing.T) {
			rules := "[permissions]\nallow = [\"mcp__fs__*\", \"mcp__memory__*\", \"mcp__thinking__*\", \"mcp__ev__*\", \"mcp__evhttp__*\", \"mcp__evsse__*\", \"mcp__crashy__*\"]\n" +
				"deny = [\"mcp__fs__write_file\"]\n"
			s := newRealServers(t)
			bigPath := filepath.Join(s.dir, "big.txt")
			script := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{
				{Name: "mcp__fs__read_text_file", Args: fmt.Sprintf(`{"path":%q}`, bigPath)},
				{Name: "mcp__fs__write_file", Args: fmt.Sprintf(`{"path":%q,"content":"x"}`, filepath.Join(s.dir, "denied.txt"))},
				{Name: "mcp__memory__create_entities", Args: `{"entities":[{"name":"aidex","entityType":"agent","observations":["written in Go"]}]}`},
				{Name: "mcp__thinking__sequentialthinking", Args: `{"thought":"first","thoughtNumber":1,"totalThoughts":1,"nextThoughtNeeded":false}`},
				{Name: "mcp__ev__echo", Args: `{"message":"over stdio"}`},
				{Name: "mcp__evhttp__echo", Args: `{"message":"over streamable HTTP"}`},
				{Name: "mcp__evsse__echo", Args: `{"message":"over SSE"}`},
				{Name: "mcp__crashy__explode", Args: `{}`},
			}}, llmtest.Turn{Calls: []llmtest.Call{
				{Name: "mcp__memory__read_graph", Args: `{}`},
				{Name: "mcp__ev__echo", Args: `{"message":"still here"}`},
			}}, llmtest.Turn{Text: "done"})

			home := apptest.NewHome(t, "")
			home.Env["PATH"] = os.Getenv("PATH")
			extra := style.write(t, home, s)
			cfg := apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n") + extra + "\n" + rules
			require.NoError(t, os.WriteFile(filepath.Join(home.Root, "config", "aidex", "config.toml"), []byte(cfg), 0o600))
			trustAll(t, home)
			svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv}})
			require.NoError(t, err)
			t.Cleanup(func() { _ = svc.Close() })
			ctx := context.Background()
			sess, err := svc.Pick(ctx, "", false)
			require.NoError(t, err)
			live, err := svc.Session(ctx, sess, SessionOptions{})
			require.NoError(t, err)
			defer live.Close()
			var events []agent.Event
			_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(e agent.Event) { events = append(events, e) })
			require.NoError(t, err)
			for _, e := range events {
				require.NotEqual(t, agent.EventNotice, e.Type, "no server may fail to start: %s", e.Text)
			}

			checkRealServers(t, script, events, s.dir)
		})
	}
}

// checkRealServers checks what TestMCPRealServersFromNPM's run left: the
// tools offered, each result once, the rules, the crash and the others after it.
func checkRealServers(t *testing.T, script *llmtest.Script, events []agent.Event, dir string) {
	var reqs []map[string]any
	for _, raw := range script.Requests() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		reqs = append(reqs, m)
	}
	require.Len(t, reqs, 3)
	offered := strings.Join(toolNames(reqs[0]), " ")
	for _, name := range []string{"mcp__fs__read_text_file", "mcp__memory__create_entities", "mcp__thinking__sequentialthinking",
		"mcp__ev__echo", "mcp__evhttp__echo", "mcp__evsse__echo", "mcp__crashy__explode"} {
		require.Contains(t, offered, name)
	}
	out := toolOutputs(reqs[1])
	require.Len(t, out, 8)
	all := strings.Join(out, "\n")
	require.Equal(t, 1, strings.Count(all, "THE-END-MARKER"), "the file reached the model more or less than once")
	require.Equal(t, 1, strings.Count(all, "line 00000 of the big file"))
	require.NotContains(t, out[0], "output cut")
	require.NotContains(t, out[0], "structuredContent")

	res := results(events)
	require.Len(t, res, 10)
	byName := map[string][]agent.ToolResultInfo{}
	for i, e := range toolCalls(events) {
		byName[e] = append(byName[e], res[i])
	}
	require.False(t, byName["mcp__fs__write_file"][0].OK)
	require.Equal(t, "permission", byName["mcp__fs__write_file"][0].Category)
	require.NoFileExists(t, filepath.Join(dir, "denied.txt"), "a denied call reached the server")
	for _, name := range []string{"mcp__fs__read_text_file", "mcp__memory__create_entities", "mcp__thinking__sequentialthinking",
		"mcp__evhttp__echo", "mcp__evsse__echo", "mcp__memory__read_graph"} {
		require.True(t, byName[name][0].OK, "%s: %s", name, byName[name][0].Error)
	}
	require.Contains(t, all, "Echo: over stdio")
	require.Contains(t, all, "Echo: over streamable HTTP")
	require.Contains(t, all, "Echo: over SSE")
	crash := byName["mcp__crashy__explode"][0]
	require.False(t, crash.OK)
	require.Contains(t, crash.Error, "MCP server crashy stopped during the call")
	// After the crash the others still work.
	later := strings.Join(toolOutputs(reqs[2]), "\n")
	require.Contains(t, later, "Echo: still here")
	require.Contains(t, later, "written in Go")
}

// newRealServers makes the real-servers test's folder (with a 21 KB file,
// big.txt, ending in THE-END-MARKER), memory file path and crashing server.
func newRealServers(t *testing.T) servers {
	tmp := t.TempDir()
	s := servers{dir: filepath.Join(tmp, "files"), memory: filepath.Join(tmp, "memory.jsonl"), crashy: filepath.Join(tmp, "crashy.sh")}
	require.NoError(t, os.MkdirAll(s.dir, 0o755))
	require.NoError(t, os.WriteFile(s.crashy, []byte(crashyServer), 0o755))
	// A 21 KB file: it must reach the model once, uncut.
	var big strings.Builder
	for i := 0; big.Len() < 21*1024; i++ {
		fmt.Fprintf(&big, "line %05d of the big file\n", i)
	}
	big.WriteString("THE-END-MARKER\n")
	require.NoError(t, os.WriteFile(filepath.Join(s.dir, "big.txt"), []byte(big.String()), 0o644))
	return s
}

// trustAll trusts the workspace and approves its content when it has a
// .mcp.json.
func trustAll(t *testing.T, home *apptest.Home) {
	if _, err := os.Stat(filepath.Join(home.WS, ".mcp.json")); err == nil {
		rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
		require.NoError(t, err)
		require.NoError(t, rt.Config.Paths.Trust(home.WS))
		rt, err = LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
		require.NoError(t, err)
		require.NoError(t, rt.ProjectContent().ApproveAll())
	}
}

// toolCalls are the names of a run's tool calls, in order.
func toolCalls(events []agent.Event) []string {
	var out []string
	for _, e := range events {
		if e.Type == agent.EventToolCall {
			out = append(out, e.ToolCall.Name)
		}
	}
	return out
}

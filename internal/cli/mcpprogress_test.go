package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// An MCP server whose start-up takes long (npx installing its package on a
// cold cache) is shown while it starts, before the session's first event,
// in every front end that reports MCP servers: -p on stderr, stream-json
// as a notice event of kind mcp, the line mode (and the terminal UI, which
// starts its screen after the servers) on stderr. The line names the
// server and carries its last stderr line.
func TestMCPSlowStartShownInEveryFrontEnd(t *testing.T) {
	for _, fe := range []struct {
		name string
		run  func(e *e2e) string // returns where the user sees it
	}{
		{"headless -p", func(e *e2e) string { return e.run(context.Background(), "-p", "hi").stderr }},
		{"headless stream-json", func(e *e2e) string {
			r := e.run(context.Background(), "-p", "hi", "--output-format", "stream-json")
			var notices []string
			evs := events(t, r.stdout)
			for i, ev := range evs {
				if ev["type"] == "notice" && fmt.Sprint(ev["notice"]) == "map[kind:mcp]" && strings.Contains(fmt.Sprint(ev["text"]), "is starting") {
					notices = append(notices, fmt.Sprint(ev["text"]))
					if i > 0 || ev["session_id"] == "" || ev["session_id"] == nil {
						t.Errorf("the starting notice is event %d (%v): it comes first, with the session id", i, ev)
					}
				}
			}
			return strings.Join(notices, "\n")
		}},
		{"line mode", func(e *e2e) string {
			var out bytes.Buffer
			Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", e.ws, "--plain"}, Stdin: strings.NewReader("hi\n"),
				Stdout: &out, Stderr: &out, Getenv: func(k string) string { return e.env[k] }})
			return out.String()
		}},
	} {
		t.Run(fe.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewScript(t, llmtest.Turn{Text: "answered"})
			slow := filepath.Join(t.TempDir(), "slow.sh")
			// Slower than DefaultStartingAfter (2s); then it fails (no MCP server here).
			if err := os.WriteFile(slow, []byte("#!/bin/sh\necho 'npm warn exec installing @example/server' >&2\nsleep 4\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			e := newE2E(t, srv, "openai", "")
			f, err := os.OpenFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "\n[mcp_servers.slow]\ncommand = %q\nstartup_timeout_sec = 20\n", slow)
			_ = f.Close()
			seen := fe.run(e)
			if want := "MCP server slow is starting (waiting up to 20s): npm warn exec installing @example/server"; !strings.Contains(seen, want) {
				t.Errorf("%q is not shown; the user saw:\n%s", want, seen)
			}
		})
	}
}

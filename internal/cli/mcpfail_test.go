package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// An MCP server that fails to start is reported in every front end that
// runs a turn: -p on stderr, stream-json as a notice event, the line mode
// in its output (the terminal UI, the web and ACP render the same notice
// event). The session goes on.
func TestMCPServerFailureReportedInEveryFrontEnd(t *testing.T) {
	for _, fe := range []struct {
		name string
		run  func(e *e2e) string // returns where the user sees it
	}{
		{"headless -p", func(e *e2e) string { return e.run(context.Background(), "-p", "hi").stderr }},
		{"headless stream-json", func(e *e2e) string {
			r := e.run(context.Background(), "-p", "hi", "--output-format", "stream-json")
			var notices []string
			for _, ev := range events(t, r.stdout) {
				if ev["type"] == "notice" {
					notices = append(notices, fmt.Sprint(ev["text"]))
				}
			}
			return strings.Join(notices, "\n")
		}},
		{"line mode", func(e *e2e) string { return plainRun(e, "hi\n", nil) }},
	} {
		t.Run(fe.name, func(t *testing.T) {
			srv := llmtest.NewScript(t, llmtest.Turn{Text: "answered"})
			bad := filepath.Join(t.TempDir(), "bad.sh")
			if err := os.WriteFile(bad, []byte("#!/bin/sh\necho 'missing API_TOKEN' >&2\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			e := newE2E(t, srv, "openai", "")
			f, err := os.OpenFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "\n[mcp_servers.broken]\ncommand = %q\n", bad)
			_ = f.Close()
			seen := fe.run(e)
			for _, want := range []string{"MCP server broken failed to start", "missing API_TOKEN"} {
				if !strings.Contains(seen, want) {
					t.Errorf("%q is not shown; the user saw:\n%s", want, seen)
				}
			}
			if n := strings.Count(seen, "MCP server broken failed to start"); n > 1 {
				t.Errorf("reported %d times:\n%s", n, seen)
			}
			if len(srv.Requests()) != 1 {
				t.Errorf("the session did not go on: %d model requests", len(srv.Requests()))
			}
		})
	}
}

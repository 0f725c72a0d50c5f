package tui_test

import (
	"fmt"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// /mcp lists the servers and their tools; a running MCP tool's progress
// shows in the status line.
func TestE2EMCPStatusAndProgress(t *testing.T) {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__everything__trigger-long-running-operation", Args: `{"duration":6,"steps":2}`}}},
		llmtest.Turn{Text: "operation finished"})
	e := startConfig(t, script, fmt.Sprintf("\n[permissions]\nallow = [\"mcp__everything__*\"]\n\n[mcp_servers.everything]\ncommand = %q\nargs = [\"stdio\"]\nstartup_timeout_sec = 60\n", bin), "")
	e.waitFor("fake/scripted-a")
	e.typeLine("/mcp")
	e.waitFor("everything (stdio): ready", "mcp__everything__echo", "/mcp__everything__args-prompt (prompt)")
	e.typeLine("run the operation")
	e.waitFor("… trigger-long-running-operation: 1/2")
	e.waitFor("operation finished")
}

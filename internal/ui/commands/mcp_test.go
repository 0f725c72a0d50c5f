package commands

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// /mcp lists the servers, their tools and prompts; /mcp__SERVER__PROMPT
// sends the server's prompt.
func TestMCPCommandAndPrompts(t *testing.T) {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	f := newFixture(t, fmt.Sprintf("[mcp_servers.everything]\ncommand = %q\nargs = [\"stdio\"]\nstartup_timeout_sec = 60\n", bin))
	out, _ := f.mustExec(t, "/mcp")
	require.Contains(t, out, "everything (stdio): ready")
	require.Contains(t, out, "mcp__everything__echo")
	require.Contains(t, out, "/mcp__everything__args-prompt (prompt)")

	_, o := f.mustExec(t, "/mcp__everything__args-prompt city=Paris state=Texas")
	require.Contains(t, o.Prompt, "Paris, Texas")
	_, o = f.mustExec(t, "/mcp__everything__args-prompt Lyon")
	require.Contains(t, o.Prompt, "Lyon")
	_, _, err := f.exec(t, "/mcp__everything__nope")
	require.ErrorContains(t, err, "no MCP prompt /mcp__everything__nope")
}

func TestMCPCommandWithoutServers(t *testing.T) {
	f := newFixture(t, "")
	out, _ := f.mustExec(t, "/mcp")
	require.Contains(t, out, "no MCP servers configured")
	_, _, err := f.exec(t, "/mcp__x__y")
	require.ErrorContains(t, err, "no MCP servers are configured")
}

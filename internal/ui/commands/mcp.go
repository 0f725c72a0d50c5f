package commands

import (
	"context"
	"fmt"
	"io"
)

// cmdMCP is /mcp: each configured MCP server's status, its tools and prompts.
func cmdMCP(ctx context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	st := c.svc.MCPStatus(ctx)
	if len(st) == 0 {
		fmt.Fprintln(out, "no MCP servers configured: add one with `aidex mcp add NAME -- COMMAND ARGS...` or [mcp_servers.NAME] in the config file")
		return Outcome{}, nil
	}
	for _, s := range st {
		fmt.Fprintf(out, "%s (%s): %s, %d tools, ~%d tokens of definitions\n", s.Name, s.Transport, s.State, len(s.Tools), s.DefinitionTokens)
		if s.Error != "" {
			fmt.Fprintf(out, "  %s\n", s.Error)
		}
		for _, t := range s.Tools {
			fmt.Fprintf(out, "  %-40s %s\n", t.Name, firstSentence(t.Description))
		}
		for _, p := range s.Prompts {
			fmt.Fprintf(out, "  /%s (prompt)\n", p)
		}
	}
	return Outcome{}, nil
}

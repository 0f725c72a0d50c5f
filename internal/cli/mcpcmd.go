package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/mcp"
)

// newMCPCmd is `aidex mcp`: the MCP servers aidex uses as a client (list, get,
// add, remove). The server mode and OAuth login add their subcommands to it.
func newMCPCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "MCP: manage the servers aidex uses, sign in to them, serve aidex over MCP",
		Long: `MCP servers give the model more tools (mcp__SERVER__TOOL). They are configured as
[mcp_servers.NAME] tables in the config file, or in a trusted project's .mcp.json.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newMCPListCmd(a), newMCPGetCmd(a), newMCPAddCmd(a), newMCPRemoveCmd(a))
	cmd.AddCommand(mcpServerCommands(a)...)
	return cmd
}

func newMCPListCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start the configured MCP servers and list their status, tool count and definition size",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := a.mcpStatus(cmd.Context(), "")
			if err != nil {
				return err
			}
			if asJSON {
				if st == nil {
					st = []mcp.ServerStatus{}
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(listJSON(st))
			}
			if len(st) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no MCP servers configured: add one with `aidex mcp add NAME -- COMMAND ARGS...` or `aidex mcp add NAME --url URL`")
				return nil
			}
			return printMCPList(cmd.OutOrStdout(), st)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: name, transport, status, error, tool_count, definition_tokens, tools")
	return cmd
}

type mcpListEntry struct {
	Name             string   `json:"name"`
	Transport        string   `json:"transport"`
	Status           string   `json:"status"`
	Error            string   `json:"error,omitempty"`
	ToolCount        int      `json:"tool_count"`
	DefinitionTokens int      `json:"definition_tokens"`
	Tools            []string `json:"tools"`
	Source           string   `json:"source,omitempty"`
}

func listJSON(st []mcp.ServerStatus) []mcpListEntry {
	out := make([]mcpListEntry, 0, len(st))
	for _, s := range st {
		e := mcpListEntry{Name: s.Name, Transport: s.Transport, Status: string(s.State), Error: s.Error,
			ToolCount: len(s.Tools), DefinitionTokens: s.DefinitionTokens, Tools: []string{}, Source: s.Source}
		for _, t := range s.Tools {
			e.Tools = append(e.Tools, t.Name)
		}
		out = append(out, e)
	}
	return out
}

func printMCPList(w io.Writer, st []mcp.ServerStatus) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tSTATUS\tTOOLS\tTOKENS")
	for _, s := range st {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", s.Name, s.Transport, s.State, len(s.Tools), s.DefinitionTokens)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range st {
		if s.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Name, s.Error)
		}
	}
	return nil
}

func newMCPGetCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "get NAME",
		Short: "Show one MCP server's configuration, status and tools",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			s, ok := rt.Config.MCPServers[args[0]]
			if !ok {
				return usageErr("no MCP server %q is configured (configured: %s); add it with `aidex mcp add`", args[0], strings.Join(mcpNames(rt.MCPServers()), ", "))
			}
			st, err := a.mcpStatus(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			printMCPServer(cmd.OutOrStdout(), s, st[0])
			return nil
		},
	}
}

func mcpNames(list []config.MCPServer) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Name
	}
	return out
}

func printMCPServer(w io.Writer, s config.MCPServer, st mcp.ServerStatus) {
	fmt.Fprintf(w, "%s\n  source: %s\n  transport: %s\n", s.Name, s.Source, s.TransportName())
	if s.Command != "" {
		fmt.Fprintf(w, "  command: %s\n", strings.Join(append([]string{s.Command}, s.Args...), " "))
	}
	if s.URL != "" {
		fmt.Fprintf(w, "  url: %s\n", s.URL)
	}
	for _, k := range sortedMapKeys(s.Env) {
		fmt.Fprintf(w, "  env: %s=%s\n", k, config.Mask(s.Env[k]))
	}
	for _, k := range sortedMapKeys(s.HTTPHeaders) {
		fmt.Fprintf(w, "  header: %s: %s\n", k, config.Mask(s.HTTPHeaders[k]))
	}
	fmt.Fprintf(w, "  status: %s\n", st.State)
	if st.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", st.Error)
	}
	fmt.Fprintf(w, "  tools: %d (%d tokens of definitions)\n", len(st.Tools), st.DefinitionTokens)
	for _, t := range st.Tools {
		fmt.Fprintf(w, "    %s  %s\n", t.Name, firstLine(t.Description))
	}
	for _, p := range st.Prompts {
		fmt.Fprintf(w, "  prompt: /%s\n", p)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}

func sortedMapKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// mcpStatus starts the configured servers (only the one named, when given) and
// returns their status; it stops them again.
func (a *cliApp) mcpStatus(ctx context.Context, only string) ([]mcp.ServerStatus, error) {
	rt, err := a.catalogOnly()
	if err != nil {
		return nil, err
	}
	if only != "" {
		s := rt.Config.MCPServers[only]
		rt.Config.MCPServers = map[string]config.MCPServer{only: s}
	}
	m := rt.StartMCP(ctx, nil, nil, nil)
	if m == nil {
		return nil, nil
	}
	defer m.Close()
	return m.Status(), nil
}

func newMCPAddCmd(a *cliApp) *cobra.Command {
	var (
		url, transport, bearer string
		env, headers           []string
		project                bool
	)
	cmd := &cobra.Command{
		Use:   "add NAME [--env K=V]... -- COMMAND [ARGS...] | add NAME --url URL [--header K=V]...",
		Short: "Add an MCP server to the config file (stdio: a command; remote: --url)",
		Example: `  aidex mcp add everything -- npx -y @modelcontextprotocol/server-everything
  aidex mcp add github --url https://api.githubcopilot.com/mcp/ --bearer-token-env GITHUB_TOKEN`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s := config.MCPServer{Name: args[0], URL: url, Transport: transport, BearerTokenEnvVar: bearer}
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 {
					return usageErr("write the server's name before --: aidex mcp add NAME -- COMMAND ARGS...")
				}
				if rest := args[1:]; len(rest) > 0 {
					s.Command, s.Args = rest[0], rest[1:]
				}
			} else if len(args) > 1 {
				return usageErr("put the server's command after --: aidex mcp add %s -- %s", args[0], strings.Join(args[1:], " "))
			}
			var err error
			if s.Env, err = keyValues("--env", env); err != nil {
				return err
			}
			if s.HTTPHeaders, err = keyValues("--header", headers); err != nil {
				return err
			}
			path, err := a.configFile(project)
			if err != nil {
				return err
			}
			if err := config.AddMCPServer(path, s); err != nil {
				return usageErr("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "MCP server %s added to %s\n", s.Name, path)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "the endpoint of a remote server (streamable HTTP, or legacy SSE)")
	f.StringVar(&transport, "transport", "", "stdio, http or sse (default: stdio with a command, http with --url)")
	f.StringVar(&bearer, "bearer-token-env", "", "environment variable holding a bearer token for --url")
	repeatedVar(f, &env, "env", "K=V set in the server's environment (repeatable)")
	repeatedVar(f, &headers, "header", "K=V HTTP header sent to --url (repeatable; \"K: V\" also works)")
	f.BoolVar(&project, "project", false, "write to the workspace's .aidex/config.toml")
	return cmd
}

func keyValues(flag string, list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			k, v, ok = strings.Cut(kv, ":")
		}
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usageErr("%s %q: write KEY=VALUE", flag, kv)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

func newMCPRemoveCmd(a *cliApp) *cobra.Command {
	var project bool
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from the config file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := a.configFile(project)
			if err != nil {
				return err
			}
			if err := config.RemoveMCPServer(path, args[0]); err != nil {
				return usageErr("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "MCP server %s removed from %s\n", args[0], path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "edit the workspace's .aidex/config.toml")
	return cmd
}

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/mcp/oauth"
)

func newMCPLoginCmd(a *cliApp) *cobra.Command {
	var noBrowser bool
	cmd := &cobra.Command{
		Use:   "login NAME",
		Short: "Sign in to an HTTP MCP server that requires OAuth and store its token",
		Long: `Sign in to the HTTP MCP server NAME ([mcp_servers.NAME] url in the config) with
OAuth 2.1: aidex discovers the server's authorization server, registers itself
as a client, prints the sign-in URL and opens it in the browser (--no-browser:
only prints it), and waits for the browser to come back to a loopback address.
The token is stored 0600 in the state directory and refreshed when it expires.`,
		Example: `  aidex mcp login linear
  aidex mcp login remote --no-browser`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, url, err := a.mcpServerURL(args[0])
			if err != nil {
				return err
			}
			o := oauth.LoginOptions{Out: a.proc.Stderr}
			if !noBrowser {
				o.OpenURL = a.proc.OpenURL
				if o.OpenURL == nil {
					o.OpenURL = openBrowser
				}
			}
			ctx, stop := withSignals(cmd.Context())
			defer stop()
			if err := oauth.NewStore(paths.StateDir).Login(ctx, args[0], url, o); err != nil {
				if errors.Is(err, oauth.ErrNoOAuth) {
					return usageErr("%v", err)
				}
				return err
			}
			fmt.Fprintf(a.proc.Stdout, "signed in to MCP server %s (%s)\n", args[0], url)
			return nil
		},
	}
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "print the sign-in URL without opening a browser")
	return cmd
}

func newMCPLogoutCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "logout NAME",
		Short: "Delete the stored OAuth token of an MCP server",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := config.ResolvePaths(a.proc.Getenv)
			if err != nil {
				return usageErr("%v", err)
			}
			removed, err := oauth.NewStore(paths.StateDir).Logout(args[0])
			if err != nil {
				return err
			}
			if !removed {
				fmt.Fprintf(a.proc.Stdout, "no stored token for MCP server %s: nothing to do\n", args[0])
				return nil
			}
			fmt.Fprintf(a.proc.Stdout, "signed out of MCP server %s (its token is deleted)\n", args[0])
			return nil
		},
	}
}

// mcpServerURL finds the url of [mcp_servers.NAME]: in the project's
// .aidex/config.toml when the workspace is trusted, else in the global
// config file. Errors name the fix (exit 2).
//
// It reads just that table of the TOML files, so that it works before
// the config package knows the mcp_servers table.
func (a *cliApp) mcpServerURL(name string) (config.Paths, string, error) {
	paths, err := config.ResolvePaths(a.proc.Getenv)
	if err != nil {
		return paths, "", usageErr("%v", err)
	}
	files := []string{paths.ConfigFile}
	if ws, err := filepath.Abs(orDot(a.flags.workspace)); err == nil {
		if ok, _ := paths.IsTrusted(ws); ok {
			files = append([]string{config.ProjectConfigFile(ws)}, files...)
		}
	}
	for _, f := range files {
		url, found, err := serverURLIn(f, name)
		if err != nil {
			return paths, "", usageErr("%v", err)
		}
		if found {
			return paths, url, nil
		}
	}
	return paths, "", usageErr("no MCP server %q with a url in %s: add [mcp_servers.%s] url = \"https://...\" (an HTTP server), or `aidex mcp add %s --url URL`", name, paths.ConfigFile, name, name)
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// serverURLIn reads [mcp_servers.NAME] url from the TOML file path; found
// is false when the file or the entry does not exist. Errors: a file that
// cannot be read or parsed, an entry without a url (a stdio server).
func serverURLIn(path, name string) (string, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	var doc struct {
		Servers map[string]map[string]any `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	entry, ok := doc.Servers[name]
	if !ok {
		return "", false, nil
	}
	url, _ := entry["url"].(string)
	if url == "" {
		return "", false, fmt.Errorf("%s: MCP server %q has no url: OAuth sign-in is for HTTP servers only (stdio servers need none)", path, name)
	}
	return url, true, nil
}

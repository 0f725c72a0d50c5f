package cli

import (
	"errors"
	"fmt"

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
			paths, srv, err := a.mcpServerURL(args[0])
			if err != nil {
				return err
			}
			url := srv.URL
			o, err := loginOptions(srv, a.proc.Getenv)
			if err != nil {
				return err
			}
			o.Out = a.proc.Stderr
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

// mcpServerURL finds the url of MCP server name in the loaded
// configuration (the global file, a trusted project's .aidex/config.toml
// and .mcp.json, as sessions see them). Errors name the fix (exit 2).
func (a *cliApp) mcpServerURL(name string) (config.Paths, config.MCPServer, error) {
	rt, err := a.catalogOnly()
	if err != nil {
		return config.Paths{}, config.MCPServer{}, err
	}
	paths := rt.Config.Paths
	s, ok := rt.Config.MCPServers[name]
	if !ok {
		return paths, s, usageErr("no MCP server %q with a url in %s: add [mcp_servers.%s] url = \"https://...\" (an HTTP server), or `aidex mcp add %s --url URL`", name, paths.ConfigFile, name, name)
	}
	if s.URL == "" {
		return paths, s, usageErr("MCP server %q has no url: OAuth sign-in is for HTTP servers only (stdio servers need none)", name)
	}
	return paths, s, nil
}

// loginOptions are the sign-in settings of server s: its scopes and its
// [mcp_servers.NAME.oauth] table (a pre-registered client, its secret read
// from client_secret_env_var, the grant, the callback port, the private
// key of a private_key_jwt client). Errors: the
// secret's variable is not set (exit 2).
func loginOptions(s config.MCPServer, getenv func(string) string) (oauth.LoginOptions, error) {
	o := oauth.LoginOptions{Scopes: s.Scopes}
	if c := s.OAuth; c != nil {
		o.ClientID, o.CallbackPort = c.ClientID, c.CallbackPort
		o.ClientCredentials = c.Grant == "client_credentials"
		o.PrivateKeyFile = c.PrivateKeyFile
		if c.ClientSecretEnvVar != "" {
			if o.ClientSecret = getenv(c.ClientSecretEnvVar); o.ClientSecret == "" {
				return o, usageErr("MCP server %q: oauth.client_secret_env_var names %s, which is not set: export it (%s)", s.Name, c.ClientSecretEnvVar, s.Source)
			}
		}
	}
	return o, nil
}

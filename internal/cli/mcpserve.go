package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/mcpserver"
)

// mcpServerCommands are the subcommands of `aidex mcp` that serve aidex
// over MCP and sign in to MCP servers: serve, login, logout.
func mcpServerCommands(a *cliApp) []*cobra.Command {
	return []*cobra.Command{newMCPServeCmd(a), newMCPLoginCmd(a), newMCPLogoutCmd(a)}
}

// mcpServeFlags are the flags of `aidex mcp serve`.
type mcpServeFlags struct {
	policy    policyFlags
	http      string
	tokenFile string
	profile   string
}

func newMCPServeCmd(a *cliApp) *cobra.Command {
	var f mcpServeFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve aidex's tools and aidex_run to an MCP client (stdio, or streamable HTTP with --http)",
		Long: `Serve aidex as an MCP server for the workspace it is started in: the tools of
a profile (--profile, default standard), each call under aidex's permission
policy (workspace confinement, deny rules, protected paths, safe mode and
--permission-mode, default ask), and the tool aidex_run, which runs a whole
headless aidex session and returns its answer and session id. A call the
policy would ask about is put to the client's user (MCP elicitation) when the
client supports it, else refused with the allow rule that would let it run.
aidex_run may ask for a permission mode no wider than the server's.

By default the protocol runs over stdin and stdout. --http 127.0.0.1:PORT
serves streamable HTTP at http://127.0.0.1:PORT/mcp instead, on a loopback
address only; it prints a bearer token once on stderr, which every request
must send (Authorization: Bearer TOKEN); --token-file FILE also writes it to
FILE, readable only by you. A request without the token is answered 401
with a message naming where the token is; the server takes no OAuth
sign-in.`,
		Example: `  aidex mcp serve
  aidex mcp serve --profile readonly --permission-mode plan
  aidex mcp serve --http 127.0.0.1:8765
  aidex mcp serve --http 127.0.0.1:8765 --token-file ~/.aidex-mcp-token
  claude mcp add aidex -- aidex mcp serve -w ~/src/project`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.tokenFile != "" && f.http == "" {
				return usageErr("--token-file needs --http: over stdio there is no token")
			}
			if f.policy.mode == "" {
				f.policy.mode = "ask"
			}
			if err := a.applyPolicyFlags(&f.policy); err != nil {
				return err
			}
			ctx, stop := withSignals(cmd.Context())
			defer stop()
			return a.runMCPServe(ctx, f)
		},
	}
	addPolicyFlags(cmd, &f.policy)
	cmd.Flags().Lookup("permission-mode").Usage = "plan, ask, auto-edit or yolo: the server's calls, and the widest mode aidex_run may ask for (default ask)"
	cmd.Flags().StringVar(&f.http, "http", "", "serve streamable HTTP on this loopback `ADDRESS` (127.0.0.1:PORT; port 0: any free port) instead of stdio")
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", "with --http, also write the token to `FILE` (mode 0600, replaced atomically)")
	cmd.Flags().StringVar(&f.profile, "profile", "standard", "tool profile to offer: standard, full or readonly")
	return cmd
}

// runMCPServe serves until the client disconnects (stdio) or ctx ends.
func (a *cliApp) runMCPServe(ctx context.Context, f mcpServeFlags) error {
	var ln net.Listener
	if f.http != "" {
		var err error
		if ln, err = listenLoopback(f.http); err != nil {
			return err
		}
		defer ln.Close()
	}
	srv, err := mcpserver.New(ctx, mcpserver.Options{Profile: f.profile, Mode: f.policy.mode, Version: a.proc.version(),
		Start: app.StartOptions{Options: a.setupOptions(), Report: a.report, Sandbox: true}})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer srv.Close()
	if ln == nil {
		t := &mcp.IOTransport{Reader: io.NopCloser(a.proc.Stdin), Writer: nopWriteCloser{a.proc.Stdout}}
		if err := srv.MCP().Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	return a.serveMCPHTTP(ctx, srv, ln, f.http, f.tokenFile)
}

// serveMCPHTTP serves streamable HTTP on ln until ctx ends, after printing
// the address and the token once on stderr.
func (a *cliApp) serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, ln net.Listener, addr, tokenFile string) error {
	token, err := mcpserver.NewToken()
	if err != nil {
		return err
	}
	if tokenFile != "" {
		if tokenFile, err = filepath.Abs(tokenFile); err != nil {
			return usageErr("--token-file: %v", err)
		}
		if err := mcpserver.WriteTokenFile(tokenFile, token); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	host, _, _ := net.SplitHostPort(addr)
	h, closeSessions := srv.HTTPHandler(mcpserver.HTTPOptions{Token: token, TokenFile: tokenFile, Bound: ln.Addr(), Host: host})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.proc.Stderr, "aidex mcp serve: http://%s/mcp (workspace %s, profile %s, mode %s)\n", ln.Addr(), srv.Workspace(), srv.Profile(), srv.Mode())
	fmt.Fprintf(a.proc.Stderr, "token: %s\nsend it with every request: Authorization: Bearer TOKEN (it is not shown again)\n", token)
	if tokenFile != "" {
		fmt.Fprintf(a.proc.Stderr, "token file: %s\n", tokenFile)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		closeSessions()
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = hs.Shutdown(shutdown)
	closeSessions()
	return err
}

// listenLoopback listens on addr, which must be a loopback address with a
// port. Errors name the fix.
func listenLoopback(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageErr("--http %q: want a loopback address with a port, e.g. 127.0.0.1:8765", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return nil, usageErr("--http %q: the port must be 0 (any free port) or 1-65535", addr)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, usageErr("--http %q: aidex mcp serve listens on a loopback address only (127.0.0.1:PORT, [::1]:PORT or localhost:PORT): its tools act on your files", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("listen on %s: %w (pick another port, or port 0 for any free one)", addr, err)}
	}
	return ln, nil
}

// nopWriteCloser is a Writer whose Close does nothing (stdout stays open
// for the process).
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/ui/web"
)

// webFlags are the flags of `aidex web`.
type webFlags struct {
	port            int
	host            string
	open            bool
	model, provider string
	sandbox         string
	multi           multiFlags
}

func newWebCmd(a *cliApp) *cobra.Command {
	var f webFlags
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Serve the browser UI and its HTTP API on this machine (token-protected)",
		Long: `Serve aidex's browser UI and HTTP API over the same engine, sessions and
permission policy as the terminal. It listens on 127.0.0.1 (the first free port
from 8420) and prints the page's URL with a per-launch token; the token is also
written to a 0600 file in the state directory while the server runs. --open
opens the page with a one-time sign-in code (valid for a minute), never the
token, since the browser's command line is visible to other users. Every API
request needs the token. Web chats are always confined to the workspace, and the
shell tools are off unless web_allow_shell_tools = true is set in the config file.`,
		Example: `  aidex web
  aidex web --port 0 --open
  aidex web -w ~/src/project --model groq/llama-3.3-70b-versatile`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			port := f.port
			if !cmd.Flags().Changed("port") {
				port = -1 // the first free port from 8420
			} else if port < 0 || port > 65535 {
				return usageErr("--port must be 0 (any free port) or 1-65535, not %d", port)
			}
			ctx, stop := withSignals(cmd.Context())
			defer stop()
			return a.runWeb(ctx, f, port)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.port, "port", web.DefaultPort, "port to listen on (default: the first free one from 8420; 0: any free port)")
	fl.StringVar(&f.host, "host", "127.0.0.1", "address to listen on; anything but loopback exposes aidex to the network")
	fl.BoolVar(&f.open, "open", false, "open the page in the default browser (with a one-time sign-in code, not the token)")
	fl.StringVarP(&f.model, "model", "m", "", "model to use, or PROVIDER/MODEL")
	fl.StringVar(&f.provider, "provider", "", "`NAME` of the provider to use (see aidex providers)")
	addSandboxFlag(cmd, &f.sandbox)
	addMultiFlags(cmd, &f.multi)
	return cmd
}

// runWeb starts the server and blocks until ctx ends (Ctrl+C, SIGTERM).
func (a *cliApp) runWeb(ctx context.Context, f webFlags, port int) error {
	if err := a.applyWebFlags(&f); err != nil {
		return err
	}
	tuneGC(a.proc.Getenv)
	token, err := web.NewToken()
	if err != nil {
		return err
	}
	o := web.Options{Setup: a.setupOptions(), Token: token, Host: f.host, Version: a.proc.shortVersion()}
	if a.flags.verbose {
		// Debug lines (ignored request fields) on stderr.
		o.Log = slog.New(slog.NewTextHandler(a.proc.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, err := web.New(ctx, o)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer srv.Close()
	rt := srv.Runtime()
	a.warn(rt)
	if n := rt.SandboxInfo().Notice; n != "" && !a.flags.quiet {
		fmt.Fprintf(a.proc.Stderr, "aidex: warning: %s\n", n)
	}
	ln, err := web.Listen(f.host, port)
	if err != nil {
		return err
	}
	url := web.URL(f.host, ln.Addr(), token)
	if !web.IsLoopback(f.host) {
		fmt.Fprintf(a.proc.Stderr, "aidex: warning: listening on %s: every machine that can reach this address can try the API; the token is the only protection (prefer --host 127.0.0.1)\n", ln.Addr())
	}
	portNum := 0
	if ta, ok := ln.Addr().(*net.TCPAddr); ok {
		portNum = ta.Port
	}
	file, err := web.WriteTokenFile(rt.Config.Paths.StateDir, web.TokenFile{URL: url, Token: token, Port: portNum, PID: os.Getpid(), Workspace: rt.Workspace})
	if err != nil {
		fmt.Fprintf(a.proc.Stderr, "aidex: warning: %v\n", err)
	} else {
		defer os.Remove(file)
	}
	// The URL line comes after the token file exists, so a script that
	// waits for the line finds the file too.
	fmt.Fprintf(a.proc.Stdout, "aidex web: %s\n", url)
	if rt.Notice != "" && !a.flags.quiet {
		fmt.Fprintf(a.proc.Stderr, "aidex: %s\n", rt.Notice)
	}
	if f.open {
		a.openWeb(srv, f.host, ln.Addr())
	}
	return srv.Serve(ctx, ln)
}

// openWeb opens the page in the browser with a one-time login code, not
// the token: the opener's command line is visible to every user of the
// machine (ps). The page exchanges the code for the token cookie once,
// within web.LoginCodeTTL; the token URL stays on the terminal.
func (a *cliApp) openWeb(srv *web.Server, host string, addr net.Addr) {
	open := a.proc.OpenURL
	if open == nil {
		open = openBrowser
	}
	code, err := srv.NewLoginCode()
	if err == nil {
		err = open(web.LoginURL(host, addr, code))
	}
	if err != nil {
		fmt.Fprintf(a.proc.Stderr, "aidex: warning: could not open a browser (%v): open the URL above yourself\n", err)
	}
}

// openBrowser opens url with the system's opener (xdg-open, open, or
// rundll32 on Windows) without waiting for it.
func openBrowser(url string) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", url)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	if err := c.Start(); err != nil {
		return err
	}
	go func() { _ = c.Wait() }()
	return nil
}

// tuneGC sets the garbage collector's target for a long-running web
// server (web.GCPercent) unless the user set GOGC: with the default, the
// collector's assists stalled the slowest 1% of 50 concurrent streams' events
// by 60–130 ms (docs/benchmarks.md, "Streaming"). It returns the previous
// setting and whether it changed it.
func tuneGC(getenv func(string) string) (prev int, changed bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return debug.SetGCPercent(web.GCPercent), true
}

// applyWebFlags turns the web command's flags into config keys. Errors:
// a bad --sandbox, --multi, --keep or --models (usage).
func (a *cliApp) applyWebFlags(f *webFlags) error {
	if f.model != "" {
		a.flagValues["model"] = f.model
	}
	if f.provider != "" {
		a.flagValues["provider"] = f.provider
	}
	if a.flags.workspace != "" {
		a.flagValues["workspace"] = a.flags.workspace
	}
	if err := a.applySandboxFlag(f.sandbox); err != nil {
		return err
	}
	return a.applyMultiFlags(&f.multi)
}

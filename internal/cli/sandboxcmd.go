package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/sandbox"
)

func newSandboxCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Show what the OS sandbox of commands can do on this machine",
		Args:  cobra.NoArgs,
	}
	var mode string
	check := &cobra.Command{
		Use:   "check",
		Short: "Print the sandbox's capabilities here and run its self-test",
		Long: `Print what the OS sandbox of the commands tools run can do on this machine
(Landlock ABI, user/mount/PID/IPC/network namespaces, the helper program, how
the network is isolated), the mode, writable folders and private toolchain
caches the configuration gives,
then run the self-test: small commands in the sandbox (a write inside and
outside the workspace, a read of a hidden path, a TCP connect) under a temp
folder it removes. Exit status: 0 when the sandbox works and every check
held, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.applySandboxFlag(mode); err != nil {
				return err
			}
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			caps := sandbox.Probe()
			m, err := sandbox.ParseMode(rt.Config.Sandbox.Mode)
			if err != nil {
				return usageErr("%v", err)
			}
			test := m
			if test == sandbox.Off {
				test = sandbox.WorkspaceWrite // what the machine could do
			}
			pol := rt.SandboxPolicy(test) // stats the toolchains on PATH: once
			var checks []sandbox.Check
			if caps.Available() {
				checks = sandbox.SelfTest(cmd.Context(), pol, caps)
			}
			info := app.SandboxInfo{Mode: m, Caps: caps, Network: rt.Config.Sandbox.Network,
				Explicit: rt.Config.Sources["sandbox.mode"] != config.SourceDefault}
			if !writeSandboxCheck(a.proc.Stdout, info, pol, checks) {
				return &ExitError{Code: ExitFailure, Err: fmt.Errorf("the sandbox check failed")}
			}
			return nil
		},
	}
	check.Flags().StringVar(&mode, "sandbox", "", "check this mode instead of [sandbox] mode")
	cmd.AddCommand(check)
	return cmd
}

// writeSandboxCheck prints the capabilities, the configuration and the
// self-test's checks; it reports whether everything held (the sandbox is
// available, the self-test ran and no check failed).
func writeSandboxCheck(w io.Writer, info app.SandboxInfo, pol sandbox.Policy, checks []sandbox.Check) bool {
	c := info.Caps
	row := func(k, v string) { fmt.Fprintf(w, "%-18s %s\n", k+":", v) }
	mode := string(info.Mode)
	if !info.Explicit {
		mode += " (default)"
	}
	row("mode", mode)
	landlock := "not available"
	if c.LandlockABI > 0 {
		landlock = fmt.Sprintf("ABI %d", c.LandlockABI)
	}
	row("Landlock", landlock)
	row("namespaces", yesNo(c.Namespaces, "user, mount, PID, IPC and network", "not available"))
	row("helper", orNone(c.Helper))
	row("network isolation", networkMethod(c, info.Network))
	if len(c.Limits) > 0 {
		row("limits", strings.Join(c.Limits, "; "))
	}
	row("writable", strings.Join(append([]string{pol.Workspace}, pol.Writable...), ", "))
	for i, ch := range pol.Caches {
		k := ""
		if i == 0 {
			k = "private caches"
		}
		line := fmt.Sprintf("%s: %s (yours, %s, stays read-only)", ch.Name, ch.Private, ch.Host)
		if ch.Note != "" {
			line += "; " + ch.Note
		}
		if k == "" {
			fmt.Fprintf(w, "%-18s %s\n", "", line)
		} else {
			row(k, line)
		}
	}
	row("hidden", strings.Join(pol.Hidden, ", "))
	if !c.Available() {
		fmt.Fprintf(w, "commands cannot be sandboxed here: %s\n", c.Reason)
		return false
	}
	if len(checks) == 0 {
		fmt.Fprintln(w, "self-test: no check ran")
		return false
	}
	fmt.Fprintln(w, "self-test:")
	ok := true
	for _, ch := range checks {
		mark := "ok  "
		if !ch.OK {
			mark, ok = "FAIL", false
		}
		line := "  " + mark + " " + ch.Name
		if ch.Note != "" {
			line += ": " + ch.Note
		}
		fmt.Fprintln(w, line)
	}
	return ok
}

// networkMethod says how sandboxed commands are kept off the network.
func networkMethod(c sandbox.Caps, network bool) string {
	switch {
	case network:
		return "none: [sandbox] network = true lets commands reach the network"
	case c.Namespaces:
		return "a network namespace with only its own loopback; no Unix socket but the sandbox's own"
	case c.LandlockABI >= 4:
		return "Landlock TCP rules (TCP only: UDP and Unix sockets stay reachable)"
	}
	return "none"
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

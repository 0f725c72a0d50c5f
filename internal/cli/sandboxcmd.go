package cli

import (
	"fmt"
	"io"
	"runtime"
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
		Short: "Print the sandbox's capabilities here and run its escape suite",
		Long: `Print what the OS sandbox of the commands tools run can do on this machine
(Landlock ABI, user/mount/PID/IPC/network namespaces, the helper program, how
the network is isolated), the mode, writable folders and private toolchain
caches the configuration gives,
then run the escape suite: for every class of escape (writes outside the
writable set, credentials, the git dir, project config, caches, Unix
sockets, leftover processes, terminals, IPC, network) one or more attempts,
each a small command run in the real sandbox with the network off, over a
scratch workspace, home and temp folder it removes. It prints held, BROKEN
or "not available here" (with the reason) per class, then every attempt.
Exit status: 0 when the sandbox works and every class held, 1 otherwise.`,
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
// escape suite's result per class, then each attempt; it reports whether
// everything held (the sandbox is available, the suite ran and no class
// broke).
func writeSandboxCheck(w io.Writer, info app.SandboxInfo, pol sandbox.Policy, checks []sandbox.Check) bool {
	return writeSandboxCheckFor(w, runtime.GOOS, info, pol, checks)
}

// writeSandboxCheckFor is writeSandboxCheck for the OS goos: on Windows,
// which has no sandbox yet, only what applies there (the mode, that
// commands run unsandboxed and what guards them instead); the Linux
// layers (Landlock, namespaces, helper, caches) are not printed.
func writeSandboxCheckFor(w io.Writer, goos string, info app.SandboxInfo, pol sandbox.Policy, checks []sandbox.Check) bool {
	if goos == "windows" && !info.Caps.Available() {
		writeWindowsSandbox(w, info, pol)
		return false
	}
	c := info.Caps
	writeSandboxSetup(w, info, pol)
	if !c.Available() {
		fmt.Fprintf(w, "commands cannot be sandboxed here: %s\n", c.Reason)
		return false
	}
	if len(checks) == 0 {
		fmt.Fprintln(w, "escape suite: no attempt ran")
		return false
	}
	fmt.Fprintln(w, "escape suite (each attempt ran in the sandbox, over a scratch workspace, network off):")
	ok := writeSuiteClasses(w, sandbox.Summarize(checks))
	fmt.Fprintln(w, "attempts:")
	for _, ch := range checks {
		mark := "ok  "
		switch {
		case ch.Unavailable != "":
			mark = "n/a "
		case !ch.OK:
			mark = "FAIL"
		}
		line := "  " + mark + " " + ch.Class + ": " + ch.Name
		switch {
		case ch.Unavailable != "":
			line += ": not available here: " + ch.Unavailable
		case ch.Note != "":
			line += ": " + ch.Note
		}
		fmt.Fprintln(w, line)
	}
	return ok
}

// writeSandboxSetup prints the sandbox's capabilities and configuration:
// mode, Landlock, namespaces, helper, network, limits, the writable set,
// the private caches and the hidden paths.
func writeSandboxSetup(w io.Writer, info app.SandboxInfo, pol sandbox.Policy) {
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
	if start := c.Start(); start != "" {
		row("start", start)
	}
	row("network isolation", networkMethod(c, info.Network))
	if len(c.Limits) > 0 {
		row("limits", strings.Join(c.Limits, "; "))
	}
	row("writable", strings.Join(append([]string{pol.Workspace}, pol.Writable...), ", "))
	for i, ch := range pol.Caches {
		line := fmt.Sprintf("%s: %s (yours, %s, stays read-only)", ch.Name, ch.Private, ch.Host)
		if ch.Note != "" {
			line += "; " + ch.Note
		}
		if i == 0 {
			row("private caches", line)
		} else {
			fmt.Fprintf(w, "%-18s %s\n", "", line)
		}
	}
	row("hidden", strings.Join(pol.Hidden, ", "))
}

// writeWindowsSandbox prints what holds for commands on Windows.
func writeWindowsSandbox(w io.Writer, info app.SandboxInfo, pol sandbox.Policy) {
	row := func(k, v string) { fmt.Fprintf(w, "%-18s %s\n", k+":", v) }
	mode := string(info.Mode)
	if !info.Explicit {
		mode += " (default)"
	}
	row("mode", mode)
	row("sandbox", "none on Windows: commands run unsandboxed, as your user, with the network on")
	row("what guards them", "the permission policy (ask mode asks for every command that is not read-only; with PowerShell for every command), confinement of file tools and of the paths commands name to the workspace "+pol.Workspace)
	row("processes", "each command and background process runs in its own Job Object: a timeout, a kill or aidex exiting ends everything it started")
	fmt.Fprintln(w, "escape suite: not run (there is no sandbox to test); the design of the Windows sandbox is in docs/sandbox.md")
}

// writeSuiteClasses prints the escape suite's result per class and
// reports whether none broke.
func writeSuiteClasses(w io.Writer, results []sandbox.ClassResult) bool {
	ok := true
	width := 0
	for _, r := range results {
		width = max(width, len(r.Class)+1)
	}
	for _, r := range results {
		state := r.State
		switch {
		case r.State == "broken":
			state, ok = "BROKEN", false
		case r.Class == sandbox.ClassControls && r.State == "held":
			state = "works"
		}
		line := fmt.Sprintf("  %-*s %s", width, r.Class+":", state)
		if r.Note != "" {
			line += " (" + r.Note + ")"
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

package cli

import (
	"github.com/spf13/cobra"
)

// app holds what the commands share. Everything heavy (configuration, the
// catalog, the session store) is loaded on first use by the command that
// needs it, never at start-up.
type app struct {
	proc Process
	// started is set once a command's own code runs; an error before that
	// came from cobra's parsing of flags and arguments (exit 2).
	started bool
	flags   globalFlags
}

// globalFlags are the flags every command accepts.
type globalFlags struct {
	workspace string
	verbose   bool
	quiet     bool
}

func newApp(p Process) *app {
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	return &app{proc: p}
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "aidex",
		Short: "aidex: an AI coding agent for the terminal, scripts, CI and the browser",
		Long: `aidex is an AI coding agent. It reads, searches, edits and runs code in your
workspace through tools, under a permission policy you control, with many LLM
providers: paid, free and local.`,
		Version:       a.proc.version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			a.started = true
		},
	}
	root.SetVersionTemplate("aidex {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v\nRun '%s --help' for usage.", err, c.CommandPath())
	})
	pf := root.PersistentFlags()
	pf.StringVarP(&a.flags.workspace, "workspace", "w", "", "workspace directory (default: the current directory)")
	pf.BoolVar(&a.flags.verbose, "verbose", false, "print request/response summaries on stderr (keys redacted)")
	pf.BoolVarP(&a.flags.quiet, "quiet", "q", false, "print only the answer and errors")
	root.CompletionOptions.HiddenDefaultCmd = true
	for _, add := range commandBuilders {
		root.AddCommand(add(a))
	}
	return root
}

// commandBuilders lists the constructors of aidex's subcommands, in help
// order. It is a fixed table, never changed at run time.
var commandBuilders = []func(*app) *cobra.Command{}

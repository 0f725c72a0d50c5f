package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/hooks"
)

func newHooksCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "Show the hook commands (Claude Code compatible) and where they come from",
		Args:  cobra.NoArgs,
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the hooks: event, matcher, command, timeout and source file",
		Long: `List the hook commands aidex runs: from [[hooks.EVENT]] tables of the global
config.toml and of a trusted project's .aidex/config.toml, and from the "hooks"
object of ~/.claude/settings.json and of a trusted project's .claude/settings.json
and .claude/settings.local.json. Hooks of a project that is not trusted are
listed as ignored: they never run until you trust the folder (aidex trust).
With --verbose, every run logs each hook command it runs on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			writeHooks(cmd.OutOrStdout(), rt.Hooks())
			return nil
		},
	}
	cmd.AddCommand(list)
	return cmd
}

// writeHooks prints one row per hook; an empty matcher shows as "*".
func writeHooks(w io.Writer, list []hooks.Hook) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no hooks configured (see docs/hooks.md)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tMATCHER\tCOMMAND\tTIMEOUT\tSOURCE\tSTATUS")
	for _, h := range list {
		m := h.Matcher
		if m == "" {
			m = "*"
		}
		status := "active"
		if h.Unsandboxed {
			status = "active, outside the sandbox"
		}
		if h.Ignored != "" {
			status = h.Ignored
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", h.Event, m, h.Command, h.Timeout, h.Source, status)
	}
	tw.Flush()
}

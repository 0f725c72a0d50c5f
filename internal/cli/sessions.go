package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/session"
)

// openStore opens the session database of the configured data directory
// (app.Start without a provider); closing the store closes it all.
func (a *cliApp) openStore(cmd *cobra.Command) (*session.Store, *app.Runtime, error) {
	svc, err := a.start(cmd.Context(), true)
	if err != nil {
		return nil, nil, err
	}
	return svc.Store(), svc.Runtime(), nil
}

func newSessionsCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export and delete sessions",
		Args:  cobra.NoArgs,
	}
	var asJSON, all bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List this workspace's sessions (--all: every workspace)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, rt, err := a.openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			list, err := st.List(cmd.Context(), session.ListOptions{Workspace: rt.Workspace, All: all})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), list)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, s := range list {
				where := ""
				if all {
					where = s.Workspace
				}
				fmt.Fprintf(w, "%s\t%s\t%s/%s\t%d msgs\t$%.4f\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"),
					s.Provider, s.Model, s.Messages, s.CostUSD, s.Title, where)
			}
			return w.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	list.Flags().BoolVar(&all, "all", false, "sessions of every workspace")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's transcript (markdown)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.exportSession(cmd, args[0], "md")
		},
	}
	var format string
	export := &cobra.Command{
		Use:   "export ID",
		Short: "Export a session as markdown or JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "md" && format != "json" {
				return usageErr("--format must be md or json, not %q", format)
			}
			return a.exportSession(cmd, args[0], format)
		},
	}
	export.Flags().StringVar(&format, "format", "md", "md or json")
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a session and its checkpoints",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, _, err := a.openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Delete(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, show, export, del)
	return cmd
}

func (a *cliApp) exportSession(cmd *cobra.Command, id, format string) error {
	st, _, err := a.openStore(cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Export(cmd.Context(), id, format, cmd.OutOrStdout())
}

func newUndoCmd(a *cliApp) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Restore the files changed by the last turn of the latest session (--session ID for another)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.start(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer svc.Close()
			restored, err := svc.Undo(cmd.Context(), id)
			if err != nil {
				return err
			}
			if len(restored) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "nothing to undo")
			}
			for _, p := range restored {
				fmt.Fprintf(cmd.OutOrStdout(), "restored %s\n", p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "session", "", "session id (default: the latest of this workspace)")
	return cmd
}

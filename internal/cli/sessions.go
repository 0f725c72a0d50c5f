package cli

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/ui/commands"
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
				if list == nil {
					list = []session.Summary{}
				}
				return writeJSON(cmd.OutOrStdout(), list)
			}
			if len(list) == 0 {
				where := "in " + rt.Workspace + " (--all: every workspace)"
				if all {
					where = "in any workspace"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "no sessions yet %s; aidex or aidex -p \"PROMPT\" starts one\n", where)
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			header := "ID\tUPDATED\tMODEL\tMESSAGES\tCOST\tTITLE\t"
			if all {
				header += "WORKSPACE"
			}
			fmt.Fprintln(w, header)
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
		Short: "Print a session's transcript (markdown), then its usage and cost per model, turn and tool",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.showSession(cmd, args[0])
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
				return sessionErr(err)
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
	return sessionErr(st.Export(cmd.Context(), id, format, cmd.OutOrStdout()))
}

// sessionErr makes an unknown or ambiguous session id bad input (exit 2),
// as -r ID does.
func sessionErr(err error) error {
	if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return err
}

func newUndoCmd(a *cliApp) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Put back what the last turn of the latest session changed, commands included (--session ID for another)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.start(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer svc.Close()
			restored, err := svc.Undo(cmd.Context(), id)
			if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
				return &ExitError{Code: ExitUsage, Err: err}
			} else if err != nil {
				return err
			}
			if len(restored) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "nothing to undo")
			}
			for _, line := range commands.UndoLines(restored) {
				fmt.Fprintln(cmd.OutOrStdout(), line)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "session", "", "session id (default: the latest of this workspace)")
	return cmd
}

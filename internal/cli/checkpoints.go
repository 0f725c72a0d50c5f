package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app/rewind"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// promptWidth is how much of a checkpoint's prompt the list shows (runes).
const promptWidth = 60

func newCheckpointsCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoints",
		Short: "List the checkpoints of the workspace (taken before each turn that changes files)",
		Args:  cobra.NoArgs,
	}
	var id string
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List this workspace's checkpoints, oldest first (--session ID: one session's)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, err := a.start(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer svc.Close()
			cps, err := svc.Checkpoints(cmd.Context(), id)
			if err != nil {
				return sessionErr(err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), cps)
			}
			if len(cps) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "no checkpoints yet in %s; aidex takes one before each turn that changes files\n", svc.Runtime().Workspace)
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tTIME\tSESSION\tFILES\tPROMPT")
			for _, c := range cps {
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", c.ID, c.Time.Local().Format("2006-01-02 15:04:05"), c.SessionID,
					len(c.Files), shortPrompt(c.Prompt))
			}
			return w.Flush()
		},
	}
	list.Flags().StringVar(&id, "session", "", "only this session's checkpoints (an id or unique prefix)")
	list.Flags().BoolVar(&asJSON, "json", false, "print as JSON (id, session_id, time, prompt, messages, files)")
	cmd.AddCommand(list)
	return cmd
}

func newRewindCmd(a *cliApp) *cobra.Command {
	var code, conversation, both, asJSON bool
	cmd := &cobra.Command{
		Use:   "rewind ID",
		Short: "Put the files and the conversation back to a checkpoint (aidex checkpoints list shows the ids)",
		Long: "Put the workspace's files (--code), the session's conversation (--conversation) or both (--both,\n" +
			"the default) back to checkpoint ID. Files new since the checkpoint are removed, changed and deleted\n" +
			"ones come back; ignored files and files over the size cap are never touched. The conversation is cut\n" +
			"back to before the prompt of that turn. The state before the rewind is checkpointed, so a rewind can\n" +
			"itself be rewound.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := rewindScope(code, conversation, both)
			if err != nil {
				return err
			}
			svc, err := a.start(cmd.Context(), true)
			if err != nil {
				return err
			}
			defer svc.Close()
			res, err := svc.Rewind(cmd.Context(), "", args[0], scope)
			if errors.Is(err, rewind.ErrUnknownCheckpoint) || errors.Is(err, rewind.ErrOtherWorkspace) || errors.Is(err, session.ErrAmbiguous) {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			if asJSON && err == nil {
				return writeJSON(cmd.OutOrStdout(), res)
			}
			printRewind(cmd, res, scope)
			return err
		},
	}
	cmd.Flags().BoolVar(&code, "code", false, "restore the files only")
	cmd.Flags().BoolVar(&conversation, "conversation", false, "cut the conversation only")
	cmd.Flags().BoolVar(&both, "both", false, "restore the files and cut the conversation (the default)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (restored, deleted, kept, messages, undo)")
	return cmd
}

// shortPrompt is p on one line, terminal-safe, cut to promptWidth runes.
func shortPrompt(p string) string {
	r := []rune(strings.Join(strings.Fields(termsafe.Clean(p)), " "))
	if len(r) > promptWidth {
		return string(r[:promptWidth-1]) + "…"
	}
	return string(r)
}

// rewindScope maps the flags onto a scope: at most one of them, both by
// default.
func rewindScope(code, conversation, both bool) (rewind.Scope, error) {
	n := 0
	for _, b := range []bool{code, conversation, both} {
		if b {
			n++
		}
	}
	switch {
	case n > 1:
		return 0, usageErr("give one of --code, --conversation and --both")
	case code:
		return rewind.Code, nil
	case conversation:
		return rewind.Conversation, nil
	}
	return rewind.Both, nil
}

// printRewind says what a rewind did, one line a file.
func printRewind(cmd *cobra.Command, res rewind.Result, scope rewind.Scope) {
	out := cmd.OutOrStdout()
	for _, p := range res.Restored {
		fmt.Fprintf(out, "restored %s\n", termsafe.Clean(p))
	}
	for _, p := range res.Deleted {
		fmt.Fprintf(out, "deleted %s\n", termsafe.Clean(p))
	}
	for _, p := range res.Kept {
		fmt.Fprintf(out, "kept %s (ignored or over the size cap)\n", termsafe.Clean(p))
	}
	if scope&rewind.Code != 0 && len(res.Restored)+len(res.Deleted) == 0 {
		fmt.Fprintln(out, "the files were already as at the checkpoint")
	}
	if scope&rewind.Conversation != 0 {
		fmt.Fprintf(out, "conversation: %d messages kept\n", res.Messages)
	}
	if res.Undo != "" {
		fmt.Fprintf(out, "to undo this rewind: aidex rewind %s --code\n", res.Undo)
	}
}

// runCheckpoints returns the ids of session id's checkpoints not in
// before (those a run took), oldest first.
func runCheckpoints(ctx context.Context, st *session.Store, id string, before map[string]bool) []string {
	out := []string{}
	rows, err := st.Snapshots(ctx, id, "")
	if err != nil {
		return out
	}
	for _, r := range rows {
		if !before[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}

// checkpointSet returns the ids of session id's checkpoints.
func checkpointSet(ctx context.Context, st *session.Store, id string) map[string]bool {
	set := map[string]bool{}
	rows, _ := st.Snapshots(ctx, id, "") // best effort: a failure lists every id as the run's
	for _, r := range rows {
		set[r.ID] = true
	}
	return set
}

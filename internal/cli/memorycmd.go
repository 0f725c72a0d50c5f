package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/notestore"
)

// memoryStore opens the project and global memory of the workspace.
func (a *cliApp) memoryStore() (*memstore.Store, error) {
	s, _, err := a.memoryStoreTrust()
	return s, err
}

// memoryStoreTrust is memoryStore and whether the workspace folder is
// trusted (a project's pinned memories count only then).
func (a *cliApp) memoryStoreTrust() (*memstore.Store, bool, error) {
	rt, err := a.catalogOnly()
	if err != nil {
		return nil, false, err
	}
	return memstore.NewStore(rt.Workspace, memstore.GlobalDir(rt.Config.Paths.ConfigDir), nil), rt.Config.ProjectTrusted, nil
}

// untrustedPinNote tells on w, at once, that a pinned project memory of
// an untrusted folder stays out of the system prompt until `aidex trust`
// (a cloned repository could otherwise ship pinned instructions).
func untrustedPinNote(w io.Writer, e memstore.Entry, trusted bool) {
	if e.Pinned && e.Scope == memstore.ScopeProject && !trusted {
		fmt.Fprintf(w, "note: %s is pinned, but this folder is not trusted: pinned project memories go into the system prompt only after `aidex trust` here (global ones, --scope global, always do)\n", e.ID)
	}
}

// memoryErr maps a missing entry to a usage error (exit 2).
func memoryErr(err error) error {
	if errors.Is(err, memstore.ErrNoEntry) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return err
}

func newMemoryCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "List, add, pin, edit and delete saved memories (pinned ones go into the system prompt)",
		Long: `Memories are short facts the model saved with save_memory (or you added with
'aidex memory add'): project ones in .aidex/memory/entries.jsonl, global ones in
the config directory's memory/entries.jsonl. Pinned memories are added to the
system prompt of every session. The model's own memory files (the memory tool)
live outside the workspace, in the state directory's memory/<workspace hash>/,
one folder per model family and shared/ (memory = false turns the tool off).`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newMemoryListCmd(a), newMemoryAddCmd(a), newMemoryPinCmd(a, true), newMemoryPinCmd(a, false),
		newMemoryEditCmd(a), newMemoryDeleteCmd(a))
	return cmd
}

func newMemoryListCmd(a *cliApp) *cobra.Command {
	var q memstore.Query
	var scope string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List memories, most recent first",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.memoryStore()
			if err != nil {
				return err
			}
			if q.Scope, err = parseScope(scope, true); err != nil {
				return err
			}
			es, err := s.List(cmd.Context(), q)
			if err != nil {
				return err
			}
			if asJSON {
				type row struct {
					memstore.Entry
					Scope memstore.Scope `json:"scope"`
				}
				rows := make([]row, 0, len(es))
				for _, e := range es {
					rows = append(rows, row{e, e.Scope})
				}
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			if len(es) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no memories")
				return nil
			}
			for _, e := range es {
				fmt.Fprintln(cmd.OutOrStdout(), memstore.FormatEntry(e))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&q.Text, "query", "s", "", "only memories containing every word")
	fl.StringVar(&q.Category, "category", "", "only this category")
	deprecatedShort(fl, a.proc.Stderr, "category", "c")
	fl.StringVar(&scope, "scope", "", "project or global (default: both)")
	fl.BoolVar(&q.PinnedOnly, "pinned", false, "only pinned memories")
	fl.IntVarP(&q.Limit, "limit", "n", 50, "most memories to list (-1 = all)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func parseScope(s string, allowEmpty bool) (memstore.Scope, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		if allowEmpty {
			return "", nil
		}
		return memstore.ScopeProject, nil
	case "project":
		return memstore.ScopeProject, nil
	case "global":
		return memstore.ScopeGlobal, nil
	}
	return "", usageErr("unknown --scope %q: use project or global", s)
}

func newMemoryAddCmd(a *cliApp) *cobra.Command {
	var e memstore.Entry
	var scope string
	cmd := &cobra.Command{
		Use:   `add "TEXT"`,
		Short: "Save a memory yourself (--pin to put it in every system prompt)",
		Example: `  aidex memory add "Use pnpm, not npm" --category preference --pin
  aidex memory add "I prefer short answers" --scope global --pin`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, trusted, err := a.memoryStoreTrust()
			if err != nil {
				return err
			}
			sc, err := parseScope(scope, false)
			if err != nil {
				return err
			}
			e.Content = args[0]
			saved, err := s.Save(cmd.Context(), sc, e)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), memstore.FormatEntry(saved))
			untrustedPinNote(cmd.ErrOrStderr(), saved, trusted)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&e.Category, "category", "", "category, e.g. preference")
	deprecatedShort(fl, a.proc.Stderr, "category", "c")
	fl.StringSliceVarP(&e.Tags, "tag", "t", nil, "tag (repeatable or comma-separated)")
	fl.StringVar(&scope, "scope", "project", "project or global")
	fl.BoolVar(&e.Pinned, "pin", false, "pin it (added to the system prompt)")
	return cmd
}

func newMemoryPinCmd(a *cliApp, pin bool) *cobra.Command {
	use, short := "pin ID", "Pin a memory: it is added to the system prompt of every session"
	if !pin {
		use, short = "unpin ID", "Unpin a memory"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, trusted, err := a.memoryStoreTrust()
			if err != nil {
				return err
			}
			e, err := s.SetPinned(cmd.Context(), args[0], pin)
			if err != nil {
				return memoryErr(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), memstore.FormatEntry(e))
			untrustedPinNote(cmd.ErrOrStderr(), e, trusted)
			return nil
		},
	}
}

func newMemoryEditCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   `edit ID "NEW TEXT"`,
		Short: "Replace a memory's text",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.memoryStore()
			if err != nil {
				return err
			}
			e, err := s.Edit(cmd.Context(), args[0], args[1])
			if err != nil {
				if errors.Is(err, memstore.ErrNoEntry) {
					return memoryErr(err)
				}
				return &ExitError{Code: ExitUsage, Err: err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), memstore.FormatEntry(e))
			return nil
		},
	}
}

func newMemoryDeleteCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID...",
		Aliases: []string{"rm"},
		Short:   "Delete memories",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.memoryStore()
			if err != nil {
				return err
			}
			for _, id := range args {
				if err := s.Delete(cmd.Context(), id); err != nil {
					return memoryErr(err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", id)
			}
			return nil
		},
	}
}

func newNotesCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notes",
		Short: "List the notes the model wrote with create_note (.aidex/notes/)",
		Args:  cobra.NoArgs,
	}
	var asJSON bool
	list := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List notes, newest first",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			ns, err := notestore.List(rt.Workspace)
			if err != nil {
				return err
			}
			if asJSON {
				if ns == nil {
					ns = []notestore.Note{}
				}
				return writeJSON(cmd.OutOrStdout(), ns)
			}
			if len(ns) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no notes")
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range ns {
				date := "-"
				if !n.Date.IsZero() {
					date = n.Date.Local().Format("2006-01-02 15:04")
				}
				tags := ""
				if len(n.Tags) > 0 {
					tags = "#" + strings.Join(n.Tags, " #")
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", date, n.Title, n.Path, tags)
			}
			return w.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(list)
	return cmd
}

package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newAgentsCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the subagent types the task tool can start",
		Long: `Subagents are started by the model with the task tool: each runs in a fresh
context and returns its final answer. Built-in types: general (the session's
tools) and explore (read-only tools). Custom types are markdown files with front
matter name, description, tools and model, the body being the system prompt, in
.aidex/agents/ and .claude/agents/ of a trusted project, ~/.config/aidex/agents/
and ~/.claude/agents/.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAgentsListCmd(a))
	return cmd
}

// agentRow is one line of `aidex agents list --json`.
type agentRow struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Source       string   `json:"source"`
	Tools        []string `json:"tools"`
	Disallowed   []string `json:"disallowed_tools,omitempty"`
	ReadOnly     bool     `json:"read_only,omitempty"`
	Model        string   `json:"model"`
	UnknownTools []string `json:"unknown_tools,omitempty"`
}

func newAgentsListCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List subagent types: name, source, tools, model",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			set := rt.ProjectContent().Subagents()
			for _, w := range set.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
			}
			if !rt.Config.ProjectTrusted {
				fmt.Fprintln(cmd.ErrOrStderr(), "note: this folder is not trusted: its .aidex/agents and .claude/agents are not read (aidex trust)")
			}
			rows := make([]agentRow, len(set.Defs))
			for i, d := range set.Defs {
				rows[i] = agentRow{Name: d.Name, Description: d.Description, Source: d.Source, Tools: d.Tools, Disallowed: d.Disallowed,
					ReadOnly: d.ReadOnly, Model: orInherit(d.Model), UnknownTools: d.Unknown}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tTOOLS\tMODEL")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.Source, toolsColumn(r), r.Model)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func orInherit(model string) string {
	if model == "" {
		return "inherit"
	}
	return model
}

// toolsColumn describes a type's tools: all, read-only, or the list (with
// its disallowed tools, and the names aidex does not know, which are
// ignored).
func toolsColumn(r agentRow) string {
	var s string
	switch {
	case r.ReadOnly:
		s = "read-only"
	case r.Tools == nil:
		s = "all"
	case len(r.Tools) == 0:
		s = "none"
	default:
		s = strings.Join(r.Tools, ",")
	}
	if len(r.Disallowed) > 0 {
		s += " (not: " + strings.Join(r.Disallowed, ",") + ")"
	}
	if len(r.UnknownTools) > 0 {
		s += " (ignored: " + strings.Join(r.UnknownTools, ",") + ")"
	}
	return s
}

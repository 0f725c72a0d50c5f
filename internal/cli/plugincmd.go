package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/plugin"
	"github.com/zelvior/aidex/internal/trust"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// newPluginCmd is `aidex plugin`: Claude Code plugins and marketplaces.
func newPluginCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Install, enable and review Claude Code plugins and marketplaces",
		Long: `A plugin is a folder with .claude-plugin/plugin.json that bundles commands,
agents, skills, hooks and MCP servers (Claude Code's format); a marketplace is a
folder or git repository with .claude-plugin/marketplace.json listing plugins.

aidex keeps installed plugins in its data folder and enables them through the
"enabledPlugins" object of settings: the user's (<config dir>/settings.json) and a
trusted project's .claude/settings.json or .claude/settings.local.json.

Everything a plugin runs or widens — a hook, an MCP server, a command's !` + "`command`" + `
lines and allowed-tools, a skill's or agent's tools — is left out until you approve
it, by its hash and the hash of the plugin's whole folder: ` + "`aidex plugin add`" + ` asks,
` + "`aidex plugin review`" + ` asks later, and an interactive session asks at its first run.
An update that changes any file of the plugin is asked again.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newPluginAddCmd(a), newPluginUpdateCmd(a), newPluginListCmd(a), newPluginRemoveCmd(a), newPluginEnableCmd(a, true),
		newPluginEnableCmd(a, false), newPluginReviewCmd(a), newMarketplaceCmd(a))
	return cmd
}

func newPluginAddCmd(a *cliApp) *cobra.Command {
	var market, scope string
	var yes bool
	cmd := &cobra.Command{
		Use:   "add PATH|GIT-URL|NAME@MARKETPLACE",
		Short: "Install (or update) a plugin from a folder, a git URL or a marketplace, and enable it",
		Long: `Install a plugin: from a folder (copied), a git URL (cloned with no hooks and no
configured programs; URL#REF picks a branch or tag), or, with --marketplace NAME or
as NAME@MARKETPLACE, from a marketplace added with ` + "`aidex plugin marketplace add`" + `.
Adding an installed plugin again updates it. The plugin is enabled at --scope and
its items of content are listed for approval.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			res, err := rt.Plugins().AddPlugin(cmd.Context(), args[0], market, scope)
			out := termsafe.Writer(cmd.OutOrStdout())
			for _, w := range res.Warnings {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "installed %s %s from %s, enabled in %s\n", res.ID(), res.Version, res.Source, res.SettingsFile)
			return a.reviewPlugin(cmd, rt, res.ID(), res.Items, yes)
		},
	}
	cmd.Flags().StringVar(&market, "marketplace", "", "install the plugin called PATH|NAME from this known marketplace")
	cmd.Flags().StringVar(&scope, "scope", "user", "where to enable it: user, project (.claude/settings.json) or local (.claude/settings.local.json)")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve every item of the plugin's content without asking")
	return cmd
}

// reviewPlugin lists a plugin's pending items and approves them: all
// with yes, one by one when stdin is a terminal, else none (with the
// command that reviews them).
func (a *cliApp) reviewPlugin(cmd *cobra.Command, rt *app.Runtime, id string, items []app.ContentItem, yes bool) error {
	out := cmd.OutOrStdout()
	var pending []app.ContentItem
	for _, it := range items {
		if it.Status != trust.StatusApproved {
			pending = append(pending, it)
		}
	}
	if len(pending) == 0 {
		fmt.Fprintf(out, "%s: every item of its content is approved (%d)\n", id, len(items))
		return nil
	}
	var approved []trust.Item
	switch {
	case yes:
		for _, it := range pending {
			printItem(out, it.Item, string(it.Status))
			approved = append(approved, it.Item)
		}
	case isTerminalReader(a.proc.Stdin):
		in := bufio.NewReader(a.proc.Stdin)
		for i, it := range pending {
			fmt.Fprintf(out, "\n%s: %d of %d (%s):\n", id, i+1, len(pending), it.Status)
			printItem(out, it.Item, "")
			ans := ask(out, in)
			if ans == "q" {
				break
			}
			if ans == "a" {
				approved = append(approved, it.Item)
			}
		}
	default:
		fmt.Fprintf(out, "%d item(s) of %s wait for approval and do not run until then:\n", len(pending), id)
		for _, it := range pending {
			printItem(out, it.Item, string(it.Status))
		}
		fmt.Fprintf(out, "approve them with `aidex plugin review %s` in a terminal, or all with `aidex plugin review --yes %s`\n", id, id)
		return nil
	}
	if err := rt.Plugins().ApprovePluginContent(id, approved...); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: approved %d of %d pending item(s)\n", id, len(approved), len(pending))
	return nil
}

func newPluginUpdateCmd(a *cliApp) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "update NAME[@MARKETPLACE]",
		Short: "Fetch an installed plugin again from its folder, URL or marketplace; what changed waits for approval",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			res, err := rt.Plugins().UpdatePlugin(cmd.Context(), args[0])
			for _, w := range res.Warnings {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(termsafe.Writer(cmd.OutOrStdout()), "updated %s to %s from %s\n", res.ID(), res.Version, res.Source)
			return a.reviewPlugin(cmd, rt, res.ID(), res.Items, yes)
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve every new or changed item without asking")
	return cmd
}

func newPluginReviewCmd(a *cliApp) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "review [NAME[@MARKETPLACE]]",
		Short: "Approve the new or changed items of the installed plugins (or of one)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			ids := args
			if len(ids) == 0 {
				list, err := rt.Plugins().List()
				if err != nil {
					return err
				}
				for _, p := range list {
					ids = append(ids, p.ID())
				}
			}
			for _, id := range ids {
				items, err := rt.Plugins().PluginContent(id)
				if err != nil {
					return err
				}
				if err := a.reviewPlugin(cmd, rt, id, items, yes); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve every pending item without asking")
	return cmd
}

func newPluginListCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the installed plugins: id, version, enabled here, source",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			list, err := rt.Plugins().List()
			if err != nil {
				return err
			}
			return writePlugins(cmd.OutOrStdout(), list, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: id, name, marketplace, version, description, source, dir, enabled, enabled_by")
	return cmd
}

type pluginJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Marketplace string `json:"marketplace"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"`
	Dir         string `json:"dir"`
	Enabled     bool   `json:"enabled"`
	EnabledBy   string `json:"enabled_by,omitempty"`
}

// writePlugins prints the plugins as a table or JSON.
func writePlugins(w io.Writer, list []app.PluginState, asJSON bool) error {
	if asJSON {
		out := make([]pluginJSON, 0, len(list))
		for _, p := range list {
			out = append(out, pluginJSON{ID: p.ID(), Name: p.Name, Marketplace: p.Marketplace, Version: p.Version,
				Description: p.Description, Source: p.Source, Dir: p.Dir, Enabled: p.Enabled, EnabledBy: p.EnabledBy})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no plugins installed: add one with `aidex plugin add PATH|GIT-URL|NAME@MARKETPLACE`")
		return nil
	}
	tw := tabwriter.NewWriter(termsafe.Writer(w), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PLUGIN\tVERSION\tSTATE\tSOURCE")
	for _, p := range list {
		state := "disabled"
		if p.Enabled {
			state = "enabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.ID(), p.Version, state, p.Source)
	}
	return tw.Flush()
}

func newPluginRemoveCmd(a *cliApp) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME[@MARKETPLACE]",
		Short: "Uninstall a plugin: its copy, its user-level enablement and the approvals of its content",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			p, err := rt.Plugins().RemovePlugin(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(termsafe.Writer(cmd.OutOrStdout()), "removed %s\n", p.ID())
			return nil
		},
	}
}

func newPluginEnableCmd(a *cliApp, on bool) *cobra.Command {
	var scope string
	verb := "disable"
	if on {
		verb = "enable"
	}
	cmd := &cobra.Command{
		Use:   verb + " NAME[@MARKETPLACE]",
		Short: verb + " an installed plugin at a scope (enabledPlugins in that settings file)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			p, file, err := rt.Plugins().SetPluginEnabled(args[0], scope, on)
			if err != nil {
				return err
			}
			fmt.Fprintf(termsafe.Writer(cmd.OutOrStdout()), "%sd %s in %s\n", verb, p.ID(), file)
			if scope != "user" && !rt.Config.ProjectTrusted {
				fmt.Fprintf(cmd.OutOrStdout(), "note: this folder is not trusted, so its settings (and this %s) count only once you run `aidex trust`\n", verb)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "user", "user, project (.claude/settings.json) or local (.claude/settings.local.json)")
	return cmd
}

func newMarketplaceCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "marketplace",
		Short: "Add, list and remove plugin marketplaces",
		Args:  cobra.NoArgs,
	}
	add := &cobra.Command{
		Use:   "add PATH|GIT-URL",
		Short: "Add (or update) a marketplace: a folder or git repository with .claude-plugin/marketplace.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			k, m, warns, err := rt.Plugins().AddMarketplace(cmd.Context(), args[0])
			for _, w := range warns {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			if err != nil {
				return err
			}
			out := termsafe.Writer(cmd.OutOrStdout())
			fmt.Fprintf(out, "added marketplace %s (%d plugins) from %s; install one with `aidex plugin add NAME@%s`\n", k.Name, len(m.Plugins), k.Source, k.Name)
			writeEntries(out, m.Plugins)
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the known marketplaces and their plugins",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			ms, err := rt.Plugins().Marketplaces()
			if err != nil {
				return err
			}
			writeMarketplaces(termsafe.Writer(cmd.OutOrStdout()), ms)
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Forget a marketplace (the plugins installed from it stay)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			k, err := rt.Plugins().RemoveMarketplace(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(termsafe.Writer(cmd.OutOrStdout()), "removed marketplace %s\n", k.Name)
			return nil
		},
	}
	cmd.AddCommand(add, list, remove)
	return cmd
}

// writeMarketplaces prints each marketplace and its plugins.
func writeMarketplaces(w io.Writer, ms []app.MarketplaceListing) {
	if len(ms) == 0 {
		fmt.Fprintln(w, "no marketplaces: add one with `aidex plugin marketplace add PATH|GIT-URL`")
		return
	}
	for _, m := range ms {
		fmt.Fprintf(w, "%s (%s)\n", m.Name, m.Source)
		if m.Err != nil {
			fmt.Fprintf(w, "  cannot be read: %v\n", m.Err)
		}
		writeEntries(w, m.Plugins)
	}
}

func writeEntries(w io.Writer, es []plugin.Entry) {
	for _, e := range es {
		fmt.Fprintf(w, "  %-28s %-8s %s\n", e.Name, e.Version, e.Description)
	}
}

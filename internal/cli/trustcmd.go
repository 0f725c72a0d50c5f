package cli

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/trust"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

func newTrustCmd(a *cliApp) *cobra.Command {
	var remove, list, review bool
	cmd := &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust a folder and approve its project content (servers, hooks, commands, settings)",
		Long: `A project's .aidex/config.toml, .mcp.json, .claude/ folder and commands come
with the code you clone. Until you trust the folder, aidex ignores everything in
them that could redirect your API keys, run commands or widen permissions.

In a trusted folder each item of such content — an MCP server (and the script it
runs), a hook (and its script), a command's !` + "`command`" + ` lines and allowed-tools, a
skill's or agent's tools, an allow rule, a setting an untrusted folder may not
set — runs only once you approved it, by its hash. When one is new or changed,
it is left out until you approve it: an interactive session asks at its first
message, a headless run names it on stderr (and stops, for a hook).

  aidex trust [DIR]           trust DIR (default: the workspace) and approve its
                              current items, listing them
  aidex trust --review [DIR]  show what is new or changed, item by item, to
                              approve or skip (a listing when stdin is no terminal)
  aidex trust --remove [DIR]  stop trusting DIR and forget its approvals
  aidex trust --list          list the trusted folders`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			p := rt.Config.Paths
			out := cmd.OutOrStdout()
			if list {
				dirs, err := p.TrustedFolders()
				if err != nil {
					return err
				}
				for _, d := range dirs {
					fmt.Fprintln(out, d)
				}
				return nil
			}
			dir := rt.Workspace
			if len(args) == 1 {
				if dir, err = filepath.Abs(args[0]); err != nil {
					return err
				}
			}
			switch {
			case remove:
				if err := p.Untrust(dir); err != nil {
					return err
				}
				if err := trust.OpenStore(p.StateDir).Forget(dir); err != nil {
					return err
				}
				fmt.Fprintf(out, "no longer trusted: %s\n", dir)
				return nil
			case review:
				return a.reviewTrust(cmd, dir)
			}
			if err := p.Trust(dir); err != nil {
				return err
			}
			fmt.Fprintf(out, "trusted: %s\n", dir)
			drt, err := a.loadDir(dir)
			if err != nil {
				return fmt.Errorf("%w (fix it, then run `aidex trust %s` again to approve the folder's content)", err, dir)
			}
			if err := drt.ProjectContent().ApproveAll(); err != nil {
				return err
			}
			items := drt.ProjectContent().Items()
			if len(items) == 0 {
				fmt.Fprintln(out, "no servers, hooks, commands, skills, agents, allow rules or settings to approve")
				return nil
			}
			fmt.Fprintf(out, "approved %d item(s):\n", len(items))
			for _, it := range items {
				printItem(out, it.Item, "")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&remove, "remove", false, "stop trusting the folder and forget its approvals")
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted folders")
	cmd.Flags().BoolVar(&review, "review", false, "review the folder's new or changed items one by one")
	cmd.MarkFlagsMutuallyExclusive("remove", "list", "review")
	return cmd
}

// loadDir loads the configuration with dir as the workspace (its warnings
// are not printed again).
func (a *cliApp) loadDir(dir string) (*app.Runtime, error) {
	o := a.setupOptions()
	o.Workspace = dir
	rt, err := app.LoadBase(o)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return rt, nil
}

// reviewTrust is `aidex trust --review`: each new or changed item with
// [a]pprove / [s]kip / [q]uit when stdin is a terminal, else a listing.
func (a *cliApp) reviewTrust(cmd *cobra.Command, dir string) error {
	out := cmd.OutOrStdout()
	rt, err := a.loadDir(dir)
	if err != nil {
		return err
	}
	if !rt.Config.ProjectTrusted {
		return usageErr("%s is not trusted, so none of its content runs: read its .aidex/, .claude/ and .mcp.json, then run `aidex trust %s`", dir, dir)
	}
	pending := rt.ProjectContent().Pending()
	if len(pending) == 0 {
		fmt.Fprintf(out, "nothing to review in %s: every item is approved\n", dir)
		return nil
	}
	if !isTerminalReader(a.proc.Stdin) {
		fmt.Fprintf(out, "%d item(s) of %s wait for approval:\n", len(pending), dir)
		for _, c := range pending {
			printItem(out, c.Item, string(c.Status))
		}
		fmt.Fprintf(out, "approve them one by one with `%s` in a terminal, or all with `aidex trust %s`\n", trust.ReviewCommand, dir)
		return nil
	}
	in := bufio.NewReader(a.proc.Stdin)
	var approved []trust.Item
	skipped := 0
	for i, c := range pending {
		fmt.Fprintf(out, "\n%d of %d (%s):\n", i+1, len(pending), c.Status)
		printItem(out, c.Item, "")
		answer := ask(out, in)
		if answer == "q" {
			skipped += len(pending) - i
			break
		}
		if answer == "a" {
			approved = append(approved, c.Item)
		} else {
			skipped++
		}
	}
	if err := rt.ProjectContent().Approve(approved...); err != nil {
		return err
	}
	fmt.Fprintf(out, "approved %d, skipped %d (skipped items stay left out)\n", len(approved), skipped)
	return nil
}

// ask reads a/s/q; end of input skips the rest (q).
func ask(out io.Writer, in *bufio.Reader) string {
	for {
		fmt.Fprint(out, "Approve? [a]pprove/[s]kip/[q]uit: ")
		line, err := in.ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "a", "approve", "y", "yes":
			return "a"
		case "s", "skip", "n", "no":
			return "s"
		case "q", "quit":
			return "q"
		}
		if err != nil {
			fmt.Fprintln(out)
			return "q"
		}
	}
}

// printItem prints "  [STATUS] KIND NAME  (SOURCE)" and the detail, made
// safe for the terminal (they come from the project's files).
func printItem(out io.Writer, it trust.Item, status string) {
	out = termsafe.Writer(out)
	prefix := "  "
	if status != "" {
		prefix += "[" + status + "] "
	}
	fmt.Fprintf(out, "%s%s %s", prefix, it.Kind, it.Name)
	if it.Source != "" {
		fmt.Fprintf(out, "  (%s)", it.Source)
	}
	fmt.Fprintln(out)
	if it.Detail != "" && it.Detail != it.Name {
		fmt.Fprintf(out, "      %s\n", it.Detail)
	}
}

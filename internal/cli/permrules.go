package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/format"
)

// newPermissionsListCmd is `aidex permissions list`: the saved allow, ask
// and deny rules with their sources (Nexus Code's permissions dialog,
// ayder-cli's approvals).
func newPermissionsListCmd(a *cliApp) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the saved permission rules (deny, ask, allow) with the file and line each comes from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			rules := app.PermissionRules(rt.Config)
			if asJSON {
				if rules == nil {
					rules = []app.PermissionRule{}
				}
				return writeJSON(cmd.OutOrStdout(), rules)
			}
			return format.WritePermissionRules(cmd.OutOrStdout(), rules)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON: [{kind, rule, source}]")
	return cmd
}

// newPermissionsRemoveCmd is `aidex permissions remove RULE`.
func newPermissionsRemoveCmd(a *cliApp) *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use:   "remove RULE",
		Short: "Remove a saved permission rule from the aidex config file it is in",
		Example: `  aidex permissions remove 'run_command(npm test *)'
  aidex permissions remove --kind deny 'run_command(git push *)'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if kind != "" && kind != "allow" && kind != "ask" && kind != "deny" {
				return usageErr("--kind must be allow, ask or deny, not %q", kind)
			}
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			removed, err := app.RemovePermissionRule(rt.Config, kind, args[0])
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			for _, r := range removed {
				fmt.Fprintf(cmd.OutOrStdout(), "removed %s rule %s (%s)\n", r.Kind, r.Rule, r.Source)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "the rule's kind when it is saved as several: allow, ask or deny")
	return cmd
}

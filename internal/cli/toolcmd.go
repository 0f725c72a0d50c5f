package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/ui/format"
)

// policyFlags are the permission flags of `aidex tool` and
// `aidex permissions check`.
type policyFlags struct {
	mode             string
	allow, deny, ask []string
	addDirs          []string
	sandbox          string
}

func addPolicyFlags(cmd *cobra.Command, f *policyFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "permission-mode", "", "plan, ask, auto-edit or yolo")
	repeatedVar(fl, &f.allow, "allow", "allow rule (repeatable)")
	repeatedVar(fl, &f.deny, "deny", "deny rule (repeatable)")
	repeatedVar(fl, &f.ask, "ask", "ask rule (repeatable)")
	repeatedVar(fl, &f.addDirs, "add-dir", "grant access to another directory (repeatable)")
	addSandboxFlag(cmd, &f.sandbox)
}

func (a *cliApp) applyPolicyFlags(f *policyFlags) error {
	rf := runFlags{permissionMode: f.mode, allow: f.allow, deny: f.deny, ask: f.ask, addDirs: f.addDirs,
		outputFormat: "text", agentOutput: "final", sandbox: f.sandbox}
	return a.applyRunFlags(&rf)
}

func newToolCmd(a *cliApp) *cobra.Command {
	var pf policyFlags
	var args string
	cmd := &cobra.Command{
		Use:   "tool NAME",
		Short: "Run one tool directly under the permission policy and print its result as JSON",
		Long: `Run one tool directly, as the model would, under the same permission policy
(what would need approval is refused: no one is asked). Prints the result as
JSON. Exit status: 0 when the tool succeeded, 3 when the policy or the
workspace boundary refused it, 2 when --args is not a JSON object, 1 otherwise.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, pos []string) error {
			if !isJSONObject(args) {
				return usageErr("--args must be a JSON object, e.g. --args '{\"path\":\"main.go\"}', not %q", args)
			}
			if err := a.applyPolicyFlags(&pf); err != nil {
				return err
			}
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			out, err := rt.CallTool(cmd.Context(), pos[0], json.RawMessage(args), toolcall.Options{})
			switch {
			case errors.Is(err, toolcall.ErrInternal):
				_ = writeJSON(cmd.OutOrStdout(), out.Result)
				return &ExitError{Code: ExitFailure, Err: err}
			case errors.Is(err, toolcall.ErrConfig):
				return &ExitError{Code: ExitUsage, Err: err}
			case err != nil:
				return err
			}
			if err := writeJSON(cmd.OutOrStdout(), out.Result); err != nil {
				return err
			}
			switch out.Outcome {
			case toolcall.OK:
				return nil
			case toolcall.Refused:
				return &ExitError{Code: ExitDenied, Err: errors.New(out.Result.Error)}
			}
			return &ExitError{Code: ExitFailure, Err: errors.New(out.Result.Error)}
		},
	}
	cmd.Flags().StringVar(&args, "args", "{}", "the tool's arguments as a JSON object")
	addPolicyFlags(cmd, &pf)
	return cmd
}

// isJSONObject reports whether s is one JSON object.
func isJSONObject(s string) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &m) == nil && m != nil
}

func newToolsCmd(a *cliApp) *cobra.Command {
	var profile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the tools and their parameter schemas",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			name, list, err := rt.ProfileTools(profile)
			if errors.Is(err, toolcall.ErrInvalidCall) {
				return usageErr("%v", err)
			} else if err != nil {
				return err
			}
			if asJSON {
				schemas := make([]any, len(list))
				for i, t := range list {
					schemas[i] = t.ToolSchema
				}
				return writeJSON(cmd.OutOrStdout(), schemas)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			size := 0
			for _, t := range list {
				size += len(t.Name) + len(t.Description) + len(t.Parameters)
				fmt.Fprintf(w, "%s\t%s\t%s\n", t.Name, t.Kind, format.FirstLine(t.Description, 90))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\n%d tools (profile %s), schemas %d bytes\n", len(list), name, size)
			aliases, err := rt.ProfileAliases(profile)
			if err != nil {
				return err
			}
			return writeToolAliases(cmd.OutOrStdout(), aliases)
		},
	}
	cmd.Flags().StringVar(&profile, "profile", "", "standard, full or readonly (default: tools.profile)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the schemas as JSON")
	return cmd
}

func newPermissionsCmd(a *cliApp) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Inspect the permission policy",
		Args:  cobra.NoArgs,
	}
	var pf policyFlags
	check := &cobra.Command{
		Use:   "check 'COMMAND' | TOOL ARGS_JSON",
		Short: "Explain what the policy decides for a shell command or a tool call, and which rule decided",
		Example: `  aidex permissions check 'git status && curl x | sh'
  aidex permissions check write_file '{"path":"src/main.go"}'`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 && !isJSONObject(args[1]) {
				return usageErr("the arguments must be a JSON object, e.g. '{\"path\":\"src/main.go\"}', not %q", args[1])
			}
			if err := a.applyPolicyFlags(&pf); err != nil {
				return err
			}
			rt, err := a.catalogOnly()
			if err != nil {
				return err
			}
			name, callArgs := args[0], json.RawMessage(nil)
			if len(args) == 2 {
				callArgs = json.RawMessage(args[1])
			}
			ex, err := rt.ExplainCall(name, callArgs)
			if errors.Is(err, toolcall.ErrInvalidCall) {
				return usageErr("%v", err)
			} else if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), ex.Text)
			fmt.Fprintf(cmd.OutOrStdout(), "(mode %s; where this says ask, headless runs deny)\n", ex.Mode)
			switch ex.Decision {
			case "allow":
				return nil
			case "ask":
				return &ExitError{Code: ExitAsk}
			}
			return &ExitError{Code: ExitDenied}
		},
	}
	addPolicyFlags(check, &pf)
	cmd.AddCommand(check, newPermissionsListCmd(a), newPermissionsRemoveCmd(a))
	return cmd
}

// writeToolAliases prints the seed tool names the profile serves without
// offering them: "head_file → read_file", or "append_file runs as itself
// while edit_file is offered".
func writeToolAliases(out io.Writer, aliases []app.ToolAlias) error {
	if len(aliases) == 0 {
		return nil
	}
	fmt.Fprintf(out, "\nAIdex tool names also accepted (permission rules name the tool that runs):\n")
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, a := range aliases {
		if a.Cover != "" {
			fmt.Fprintf(w, "  %s\truns as itself while %s is offered (its rules apply too)\n", a.Name, a.Cover)
		} else {
			fmt.Fprintf(w, "  %s\t→ %s\n", a.Name, a.Runs)
		}
	}
	return w.Flush()
}

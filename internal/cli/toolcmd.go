package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/setup"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/ui/format"
)

// policyFlags are the permission flags of `aidex tool` and
// `aidex permissions check`.
type policyFlags struct {
	mode             string
	allow, deny, ask []string
	addDirs          []string
}

func addPolicyFlags(cmd *cobra.Command, f *policyFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "permission-mode", "", "plan, ask, auto-edit or yolo")
	fl.StringArrayVar(&f.allow, "allow", nil, "allow rule (repeatable)")
	fl.StringArrayVar(&f.deny, "deny", nil, "deny rule (repeatable)")
	fl.StringArrayVar(&f.ask, "ask", nil, "ask rule (repeatable)")
	fl.StringArrayVar(&f.addDirs, "add-dir", nil, "grant access to another directory (repeatable)")
}

func (a *app) applyPolicyFlags(f *policyFlags) error {
	rf := runFlags{permissionMode: f.mode, allow: f.allow, deny: f.deny, ask: f.ask, addDirs: f.addDirs,
		outputFormat: "text", agentWrites: "allow", agentOutput: "final"}
	return a.applyRunFlags(&rf)
}

// policyFor builds the runtime's workspace and policy; canAsk false turns
// every ask into a deny.
func (a *app) policyFor(canAsk bool) (*setup.Runtime, *permission.Policy, error) {
	rt, err := a.catalogOnly()
	if err != nil {
		return nil, nil, err
	}
	ws, err := rt.NewWorkspace(false)
	if err != nil {
		return nil, nil, err
	}
	p, err := rt.Policy(ws, canAsk)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return rt, p, nil
}

func newToolCmd(a *app) *cobra.Command {
	var pf policyFlags
	var args string
	cmd := &cobra.Command{
		Use:   "tool NAME",
		Short: "Run one tool directly under the permission policy and print its result as JSON",
		Long: `Run one tool directly, as the model would, under the same permission policy
(what would need approval is refused: no one is asked). Prints the result as
JSON. Exit status: 0 when the tool succeeded, 3 when the policy or the
workspace boundary refused it, 1 otherwise.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, pos []string) error {
			if err := a.applyPolicyFlags(&pf); err != nil {
				return err
			}
			rt, policy, err := a.policyFor(false)
			if err != nil {
				return err
			}
			reg, closeTools, err := rt.Registry()
			if err != nil {
				return err
			}
			defer closeTools()
			res := runOneTool(cmd, reg, policy, pos[0], args)
			if err := writeJSON(cmd.OutOrStdout(), res); err != nil {
				return err
			}
			switch {
			case res.OK:
				return nil
			case res.Category == tools.CategorySecurity || res.Category == tools.CategoryPermission:
				return &ExitError{Code: ExitDenied, Err: fmt.Errorf("%s", res.Error)}
			}
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s", res.Error)}
		},
	}
	cmd.Flags().StringVar(&args, "args", "{}", "the tool's arguments as a JSON object")
	addPolicyFlags(cmd, &pf)
	return cmd
}

// runOneTool prepares, checks and runs one tool call.
func runOneTool(cmd *cobra.Command, reg *tools.Registry, policy *permission.Policy, name, args string) tools.Result {
	p, err := reg.Prepare(name, json.RawMessage(args))
	if err != nil {
		return tools.ErrorResult(err)
	}
	v := policy.Check(setup.PermissionRequest(p))
	if v.Decision != permission.Allow {
		cat := tools.CategoryPermission
		if v.Rule == "workspace confinement" || strings.Contains(v.Rule, "protected") {
			cat = tools.CategorySecurity
		}
		msg := v.Reason
		if v.Rule != "" {
			msg += " [" + v.Rule
			if v.Source != "" {
				msg += " from " + v.Source
			}
			msg += "]"
		}
		return tools.Failf(cat, "%s", msg)
	}
	env := tools.NewEnv(policy.Workspace())
	env.SkipReadCheck = true
	return p.Run(cmd.Context(), env)
}

func newToolsCmd(a *app) *cobra.Command {
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
			reg, closeTools, err := rt.Registry()
			if err != nil {
				return err
			}
			defer closeTools()
			prof := rt.Profile()
			if profile != "" {
				prof = tools.Profile{Name: profile}
			}
			schemas, err := reg.Schemas(prof)
			if err != nil {
				return usageErr("%v", err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), schemas)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			size := 0
			for _, s := range schemas {
				d, _ := reg.Lookup(s.Name)
				size += len(s.Name) + len(s.Description) + len(s.Parameters)
				fmt.Fprintf(w, "%s\t%s\t%s\n", s.Name, d.Kind, format.FirstLine(s.Description, 90))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "\n%d tools (profile %s), schemas %d bytes\n", len(schemas), prof.Name, size)
			return nil
		},
	}
	cmd.Flags().StringVar(&profile, "profile", "", "standard, full or readonly (default: tools.profile)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the schemas as JSON")
	return cmd
}

func newPermissionsCmd(a *app) *cobra.Command {
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
			if err := a.applyPolicyFlags(&pf); err != nil {
				return err
			}
			rt, policy, err := a.policyFor(true)
			if err != nil {
				return err
			}
			req := permission.Request{Tool: "run_command", Kind: permission.KindExec, Command: args[0]}
			if len(args) == 2 {
				reg, closeTools, err := rt.Registry()
				if err != nil {
					return err
				}
				defer closeTools()
				p, err := reg.Prepare(args[0], json.RawMessage(args[1]))
				if err != nil {
					return usageErr("%v", err)
				}
				req = setup.PermissionRequest(p)
			}
			v := policy.Check(req)
			fmt.Fprintln(cmd.OutOrStdout(), permission.Explain(v))
			fmt.Fprintf(cmd.OutOrStdout(), "(mode %s; where this says ask, headless runs deny)\n", policy.Mode())
			return nil
		},
	}
	addPolicyFlags(check, &pf)
	cmd.AddCommand(check)
	return cmd
}

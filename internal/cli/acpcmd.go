package cli

import (
	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/ui/acp"
)

// newACPCmd is `aidex acp`: aidex as an Agent Client Protocol agent on
// stdio for editors (Zed, JetBrains, Neovim; see docs/editors.md).
func newACPCmd(a *cliApp) *cobra.Command {
	var model, provider, sandbox string
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim)",
		Long: `Run aidex as an ACP agent (Agent Client Protocol v1: JSON-RPC 2.0, one JSON
object a line, on stdin and stdout). An editor starts it as a child process
and drives sessions: each session works in the folder the editor sends as
cwd, with the same sessions, permission rules and modes as the terminal.
Approvals appear in the editor (allow once / always, reject once / always);
"always" answers save the same project rules as the terminal's "a".
Diagnostics go to stderr. See docs/editors.md for the editor settings.`,
		Example: `  aidex acp
  aidex acp --model anthropic/claude-sonnet-4-5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if model != "" {
				a.flagValues["model"] = model
			}
			if provider != "" {
				a.flagValues["provider"] = provider
			}
			if err := a.applySandboxFlag(sandbox); err != nil {
				return err
			}
			ctx, stop := withSignals(cmd.Context())
			defer stop()
			ag := acp.New(acp.Options{Setup: a.setupOptions(), Version: a.proc.shortVersion(), Stderr: a.proc.Stderr})
			return ag.Serve(ctx, a.proc.Stdin, a.proc.Stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&model, "model", "m", "", "model to use, or PROVIDER/MODEL")
	fl.StringVar(&provider, "provider", "", "`NAME` of the provider to use (see aidex providers)")
	addSandboxFlag(cmd, &sandbox)
	return cmd
}

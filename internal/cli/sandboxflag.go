package cli

import (
	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/sandbox"
)

// addSandboxFlag adds --sandbox MODE to a command that runs commands.
func addSandboxFlag(cmd *cobra.Command, mode *string) {
	cmd.Flags().StringVar(mode, "sandbox", "", "OS sandbox of the commands tools run: workspace-write, read-only or off "+
		"(danger-full-access) (default: [sandbox] mode, workspace-write)")
}

// applySandboxFlag checks --sandbox and sets it as the config key
// sandbox.mode (highest precedence). Errors: an unknown mode (exit 2).
func (a *cliApp) applySandboxFlag(mode string) error {
	if mode == "" {
		return nil
	}
	if _, err := sandbox.ParseMode(mode); err != nil {
		return usageErr("--sandbox: %v", err)
	}
	a.flagValues["sandbox.mode"] = mode
	return nil
}

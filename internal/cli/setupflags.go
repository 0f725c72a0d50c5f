package cli

import (
	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app"
)

// setupFlags are Claude Code's flags that run the Setup hooks.
type setupFlags struct {
	init, initOnly, maintenance bool
}

// addSetupFlags registers --init, --init-only and --maintenance on the
// root command.
func addSetupFlags(cmd *cobra.Command, f *setupFlags) {
	fl := cmd.Flags()
	fl.BoolVar(&f.init, "init", false, "run the Setup hooks (trigger \"init\") before the session, as Claude Code's --init")
	fl.BoolVar(&f.initOnly, "init-only", false, "run the Setup hooks (trigger \"init\"), then exit, as Claude Code's --init-only")
	fl.BoolVar(&f.maintenance, "maintenance", false, "run the Setup hooks (trigger \"maintenance\") before the session, as Claude Code's --maintenance")
}

// trigger is the Setup trigger the flags ask for ("": none). Errors:
// more than one of them (exit 2).
func (f setupFlags) trigger() (string, error) {
	if btoi(f.init)+btoi(f.initOnly)+btoi(f.maintenance) > 1 {
		return "", usageErr("--init, --init-only and --maintenance each run the Setup hooks once: use one of them")
	}
	switch {
	case f.init, f.initOnly:
		return app.SetupInit, nil
	case f.maintenance:
		return app.SetupMaintenance, nil
	}
	return "", nil
}

// initOnly runs the Setup hooks (trigger "init") and exits: no provider
// is chosen, no session started. Hook messages are warnings on stderr.
func (a *cliApp) initOnly(cmd *cobra.Command) error {
	a.setup = app.SetupInit
	svc, err := a.startWith(cmd.Context(), app.StartOptions{Options: a.setupOptions(), Base: true, Report: a.report, Sandbox: true})
	if err != nil {
		return err
	}
	return svc.Close()
}

package cli

import (
	"encoding/json"

	"github.com/spf13/cobra"
)

// routingFlags are the model-routing flags of a run: fallback models and
// architect mode.
type routingFlags struct {
	fallback  []string
	architect string
	editor    string
}

// addRoutingFlags adds --fallback-model, --architect and --editor to cmd.
func addRoutingFlags(cmd *cobra.Command, f *routingFlags) {
	fl := cmd.Flags()
	repeatedVar(fl, &f.fallback, "fallback-model", "[PROVIDER/]`MODEL` the turn continues on when the model is rate limited, out of quota, overloaded or not found (repeatable, tried in order; default: fallback_models)")
	fl.StringVar(&f.architect, "architect", "", "architect mode: [PROVIDER/]`MODEL` plans each turn with read-only tools, then the editor makes the edits ('off': no architect mode; default: architect_model)")
	fl.StringVar(&f.editor, "editor", "", "architect mode: [PROVIDER/]`MODEL` that makes the edits from the architect's plan (default: editor_model, else the main model)")
}

// applyRoutingFlags turns the routing flags into config keys. Usage
// errors: --editor without --architect.
func (a *cliApp) applyRoutingFlags(f *routingFlags) error {
	if f.editor != "" && (f.architect == "" || f.architect == "off") {
		return usageErr("--editor %s needs --architect MODEL: the editor makes the edits of the architect's plan", f.editor)
	}
	if len(f.fallback) > 0 {
		b, _ := json.Marshal(f.fallback)
		a.flagValues["fallback_models"] = string(b)
	}
	if f.architect != "" {
		a.flagValues["architect_model"] = f.architect
	}
	if f.editor != "" {
		a.flagValues["editor_model"] = f.editor
	}
	return nil
}

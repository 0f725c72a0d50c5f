package cli

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/app/multi"
)

// multiFlags are the flags of multi-model conversations: the active
// models (--models), the conversation mode (--multi) and which parallel
// answers are kept where no one chooses (--keep).
type multiFlags struct {
	models string
	mode   string
	keep   string
}

func addMultiFlags(cmd *cobra.Command, f *multiFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.models, "models", "", "active models of the conversation, comma-separated PROVIDER/MODEL ids (default: multi_models)")
	fl.StringVar(&f.mode, "multi", "", "conversation `MODE` of the active models: single, round-robin, sequential or parallel (default: multi_mode; round-robin when only the models are given)")
	fl.StringVar(&f.keep, "keep", "", "parallel answers kept where no one chooses (headless, Ralph): first (the first successful one in list order) or all (default: multi_keep, first)")
}

// applyMultiFlags turns the multi-model flags into config keys
// (multi_models, multi_mode, multi_keep). Errors (usage): an
// unknown mode or keep value, a bad model entry.
func (a *cliApp) applyMultiFlags(f *multiFlags) error {
	if f.mode != "" {
		mode, err := multi.ParseMode(f.mode)
		if err != nil {
			return usageErr("--multi: %v", err)
		}
		a.flagValues["multi_mode"] = string(mode)
	}
	switch f.keep {
	case "", "first", "all":
		if f.keep != "" {
			a.flagValues["multi_keep"] = f.keep
		}
	default:
		return usageErr("--keep must be first or all, not %q", f.keep)
	}
	if strings.TrimSpace(f.models) == "" {
		return nil
	}
	var list []string
	for _, s := range strings.Split(f.models, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, err := multi.ParseActiveModel(s); err != nil {
			return usageErr("--models: %v", err)
		}
		list = append(list, s)
	}
	b, _ := json.Marshal(list)
	a.flagValues["multi_models"] = string(b)
	return nil
}

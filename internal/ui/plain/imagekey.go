package plain

import (
	"context"
	"fmt"
	"io"

	"github.com/zelvior/aidex/internal/ui/commands"
)

// askImageKey asks for what Cloudflare Workers AI image generation lacks
// (the account id, the API token), stores it in the global config file
// (cloudflare_account_id, image_api_key) and runs "/image arg" again.
// Errors: an empty answer (naming the key to set by hand), the end of
// input, a config file that cannot be written.
func (r *REPL) askImageKey(ctx context.Context, ctrl *commands.Controller, arg string, out io.Writer) error {
	rt := ctrl.Runtime()
	for _, s := range commands.MissingImageSettings(rt) {
		hint := s.Hint
		if s.Secret {
			hint += "; stored in " + rt.Config.Paths.ConfigFile
		}
		v, err := r.ask(ctx, fmt.Sprintf("%s (%s): ", s.Label, hint))
		if err != nil {
			return err
		}
		warning, err := commands.StoreImageSetting(rt, s.Key, v)
		if warning != "" {
			r.Printer.Line("warning: " + warning)
		}
		if err != nil {
			return err
		}
	}
	return commands.RetryImage(ctx, ctrl, arg, out)
}

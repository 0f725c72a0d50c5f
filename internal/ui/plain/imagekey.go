package plain

import (
	"context"
	"fmt"
	"io"

	"github.com/zelvior/aidex/internal/ui/commands"
)

// askImageKey asks for what image generation lacks (the provider when
// none is set, then its credentials: Cloudflare's account id and API
// token, another service's API key), stores it in the global config file
// (commands.StoreImageSetting) and runs "/image arg" again.
// Errors: an empty answer (naming the key to set by hand), the end of
// input, a config file that cannot be written.
func (r *REPL) askImageKey(ctx context.Context, ctrl *commands.Controller, arg string, out io.Writer) error {
	rt := ctrl.Runtime()
	todo := commands.MissingImageSettings(rt)
	if len(todo) > 0 {
		r.Printer.Line(commands.ImageSettingsNote(todo))
	}
	for len(todo) > 0 {
		s := todo[0]
		hint := s.Hint
		if s.Secret {
			hint += "; stored in " + rt.Config.Paths.ConfigFile
		}
		v, err := r.ask(ctx, fmt.Sprintf("%s (%s): ", s.Label, hint))
		if err != nil {
			return err
		}
		more, warning, err := commands.StoreImageSetting(rt, s.Key, v)
		if warning != "" {
			r.Printer.Line("warning: " + warning)
		}
		if err != nil {
			return err
		}
		todo = append(more, todo[1:]...)
	}
	return commands.RetryImage(ctx, ctrl, arg, out)
}

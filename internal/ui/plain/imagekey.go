package plain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// askImageKey asks for what Cloudflare Workers AI image generation lacks
// (the account id, the API token), stores it in the global config file
// (cloudflare_account_id, image_api_key) and runs "/image arg" again.
// Errors: an empty answer (naming the key to set by hand), the end of
// input, a config file that cannot be written.
func (r *REPL) askImageKey(ctx context.Context, ctrl *commands.Controller, table commands.Table, arg string, out io.Writer) error {
	rt := ctrl.Runtime()
	file := rt.Config.Paths.ConfigFile
	ask := func(key, question string) error {
		v, err := r.ask(ctx, question)
		if err != nil {
			return err
		}
		if v = strings.TrimSpace(v); v == "" {
			return fmt.Errorf("nothing entered: set it later with `aidex config set %s VALUE`", key)
		}
		warning, err := commands.KeyWarning(config.Set(file, key, v))
		if warning != "" {
			r.Printer.Line("warning: " + warning)
		}
		return err
	}
	if rt.Config.CloudflareAccountID == "" && rt.Getenv("CLOUDFLARE_ACCOUNT_ID") == "" {
		if err := ask("cloudflare_account_id", "Cloudflare account ID (on the Workers AI page of https://dash.cloudflare.com): "); err != nil {
			return err
		}
	}
	if rt.Config.ImageAPIKey == "" && rt.Getenv("CLOUDFLARE_API_TOKEN") == "" {
		q := fmt.Sprintf("Cloudflare API token with Workers AI access (create one at https://dash.cloudflare.com/profile/api-tokens; stored in %s): ", file)
		if err := ask("image_api_key", q); err != nil {
			return err
		}
	}
	if err := ctrl.Reload(ctx); err != nil {
		return fmt.Errorf("saved in %s, but the configuration does not load: %w", file, err)
	}
	fmt.Fprintf(out, "saved the Cloudflare image settings in %s\n", file)
	o, err := table.Exec(ctx, ctrl, "/image "+arg, out)
	if err == nil && o.Action == commands.ActAskImageKey {
		err = errors.New("the Cloudflare image settings are still incomplete: check cloudflare_account_id and image_api_key (aidex config list)")
	}
	return err
}

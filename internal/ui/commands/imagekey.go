package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/config"
)

// ImageSetting is one credential Cloudflare Workers AI image generation
// lacks (see ActAskImageKey): Key is its config key
// (cloudflare_account_id or image_api_key), Label and Hint what to ask
// ("Label (Hint): "), Secret whether the answer is a token to mask.
type ImageSetting struct {
	Key    string
	Label  string
	Hint   string
	Secret bool
}

// MissingImageSettings returns the Cloudflare image credentials set
// neither in the configuration nor in the environment
// (CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN), in the order to ask for
// them: the account ID, then the API token. Nil when nothing is missing.
func MissingImageSettings(rt *app.Runtime) []ImageSetting {
	var todo []ImageSetting
	if strings.TrimSpace(rt.Config.CloudflareAccountID) == "" && strings.TrimSpace(rt.Getenv("CLOUDFLARE_ACCOUNT_ID")) == "" {
		todo = append(todo, ImageSetting{Key: "cloudflare_account_id", Label: "Cloudflare account ID",
			Hint: "on the Workers AI page of https://dash.cloudflare.com"})
	}
	if rt.Config.ImageAPIKey == "" && rt.Getenv("CLOUDFLARE_API_TOKEN") == "" {
		todo = append(todo, ImageSetting{Key: "image_api_key", Label: "Cloudflare API token with Workers AI access",
			Hint: "create one at https://dash.cloudflare.com/profile/api-tokens", Secret: true})
	}
	return todo
}

// StoreImageSetting stores value (trimmed) under key in the global config
// file of rt. warning is not empty when the value was stored in a file
// that could not be made private (see KeyWarning). Errors: an empty value
// (naming the `aidex config set` command to run by hand), a config file
// that cannot be written.
func StoreImageSetting(rt *app.Runtime, key, value string) (warning string, err error) {
	if value = strings.TrimSpace(value); value == "" {
		return "", fmt.Errorf("nothing entered: set it later with `aidex config set %s VALUE`", key)
	}
	return KeyWarning(config.Set(rt.Config.Paths.ConfigFile, key, value))
}

// RetryImage runs "/image arg" again once the image settings are stored:
// it reloads the configuration, says in out where the settings were
// saved, then generates the image (its lines also go to out). Errors: a
// configuration that does not load, the image's own errors, settings
// still incomplete.
func RetryImage(ctx context.Context, c *Controller, arg string, out io.Writer) error {
	file := c.Runtime().Config.Paths.ConfigFile
	if err := c.Reload(ctx); err != nil {
		return fmt.Errorf("saved in %s, but the configuration does not load: %w", file, err)
	}
	fmt.Fprintf(out, "saved the Cloudflare image settings in %s\n", file)
	o, err := cmdImage(ctx, c, arg, out)
	if err == nil && o.Action == ActAskImageKey {
		err = errors.New("the Cloudflare image settings are still incomplete: check cloudflare_account_id and image_api_key (aidex config list)")
	}
	return err
}

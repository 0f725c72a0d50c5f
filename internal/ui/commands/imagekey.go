package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/images"
	"github.com/zelvior/aidex/internal/config"
)

// ImageSetting is one setting image generation lacks (see
// ActAskImageKey): the image provider when none is set (image_provider,
// the AIdex wizard's first question), then the chosen provider's own
// credentials (cloudflare_account_id, image_api_key). Key is its config
// key, Label and Hint what to ask ("Label (Hint): "), Secret whether the
// answer is a token to mask.
type ImageSetting struct {
	Key    string
	Label  string
	Hint   string
	Secret bool
}

// imageProviderKey is the setting asked first when image_provider is unset.
const imageProviderKey = "image_provider"

// MissingImageSettings returns what /image must ask before it can run, in
// order: the image provider when image_provider is unset (the provider's
// own settings follow from [StoreImageSetting]); else the configured
// provider's credentials set neither in the configuration nor in the
// environment (Cloudflare: the account ID, then the API token; a keyed
// OpenAI-format service: its API key). Nil when nothing is missing.
func MissingImageSettings(rt *app.Runtime) []ImageSetting {
	c := rt.Config
	if strings.TrimSpace(c.ImageProvider) == "" {
		var names []string
		for i, p := range images.Providers() {
			names = append(names, fmt.Sprintf("%d %s", i+1, p.Name))
		}
		return []ImageSetting{{Key: imageProviderKey, Label: "Image provider",
			Hint: strings.Join(names, ", ") + "; Enter: pollinations, which needs no key"}}
	}
	return missingFor(rt, c.ImageProvider, c.ImageBaseURL)
}

// missingFor is the credentials image provider (at baseURL, "" for its
// default) lacks.
func missingFor(rt *app.Runtime, provider, baseURL string) []ImageSetting {
	var todo []ImageSetting
	c := rt.Config
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case "cloudflare":
		if strings.TrimSpace(c.CloudflareAccountID) == "" && strings.TrimSpace(rt.Getenv("CLOUDFLARE_ACCOUNT_ID")) == "" {
			todo = append(todo, ImageSetting{Key: "cloudflare_account_id", Label: "Cloudflare account ID",
				Hint: "on the Workers AI page of https://dash.cloudflare.com"})
		}
		if c.ImageAPIKey == "" && rt.Getenv("CLOUDFLARE_API_TOKEN") == "" {
			todo = append(todo, ImageSetting{Key: "image_api_key", Label: "Cloudflare API token with Workers AI access",
				Hint: "create one at https://dash.cloudflare.com/profile/api-tokens", Secret: true})
		}
	case "openai", "openai-compatible":
		p := imagePreset(baseURL)
		if c.ImageAPIKey == "" && (p.Name != "openai" || rt.Getenv("OPENAI_API_KEY") == "") {
			todo = append(todo, ImageSetting{Key: "image_api_key", Label: p.Name + " image API key",
				Hint: "create one at " + p.SignupURL, Secret: true})
		}
	}
	return todo
}

// imagePreset is the OpenAI-format preset at baseURL (the openai one for
// "" or an unknown URL).
func imagePreset(baseURL string) images.Provider {
	var openai images.Provider
	for _, p := range images.Providers() {
		if p.Provider == "openai" && strings.TrimRight(p.BaseURL, "/") == strings.TrimRight(baseURL, "/") {
			return p
		}
		if p.Name == "openai" {
			openai = p
		}
	}
	return openai
}

// StoreImageSetting stores value (trimmed) under key in the global config
// file of rt and returns the settings to ask next: for the image
// provider (a preset's name or number; "" is pollinations) its preset's
// settings are stored (image_provider, and image_base_url and image_model
// for a service other than the provider's own) and more are its missing
// credentials. warning is not empty when the value was stored in a file
// that could not be made private (see KeyWarning). Errors: an empty value
// (naming the `aidex config set` command to run by hand), an unknown
// provider, a config file that cannot be written.
func StoreImageSetting(rt *app.Runtime, key, value string) (more []ImageSetting, warning string, err error) {
	value = strings.TrimSpace(value)
	file := rt.Config.Paths.ConfigFile
	if key == imageProviderKey {
		p, err := pickImagePreset(value)
		if err != nil {
			return nil, "", err
		}
		set := [][2]string{{imageProviderKey, p.Provider}}
		if p.Name != p.Provider {
			set = append(set, [2]string{"image_base_url", p.BaseURL}, [2]string{"image_model", p.Model})
		}
		for _, kv := range set {
			if err := config.Set(file, kv[0], kv[1]); err != nil {
				return nil, "", err
			}
		}
		return missingFor(rt, p.Provider, p.BaseURL), "", nil
	}
	if value == "" {
		return nil, "", fmt.Errorf("nothing entered: set it later with `aidex config set %s VALUE`", key)
	}
	warning, err = KeyWarning(config.Set(file, key, value))
	return nil, warning, err
}

// pickImagePreset is the preset value names (its name or its number in
// images.Providers, from 1; "" is the first, key-free one).
func pickImagePreset(value string) (images.Provider, error) {
	all := images.Providers()
	var names []string
	for i, p := range all {
		if value == "" || strings.EqualFold(value, p.Name) || value == fmt.Sprint(i+1) {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return images.Provider{}, fmt.Errorf("unknown image provider %q: pick one of %s (or set it by hand: aidex config set image_provider NAME)",
		value, strings.Join(names, ", "))
}

// ImageSettingsNote is the line a front end shows above the first of
// todo's prompts: why /image asks.
func ImageSettingsNote(todo []ImageSetting) string {
	switch {
	case len(todo) == 0:
		return ""
	case todo[0].Key == imageProviderKey:
		return "no image provider is set: pick one (saved in your global config file; its settings follow)"
	case todo[0].Key == "cloudflare_account_id" || strings.HasPrefix(todo[0].Label, "Cloudflare"):
		return "Cloudflare image generation needs your account ID and an API token"
	}
	return "the image provider needs an API key"
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
	name := c.Runtime().Config.ImageProvider
	if name == "cloudflare" {
		name = "Cloudflare"
	}
	fmt.Fprintf(out, "saved the %s image settings in %s\n", name, file)
	o, err := cmdImage(ctx, c, arg, out)
	if err == nil && o.Action == ActAskImageKey {
		err = errors.New("the image settings are still incomplete: check image_provider, image_api_key and (Cloudflare) cloudflare_account_id (aidex config list)")
	}
	return err
}

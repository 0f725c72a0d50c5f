package imagegen

// Preset is a known image-generation service: its name, the
// image_provider value that reaches it (its wire format: "pollinations",
// "openai" or "cloudflare"), default model, endpoint, whether it needs a
// key and where to get one. The web UI lists them (GET
// /api/image-providers); the JSON names are that endpoint's.
type Preset struct {
	Name        string `json:"name"`
	Provider    string `json:"provider"`
	Model       string `json:"model"`
	BaseURL     string `json:"base_url"`
	RequiresKey bool   `json:"requires_key"`
	SignupURL   string `json:"signup_url,omitempty"`
	Notes       string `json:"notes,omitempty"`
	// NeedsAccountID is true for Cloudflare Workers AI, whose token is used
	// with an account id (config cloudflare_account_id).
	NeedsAccountID bool `json:"needs_account_id,omitempty"`
}

// Presets returns the built-in image services (endpoints as documented by
// each provider), key-free first.
func Presets() []Preset {
	return []Preset{
		{Name: "pollinations", Provider: ProviderPollinations, Model: "flux", BaseURL: DefaultPollinationsURL, Notes: "no signup needed"},
		{Name: "openai", Provider: ProviderOpenAI, Model: "gpt-image-1", BaseURL: "https://api.openai.com/v1", RequiresKey: true, SignupURL: "https://platform.openai.com/api-keys"},
		{Name: "cloudflare", Provider: ProviderCloudflare, Model: DefaultCloudflareModel, BaseURL: DefaultCloudflareURL, RequiresKey: true,
			SignupURL: "https://dash.cloudflare.com/profile/api-tokens", Notes: "Workers AI free daily allocation; an API token and the account ID", NeedsAccountID: true},
		{Name: "together", Provider: ProviderOpenAI, Model: "black-forest-labs/FLUX.1-schnell-Free", BaseURL: "https://api.together.xyz/v1", RequiresKey: true, SignupURL: "https://api.together.ai/settings/api-keys", Notes: "free FLUX.1 schnell model"},
	}
}

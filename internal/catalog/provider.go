package catalog

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Provider is one model provider: where it is, which wire format it speaks,
// how to authenticate, and its fallback model list.
type Provider struct {
	// Name is the id used in config and on the command line ("openrouter").
	Name string `json:"name"`
	// DisplayName is the human name ("OpenRouter").
	DisplayName string `json:"display_name"`
	// Type is the wire format.
	Type WireType `json:"type"`
	// BaseURL is the API root the wire client appends paths to: for openai
	// types it includes the version ("https://api.openai.com/v1"); for
	// anthropic and gemini it is the host root ("https://api.anthropic.com",
	// clients add /v1 or /v1beta); for ollama the server root. Empty only for
	// "custom" until configured.
	BaseURL string `json:"base_url"`
	// ModelsURL, when set, is the full URL of the model list when it is not
	// BaseURL + "/models" (GitHub Models, Pollinations).
	ModelsURL string `json:"models_url,omitempty"`
	// KeyCheckURL, when set, answers 2xx only for a valid key (GET with a
	// Bearer key); Probe uses it where the models endpoint is public.
	KeyCheckURL string `json:"key_check_url,omitempty"`
	// KeyEnv lists the environment variables that may hold the API key, the
	// conventional one first.
	KeyEnv []string `json:"key_env,omitempty"`
	// APIKeyEnv is an environment variable named by config (api_key_env); it
	// takes precedence over KeyEnv.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// RequiresKey is false for providers usable without any key, and for
	// every provider defined in config rather than the catalog (its key,
	// when api_key or api_key_env gives one, is sent; without one it is
	// used keyless: see NoKeyNotice).
	RequiresKey bool `json:"requires_key"`
	// PublicModels is true when the models endpoint answers without a key.
	PublicModels bool `json:"public_models,omitempty"`
	// AllFree is true when every model is usable on the provider's free tier.
	AllFree bool `json:"all_free,omitempty"`
	// Custom is true for the "custom" provider and providers defined by
	// config overrides.
	Custom bool `json:"custom,omitempty"`
	// AnyModel is true when the provider serves model ids no list holds in
	// full (a router with variants such as ":free", a local server that
	// runs what was pulled): aidex never rejects an id for it. See
	// OpenModels.
	AnyModel bool `json:"any_model,omitempty"`
	// DefaultModel is the model used when none is configured.
	DefaultModel string `json:"default_model,omitempty"`
	// Models is the fallback model list, used when the live list cannot be
	// fetched; default model first.
	Models []Model `json:"models,omitempty"`
	// SignupURL is where to get an API key.
	SignupURL string `json:"signup_url,omitempty"`
	// DocsURL is the API reference the catalog entry was checked against.
	DocsURL string `json:"docs_url,omitempty"`
	// Notes is a one-line description for `aidex providers`.
	Notes string `json:"notes,omitempty"`

	// apiKey is an explicit key from config; unexported so that printing or
	// encoding a Provider never shows it.
	apiKey string
	// formats are the wire formats of the catalog p came from (nil for a
	// provider built outside one): how a provider of each type lists its
	// models.
	formats []WireFormat
}

func (p Provider) clone() Provider {
	p.KeyEnv = slices.Clone(p.KeyEnv)
	p.Models = cloneModels(p.Models)
	return p
}

// Model returns a copy of the fallback-list entry for id, or false.
func (p Provider) Model(id string) (Model, bool) {
	for _, m := range p.Models {
		if m.ID == id {
			return m.clone(), true
		}
	}
	return Model{}, false
}

// OpenModels reports whether p takes model ids aidex cannot check against
// a list: AnyModel providers and custom ones (a server aidex knows nothing
// about).
func (p Provider) OpenModels() bool { return p.AnyModel || p.Custom }

// FreeModels returns the fallback models usable on the free tier.
func (p Provider) FreeModels() []Model {
	var out []Model
	for _, m := range p.Models {
		if m.Free {
			out = append(out, m.clone())
		}
	}
	return out
}

// PaidModels returns the fallback models that need a paid account.
func (p Provider) PaidModels() []Model {
	var out []Model
	for _, m := range p.Models {
		if !m.Free {
			out = append(out, m.clone())
		}
	}
	return out
}

// Group returns the `aidex providers` heading of p: GroupPaid for custom
// providers, GroupNoSignup when no key is required, GroupFreeTier when some
// models are free, else GroupPaid.
func (p Provider) Group() string {
	switch {
	case p.Custom:
		return GroupPaid
	case !p.RequiresKey:
		return GroupNoSignup
	case p.AllFree || slices.ContainsFunc(p.Models, func(m Model) bool { return m.Free }):
		return GroupFreeTier
	default:
		return GroupPaid
	}
}

// Local reports whether p's base URL is on the user's machine: its host is
// a loopback address (127.0.0.0/8, ::1) or localhost (the llama.cpp
// server, LM Studio, vLLM on this machine). Such a server can read a long
// prompt for minutes before it answers; its requests get a longer default
// timeout and are not retried after one. A provider of a local wire format
// (Ollama) is local whatever its URL: that is a fact of the format's row
// (wire.Format.Local), which internal/app adds.
func (p Provider) Local() bool {
	u, err := url.Parse(p.BaseURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// APIKey returns the key to use for p: an explicit key from config first,
// then the variable named by APIKeyEnv, then the catalog's KeyEnv variables
// in order. env looks up an environment variable (os.Getenv in production);
// nil means an empty environment. It returns "" when no key is found.
func (p Provider) APIKey(env func(string) string) string {
	key, _ := p.lookupKey(env)
	return key
}

// KeySource names where APIKey found the key: "config api_key", or the
// environment variable's name; "" when there is no key.
func (p Provider) KeySource(env func(string) string) string {
	_, src := p.lookupKey(env)
	return src
}

func (p Provider) lookupKey(env func(string) string) (key, source string) {
	if p.apiKey != "" {
		return p.apiKey, "config api_key"
	}
	if env == nil {
		return "", ""
	}
	vars := p.KeyEnv
	if p.APIKeyEnv != "" {
		vars = append([]string{p.APIKeyEnv}, p.KeyEnv...)
	}
	for _, v := range vars {
		if k := strings.TrimSpace(env(v)); k != "" {
			return k, v
		}
	}
	return "", ""
}

// NoKeyNotice is the one-line notice for a provider defined in config
// whose api_key_env names a variable that is not set (so it is used
// without a key), else "". env is as for APIKey.
func (p Provider) NoKeyNotice(env func(string) string) string {
	if !p.Custom || p.RequiresKey || p.APIKeyEnv == "" || p.APIKey(env) != "" {
		return ""
	}
	return fmt.Sprintf("%s is not set: provider %s is used without an API key (set it if the server wants one)", p.APIKeyEnv, p.Name)
}

// KeyHint names the variable a user should set for p's key, for messages
// such as "check OPENROUTER_API_KEY": APIKeyEnv, else the first KeyEnv, else
// "api_key in config".
func (p Provider) KeyHint() string {
	switch {
	case p.APIKeyEnv != "":
		return p.APIKeyEnv
	case len(p.KeyEnv) > 0:
		return p.KeyEnv[0]
	default:
		return fmt.Sprintf("api_key for provider %q in config", p.Name)
	}
}

// Validate reports whether p can be used as configured: it needs a base URL
// and a default model. The error names the config key to set.
func (p Provider) Validate() error {
	if p.BaseURL == "" {
		if p.Name == "custom" {
			return fmt.Errorf("provider custom has no base URL: set custom_base_url in config (e.g. http://localhost:8000/v1)")
		}
		return fmt.Errorf("provider %q has no base URL: set base_url for it in config", p.Name)
	}
	if p.DefaultModel == "" {
		if p.Name == "custom" {
			return fmt.Errorf("provider custom has no model: set custom_chat_model in config")
		}
		return fmt.Errorf("provider %q has no model and its server at %s listed none (is it running?): set models for it in config or pass --model", p.Name, p.BaseURL)
	}
	return nil
}

// Override changes a catalog provider or defines a new one, from config
// ([providers.NAME] tables, custom_base_url, ollama_base_url, ...). Empty
// fields leave the catalog's value unchanged. Models, when set, replaces the
// model list (catalog data is kept for ids it knows); its first id becomes
// the default model unless the current default is in it.
type Override struct {
	Type      string
	BaseURL   string
	APIKey    string
	APIKeyEnv string
	Models    []string
}

// WithOverrides returns a new catalog with the overrides applied; c is not
// changed. A name not in the catalog defines a new provider, which needs Type
// and BaseURL. It returns an error naming the provider and the field when a
// name, type, URL or environment variable name is invalid.
func (c *Catalog) WithOverrides(overrides map[string]Override) (*Catalog, error) {
	out := &Catalog{
		formats:         c.formats,
		providers:       c.Providers(),
		autoDetect:      slices.Clone(c.autoDetect),
		localProvider:   c.localProvider,
		keylessProvider: c.keylessProvider,
	}
	names := make([]string, 0, len(overrides))
	for n := range overrides {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		o := overrides[name]
		if i, ok := c.index[name]; ok {
			p, err := applyOverride(c.formats, out.providers[i], o)
			if err != nil {
				return nil, err
			}
			out.providers[i] = p
			continue
		}
		p, err := newProvider(c.formats, name, o)
		if err != nil {
			return nil, err
		}
		out.providers = append(out.providers, p)
	}
	if err := out.reindex(); err != nil {
		return nil, err
	}
	return out, nil
}

func applyOverride(formats []WireFormat, p Provider, o Override) (Provider, error) {
	if o.Type != "" {
		f, err := parseType(formats, p.Name, o.Type)
		if err != nil {
			return p, err
		}
		p.Type, p.formats = f.Type, formats
	}
	if o.BaseURL != "" {
		if err := validURL(p.Name, "base_url", o.BaseURL); err != nil {
			return p, err
		}
		p.BaseURL = strings.TrimRight(o.BaseURL, "/")
	}
	if o.APIKeyEnv != "" {
		if err := validEnvName(p.Name, o.APIKeyEnv); err != nil {
			return p, err
		}
		p.APIKeyEnv = o.APIKeyEnv
	}
	if o.APIKey != "" {
		p.apiKey = strings.TrimSpace(o.APIKey)
	}
	if len(o.Models) > 0 {
		if err := setModels(&p, o.Models); err != nil {
			return p, err
		}
	}
	return p, nil
}

func newProvider(formats []WireFormat, name string, o Override) (Provider, error) {
	if err := validName(name); err != nil {
		return Provider{}, err
	}
	if o.Type == "" {
		return Provider{}, fmt.Errorf("provider %q is not in the catalog, so it needs a type (one of %s)", name, typeList(formats))
	}
	p := Provider{Name: name, DisplayName: name, Custom: true}
	if o.BaseURL == "" {
		return Provider{}, fmt.Errorf("provider %q is not in the catalog, so it needs a base_url (e.g. https://api.example.com/v1)", name)
	}
	// A server defined in config may well take no key (a local llama.cpp,
	// vLLM or LM Studio): an api_key_env naming an unset variable means
	// "no key" (Load says so in a notice), never a refusal.
	p.RequiresKey = false
	return applyOverride(formats, p, o)
}

func setModels(p *Provider, ids []string) error {
	models := make([]Model, 0, len(ids))
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if id == "" {
			return fmt.Errorf("provider %q: empty model id in models", p.Name)
		}
		m, ok := p.Model(id)
		if !ok {
			m = Model{ID: id, Free: p.AllFree}
		}
		models = append(models, m)
	}
	if !slices.ContainsFunc(models, func(m Model) bool { return m.ID == p.DefaultModel }) {
		p.DefaultModel = models[0].ID
	}
	p.Models = models
	return nil
}

// parseType returns the format of formats that s names (case and spaces
// aside). Errors: no such format (naming the formats).
func parseType(formats []WireFormat, provider, s string) (*WireFormat, error) {
	f := formatOf(formats, WireType(strings.TrimSpace(strings.ToLower(s))))
	if f == nil {
		return nil, fmt.Errorf("provider %q: unknown type %q: use one of %s", provider, s, typeList(formats))
	}
	return f, nil
}

// validName accepts lowercase letters, digits, '-' and '_' (names become cache
// file names, so no separators or dots).
func validName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("provider name %q must be 1-64 characters", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("provider name %q may only use a-z, 0-9, '-' and '_'", name)
		}
	}
	return nil
}

func validURL(provider, field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("provider %q: %s %q is not an absolute http(s) URL (e.g. https://api.example.com/v1)", provider, field, raw)
	}
	if u.User != nil {
		return fmt.Errorf("provider %q: %s must not carry credentials; use api_key or api_key_env", provider, field)
	}
	return nil
}

func validEnvName(provider, name string) error {
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return fmt.Errorf("provider %q: api_key_env %q is not an environment variable name (e.g. MY_API_KEY); put the key itself in api_key", provider, name)
		}
	}
	return nil
}

// String names the provider ("OpenRouter (openrouter)"). Provider implements
// String and GoString so that printing it never shows an explicit API key.
func (p Provider) String() string {
	if p.DisplayName == "" || p.DisplayName == p.Name {
		return p.Name
	}
	return p.DisplayName + " (" + p.Name + ")"
}

// GoString is like String, for %#v.
func (p Provider) GoString() string { return "catalog.Provider{Name: " + strconv.Quote(p.Name) + "}" }

package app

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm/wire"
)

// ProviderSpec is a provider to define under [providers.NAME]: `aidex
// providers add` and the `/provider` → custom flow. Type is a wire type
// ("" is the first of wire.Types(), "openai"); BaseURL the API root (for OpenAI-compatible servers it
// ends in /v1); KeyEnv, when set, names the environment variable holding
// the key (unset: no key is sent); Model, when set, becomes the
// provider's models list.
type ProviderSpec struct {
	Name, Type, BaseURL, KeyEnv, Model string
}

// serverListTimeout bounds the model-list request of CheckProvider.
const serverListTimeout = 10 * time.Second

// CheckProvider validates spec as the catalog would read it from the
// config file, then asks the server for its models (GET BASE_URL/models,
// at most 10 s, not cached). It returns the provider and the server's
// model ids (sorted); listErr says why the list could not be had (offline,
// HTTP status), which does not make spec invalid. Errors: a name, type,
// URL or variable name the config file would refuse.
func (rt *Runtime) CheckProvider(ctx context.Context, spec ProviderSpec) (p catalog.Provider, models []string, listErr, err error) {
	o := catalog.Override{Type: spec.Type, BaseURL: strings.TrimSpace(spec.BaseURL), APIKeyEnv: spec.KeyEnv}
	if o.Type == "" {
		o.Type = wire.Types()[0]
	}
	if spec.Model != "" {
		o.Models = []string{spec.Model}
	}
	cat, err := rt.Catalog.WithOverrides(map[string]catalog.Override{spec.Name: o})
	if err != nil {
		return catalog.Provider{}, nil, nil, err
	}
	p, _ = cat.Provider(spec.Name)
	ctx, cancel := context.WithTimeout(ctx, serverListTimeout)
	defer cancel()
	ml, err := (&catalog.Lister{Getenv: rt.Getenv}).List(ctx, p, catalog.ListOptions{Refresh: true})
	switch {
	case err != nil:
		return p, nil, err, nil
	case ml.Source != catalog.SourceLive:
		return p, nil, fmt.Errorf("%s: %s", p.BaseURL, ml.Note), nil
	}
	for _, m := range ml.Models {
		models = append(models, m.ID)
	}
	return p, models, nil, nil
}

// AddProvider writes spec as a [providers.NAME] table into the global
// config file (config.AddProvider: the file's other content and comments
// are kept, the write is atomic) after checking it as CheckProvider does
// (the server is not asked). The runtime is not changed: reload it (or
// start again) to use the provider. Errors: an invalid spec, a provider
// of that name already in the file, I/O.
func (rt *Runtime) AddProvider(spec ProviderSpec) error {
	o := catalog.Override{Type: spec.Type, BaseURL: strings.TrimSpace(spec.BaseURL), APIKeyEnv: spec.KeyEnv}
	if o.Type == "" {
		o.Type = wire.Types()[0]
	}
	if _, err := rt.Catalog.WithOverrides(map[string]catalog.Override{spec.Name: o}); err != nil {
		return err
	}
	pc := config.ProviderConfig{Type: o.Type, BaseURL: o.BaseURL, APIKeyEnv: spec.KeyEnv}
	if _, known := rt.Catalog.Provider(spec.Name); known && spec.Type == "" {
		pc.Type = "" // an override of a catalog provider keeps its wire type
	}
	if spec.Model != "" {
		pc.Models = []string{spec.Model}
	}
	return config.AddProvider(rt.Config.Paths.ConfigFile, spec.Name, pc)
}

// ProviderFor returns the name to save a server at baseURL under: the
// provider of the catalog or config whose base URL it is (existing true),
// else "local" for a server on this machine or the first label of its
// host ("gpu-box"), with "-2", "-3", ... added when the name is taken.
func (rt *Runtime) ProviderFor(baseURL string) (name string, existing bool) {
	want := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	for _, p := range rt.Catalog.Providers() {
		if p.BaseURL != "" && strings.EqualFold(p.BaseURL, want) {
			return p.Name, true
		}
	}
	base := "custom-server"
	if u, err := url.Parse(want); err == nil && u.Hostname() != "" {
		if (catalog.Provider{BaseURL: want}).Local() {
			base = "local"
		} else {
			label, _, _ := strings.Cut(strings.ToLower(u.Hostname()), ".")
			var b strings.Builder
			for _, r := range label {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
					b.WriteRune(r)
				}
			}
			if s := b.String(); s != "" && len(s) <= 56 {
				base = s
			}
		}
	}
	name = base
	for i := 2; ; i++ {
		if _, taken := rt.Catalog.Provider(name); !taken {
			return name, false
		}
		name = base + "-" + strconv.Itoa(i)
	}
}

package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/catalog"
)

// Lister returns the model lister of this runtime: live lists fetched
// with the runtime's keys, cached under the cache dir's "models" folder.
func (rt *Runtime) Lister() *catalog.Lister {
	return &catalog.Lister{CacheDir: filepath.Join(rt.Config.Paths.CacheDir, "models"), Getenv: rt.Getenv}
}

// Models returns the model list of provider ("" for the runtime's), from
// the cache when fresh unless o.Refresh. Errors: an unknown provider
// (naming `aidex providers`); ctx's.
func (rt *Runtime) Models(ctx context.Context, provider string, o catalog.ListOptions) (catalog.ModelList, error) {
	if provider == "" {
		provider = rt.Provider.Name
	}
	p, ok := rt.Catalog.Provider(provider)
	if !ok {
		return catalog.ModelList{}, fmt.Errorf("unknown provider %q: `aidex providers` lists them", provider)
	}
	return rt.Lister().List(ctx, p, o)
}

// checkModel refuses a model the provider does not serve, naming the
// closest ones: on a provider with a checkable list (the live list, or
// its cache), a model not in it; with an unknown PROVIDER/ prefix (slash:
// spec had one the catalog does not know), the known providers.
// Providers that take any id (routers, local and custom servers) are
// never refused, nor a plain id when the list could not be fetched.
func (rt modelRoom) checkModel(ctx context.Context, spec, provider, model string, slash bool) error {
	p, ok := rt.Catalog.Provider(provider)
	if !ok || p.OpenModels() {
		return nil
	}
	ml, err := rt.Models(ctx, provider, catalog.ListOptions{})
	if err != nil {
		return err
	}
	unchecked := ml.Source == catalog.SourceStatic && ml.Err != nil
	if ml.Has(model) || unchecked && !slash {
		return nil
	}
	ids := make([]string, len(ml.Models))
	for i, m := range ml.Models {
		ids[i] = m.ID
	}
	msg := fmt.Sprintf("unknown model %q for %s", model, provider)
	if slash {
		prefix, _, _ := strings.Cut(spec, "/")
		msg = fmt.Sprintf("no provider %q and no %s model %q (providers: %s)", prefix, provider, model, strings.Join(rt.Catalog.Names(), ", "))
	}
	if near := catalog.Closest(model, ids, 5); len(near) > 0 {
		return fmt.Errorf("%s; closest: %s (/models lists them)", msg, strings.Join(near, ", "))
	}
	return fmt.Errorf("%s; /models lists them", msg)
}

// liveListTimeout bounds the model-list lookups of a provider switch
// (the list is cached for catalog.CacheTTL afterwards).
const liveListTimeout = 5 * time.Second

// modelFor returns the model to use with provider p given the configured
// model ("" for none). When the provider was chosen with higher
// precedence than the model (--provider, the web's "Use", /provider), the
// configured model is kept only when p's own list (catalog or
// [providers.NAME] models) names it: else it was meant for another
// provider, and the model is p's default live model (see liveDefault). fromModel says the provider came from a
// PROVIDER/MODEL model, which names both.
func (rt modelRoom) modelFor(ctx context.Context, p catalog.Provider, model string, fromModel bool) string {
	switched := !fromModel && rt.Config.Provider != "" && rt.sourceRank("provider") > rt.sourceRank("model")
	if !switched {
		if model == "" {
			return rt.serverDefault(ctx, p)
		}
		return model
	}
	if _, known := p.Model(model); known {
		return model
	}
	return rt.liveDefault(ctx, p)
}

// liveDefault returns p's default model when its live list still has it,
// else the first of its catalog's free, then other models that the live
// list has, else the live list's first free model that takes tools, then
// its first free one. Without a live list (no key yet, offline) it is the
// catalog's default.
func (rt modelRoom) liveDefault(ctx context.Context, p catalog.Provider) string {
	ml, ok := rt.liveList(ctx, p)
	if !ok || len(ml.Models) == 0 {
		return p.DefaultModel
	}
	cands := []string{p.DefaultModel}
	for _, m := range append(p.FreeModels(), p.PaidModels()...) {
		cands = append(cands, m.ID)
	}
	for _, m := range ml.Models {
		if tools, known := m.SupportsTools(); m.Free && tools && known {
			cands = append(cands, m.ID)
		}
	}
	for _, m := range ml.Models {
		if m.Free {
			cands = append(cands, m.ID)
		}
	}
	for _, id := range cands {
		if id != "" && ml.Has(id) {
			return id
		}
	}
	if p.DefaultModel == "" && p.Custom {
		return ml.Models[0].ID // a server of the user's without a models list: its first
	}
	return p.DefaultModel
}

// serverDefault is the model of a provider defined in config without a
// models list when none is configured: the first of its server's live
// list, "" when the server does not answer or lists none.
func (rt modelRoom) serverDefault(ctx context.Context, p catalog.Provider) string {
	if !p.Custom || p.DefaultModel != "" {
		return p.DefaultModel
	}
	return rt.liveDefault(ctx, p)
}

// liveList returns p's model list from the provider or a cache of it
// (false when neither answered, or p needs a key that is not set).
func (rt modelRoom) liveList(ctx context.Context, p catalog.Provider) (catalog.ModelList, bool) {
	if p.RequiresKey && p.APIKey(rt.Getenv) == "" && !p.PublicModels {
		return catalog.ModelList{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, liveListTimeout)
	defer cancel()
	ml, err := rt.Lister().List(ctx, p, catalog.ListOptions{})
	if err != nil || ml.Source == catalog.SourceStatic {
		return catalog.ModelList{}, false
	}
	return ml, true
}

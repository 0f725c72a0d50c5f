package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

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
func (rt *Runtime) checkModel(ctx context.Context, spec, provider, model string, slash bool) error {
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

// Package listmodels offers the model its provider's model list: the
// list_models tool. It reads the provider catalog and a catalog.Lister
// (live models endpoint with a disk cache, falling back to the catalog's
// static list).
//
// Kind: kind.Read. The tool does reach the network, but only the
// fixed models endpoint of a provider already configured in the catalog,
// with no data chosen by the model other than the provider name, and the
// answer is cached; classing it as a read lets it run in plan mode and the
// readonly profile without an approval prompt.
package listmodels

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// maxListed caps the models printed.
const maxListed = 200

// Options configure Tools.
type Options struct {
	// Catalog is the provider catalog (with config overrides). Required.
	Catalog *catalog.Catalog
	// Lister fetches and caches live lists (nil = catalog static lists
	// only, no network).
	Lister *catalog.Lister
	// Current is the session's provider, the default of the provider
	// parameter.
	Current string
}

type listArgs struct {
	Provider string `json:"provider,omitempty" jsonschema:"Provider name (default: the current provider)"`
	FreeOnly bool   `json:"free_only,omitempty" jsonschema:"Only models usable for free"`
	Query    string `json:"query,omitempty" jsonschema:"Only model ids containing this text"`
}

// Tools returns list_models (kind.Read, "full" profile). Register it with
// tools.Registry.Register.
func Tools(o Options) []tools.Def {
	return []tools.Def{
		tools.Define(tools.Spec{Name: "list_models", Kind: kind.Read, Aliases: []string{"models", "available_models"},
			Description: "List a provider's models with context window, price and tool support (default: the current provider)."},
			func(ctx context.Context, _ *tools.Env, a listArgs) tools.Result { return o.list(ctx, a) }),
	}
}

func (o Options) list(ctx context.Context, a listArgs) tools.Result {
	if o.Catalog == nil {
		return tools.Failf(tools.CategoryExecution, "list_models is not configured (internal error: no catalog)")
	}
	name := strings.TrimSpace(a.Provider)
	if name == "" {
		name = o.Current
	}
	p, ok := o.Catalog.Provider(name)
	if !ok {
		return tools.Failf(tools.CategoryNotFound, "unknown provider %q: known providers are %s", name, strings.Join(o.Catalog.Names(), ", "))
	}
	var ml catalog.ModelList
	if o.Lister != nil {
		var err error
		ml, err = o.Lister.List(ctx, p, catalog.ListOptions{FreeOnly: a.FreeOnly})
		if err != nil {
			return tools.Failf(tools.CategoryExecution, "list_models: %v", err)
		}
	} else {
		ml = catalog.ModelList{Provider: p.Name, Models: p.Models, Source: catalog.SourceStatic}
		if a.FreeOnly {
			ml.Models = p.FreeModels()
		}
	}
	return tools.Success(format(ml, strings.ToLower(strings.TrimSpace(a.Query)), name == o.Current), &tools.Meta{Matches: len(ml.Models)})
}

func format(ml catalog.ModelList, q string, current bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider %s (%s", ml.Provider, ml.Source)
	if current {
		b.WriteString(", current")
	}
	b.WriteString(")\n")
	if ml.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", ml.Note)
	}
	n := 0
	for _, m := range ml.Models {
		if q != "" && !strings.Contains(strings.ToLower(m.ID), q) {
			continue
		}
		if n++; n > maxListed {
			fmt.Fprintf(&b, "... more models; narrow with query\n")
			break
		}
		cols := []string{m.ID}
		if m.ContextWindow > 0 {
			cols = append(cols, "context "+catalog.ContextLabel(m.ContextWindow))
		}
		if pl := catalog.PriceLabel(m); pl != "" {
			cols = append(cols, pl)
		}
		if ok, known := m.SupportsTools(); known {
			cols = append(cols, map[bool]string{true: "tools", false: "no tools"}[ok])
		}
		b.WriteString(strings.Join(cols, "  ") + "\n")
	}
	if n == 0 {
		b.WriteString("no models match\n")
	}
	return b.String()
}

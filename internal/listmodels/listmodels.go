// Package listmodels lists a provider's models for the model's
// list_models tool (internal/tools/models): it reads the provider catalog
// and a catalog.Lister (live models endpoint with a disk cache, falling
// back to the catalog's static list).
//
// The tool is kind.Read. It does reach the network, but only the fixed
// models endpoint of a provider already configured in the catalog, with
// no data chosen by the model other than the provider name, and the
// answer is cached; classing it as a read lets it run in plan mode and the
// readonly profile without an approval prompt.
package listmodels

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/catalog"
)

// maxListed caps the models printed.
const maxListed = 200

// Options configure List.
type Options struct {
	// Catalog is the provider catalog (with config overrides). Required.
	Catalog *catalog.Catalog
	// Lister fetches and caches live lists (nil = catalog static lists
	// only, no network).
	Lister *catalog.Lister
	// Current is the session's provider, the default of Query.Provider.
	Current string
}

// Query selects what List shows.
type Query struct {
	// Provider is the provider name; "" (or only spaces) means
	// Options.Current.
	Provider string
	// FreeOnly keeps only the models usable for free.
	FreeOnly bool
	// Text keeps only the model ids containing it, ignoring case and
	// surrounding space; "" keeps all.
	Text string
}

// Listing is what List found.
type Listing struct {
	// Text is the listing: a line "provider NAME (SOURCE[, current])", a
	// "note: ..." line when the list has a note, then one line per model
	// (id, context window, price, tool support; at most 200), or
	// "no models match".
	Text string
	// Models is the number of models the provider offers (before the
	// Query.Text filter).
	Models int
}

// ErrNoCatalog is returned by List when Options.Catalog is nil.
var ErrNoCatalog = errors.New("no catalog")

// ErrUnknownProvider is matched (errors.Is) by List's error when the
// provider is not in the catalog; the message names the known providers.
var ErrUnknownProvider = errors.New("unknown provider")

// unknownProvider is an ErrUnknownProvider with its message.
type unknownProvider string

func (e unknownProvider) Error() string      { return string(e) }
func (unknownProvider) Is(target error) bool { return target == ErrUnknownProvider }

// List returns the models of the provider q names. Errors: ErrNoCatalog,
// ErrUnknownProvider, or the Lister's error (network, cache).
func (o Options) List(ctx context.Context, q Query) (Listing, error) {
	if o.Catalog == nil {
		return Listing{}, ErrNoCatalog
	}
	name := strings.TrimSpace(q.Provider)
	if name == "" {
		name = o.Current
	}
	p, ok := o.Catalog.Provider(name)
	if !ok {
		return Listing{}, unknownProvider(fmt.Sprintf("unknown provider %q: known providers are %s", name, strings.Join(o.Catalog.Names(), ", ")))
	}
	var ml catalog.ModelList
	if o.Lister != nil {
		var err error
		ml, err = o.Lister.List(ctx, p, catalog.ListOptions{FreeOnly: q.FreeOnly})
		if err != nil {
			return Listing{}, err
		}
	} else {
		ml = catalog.ModelList{Provider: p.Name, Models: p.Models, Source: catalog.SourceStatic}
		if q.FreeOnly {
			ml.Models = p.FreeModels()
		}
	}
	return Listing{Text: format(ml, strings.ToLower(strings.TrimSpace(q.Text)), name == o.Current), Models: len(ml.Models)}, nil
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

// Package catalog is aidex's table of providers and models: the embedded
// catalog of the 17 built-in providers (wire type, base URL, API-key
// environment variables, default model, fallback model lists with context
// windows, prices and tool support), config overrides on top of it, the
// zero-config default choice, and live model lists fetched from each
// provider's models endpoint with a disk cache.
//
// The data lives in providers.toml, turned into Go values at build time
// (catalog_gen.go): Load builds the catalog from them, never at init.
// Units throughout: context windows and output limits in tokens, prices in USD
// per 1M tokens.
package catalog

//go:generate go run -tags catalog_gen ./gen

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"slices"

	"github.com/pelletier/go-toml/v2"
)

//go:embed providers.toml
var embeddedData []byte

// Price is what a model costs, in USD per 1M tokens. CacheRead and CacheWrite
// are 0 when unknown or not offered.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Model describes one model of a provider. Zero values mean "unknown":
// ContextWindow and MaxOutput are in tokens; Price is nil when the price is
// unknown; Tools is nil when tool-call support is unknown. Free means the
// model can be used without paying on the provider's free tier (rate limits
// may apply); Price then still shows the paid-tier price when known.
type Model struct {
	ID            string `json:"id"`
	Name          string `json:"name,omitempty"`
	ContextWindow int    `json:"context_window,omitempty"`
	MaxOutput     int    `json:"max_output,omitempty"`
	Price         *Price `json:"price,omitempty"`
	Tools         *bool  `json:"tools,omitempty"`
	Free          bool   `json:"free"`
	// Vision is whether the model accepts images (the catalog's vision
	// flag, or a live list's input modalities); nil when unknown.
	Vision *bool `json:"vision,omitempty"`
	// EditFormat is the edit format measured to suit the model ("replace",
	// "hashline" or "patch"; "" when not measured: replace), the default of
	// [harness] edit_format.
	EditFormat string `json:"edit_format,omitempty"`
}

// SupportsTools reports whether the model accepts tool definitions, and
// whether that is known at all.
func (m Model) SupportsTools() (supported, known bool) {
	if m.Tools == nil {
		return false, false
	}
	return *m.Tools, true
}

func (m Model) clone() Model {
	if m.Price != nil {
		p := *m.Price
		m.Price = &p
	}
	if m.Tools != nil {
		t := *m.Tools
		m.Tools = &t
	}
	if m.Vision != nil {
		v := *m.Vision
		m.Vision = &v
	}
	return m
}

func cloneModels(ms []Model) []Model {
	if ms == nil {
		return nil
	}
	out := make([]Model, len(ms))
	for i, m := range ms {
		out[i] = m.clone()
	}
	return out
}

// Catalog is an immutable set of providers. Methods return copies, so callers
// may modify what they get without affecting the catalog. Build one with Load
// and adjust it with WithOverrides.
type Catalog struct {
	formats         []WireFormat
	providers       []Provider
	index           map[string]int
	autoDetect      []string
	localProvider   string
	keylessProvider string
}

// fileData is the shape of providers.toml.
type fileData struct {
	AutoDetect      []string       `toml:"auto_detect"`
	LocalProvider   string         `toml:"local_provider"`
	KeylessProvider string         `toml:"keyless_provider"`
	Providers       []fileProvider `toml:"provider"`
}

type fileProvider struct {
	Name         string      `toml:"name"`
	DisplayName  string      `toml:"display_name"`
	Type         string      `toml:"type"`
	BaseURL      string      `toml:"base_url"`
	ModelsURL    string      `toml:"models_url"`
	KeyCheckURL  string      `toml:"key_check_url"`
	KeyEnv       []string    `toml:"key_env"`
	RequiresKey  bool        `toml:"requires_key"`
	PublicModels bool        `toml:"public_models"`
	AllFree      bool        `toml:"all_free"`
	AnyModel     bool        `toml:"any_model"`
	Custom       bool        `toml:"custom"`
	DefaultModel string      `toml:"default_model"`
	SignupURL    string      `toml:"signup_url"`
	DocsURL      string      `toml:"docs_url"`
	Notes        string      `toml:"notes"`
	Models       []fileModel `toml:"models"`
}

type fileModel struct {
	ID        string     `toml:"id"`
	Name      string     `toml:"name"`
	Free      bool       `toml:"free"`
	Context   int        `toml:"context"`
	MaxOutput int        `toml:"max_output"`
	Tools     *bool      `toml:"tools"`
	Vision    *bool      `toml:"vision"`
	Price     *filePrice `toml:"price"`
}

type filePrice struct {
	Input      float64 `toml:"input"`
	Output     float64 `toml:"output"`
	CacheRead  float64 `toml:"cache_read"`
	CacheWrite float64 `toml:"cache_write"`
}

// Load builds the embedded catalog for the wire formats given (the one
// table of them, internal/llm/wire's, through wire.CatalogFormats): a
// provider speaks one of them, and lists its models as its format says.
// It does the work on each call (about 0.05 ms, see BenchmarkLoad); callers
// keep the result. It fails only if the embedded data names a type that is
// not among formats or is otherwise invalid, which the package tests (and
// internal/llm/wire's) rule out.
//
// The providers come from embeddedFile, providers.toml as Go values
// generated at build time (catalog_gen.go, `go generate ./internal/catalog`),
// so that a start does not parse the TOML; a test fails when the two
// differ.
func Load(formats []WireFormat) (*Catalog, error) {
	return build(embeddedFile(), formats)
}

// parse reads data, a providers.toml, into a Catalog (Load without the
// generated values: for the tests and the generator).
func parse(data []byte, formats []WireFormat) (*Catalog, error) {
	fd, err := decode(data)
	if err != nil {
		return nil, err
	}
	return build(fd, formats)
}

// decode reads data, a providers.toml, refusing unknown keys.
func decode(data []byte) (fileData, error) {
	var fd fileData
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&fd); err != nil {
		return fileData{}, fmt.Errorf("catalog: parse embedded providers.toml: %w", err)
	}
	return fd, nil
}

// build makes the Catalog of fd for formats and validates it.
func build(fd fileData, formats []WireFormat) (*Catalog, error) {
	c := &Catalog{
		formats:         slices.Clone(formats),
		autoDetect:      fd.AutoDetect,
		localProvider:   fd.LocalProvider,
		keylessProvider: fd.KeylessProvider,
	}
	for _, fp := range fd.Providers {
		p := fp.toProvider()
		p.formats = c.formats
		c.providers = append(c.providers, p)
	}
	if err := c.reindex(); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("catalog: embedded providers.toml: %w", err)
	}
	return c, nil
}

func (fp fileProvider) toProvider() Provider {
	p := Provider{
		Name:         fp.Name,
		DisplayName:  fp.DisplayName,
		Type:         WireType(fp.Type),
		BaseURL:      fp.BaseURL,
		ModelsURL:    fp.ModelsURL,
		KeyCheckURL:  fp.KeyCheckURL,
		KeyEnv:       fp.KeyEnv,
		RequiresKey:  fp.RequiresKey,
		PublicModels: fp.PublicModels,
		AllFree:      fp.AllFree,
		AnyModel:     fp.AnyModel,
		Custom:       fp.Custom,
		DefaultModel: fp.DefaultModel,
		SignupURL:    fp.SignupURL,
		DocsURL:      fp.DocsURL,
		Notes:        fp.Notes,
	}
	for _, fm := range fp.Models {
		m := Model{
			ID:            fm.ID,
			Name:          fm.Name,
			ContextWindow: fm.Context,
			MaxOutput:     fm.MaxOutput,
			Tools:         fm.Tools,
			Vision:        fm.Vision,
			Free:          fm.Free || fp.AllFree,
		}
		if fm.Price != nil {
			m.Price = &Price{
				Input: fm.Price.Input, Output: fm.Price.Output,
				CacheRead: fm.Price.CacheRead, CacheWrite: fm.Price.CacheWrite,
			}
		}
		p.Models = append(p.Models, m)
	}
	return p
}

func (c *Catalog) reindex() error {
	c.index = make(map[string]int, len(c.providers))
	for i, p := range c.providers {
		if _, dup := c.index[p.Name]; dup {
			return fmt.Errorf("catalog: provider %q is defined twice", p.Name)
		}
		c.index[p.Name] = i
	}
	return nil
}

// validate checks the invariants the rest of the package relies on.
func (c *Catalog) validate() error {
	var errs []error
	for _, p := range c.providers {
		if err := validName(p.Name); err != nil {
			errs = append(errs, err)
		}
		if formatOf(c.formats, p.Type) == nil {
			errs = append(errs, fmt.Errorf("provider %q: unknown type %q", p.Name, p.Type))
		}
		if p.BaseURL != "" {
			if err := validURL(p.Name, "base_url", p.BaseURL); err != nil {
				errs = append(errs, err)
			}
		}
		for field, u := range map[string]string{"models_url": p.ModelsURL, "key_check_url": p.KeyCheckURL, "signup_url": p.SignupURL, "docs_url": p.DocsURL} {
			if u != "" {
				if err := validURL(p.Name, field, u); err != nil {
					errs = append(errs, err)
				}
			}
		}
		if p.DefaultModel != "" && !slices.ContainsFunc(p.Models, func(m Model) bool { return m.ID == p.DefaultModel }) {
			errs = append(errs, fmt.Errorf("provider %q: default_model %q is not in its model list", p.Name, p.DefaultModel))
		}
	}
	for _, n := range append(slices.Clone(c.autoDetect), c.localProvider, c.keylessProvider) {
		if _, ok := c.index[n]; !ok {
			errs = append(errs, fmt.Errorf("auto-detect names unknown provider %q", n))
		}
	}
	return errors.Join(errs...)
}

// Provider returns a copy of the named provider, or false if there is none.
func (c *Catalog) Provider(name string) (Provider, bool) {
	i, ok := c.index[name]
	if !ok {
		return Provider{}, false
	}
	return c.providers[i].clone(), true
}

// Providers returns copies of all providers in a stable order: the order of
// the embedded catalog, then providers added by overrides sorted by name.
func (c *Catalog) Providers() []Provider {
	out := make([]Provider, len(c.providers))
	for i, p := range c.providers {
		out[i] = p.clone()
	}
	return out
}

// Names returns the provider names in the order of Providers.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.providers))
	for i, p := range c.providers {
		out[i] = p.Name
	}
	return out
}

// Model returns a copy of the catalog entry for model id of the named
// provider, or false if either is unknown. It knows only the catalog's
// fallback list, not live lists.
func (c *Catalog) Model(provider, id string) (Model, bool) {
	i, ok := c.index[provider]
	if !ok {
		return Model{}, false
	}
	return c.providers[i].Model(id)
}

// Groups in which `aidex providers` lists providers, in display order.
const (
	GroupNoSignup = "no signup needed"
	GroupFreeTier = "free tier, quick signup"
	GroupPaid     = "paid or custom"
)

// GroupedProviders is one heading of `aidex providers` and its providers.
type GroupedProviders struct {
	Group     string     `json:"group"`
	Providers []Provider `json:"providers"`
}

// Groups returns the providers under GroupNoSignup, GroupFreeTier and
// GroupPaid, in that order and in catalog order within a group. Empty groups
// are left out.
func (c *Catalog) Groups() []GroupedProviders {
	order := []string{GroupNoSignup, GroupFreeTier, GroupPaid}
	byGroup := map[string][]Provider{}
	for _, p := range c.Providers() {
		g := p.Group()
		byGroup[g] = append(byGroup[g], p)
	}
	var out []GroupedProviders
	for _, g := range order {
		if len(byGroup[g]) > 0 {
			out = append(out, GroupedProviders{Group: g, Providers: byGroup[g]})
		}
	}
	return out
}

// String summarises the catalog without printing providers (and so without
// any explicit API key).
func (c *Catalog) String() string {
	return fmt.Sprintf("catalog.Catalog(%d providers)", len(c.providers))
}

// GoString is like String, for %#v.
func (c *Catalog) GoString() string { return c.String() }

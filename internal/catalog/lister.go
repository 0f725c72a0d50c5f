package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// CacheTTL is how long a cached model list counts as fresh.
const CacheTTL = 6 * time.Hour

// cacheVersion changes when the cache file format does; other versions are
// ignored.
const cacheVersion = 1

// defaultTimeout bounds a models request when the caller gives no client.
const defaultTimeout = 20 * time.Second

// Source says where a ModelList came from.
type Source string

// Sources of a model list, from best to worst.
const (
	SourceLive       Source = "live"        // fetched from the provider now
	SourceCache      Source = "cache"       // disk cache younger than the TTL
	SourceStaleCache Source = "stale-cache" // disk cache older than the TTL
	SourceStatic     Source = "static"      // the catalog's built-in list
)

// ListOptions tunes Lister.List: Refresh skips a fresh cache and fetches
// live; FreeOnly keeps only free models.
type ListOptions struct {
	Refresh  bool
	FreeOnly bool
}

// ModelList is a provider's model list and where it came from. When the live
// fetch failed, Err holds why and Note a one-line message for the user
// ("offline: served from stale cache (3h ago)"); Note may also be set on
// success (e.g. the cache could not be written). FetchedAt is zero for
// SourceStatic.
type ModelList struct {
	Provider  string    `json:"provider"`
	Models    []Model   `json:"models"`
	Source    Source    `json:"source"`
	FetchedAt time.Time `json:"fetched_at,omitzero"`
	Note      string    `json:"note,omitempty"`
	Err       error     `json:"-"`
}

// Lister fetches live model lists and caches them on disk, one JSON file per
// provider in CacheDir. The zero value works (no cache, default client, real
// clock, empty environment). A Lister is safe for concurrent use if its
// fields are not changed.
type Lister struct {
	// HTTP is the client for models requests; nil means a client with a
	// 20-second timeout.
	HTTP *http.Client
	// CacheDir holds the cache files (e.g. $XDG_CACHE_HOME/aidex/models);
	// "" disables the cache. It is created on first write.
	CacheDir string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Env looks up environment variables for API keys (os.Getenv in
	// production); nil means an empty environment.
	Getenv func(string) string
	// TTL is how long a cached list is fresh; 0 means CacheTTL.
	TTL time.Duration
}

type cacheFile struct {
	Version   int       `json:"version"`
	Provider  string    `json:"provider"`
	ModelsURL string    `json:"models_url"`
	FetchedAt time.Time `json:"fetched_at"`
	Models    []Model   `json:"models"`
}

// List returns p's model list, trying in order: the cache if fresh (unless
// opts.Refresh), the live models endpoint (then written to the cache), the
// cache even if stale, and the catalog's static list. Live entries get the
// catalog's context window, price and tool support where the endpoint lacks
// them. It returns an error only when ctx is done; a failed live fetch is
// reported in ModelList.Err and Note instead.
func (l *Lister) List(ctx context.Context, p Provider, opts ListOptions) (ModelList, error) {
	now := l.now()
	cached := l.readCache(p)
	if cached != nil && !opts.Refresh && l.fresh(cached, now) {
		ml := ModelList{Provider: p.Name, Models: cached.Models, Source: SourceCache, FetchedAt: cached.FetchedAt,
			Note: fmt.Sprintf("from cache (%s); --refresh fetches again", ageLabel(now.Sub(cached.FetchedAt)))}
		return finish(ml, opts), nil
	}
	models, err := l.fetchLive(ctx, p)
	if err == nil {
		ml := ModelList{Provider: p.Name, Models: mergeCatalog(p, models), Source: SourceLive, FetchedAt: now}
		if werr := l.writeCache(p, ml); werr != nil {
			ml.Note = "could not write the model cache: " + werr.Error()
		}
		return finish(ml, opts), nil
	}
	if ctx.Err() != nil {
		return ModelList{}, fmt.Errorf("listing %s models: %w", p.Name, ctx.Err())
	}
	why := failureLabel(p, err)
	if cached != nil {
		age := now.Sub(cached.FetchedAt)
		src, label := SourceCache, "cache"
		if !l.fresh(cached, now) {
			src, label = SourceStaleCache, "stale cache"
		}
		return finish(ModelList{Provider: p.Name, Models: cached.Models, Source: src, FetchedAt: cached.FetchedAt,
			Err: err, Note: fmt.Sprintf("%s: served from %s (%s)", why, label, ageLabel(age))}, opts), nil
	}
	return finish(ModelList{Provider: p.Name, Models: cloneModels(p.Models), Source: SourceStatic,
		Err: err, Note: why + ": showing the built-in list"}, opts), nil
}

// fetchLive gets the live list, refusing early when a needed key is missing
// or the provider is not configured.
func (l *Lister) fetchLive(ctx context.Context, p Provider) ([]Model, error) {
	if p.BaseURL == "" && p.ModelsURL == "" {
		return nil, p.Validate()
	}
	key := p.APIKey(l.Getenv)
	if key == "" && p.RequiresKey && !p.PublicModels {
		return nil, missingKeyError(p)
	}
	return fetchModels(ctx, l.client(), p, fetchOpts{key: key})
}

// failureLabel turns a fetch error into the start of a Note.
func failureLabel(p Provider, err error) string {
	var he *HTTPError
	switch {
	case errors.Is(err, ErrMissingKey):
		return "no API key (set " + p.KeyHint() + " to list live models)"
	case errors.As(err, &he):
		return fmt.Sprintf("live list failed (%d %s)", he.Status, http.StatusText(he.Status))
	case p.BaseURL == "" && p.ModelsURL == "":
		return "not configured (" + err.Error() + ")"
	case errors.Is(err, errBadResponse):
		return "live list unreadable"
	default:
		return "offline"
	}
}

// mergeCatalog fills gaps in live entries from the catalog, applies the
// provider's all-free flag and sorts by id.
func mergeCatalog(p Provider, live []Model) []Model {
	out := make([]Model, 0, len(live))
	for _, m := range live {
		if c, ok := p.Model(m.ID); ok {
			if m.Name == "" {
				m.Name = c.Name
			}
			if m.ContextWindow == 0 {
				m.ContextWindow = c.ContextWindow
			}
			if m.MaxOutput == 0 {
				m.MaxOutput = c.MaxOutput
			}
			if m.Tools == nil {
				m.Tools = c.Tools
			}
			if m.Vision == nil {
				m.Vision = c.Vision
			}
			if m.Price == nil {
				m.Price = c.Price
				m.Free = m.Free || c.Free
			}
		}
		m.Free = m.Free || p.AllFree
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b Model) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func finish(ml ModelList, opts ListOptions) ModelList {
	if ml.Models == nil {
		ml.Models = []Model{}
	}
	if opts.FreeOnly {
		ml.Models = slices.DeleteFunc(ml.Models, func(m Model) bool { return !m.Free })
	}
	return ml
}

func (l *Lister) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

func (l *Lister) ttl() time.Duration {
	if l.TTL > 0 {
		return l.TTL
	}
	return CacheTTL
}

func (l *Lister) fresh(c *cacheFile, now time.Time) bool {
	age := now.Sub(c.FetchedAt)
	return age >= 0 && age < l.ttl()
}

func (l *Lister) client() *http.Client {
	if l.HTTP != nil {
		return l.HTTP
	}
	return &http.Client{Timeout: defaultTimeout}
}

func (l *Lister) cachePath(p Provider) (string, bool) {
	if l.CacheDir == "" || validName(p.Name) != nil {
		return "", false
	}
	return filepath.Join(l.CacheDir, p.Name+".json"), true
}

// readCache returns p's cache, or nil when there is none or it is unusable
// (unreadable, another format version, another models URL).
func (l *Lister) readCache(p Provider) *cacheFile {
	path, ok := l.cachePath(p)
	if !ok {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var c cacheFile
	if json.Unmarshal(data, &c) != nil || c.Version != cacheVersion ||
		c.Provider != p.Name || c.ModelsURL != modelsURL(p) || c.FetchedAt.IsZero() {
		return nil
	}
	if c.Models == nil {
		c.Models = []Model{}
	}
	return &c
}

// writeCache stores a live list atomically (temp file, fsync, rename).
func (l *Lister) writeCache(p Provider, ml ModelList) error {
	path, ok := l.cachePath(p)
	if !ok {
		return nil
	}
	data, err := json.Marshal(cacheFile{
		Version: cacheVersion, Provider: p.Name, ModelsURL: modelsURL(p),
		FetchedAt: ml.FetchedAt, Models: ml.Models,
	})
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.MkdirAll(l.CacheDir, 0o700); err != nil {
		return fmt.Errorf("create cache directory: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Probe checks cheaply that p answers with key: it GETs p's key-check URL
// when it has one, else the first page of its models endpoint. It returns nil
// on a 2xx answer the package can read, else an error naming the provider and
// the fix, wrapping ErrMissingKey, ErrUnauthorized ("check
// OPENROUTER_API_KEY"), ErrNoModelsEndpoint (the caller should try a
// one-token completion instead) or ErrRateLimited where they apply. hc nil
// means a client with a 20-second timeout.
func Probe(ctx context.Context, p Provider, key string, hc *http.Client) error {
	if hc == nil {
		hc = &http.Client{Timeout: defaultTimeout}
	}
	if p.BaseURL == "" && p.ModelsURL == "" {
		return p.Validate()
	}
	if key == "" && p.RequiresKey {
		return missingKeyError(p)
	}
	if p.KeyCheckURL != "" && key != "" {
		_, err := getBody(ctx, hc, p, p.KeyCheckURL, map[string]string{"Authorization": "Bearer " + key})
		return err
	}
	_, err := fetchModels(ctx, hc, p, fetchOpts{key: key, pageSize: 1, maxPages: 1})
	return err
}

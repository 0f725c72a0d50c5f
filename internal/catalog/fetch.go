package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Errors that fetch and probe errors wrap; test with errors.Is.
var (
	// ErrMissingKey: the provider needs an API key and none was found.
	ErrMissingKey = errors.New("no API key")
	// ErrUnauthorized: the provider rejected the key (HTTP 401 or 403).
	ErrUnauthorized = errors.New("API key rejected")
	// ErrNoModelsEndpoint: the provider has no models endpoint at the
	// expected URL (HTTP 404 or 405); check with a one-token completion.
	ErrNoModelsEndpoint = errors.New("no models endpoint")
	// ErrRateLimited: the provider answered HTTP 429.
	ErrRateLimited = errors.New("rate limited")
)

// errBadResponse marks a models response that is not the expected JSON.
var errBadResponse = errors.New("unexpected models response")

// maxBody caps a models response (OpenRouter's full list is a few MiB).
const maxBody = 64 << 20

// maxPages caps pagination so that a server repeating its cursor cannot keep
// a listing going forever.
const maxPages = 50

// HTTPError is a non-2xx answer from a provider's models (or key-check)
// endpoint.
type HTTPError struct {
	Provider string // provider name
	URL      string // the URL requested (never contains the key)
	Status   int    // HTTP status code
	Body     string // start of the response body, for diagnostics
	KeyHint  string // the variable to check, e.g. "OPENROUTER_API_KEY"
	Signup   string // where to get a key
}

// Error says what happened and what to do about it.
func (e *HTTPError) Error() string {
	status := fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		msg := fmt.Sprintf("%s: %s from %s: check %s", e.Provider, status, e.URL, e.KeyHint)
		if e.Signup != "" {
			msg += " (get a key at " + e.Signup + ")"
		}
		return msg
	case e.Status == http.StatusNotFound || e.Status == http.StatusMethodNotAllowed:
		return fmt.Sprintf("%s: %s from %s: the provider has no models endpoint there; check its base_url", e.Provider, status, e.URL)
	case e.Status == http.StatusTooManyRequests:
		return fmt.Sprintf("%s: %s from %s: rate limited, try again later", e.Provider, status, e.URL)
	default:
		msg := fmt.Sprintf("%s: %s from %s", e.Provider, status, e.URL)
		if e.Body != "" {
			msg += ": " + e.Body
		}
		return msg
	}
}

// Unwrap maps the status to ErrUnauthorized, ErrNoModelsEndpoint or
// ErrRateLimited (nil for other statuses).
func (e *HTTPError) Unwrap() error {
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return ErrUnauthorized
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return ErrNoModelsEndpoint
	case http.StatusTooManyRequests:
		return ErrRateLimited
	}
	return nil
}

func missingKeyError(p Provider) error {
	where := ""
	if p.SignupURL != "" {
		where = " (get one at " + p.SignupURL + ")"
	}
	return fmt.Errorf("%s: %w: set %s%s", p.Name, ErrMissingKey, p.KeyHint(), where)
}

// fetchOpts tunes one listing: pageSize 0 means the provider's maximum.
type fetchOpts struct {
	key      string
	pageSize int
	maxPages int
}

// fetchModels gets p's live model list from its models endpoint.
func fetchModels(ctx context.Context, hc *http.Client, p Provider, o fetchOpts) ([]Model, error) {
	if o.maxPages <= 0 {
		o.maxPages = maxPages
	}
	switch p.Type {
	case WireAnthropic:
		return fetchAnthropic(ctx, hc, p, o)
	case WireGemini:
		return fetchGemini(ctx, hc, p, o)
	case WireOllama:
		body, err := getBody(ctx, hc, p, modelsURL(p), authHeaders(p, o.key))
		if err != nil {
			return nil, err
		}
		ms, err := parseOllamaTags(body)
		return wrapParse(p, ms, err)
	default:
		body, err := getBody(ctx, hc, p, modelsURL(p), authHeaders(p, o.key))
		if err != nil {
			return nil, err
		}
		ms, err := parseOpenAIModels(body)
		return wrapParse(p, ms, err)
	}
}

func wrapParse(p Provider, ms []Model, err error) ([]Model, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w from %s (%w): check its base_url", p.Name, errBadResponse, modelsURL(p), err)
	}
	return ms, nil
}

// fetchAnthropic pages through GET /v1/models
// (https://platform.claude.com/docs/en/api/models-list): limit up to 1000,
// after_id = the previous page's last_id while has_more.
func fetchAnthropic(ctx context.Context, hc *http.Client, p Provider, o fetchOpts) ([]Model, error) {
	return fetchPages(ctx, hc, p, o, pager{size: "limit", cursor: "after_id",
		parse: func(body []byte) ([]Model, string, error) {
			ms, more, last, err := parseAnthropicPage(body)
			if !more {
				last = ""
			}
			return ms, last, err
		}})
}

// fetchGemini pages through GET /v1beta/models
// (https://ai.google.dev/api/models#method:-models.list): pageSize up to
// 1000, pageToken = the previous nextPageToken.
func fetchGemini(ctx context.Context, hc *http.Client, p Provider, o fetchOpts) ([]Model, error) {
	return fetchPages(ctx, hc, p, o, pager{size: "pageSize", cursor: "pageToken", parse: parseGeminiPage})
}

// pager names a paged models list's query parameters (the page size and
// the cursor) and parses one page into its models and the next cursor
// ("" on the last page).
type pager struct {
	size, cursor string
	parse        func(body []byte) (ms []Model, next string, err error)
}

// fetchPages gets up to o.maxPages pages of o.pageSize models (1000 when
// unset), passing each page's cursor to the next request, and stops at
// the last page or when a cursor repeats.
func fetchPages(ctx context.Context, hc *http.Client, p Provider, o fetchOpts, pg pager) ([]Model, error) {
	size := o.pageSize
	if size <= 0 {
		size = 1000
	}
	var all []Model
	cursor := ""
	for page := 0; page < o.maxPages; page++ {
		q := url.Values{pg.size: {strconv.Itoa(size)}}
		if cursor != "" {
			q.Set(pg.cursor, cursor)
		}
		body, err := getBody(ctx, hc, p, withQuery(modelsURL(p), q), authHeaders(p, o.key))
		if err != nil {
			return nil, err
		}
		ms, next, err := pg.parse(body)
		if err != nil {
			return wrapParse(p, nil, err)
		}
		all = append(all, ms...)
		if next == "" || next == cursor {
			break
		}
		cursor = next
	}
	return all, nil
}

// modelsURL is where p lists its models: ModelsURL when set, else derived
// from BaseURL and the wire type.
func modelsURL(p Provider) string {
	if p.ModelsURL != "" {
		return p.ModelsURL
	}
	base := strings.TrimRight(p.BaseURL, "/")
	switch p.Type {
	case WireAnthropic:
		if strings.HasSuffix(base, "/v1") {
			return base + "/models"
		}
		return base + "/v1/models"
	case WireGemini:
		if strings.HasSuffix(base, "/v1beta") || strings.HasSuffix(base, "/v1") {
			return base + "/models"
		}
		return base + "/v1beta/models"
	case WireOllama:
		base = strings.TrimSuffix(base, "/v1")
		base = strings.TrimSuffix(base, "/api")
		return base + "/api/tags"
	default:
		return base + "/models"
	}
}

// authHeaders returns the request headers carrying key for p's wire type.
func authHeaders(p Provider, key string) map[string]string {
	h := map[string]string{}
	switch p.Type {
	case WireAnthropic:
		// https://platform.claude.com/docs/en/api/versioning
		h["anthropic-version"] = "2023-06-01"
		if key != "" {
			h["x-api-key"] = key
		}
	case WireGemini:
		if key != "" {
			h["x-goog-api-key"] = key
		}
	default:
		if key != "" {
			h["Authorization"] = "Bearer " + key
		}
	}
	return h
}

func withQuery(raw string, q url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	existing := u.Query()
	for k, v := range q {
		existing[k] = v
	}
	u.RawQuery = existing.Encode()
	return u.String()
}

// getBody GETs rawURL and returns the body of a 2xx answer, or an error that
// names the provider and the fix (*HTTPError for other statuses).
func getBody(ctx context.Context, hc *http.Client, p Provider, rawURL string, headers map[string]string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: bad models URL %q: %w", p.Name, rawURL, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "aidex")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot reach %s: %w", p.Name, rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading response from %s: %w", p.Name, rawURL, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("%s: response from %s is larger than %d MiB", p.Name, rawURL, maxBody>>20)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &HTTPError{
			Provider: p.Name, URL: rawURL, Status: resp.StatusCode,
			Body: snippet(body), KeyHint: p.KeyHint(), Signup: p.SignupURL,
		}
	}
	return body, nil
}

// snippet returns the first line of body, at most 200 bytes, printable only.
func snippet(body []byte) string {
	s := string(body)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

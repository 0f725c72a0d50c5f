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

// fetchModels gets p's live model list from its models endpoint, as its
// wire format's ModelsAPI says.
func fetchModels(ctx context.Context, hc *http.Client, p Provider, o fetchOpts) ([]Model, error) {
	if o.maxPages <= 0 {
		o.maxPages = maxPages
	}
	api := p.modelsAPI()
	if api.Size == "" {
		body, err := getBody(ctx, hc, p, modelsURL(p), api.Header(o.key))
		if err != nil {
			return nil, err
		}
		ms, _, err := api.Parse(body)
		return wrapParse(p, ms, err)
	}
	return fetchPages(ctx, hc, p, o, api)
}

func wrapParse(p Provider, ms []Model, err error) ([]Model, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w from %s (%w): check its base_url", p.Name, errBadResponse, modelsURL(p), err)
	}
	return ms, nil
}

// fetchPages gets up to o.maxPages pages of o.pageSize models (1000 when
// unset), passing each page's cursor to the next request (api.Size and
// api.Cursor name the query parameters), and stops at the last page or
// when a cursor repeats.
func fetchPages(ctx context.Context, hc *http.Client, p Provider, o fetchOpts, api ModelsAPI) ([]Model, error) {
	size := o.pageSize
	if size <= 0 {
		size = 1000
	}
	var all []Model
	cursor := ""
	for page := 0; page < o.maxPages; page++ {
		q := url.Values{api.Size: {strconv.Itoa(size)}}
		if cursor != "" {
			q.Set(api.Cursor, cursor)
		}
		body, err := getBody(ctx, hc, p, withQuery(modelsURL(p), q), api.Header(o.key))
		if err != nil {
			return nil, err
		}
		ms, next, err := api.Parse(body)
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
// from BaseURL by its wire format's ModelsAPI.
func modelsURL(p Provider) string {
	if p.ModelsURL != "" {
		return p.ModelsURL
	}
	return p.modelsAPI().URL(strings.TrimRight(p.BaseURL, "/"))
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

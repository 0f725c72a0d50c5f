// Package imagegen generates images from text prompts, configured apart
// from chat (config keys image_provider, image_model, image_api_key,
// image_base_url). Two wire formats:
//
//   - "pollinations" (the default, no key needed): GET
//     {base}/prompt/{url-escaped prompt}?width=&height=&seed=&model=&nologo=true&private=true;
//     the response body is the image
//     (https://github.com/pollinations/pollinations/blob/master/APIDOCS.md).
//   - "cloudflare": Cloudflare Workers AI, POST
//     {base}/accounts/{cloudflare_account_id}/ai/run/{model} with
//     {"prompt", "width", "height", "seed"} and the API token as Bearer;
//     the answer is the image, or JSON whose result.image is base64
//     (https://developers.cloudflare.com/workers-ai/models/flux-1-schnell/).
//   - "custom": image_base_url ending in /v1 or /openai speaks the OpenAI
//     format below, any other the Pollinations GET format.
//   - "openai": any OpenAI-images-compatible endpoint, POST
//     {base}/images/generations with {"model","prompt","n":1,"size":"WxH",
//     "response_format":"b64_json"} (response_format is left out for
//     gpt-image-* models, which always answer b64_json); the image is
//     data[0].b64_json, or data[0].url fetched with the same client
//     (https://platform.openai.com/docs/api-reference/images/create).
//
// Every response is checked to really be an image (content sniffing), so
// an HTML error page is never saved as a .png. Generator serves the tool
// generate_image (internal/tools/image), `aidex image` and the web UI's
// POST /api/image; Save writes an image into the workspace.
package imagegen

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/config"
)

// Providers (values of image_provider).
const (
	ProviderPollinations = "pollinations"
	ProviderOpenAI       = "openai"
	ProviderCloudflare   = "cloudflare"
	// ProviderCustom picks the wire format by image_base_url: OpenAI's
	// when it ends in /v1 or /openai, else Pollinations' GET.
	ProviderCustom = "custom"
)

// Defaults.
const (
	DefaultPollinationsURL   = "https://image.pollinations.ai"
	DefaultOpenAIURL         = "https://api.openai.com/v1"
	DefaultPollinationsModel = "flux"
	DefaultOpenAIModel       = "gpt-image-1"
	DefaultCloudflareURL     = "https://api.cloudflare.com/client/v4"
	DefaultCloudflareModel   = "@cf/black-forest-labs/flux-1-schnell"
	// DefaultSize is the width and height in pixels when none is given.
	DefaultSize = 1024
	// MinSize and MaxSize bound width and height (pixels).
	MinSize = 64
	MaxSize = 4096
	// MaxImageBytes caps a downloaded image (32 MiB).
	MaxImageBytes = 32 << 20
	// MaxPromptBytes caps a prompt (4000 bytes; Pollinations puts it in
	// the URL).
	MaxPromptBytes = 4000
	// DefaultTimeout bounds one generation (image models are slow).
	DefaultTimeout = 180 * time.Second
)

// Config chooses and reaches the image service.
type Config struct {
	// Provider is ProviderPollinations (also when empty),
	// ProviderOpenAI (alias "openai-compatible"), ProviderCloudflare or
	// ProviderCustom.
	Provider string
	// AccountID is the Cloudflare account (config cloudflare_account_id;
	// "" falls back to Getenv("CLOUDFLARE_ACCOUNT_ID")); ProviderCloudflare
	// only. Its API token is APIKey ("" falls back to
	// Getenv("CLOUDFLARE_API_TOKEN")).
	AccountID string
	// Model is the image model; "" = the provider's default ("flux",
	// "gpt-image-1").
	Model string
	// APIKey is sent as "Authorization: Bearer KEY" when set. For
	// ProviderOpenAI at the default URL, "" falls back to Env("OPENAI_API_KEY").
	APIKey string
	// BaseURL overrides the provider's API root (DefaultPollinationsURL,
	// DefaultOpenAIURL).
	BaseURL string
	// Env looks up environment variables (nil = none).
	Getenv func(string) string
	// HTTP is the client (nil = a client with Timeout).
	HTTP *http.Client
	// Timeout bounds one generation when HTTP is nil (0 = DefaultTimeout).
	Timeout time.Duration
}

// FromConfig returns the image settings of a loaded configuration.
func FromConfig(c *config.Config, env func(string) string) Config {
	return Config{Provider: c.ImageProvider, Model: c.ImageModel, APIKey: c.ImageAPIKey, BaseURL: c.ImageBaseURL,
		AccountID: c.CloudflareAccountID, Getenv: env}
}

// Request is one image to generate. Width and Height are pixels (0 =
// DefaultSize); Seed makes Pollinations reproducible (nil = random; the
// OpenAI format has no seed and ignores it); Model overrides Config.Model.
type Request struct {
	Prompt string
	Width  int
	Height int
	Seed   *int64
	Model  string
}

// Image is a generated image: Data holds the bytes exactly as the service
// sent them (decoded from base64 for the OpenAI format), MIME the sniffed
// type ("image/png", "image/jpeg", "image/webp", ...).
type Image struct {
	Data     []byte
	MIME     string
	Provider string
	Model    string
	Width    int
	Height   int
}

// Generator generates images; it is safe for concurrent use.
type Generator struct {
	provider string
	model    string
	key      string
	base     string
	account  string // Cloudflare account id
	hc       *http.Client
}

// New checks c and returns a Generator. Errors name the config key to fix:
// an unknown image_provider, a malformed image_base_url, a missing key
// for OpenAI's own endpoint or for Cloudflare, a missing
// cloudflare_account_id, a custom provider without image_base_url.
func New(c Config) (*Generator, error) {
	g := &Generator{model: c.Model, key: c.APIKey, hc: c.HTTP}
	if err := g.choose(c); err != nil {
		return nil, err
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("image_base_url %q is not an http(s) URL: set it like https://api.example.com/v1", c.BaseURL)
		}
		g.base = c.BaseURL
	}
	g.base = strings.TrimRight(g.base, "/")
	if err := g.credentials(c); err != nil {
		return nil, err
	}
	if g.hc == nil {
		t := c.Timeout
		if t <= 0 {
			t = DefaultTimeout
		}
		g.hc = &http.Client{Timeout: t}
	}
	return g, nil
}

// ErrNeedsCredentials is matched (errors.Is) by New's error when the
// provider lacks a credential the user can give (Cloudflare's account id
// or token): terminals then ask for it.
var ErrNeedsCredentials = errors.New("the image provider needs credentials")

// credentialsError is a missing credential; it matches ErrNeedsCredentials.
type credentialsError string

func (e credentialsError) Error() string { return string(e) }

// Is reports whether target is ErrNeedsCredentials.
func (e credentialsError) Is(target error) bool { return target == ErrNeedsCredentials }

// choose sets the wire format, default endpoint and model of c.Provider.
func (g *Generator) choose(c Config) error {
	provider := strings.ToLower(strings.TrimSpace(c.Provider))
	if provider == ProviderCustom {
		if c.BaseURL == "" {
			return errors.New("image_provider custom needs image_base_url: an OpenAI-images API (ending in /v1 or /openai) or a GET endpoint taking /prompt/{prompt}")
		}
		provider = ProviderPollinations
		if b := strings.TrimRight(c.BaseURL, "/"); strings.HasSuffix(b, "/v1") || strings.HasSuffix(b, "/openai") {
			provider = ProviderOpenAI
		}
	}
	switch provider {
	case "", ProviderPollinations:
		g.provider, g.base = ProviderPollinations, DefaultPollinationsURL
		g.model = cmp.Or(g.model, DefaultPollinationsModel)
	case ProviderOpenAI, "openai-compatible":
		g.provider, g.base = ProviderOpenAI, DefaultOpenAIURL
		g.model = cmp.Or(g.model, DefaultOpenAIModel)
	case ProviderCloudflare:
		g.provider, g.base = ProviderCloudflare, DefaultCloudflareURL
		g.model = cmp.Or(g.model, DefaultCloudflareModel)
	default:
		return fmt.Errorf("unknown image_provider %q: use %q (free, no key), %q (any OpenAI-images-compatible endpoint, with image_base_url and image_api_key), %q (Workers AI, with cloudflare_account_id and image_api_key) or %q (image_base_url picks the format)",
			c.Provider, ProviderPollinations, ProviderOpenAI, ProviderCloudflare, ProviderCustom)
	}
	return nil
}

// credentials fills in the keys the environment may hold and refuses a
// provider that cannot work without them.
func (g *Generator) credentials(c Config) error {
	env := c.Getenv
	if env == nil {
		env = func(string) string { return "" }
	}
	switch {
	case g.provider == ProviderOpenAI && g.key == "" && c.BaseURL == "":
		if g.key = env("OPENAI_API_KEY"); g.key == "" {
			return errors.New("image_provider openai needs a key: set image_api_key (or OPENAI_API_KEY), or point image_base_url at a compatible server")
		}
	case g.provider == ProviderCloudflare:
		g.key = cmp.Or(g.key, env("CLOUDFLARE_API_TOKEN"))
		g.account = cmp.Or(strings.TrimSpace(c.AccountID), env("CLOUDFLARE_ACCOUNT_ID"))
		if g.account == "" {
			return credentialsError("image_provider cloudflare needs cloudflare_account_id (the 32-character id on the Workers AI page of https://dash.cloudflare.com)")
		}
		if strings.ContainsAny(g.account, "/?#% ") {
			return fmt.Errorf("cloudflare_account_id %q is not an account id: copy the 32-character id from the Workers AI page of https://dash.cloudflare.com", g.account)
		}
		if g.key == "" {
			return credentialsError("image_provider cloudflare needs an API token with Workers AI access: set image_api_key (or CLOUDFLARE_API_TOKEN); create one at https://dash.cloudflare.com/profile/api-tokens")
		}
	}
	return nil
}

// Provider returns the wire format in use ("pollinations", "openai" or
// "cloudflare"; a custom provider is one of the first two).
func (g *Generator) Provider() string { return g.provider }

// Model returns the default model.
func (g *Generator) Model() string { return g.model }

// Generate makes one image. Errors: an empty or too long prompt, sizes
// outside MinSize..MaxSize, the service's HTTP error (status and the start
// of its message), a response that is not an image, or one over
// MaxImageBytes.
func (g *Generator) Generate(ctx context.Context, r Request) (Image, error) {
	r.Prompt = strings.TrimSpace(r.Prompt)
	if r.Prompt == "" {
		return Image{}, errors.New("the image prompt is empty: describe the image to generate")
	}
	if len(r.Prompt) > MaxPromptBytes {
		return Image{}, fmt.Errorf("the image prompt is %d bytes; keep it under %d", len(r.Prompt), MaxPromptBytes)
	}
	for _, d := range []*int{&r.Width, &r.Height} {
		if *d == 0 {
			*d = DefaultSize
		}
		if *d < MinSize || *d > MaxSize {
			return Image{}, fmt.Errorf("image size %dx%d is out of range: width and height must be %d..%d pixels", r.Width, r.Height, MinSize, MaxSize)
		}
	}
	if r.Model == "" {
		r.Model = g.model
	}
	var (
		img Image
		err error
	)
	switch g.provider {
	case ProviderOpenAI:
		img, err = g.openAI(ctx, r)
	case ProviderCloudflare:
		img, err = g.cloudflare(ctx, r)
	default:
		img, err = g.pollinations(ctx, r)
	}
	if err != nil {
		return Image{}, err
	}
	img.Provider, img.Model, img.Width, img.Height = g.provider, r.Model, r.Width, r.Height
	return img, nil
}

func (g *Generator) pollinations(ctx context.Context, r Request) (Image, error) {
	q := url.Values{}
	q.Set("width", strconv.Itoa(r.Width))
	q.Set("height", strconv.Itoa(r.Height))
	if r.Seed != nil {
		q.Set("seed", strconv.FormatInt(*r.Seed, 10))
	}
	q.Set("model", r.Model)
	q.Set("nologo", "true")
	q.Set("private", "true")
	u := g.base + "/prompt/" + url.PathEscape(r.Prompt) + "?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Image{}, fmt.Errorf("image request: %w", err)
	}
	req.Header.Set("Accept", "image/*")
	return g.fetchImage(req)
}

// fetchImage sends req and returns the body as a checked image.
func (g *Generator) fetchImage(req *http.Request) (Image, error) {
	g.auth(req)
	resp, err := g.hc.Do(req)
	if err != nil {
		return Image{}, fmt.Errorf("image service %s: %w", req.URL.Host, err)
	}
	defer resp.Body.Close()
	body, err := readCapped(resp.Body)
	if err != nil {
		return Image{}, fmt.Errorf("image service %s: %w", req.URL.Host, err)
	}
	if resp.StatusCode/100 != 2 {
		return Image{}, httpError(resp, body)
	}
	mime, err := CheckImage(body)
	if err != nil {
		return Image{}, fmt.Errorf("image service %s: %w", req.URL.Host, err)
	}
	return Image{Data: body, MIME: mime}, nil
}

func (g *Generator) auth(req *http.Request) {
	if g.key != "" {
		req.Header.Set("Authorization", "Bearer "+g.key)
	}
}

type openAIRequest struct {
	Model          string `json:"model,omitempty"`
	Prompt         string `json:"prompt"`
	N              int    `json:"n"`
	Size           string `json:"size"`
	ResponseFormat string `json:"response_format,omitempty"`
}

type openAIResponse struct {
	Data []struct {
		B64JSON string `json:"b64_json"`
		URL     string `json:"url"`
	} `json:"data"`
}

func (g *Generator) openAI(ctx context.Context, r Request) (Image, error) {
	in := openAIRequest{Model: r.Model, Prompt: r.Prompt, N: 1, Size: fmt.Sprintf("%dx%d", r.Width, r.Height)}
	if !strings.HasPrefix(strings.ToLower(r.Model), "gpt-image") {
		in.ResponseFormat = "b64_json"
	}
	out, host, err := g.openAIGenerate(ctx, in)
	if err != nil {
		return Image{}, err
	}
	if len(out.Data) == 0 {
		return Image{}, fmt.Errorf("image service %s returned no image (empty data)", host)
	}
	d := out.Data[0]
	switch {
	case d.B64JSON != "":
		data, err := base64.StdEncoding.DecodeString(d.B64JSON)
		if err != nil {
			return Image{}, fmt.Errorf("image service %s: b64_json is not valid base64: %w", host, err)
		}
		mime, err := CheckImage(data)
		if err != nil {
			return Image{}, fmt.Errorf("image service %s: %w", host, err)
		}
		return Image{Data: data, MIME: mime}, nil
	case d.URL != "":
		return g.download(ctx, host, d.URL)
	}
	return Image{}, fmt.Errorf("image service %s returned neither b64_json nor url", host)
}

// openAIGenerate posts in to the images endpoint and decodes the answer;
// host names the service in errors.
func (g *Generator) openAIGenerate(ctx context.Context, in openAIRequest) (out openAIResponse, host string, err error) {
	body, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.base+"/images/generations", bytes.NewReader(body))
	if err != nil {
		return out, "", fmt.Errorf("image request: %w", err)
	}
	host = req.URL.Host
	req.Header.Set("Content-Type", "application/json")
	g.auth(req)
	resp, err := g.hc.Do(req)
	if err != nil {
		return out, host, fmt.Errorf("image service %s: %w", host, err)
	}
	defer resp.Body.Close()
	// base64 is 4/3 of the image, plus JSON.
	raw, err := readLimited(resp.Body, MaxImageBytes*4/3+64<<10)
	if err != nil {
		return out, host, fmt.Errorf("image service %s: %w", host, err)
	}
	if resp.StatusCode/100 != 2 {
		return out, host, httpError(resp, raw)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, host, fmt.Errorf("image service %s answered %s, not an images response: %s", host, ctype(resp), snippet(raw))
	}
	return out, host, nil
}

// download fetches the image an images response points to (without the
// API key, which belongs to the API host only); host names the service
// that gave the URL.
func (g *Generator) download(ctx context.Context, host, rawURL string) (Image, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return Image{}, fmt.Errorf("image service %s returned an image URL that is not http(s): %q", host, snippet([]byte(rawURL)))
	}
	get, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Image{}, fmt.Errorf("image request: %w", err)
	}
	resp, err := g.hc.Do(get)
	if err != nil {
		return Image{}, fmt.Errorf("download image from %s: %w", u.Host, err)
	}
	defer resp.Body.Close()
	data, err := readCapped(resp.Body)
	if err != nil {
		return Image{}, fmt.Errorf("download image from %s: %w", u.Host, err)
	}
	if resp.StatusCode/100 != 2 {
		return Image{}, httpError(resp, data)
	}
	mime, err := CheckImage(data)
	if err != nil {
		return Image{}, fmt.Errorf("download image from %s: %w", u.Host, err)
	}
	return Image{Data: data, MIME: mime}, nil
}

func readCapped(r io.Reader) ([]byte, error) { return readLimited(r, MaxImageBytes) }

func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("response is larger than %d bytes; refused", limit)
	}
	return data, nil
}

// CheckImage sniffs data and returns its MIME type ("image/png", ...), or
// an error quoting the start of data when it is not an image (an HTML
// error page, JSON, text, SVG).
func CheckImage(data []byte) (string, error) {
	if len(data) == 0 {
		return "", errors.New("the response is empty, not an image")
	}
	mime := http.DetectContentType(data)
	if strings.HasPrefix(mime, "image/") && mime != "image/svg+xml" {
		return mime, nil
	}
	if len(data) >= 12 && string(data[4:8]) == "ftyp" && (string(data[8:12]) == "avif" || string(data[8:12]) == "avis") {
		return "image/avif", nil
	}
	return "", fmt.Errorf("the response is %s (%d bytes), not an image: %s", strings.SplitN(mime, ";", 2)[0], len(data), snippet(data))
}

// Ext returns the file extension for an image MIME type (".png", ".jpg",
// ".webp", ".gif", ".bmp", ".avif"), or "" when unknown.
func Ext(mime string) string {
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/webp":
		return ".webp"
	case "image/gif":
		return ".gif"
	case "image/bmp":
		return ".bmp"
	case "image/avif":
		return ".avif"
	case "image/x-icon", "image/vnd.microsoft.icon":
		return ".ico"
	}
	return ""
}

func ctype(resp *http.Response) string {
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "no content type"
}

func httpError(resp *http.Response, body []byte) error {
	msg := snippet(body)
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var inner struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &inner) == nil && inner.Message != "" {
			msg = inner.Message
		} else {
			msg = snippet(e.Error)
		}
	}
	hint := ""
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check image_api_key)"
	case http.StatusTooManyRequests:
		hint = " (rate limited: wait and retry)"
	}
	return fmt.Errorf("image service %s answered %s%s: %s", resp.Request.URL.Host, resp.Status, hint, msg)
}

// snippet returns the start of a body for error messages, one line.
func snippet(b []byte) string {
	const n = 200
	s := strings.ToValidUTF8(string(b[:min(len(b), n)]), "?")
	s = strings.Join(strings.Fields(s), " ")
	if len(b) > n {
		s += "..."
	}
	return s
}

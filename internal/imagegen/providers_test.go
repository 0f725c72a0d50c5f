package imagegen

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
)

// Cloudflare Workers AI: the account id goes into the path, the token is
// the Bearer key; FLUX answers JSON with a base64 image, Stable Diffusion
// the image itself (issue 23 item 18).
func TestCloudflareWorkersAI(t *testing.T) {
	want := pngBytes(t)
	var gotPath, gotAuth string
	var gotBody map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotAuth = r.URL.Path, r.Header.Get("Authorization")
		gotBody = nil
		require.NoError(t, json.NewDecoder(r.Body).Decode(&gotBody))
		if _, ok := gotBody["width"]; ok { // a Stable Diffusion model: raw bytes
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(want)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"success": true, "result": map[string]any{"image": base64.StdEncoding.EncodeToString(want)}})
	}))
	defer srv.Close()
	c := &config.Config{ImageProvider: "cloudflare", ImageAPIKey: "cf-token", ImageBaseURL: srv.URL + "/client/v4", CloudflareAccountID: "acc123"}
	g, err := New(FromConfig(c, nil))
	require.NoError(t, err)
	img, err := g.Generate(context.Background(), Request{Prompt: "a red dot"})
	require.NoError(t, err)
	require.Equal(t, want, img.Data)
	require.Equal(t, "cloudflare", img.Provider)
	require.Equal(t, "/client/v4/accounts/acc123/ai/run/@cf/black-forest-labs/flux-1-schnell", gotPath)
	require.Equal(t, "Bearer cf-token", gotAuth)
	require.Equal(t, map[string]any{"prompt": "a red dot"}, gotBody)

	img, err = g.Generate(context.Background(), Request{Prompt: "x", Model: "@cf/stabilityai/stable-diffusion-xl-base-1.0", Width: 512, Height: 768})
	require.NoError(t, err)
	require.Equal(t, "image/png", img.MIME)
	require.Equal(t, float64(512), gotBody["width"])
	require.Equal(t, "/client/v4/accounts/acc123/ai/run/@cf/stabilityai/stable-diffusion-xl-base-1.0", gotPath)
}

// Cloudflare without the account id or the token is refused, naming the
// key to set; the environment may hold both.
func TestCloudflareNeedsAccountAndToken(t *testing.T) {
	_, err := New(Config{Provider: "cloudflare", APIKey: "t"})
	require.ErrorContains(t, err, "cloudflare_account_id")
	_, err = New(Config{Provider: "cloudflare", AccountID: "acc"})
	require.ErrorContains(t, err, "image_api_key (or CLOUDFLARE_API_TOKEN)")
	env := map[string]string{"CLOUDFLARE_ACCOUNT_ID": "acc", "CLOUDFLARE_API_TOKEN": "tok"}
	g, err := New(Config{Provider: "cloudflare", Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	require.Equal(t, "cloudflare", g.Provider())
}

// image_provider = "custom" speaks the OpenAI images JSON only when the
// base URL ends in /v1 or /openai; any other base URL gets the GET shape
// (issue 23 item 18).
func TestCustomImageProviderShape(t *testing.T) {
	want := pngBytes(t)
	var method, path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, path = r.Method, r.URL.Path
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"b64_json": base64.StdEncoding.EncodeToString(want)}}})
			return
		}
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(want)
	}))
	defer srv.Close()
	for _, c := range []struct{ base, method, path string }{
		{srv.URL + "/v1", http.MethodPost, "/v1/images/generations"},
		{srv.URL + "/api/openai/", http.MethodPost, "/api/openai/images/generations"},
		{srv.URL + "/img", http.MethodGet, "/img/prompt/a cat"},
		{srv.URL + "/v1beta", http.MethodGet, "/v1beta/prompt/a cat"},
	} {
		g, err := New(Config{Provider: "custom", BaseURL: c.base, APIKey: "k", Model: "m"})
		require.NoError(t, err)
		img, err := g.Generate(context.Background(), Request{Prompt: "a cat"})
		require.NoError(t, err, c.base)
		require.Equal(t, want, img.Data)
		require.Equal(t, c.method, method, c.base)
		require.Equal(t, c.path, path, c.base)
	}
	_, err := New(Config{Provider: "custom"})
	require.ErrorContains(t, err, "image_provider custom needs image_base_url")
}

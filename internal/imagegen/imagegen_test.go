package imagegen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// jpegLike is a minimal JPEG signature plus payload: sniffed as image/jpeg.
var jpegLike = append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0}, bytes.Repeat([]byte{0x42}, 64)...)

func TestPollinationsHTTPError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":"Too many requests"}`))
	}))
	defer srv.Close()
	g, err := New(Config{BaseURL: srv.URL})
	require.NoError(t, err)
	_, err = g.Generate(context.Background(), Request{Prompt: "x"})
	require.ErrorContains(t, err, "429")
	require.ErrorContains(t, err, "rate limited")
	require.ErrorContains(t, err, "Too many requests")
}

func TestOpenAIImagesB64(t *testing.T) {
	want := pngBytes(t)
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, http.MethodPost, r.Method)
		require.Equal(t, "/v1/images/generations", r.URL.Path)
		require.Equal(t, "Bearer sk-test", r.Header.Get("Authorization"))
		body = nil
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"created": 1, "data": []any{map[string]any{"b64_json": base64.StdEncoding.EncodeToString(want)}}})
	}))
	defer srv.Close()
	g, err := New(Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "dall-e-3"})
	require.NoError(t, err)
	img, err := g.Generate(context.Background(), Request{Prompt: "a lighthouse", Width: 1024, Height: 1792})
	require.NoError(t, err)
	require.Equal(t, want, img.Data)
	require.Equal(t, "image/png", img.MIME)
	require.Equal(t, map[string]any{"model": "dall-e-3", "prompt": "a lighthouse", "n": float64(1), "size": "1024x1792", "response_format": "b64_json"}, body)

	// gpt-image-* models reject response_format; it is left out.
	g, err = New(Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "sk-test"})
	require.NoError(t, err)
	_, err = g.Generate(context.Background(), Request{Prompt: "a lighthouse"})
	require.NoError(t, err)
	require.Equal(t, "gpt-image-1", body["model"])
	require.NotContains(t, body, "response_format")
}

func TestOpenAIImagesURLAndErrors(t *testing.T) {
	want := pngBytes(t)
	mux := http.NewServeMux()
	var srvURL string
	mux.HandleFunc("/v1/images/generations", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"url": srvURL + "/files/img.png"}}})
	})
	mux.HandleFunc("/files/img.png", func(w http.ResponseWriter, r *http.Request) {
		require.Empty(t, r.Header.Get("Authorization"), "the key is not sent to the download host")
		_, _ = w.Write(want)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	srvURL = srv.URL

	g, err := New(Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "good"})
	require.NoError(t, err)
	img, err := g.Generate(context.Background(), Request{Prompt: "x"})
	require.NoError(t, err)
	require.Equal(t, want, img.Data)

	g, err = New(Config{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "bad"})
	require.NoError(t, err)
	_, err = g.Generate(context.Background(), Request{Prompt: "x"})
	require.ErrorContains(t, err, "401")
	require.ErrorContains(t, err, "Incorrect API key provided")
	require.ErrorContains(t, err, "image_api_key")
}

func TestOpenAIImagesNotAnImage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"b64_json": base64.StdEncoding.EncodeToString([]byte("<html>oops</html>"))}}})
	}))
	defer srv.Close()
	g, err := New(Config{Provider: "openai", BaseURL: srv.URL})
	require.NoError(t, err)
	_, err = g.Generate(context.Background(), Request{Prompt: "x"})
	require.ErrorContains(t, err, "not an image")
}

func TestNewAndRequestValidation(t *testing.T) {
	_, err := New(Config{Provider: "midjourney"})
	require.ErrorContains(t, err, "unknown image_provider")
	_, err = New(Config{Provider: "openai"})
	require.ErrorContains(t, err, "image_api_key")
	g, err := New(Config{Provider: "openai", Getenv: func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-env"
		}
		return ""
	}})
	require.NoError(t, err)
	require.Equal(t, DefaultOpenAIModel, g.Model())
	_, err = New(Config{BaseURL: "ftp://x"})
	require.ErrorContains(t, err, "image_base_url")

	g, err = New(FromConfig(&config.Config{ImageModel: "turbo"}, nil))
	require.NoError(t, err)
	require.Equal(t, "turbo", g.Model())
	_, err = g.Generate(context.Background(), Request{Prompt: "  "})
	require.ErrorContains(t, err, "prompt is empty")
	_, err = g.Generate(context.Background(), Request{Prompt: "x", Width: 10})
	require.ErrorContains(t, err, "out of range")
}

func TestCheckImage(t *testing.T) {
	mime, err := CheckImage(pngBytes(t))
	require.NoError(t, err)
	require.Equal(t, "image/png", mime)
	mime, err = CheckImage(jpegLike)
	require.NoError(t, err)
	require.Equal(t, "image/jpeg", mime)
	for _, bad := range [][]byte{nil, []byte(`{"error":"x"}`), []byte("<svg xmlns='http://www.w3.org/2000/svg'></svg>"), []byte("plain text")} {
		_, err := CheckImage(bad)
		require.Error(t, err, string(bad))
	}
}

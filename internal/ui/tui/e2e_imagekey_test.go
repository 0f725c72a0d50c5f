package tui_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// cloudflareConfig is a configuration with the scripted model and
// image_provider cloudflare at imageURL, without an account ID or token.
func cloudflareConfig(imageURL string) func(url string) string {
	return func(url string) string {
		return fmt.Sprintf("provider = \"fake\"\nmodel = \"scripted-a\"\nimage_provider = \"cloudflare\"\nimage_base_url = %q\n\n"+
			"[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"test-key\"\nmodels = [\"scripted-a\"]\n", imageURL, url)
	}
}

// /image with Cloudflare and no credentials asks for the account ID (as
// typed) and the token (masked), stores both in the global config file
// and generates the image (issue 23 item 18).
func TestE2EImageAsksCloudflareSettings(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x01", 64))
	var mu sync.Mutex
	var path, auth string
	cf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		mu.Unlock()
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png)
	}))
	defer cf.Close()
	e := startWith(t, llmtest.NewScript(t), cloudflareConfig(cf.URL+"/client/v4"))
	e.waitFor("fake/scripted-a")
	e.typeLine("/image a red dot -o dot")
	e.waitFor("Cloudflare account ID (on the Workers AI page of https://dash.cloudflare.com")
	e.keys("-l", "acc42")
	e.poll("the account ID as typed", func() bool { return strings.Contains(e.screen(), "acc42█") })
	e.keys("Enter")
	e.waitFor("Cloudflare API token with Workers AI access")
	e.typeSecret("cf-token-789")
	s := e.waitFor("cloudflare_account_id stored", "image_api_key stored", "saved the Cloudflare image settings in", "saved dot.png")
	require.NotContains(t, e.scrollback(), "cf-token-789", "the token is not shown")
	require.NotContains(t, s, "error:")
	mu.Lock()
	require.Equal(t, "/client/v4/accounts/acc42/ai/run/@cf/black-forest-labs/flux-1-schnell", path)
	require.Equal(t, "Bearer cf-token-789", auth)
	mu.Unlock()
	cfg, err := os.ReadFile(filepath.Join(filepath.Dir(e.ws), "config", "aidex", "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), `cloudflare_account_id = "acc42"`)
	require.Contains(t, string(cfg), `image_api_key = "cf-token-789"`)
	_, err = os.Stat(filepath.Join(e.ws, "dot.png"))
	require.NoError(t, err)
}

// An empty answer names the key to set by hand; Esc cancels with a note.
// Neither stores anything nor reaches the image server.
func TestE2EImageCloudflarePromptEmptyAndEsc(t *testing.T) {
	var mu sync.Mutex
	hits := 0
	cf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	defer cf.Close()
	e := startWith(t, llmtest.NewScript(t), cloudflareConfig(cf.URL+"/client/v4"))
	e.waitFor("fake/scripted-a")
	e.typeLine("/image a red dot")
	e.waitFor("Cloudflare account ID (on the Workers AI page")
	e.keys("Enter")
	e.waitFor("error: nothing entered: set it later with `aidex config set cloudflare_account_id VALUE`")
	e.poll("the prompt closed", func() bool { return !strings.Contains(e.screen(), "Esc cancels") })
	e.typeLine("/image a blue dot")
	e.waitFor("Cloudflare account ID (on the Workers AI page")
	e.keys("Escape")
	e.poll("the cancel note", func() bool {
		return strings.Contains(e.statusLine(), "cancelled") && !strings.Contains(e.screen(), "Esc cancels")
	})
	cfg, err := os.ReadFile(filepath.Join(filepath.Dir(e.ws), "config", "aidex", "config.toml"))
	require.NoError(t, err)
	require.NotContains(t, string(cfg), "cloudflare_account_id")
	mu.Lock()
	require.Zero(t, hits)
	mu.Unlock()
}

// /image with no image_provider asks which provider first (the AIdex
// wizard; issue 36 item 13), then that provider's own settings: here
// cloudflare, by number, followed by its account ID and token.
func TestE2EImageAsksProvider(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x01", 64))
	cf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png)
	}))
	defer cf.Close()
	e := startWith(t, llmtest.NewScript(t), func(url string) string {
		return fmt.Sprintf("provider = \"fake\"\nmodel = \"scripted-a\"\n\n"+
			"[providers.fake]\ntype = \"openai\"\nbase_url = %q\napi_key = \"test-key\"\nmodels = [\"scripted-a\"]\n", url)
	})
	e.waitFor("fake/scripted-a")
	e.typeLine("/image a red dot -o dot")
	e.waitFor("no image provider is set", "Image provider (1 pollinations, 2 openai, 3 cloudflare, 4 together")
	e.keys("-l", "3")
	e.poll("the choice as typed", func() bool { return strings.Contains(e.screen(), ": 3█") })
	e.keys("Enter")
	e.waitFor("image_provider stored", "Cloudflare image generation needs your account ID", "Cloudflare account ID (on the Workers AI page")
	cfg, err := os.ReadFile(filepath.Join(filepath.Dir(e.ws), "config", "aidex", "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), `image_provider = "cloudflare"`)
}

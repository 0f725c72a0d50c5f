package catalog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Recorded-shape bodies of each models endpoint (trimmed to a few entries).
const (
	openRouterBody = `{"data":[
 {"id":"qwen/qwen3-coder:free","name":"Qwen: Qwen3 Coder (free)","context_length":262144,
  "pricing":{"prompt":"0","completion":"0","request":"0"},
  "supported_parameters":["max_tokens","temperature","tools","tool_choice"],
  "top_provider":{"context_length":262144,"max_completion_tokens":null,"is_moderated":false}},
 {"id":"openai/gpt-4o-mini","name":"OpenAI: GPT-4o-mini","context_length":128000,
  "pricing":{"prompt":"0.00000015","completion":"0.0000006","input_cache_read":"0.000000075"},
  "supported_parameters":["tools","response_format"],
  "top_provider":{"context_length":128000,"max_completion_tokens":16384}},
 {"id":"some/no-tools","context_length":8192,"pricing":{"prompt":"0.000001","completion":"0.000002"},
  "supported_parameters":["temperature"]},
 {"id":"openrouter/auto","name":"Auto Router","context_length":2000000,"pricing":{"prompt":"-1","completion":"-1"}},
 {"id":"meta-llama/llama-3.3-70b-instruct:free","context_length":65536}
]}`
	groqBody = `{"object":"list","data":[
 {"id":"llama-3.3-70b-versatile","object":"model","created":1733447754,"owned_by":"Meta","active":true,"context_window":131072},
 {"id":"brand-new-model","object":"model","owned_by":"X","active":true,"context_window":8192}
]}`
	mistralBody = `{"object":"list","data":[
 {"id":"mistral-small-latest","max_context_length":131072,"capabilities":{"completion_chat":true,"function_calling":true}},
 {"id":"mistral-embed","max_context_length":8192,"capabilities":{"completion_chat":false,"function_calling":false}}
]}`
	githubBody = `[
 {"id":"openai/gpt-4.1","name":"OpenAI GPT-4.1","publisher":"OpenAI","capabilities":["streaming","tool-calling"],
  "limits":{"max_input_tokens":1048576,"max_output_tokens":32768},"rate_limit_tier":"high"},
 {"id":"microsoft/phi-4","name":"Phi-4","capabilities":["streaming"],"limits":{"max_input_tokens":16384,"max_output_tokens":4096}}
]`
	hfBody = `{"object":"list","data":[
 {"id":"openai/gpt-oss-120b","object":"model","owned_by":"openai","providers":[
   {"provider":"cerebras","status":"live","context_length":131072,"pricing":{"input":0.25,"output":0.69},"supports_tools":true},
   {"provider":"novita","status":"live","context_length":131072,"pricing":{"input":0.1,"output":0.5},"supports_tools":false}]},
 {"id":"some/small","providers":[{"provider":"x","status":"staging","context_length":4096,"supports_tools":false}]}
]}`
	pollinationsBody = `[
 {"name":"openai","description":"OpenAI GPT-5 Nano","tools":true,"vision":true},
 {"name":"mistral","description":"Mistral Small 3.2 24B","tools":false}
]`
	ollamaBody = `{"models":[
 {"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b","size":4683087332,"details":{"family":"qwen2","parameter_size":"7.6B"}},
 {"name":"llama3.2:latest","model":"llama3.2:latest","size":2019393189}
]}`
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time { return c.t }

// server starts an httptest server; handler failures are reported through t.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// providerAt returns catalog provider name pointed at baseURL.
func providerAt(t *testing.T, name, baseURL string) Provider {
	t.Helper()
	c, err := mustLoad(t).WithOverrides(map[string]Override{name: {BaseURL: baseURL}})
	require.NoError(t, err)
	p, ok := c.Provider(name)
	require.True(t, ok, name)
	return p
}

func modelByID(t *testing.T, ms []Model, id string) Model {
	t.Helper()
	for _, m := range ms {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("model %q not in list %v", id, ids(ms))
	return Model{}
}

func ids(ms []Model) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func TestListOpenRouterPricingAndFree(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/models" {
			http.NotFound(w, r)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer or-key" {
			t.Errorf("Authorization = %q", got)
		}
		_, _ = w.Write([]byte(openRouterBody))
	})
	p := providerAt(t, "openrouter", srv.URL+"/api/v1")
	l := &Lister{HTTP: srv.Client(), Getenv: envMap(map[string]string{"OPENROUTER_API_KEY": "or-key"})}

	ml, err := l.List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceLive, ml.Source)
	require.NoError(t, ml.Err)
	require.Equal(t, []string{"meta-llama/llama-3.3-70b-instruct:free", "openai/gpt-4o-mini", "openrouter/auto",
		"qwen/qwen3-coder:free", "some/no-tools"}, ids(ml.Models), "sorted by id")

	mini := modelByID(t, ml.Models, "openai/gpt-4o-mini")
	require.Equal(t, &Price{Input: 0.15, Output: 0.6, CacheRead: 0.075}, mini.Price, "USD per token becomes USD per 1M")
	require.Equal(t, 128000, mini.ContextWindow)
	require.Equal(t, 16384, mini.MaxOutput)
	require.Equal(t, boolPtr(true), mini.Tools)
	require.False(t, mini.Free)
	require.Equal(t, "$0.15/$0.60 per 1M", PriceLabel(mini))

	qwen := modelByID(t, ml.Models, "qwen/qwen3-coder:free")
	require.True(t, qwen.Free)
	require.Equal(t, "FREE", PriceLabel(qwen))
	require.Equal(t, boolPtr(false), modelByID(t, ml.Models, "some/no-tools").Tools)
	auto := modelByID(t, ml.Models, "openrouter/auto")
	require.Nil(t, auto.Price, "negative router prices are unknown")
	require.False(t, auto.Free)
	llama := modelByID(t, ml.Models, "meta-llama/llama-3.3-70b-instruct:free")
	require.True(t, llama.Free, ":free suffix")
	require.Equal(t, 65536, llama.ContextWindow, "live context wins over the catalog's")

	free, err := l.List(context.Background(), p, ListOptions{FreeOnly: true})
	require.NoError(t, err)
	require.Equal(t, []string{"meta-llama/llama-3.3-70b-instruct:free", "qwen/qwen3-coder:free"}, ids(free.Models))
}

func TestListOpenRouterWithoutKeyIsPublic(t *testing.T) {
	var auth atomic.Value
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(openRouterBody))
	})
	p := providerAt(t, "openrouter", srv.URL)
	ml, err := (&Lister{HTTP: srv.Client()}).List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceLive, ml.Source)
	require.Equal(t, "", auth.Load())
}

func TestListAnthropicPaginates(t *testing.T) {
	var calls atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/models" {
			t.Errorf("path = %q", r.URL.Path)
		}
		if r.Header.Get("x-api-key") != "ant-key" || r.Header.Get("anthropic-version") != "2023-06-01" {
			t.Errorf("headers = %v", r.Header)
		}
		if r.URL.Query().Get("limit") != "1000" {
			t.Errorf("limit = %q", r.URL.Query().Get("limit"))
		}
		switch r.URL.Query().Get("after_id") {
		case "":
			_, _ = w.Write([]byte(`{"data":[
			 {"type":"model","id":"claude-sonnet-4-6","display_name":"Claude Sonnet 4.6","created_at":"2026-02-17T00:00:00Z"},
			 {"type":"model","id":"claude-opus-4-6","display_name":"Claude Opus 4.6","max_input_tokens":1000000,"max_tokens":128000}],
			 "has_more":true,"first_id":"claude-sonnet-4-6","last_id":"claude-opus-4-6"}`))
		case "claude-opus-4-6":
			_, _ = w.Write([]byte(`{"data":[{"type":"model","id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5"}],
			 "has_more":false,"first_id":"claude-haiku-4-5","last_id":"claude-haiku-4-5"}`))
		default:
			t.Errorf("unexpected after_id %q", r.URL.Query().Get("after_id"))
		}
	})
	p := providerAt(t, "anthropic", srv.URL)
	l := &Lister{HTTP: srv.Client(), Getenv: envMap(map[string]string{"ANTHROPIC_API_KEY": "ant-key"})}
	ml, err := l.List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load())
	require.Equal(t, SourceLive, ml.Source)
	require.Equal(t, []string{"claude-haiku-4-5", "claude-opus-4-6", "claude-sonnet-4-6"}, ids(ml.Models))

	sonnet := modelByID(t, ml.Models, "claude-sonnet-4-6")
	require.Equal(t, 200000, sonnet.ContextWindow, "context merged from the catalog")
	require.Equal(t, 3.0, sonnet.Price.Input, "price merged from the catalog")
	opus := modelByID(t, ml.Models, "claude-opus-4-6")
	require.Equal(t, 1000000, opus.ContextWindow, "the live value wins")
	require.Equal(t, 128000, opus.MaxOutput)
	require.Equal(t, "Claude Opus 4.6", opus.Name)
	require.False(t, opus.Free)

	// A base URL that already ends in /v1 is not doubled.
	p.BaseURL = srv.URL + "/v1"
	_, err = l.List(context.Background(), p, ListOptions{Refresh: true})
	require.NoError(t, err)
}

func TestListAnthropicStopsOnRepeatedCursor(t *testing.T) {
	var calls atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = w.Write([]byte(`{"data":[{"id":"claude-x"}],"has_more":true,"last_id":"claude-x"}`))
	})
	p := providerAt(t, "anthropic", srv.URL)
	ml, err := (&Lister{HTTP: srv.Client(), Getenv: envMap(map[string]string{"ANTHROPIC_API_KEY": "k"})}).List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceLive, ml.Source)
	require.Equal(t, int32(2), calls.Load(), "a cursor that does not move ends the listing")
}

func TestListGeminiPaginatesAndFilters(t *testing.T) {
	var calls atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1beta/models" || r.Header.Get("x-goog-api-key") != "g-key" {
			t.Errorf("path %q headers %v", r.URL.Path, r.Header)
		}
		if strings.Contains(r.URL.RawQuery, "g-key") {
			t.Errorf("the key must not be in the URL")
		}
		switch r.URL.Query().Get("pageToken") {
		case "":
			_, _ = w.Write([]byte(`{"models":[
			 {"name":"models/gemini-2.5-flash","displayName":"Gemini 2.5 Flash","inputTokenLimit":1048576,"outputTokenLimit":65536,
			  "supportedGenerationMethods":["generateContent","countTokens","createCachedContent"]},
			 {"name":"models/text-embedding-004","displayName":"Text Embedding 004","inputTokenLimit":2048,
			  "supportedGenerationMethods":["embedContent"]}],
			 "nextPageToken":"page-2"}`))
		case "page-2":
			_, _ = w.Write([]byte(`{"models":[{"name":"models/gemini-2.5-pro","displayName":"Gemini 2.5 Pro","inputTokenLimit":1048576,
			  "supportedGenerationMethods":["generateContent"]}]}`))
		default:
			t.Errorf("pageToken %q", r.URL.Query().Get("pageToken"))
		}
	})
	p := providerAt(t, "gemini", srv.URL)
	l := &Lister{HTTP: srv.Client(), Getenv: envMap(map[string]string{"GEMINI_API_KEY": "g-key"})}
	ml, err := l.List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(2), calls.Load())
	require.Equal(t, []string{"gemini-2.5-flash", "gemini-2.5-pro"}, ids(ml.Models), "prefix stripped, embeddings dropped")
	flash := modelByID(t, ml.Models, "gemini-2.5-flash")
	require.Equal(t, 1048576, flash.ContextWindow)
	require.True(t, flash.Free, "free tier from the catalog")
	require.Equal(t, boolPtr(true), flash.Tools)

	free, err := l.List(context.Background(), p, ListOptions{FreeOnly: true})
	require.NoError(t, err)
	require.Equal(t, []string{"gemini-2.5-flash"}, ids(free.Models))
}

func TestListOllama(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(ollamaBody))
	})
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1"} {
		p := providerAt(t, "ollama", base)
		ml, err := (&Lister{HTTP: srv.Client()}).List(context.Background(), p, ListOptions{FreeOnly: true})
		require.NoError(t, err)
		require.Equal(t, SourceLive, ml.Source, base)
		require.Equal(t, []string{"llama3.2:latest", "qwen2.5-coder:7b"}, ids(ml.Models))
		q := modelByID(t, ml.Models, "qwen2.5-coder:7b")
		require.Equal(t, 32768, q.ContextWindow)
		require.Equal(t, "FREE", PriceLabel(q))
	}
}

func TestListOpenAICompatibleVariants(t *testing.T) {
	cases := []struct {
		provider string
		body     string
		check    func(t *testing.T, ml ModelList)
	}{
		{"groq", groqBody, func(t *testing.T, ml ModelList) {
			require.Equal(t, []string{"brand-new-model", "llama-3.3-70b-versatile"}, ids(ml.Models))
			n := modelByID(t, ml.Models, "brand-new-model")
			require.Equal(t, 8192, n.ContextWindow)
			require.True(t, n.Free, "all_free applies to models the catalog does not know")
			require.Equal(t, boolPtr(true), modelByID(t, ml.Models, "llama-3.3-70b-versatile").Tools)
		}},
		{"mistral", mistralBody, func(t *testing.T, ml ModelList) {
			require.Equal(t, boolPtr(true), modelByID(t, ml.Models, "mistral-small-latest").Tools)
			e := modelByID(t, ml.Models, "mistral-embed")
			require.Equal(t, boolPtr(false), e.Tools)
			require.Equal(t, 8192, e.ContextWindow)
		}},
		{"github", githubBody, func(t *testing.T, ml ModelList) {
			g := modelByID(t, ml.Models, "openai/gpt-4.1")
			require.Equal(t, 1048576, g.ContextWindow)
			require.Equal(t, 32768, g.MaxOutput)
			require.Equal(t, boolPtr(true), g.Tools)
			require.Equal(t, "OpenAI GPT-4.1", g.Name)
			require.Equal(t, boolPtr(false), modelByID(t, ml.Models, "microsoft/phi-4").Tools)
		}},
		{"huggingface", hfBody, func(t *testing.T, ml ModelList) {
			g := modelByID(t, ml.Models, "openai/gpt-oss-120b")
			require.Equal(t, 131072, g.ContextWindow)
			require.Equal(t, boolPtr(true), g.Tools, "tools if any host has them")
			require.Equal(t, &Price{Input: 0.25, Output: 0.69}, g.Price, "first live host's price, already per 1M")
			s := modelByID(t, ml.Models, "some/small")
			require.Nil(t, s.Price)
			require.Equal(t, boolPtr(false), s.Tools)
		}},
		{"pollinations", pollinationsBody, func(t *testing.T, ml ModelList) {
			require.Equal(t, []string{"mistral", "openai"}, ids(ml.Models))
			o := modelByID(t, ml.Models, "openai")
			require.Equal(t, "OpenAI GPT-5 Nano", o.Name)
			require.Equal(t, boolPtr(false), modelByID(t, ml.Models, "mistral").Tools, "live data wins")
			require.True(t, o.Free)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.provider, func(t *testing.T) {
			var path atomic.Value
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				path.Store(r.URL.Path)
				if tc.provider != "pollinations" && tc.provider != "huggingface" && r.Header.Get("Authorization") != "Bearer k" {
					t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
				}
				if tc.provider == "pollinations" && r.Header.Get("Authorization") != "" {
					t.Errorf("pollinations must get no key")
				}
				_, _ = w.Write([]byte(tc.body))
			})
			p := providerAt(t, tc.provider, srv.URL+"/v1")
			if p.ModelsURL != "" {
				p.ModelsURL = srv.URL + "/catalog/models"
			}
			env := envMap(map[string]string{p.KeyHint(): "k"})
			ml, err := (&Lister{HTTP: srv.Client(), Getenv: env}).List(context.Background(), p, ListOptions{})
			require.NoError(t, err)
			require.Equal(t, SourceLive, ml.Source)
			require.NoError(t, ml.Err)
			want := "/v1/models"
			if p.ModelsURL != "" {
				want = "/catalog/models"
			}
			require.Equal(t, want, path.Load())
			tc.check(t, ml)
		})
	}
}

// flaky serves groqBody until failing is set, then 500s; it counts requests.
type flaky struct {
	failing atomic.Bool
	calls   atomic.Int32
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	f.calls.Add(1)
	if f.failing.Load() {
		http.Error(w, `{"error":"upstream down"}`, http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte(groqBody))
}

func TestListCacheFreshnessAndFallbacks(t *testing.T) {
	g := newCachedGroq(t)
	g.checkFetchThenCache(t)
	g.checkServerDown(t)
	g.checkServerBack(t)
}

// cachedGroq is a Lister with a model cache and a fake clock, in front of
// a flaky groq endpoint.
type cachedGroq struct {
	f     *flaky
	l     *Lister
	p     Provider
	clock *fakeClock
	t0    time.Time
	dir   string
}

func newCachedGroq(t *testing.T) *cachedGroq {
	f := &flaky{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	g := &cachedGroq{f: f, clock: &fakeClock{t: t0}, t0: t0, dir: filepath.Join(t.TempDir(), "models"), p: providerAt(t, "groq", srv.URL)}
	g.l = &Lister{HTTP: srv.Client(), CacheDir: g.dir, Now: g.clock.Now, Getenv: envMap(map[string]string{"GROQ_API_KEY": "k"})}
	return g
}

func (g *cachedGroq) list(t *testing.T, opts ListOptions) ModelList {
	t.Helper()
	ml, err := g.l.List(context.Background(), g.p, opts)
	require.NoError(t, err)
	return ml
}

// checkFetchThenCache: the first list is fetched and cached (0600), a
// fresh cache answers without a request, and Refresh fetches anyway.
func (g *cachedGroq) checkFetchThenCache(t *testing.T) {
	ml := g.list(t, ListOptions{})
	require.Equal(t, SourceLive, ml.Source)
	require.Equal(t, g.t0, ml.FetchedAt)
	require.Equal(t, int32(1), g.f.calls.Load())
	info, err := os.Stat(filepath.Join(g.dir, "groq.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	g.clock.t = g.t0.Add(5 * time.Hour)
	ml = g.list(t, ListOptions{})
	require.Equal(t, SourceCache, ml.Source)
	require.Equal(t, g.t0, ml.FetchedAt)
	require.Equal(t, int32(1), g.f.calls.Load(), "a fresh cache needs no request")
	require.Equal(t, []string{"brand-new-model", "llama-3.3-70b-versatile"}, ids(ml.Models))
	require.Equal(t, 131072, modelByID(t, ml.Models, "llama-3.3-70b-versatile").ContextWindow)
	require.Contains(t, ml.Note, "5h ago")

	ml = g.list(t, ListOptions{Refresh: true})
	require.Equal(t, SourceLive, ml.Source, "--refresh skips a fresh cache")
	require.Equal(t, int32(2), g.f.calls.Load())
	require.Equal(t, g.clock.t, ml.FetchedAt)
}

// checkServerDown: with the server failing, a fresh cache still answers
// with Refresh, and past the TTL the stale cache answers.
func (g *cachedGroq) checkServerDown(t *testing.T) {
	g.f.failing.Store(true)
	g.clock.t = g.t0.Add(6 * time.Hour)
	ml := g.list(t, ListOptions{Refresh: true})
	require.Equal(t, SourceCache, ml.Source)
	require.NotNil(t, ml.Err)
	require.Equal(t, "live list failed (500 Internal Server Error): served from cache (1h ago)", ml.Note)
	require.Len(t, ml.Models, 2)

	g.clock.t = g.t0.Add(20 * time.Hour)
	ml = g.list(t, ListOptions{})
	require.Equal(t, SourceStaleCache, ml.Source)
	require.Equal(t, g.t0.Add(5*time.Hour), ml.FetchedAt)
	var he *HTTPError
	require.True(t, errorsAs(ml.Err, &he))
	require.Equal(t, 500, he.Status)
	require.Equal(t, "live list failed (500 Internal Server Error): served from stale cache (15h ago)", ml.Note)
	require.Len(t, ml.Models, 2)
	free := g.list(t, ListOptions{FreeOnly: true})
	require.Len(t, free.Models, 2, "groq is all free")
}

// checkServerBack: the server answers again; past the TTL the list is
// fetched and the cache renewed.
func (g *cachedGroq) checkServerBack(t *testing.T) {
	g.f.failing.Store(false)
	ml := g.list(t, ListOptions{})
	require.Equal(t, SourceLive, ml.Source)
	g.clock.t = g.t0.Add(21 * time.Hour)
	ml = g.list(t, ListOptions{})
	require.Equal(t, SourceCache, ml.Source)
}

func TestListStaticFallback(t *testing.T) {
	f := &flaky{}
	f.failing.Store(true)
	srv := httptest.NewServer(f)
	defer srv.Close()
	p := providerAt(t, "groq", srv.URL)
	l := &Lister{HTTP: srv.Client(), CacheDir: t.TempDir(), Getenv: envMap(map[string]string{"GROQ_API_KEY": "k"})}
	ml, err := l.List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceStatic, ml.Source)
	require.True(t, ml.FetchedAt.IsZero())
	require.Equal(t, ids(p.Models), ids(ml.Models), "the catalog list, in catalog order")
	require.ErrorContains(t, ml.Err, "500")
	require.Equal(t, "live list failed (500 Internal Server Error): showing the built-in list", ml.Note)
}

func TestListOffline(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	p := providerAt(t, "groq", url)
	l := &Lister{Getenv: envMap(map[string]string{"GROQ_API_KEY": "k"}), HTTP: &http.Client{Timeout: 5 * time.Second}}
	ml, err := l.List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceStatic, ml.Source)
	require.Equal(t, "offline: showing the built-in list", ml.Note)
	require.ErrorContains(t, ml.Err, "cannot reach")
}

func TestListMissingKeySkipsFetch(t *testing.T) {
	var calls atomic.Int32
	srv := server(t, func(w http.ResponseWriter, _ *http.Request) { calls.Add(1) })
	p := providerAt(t, "anthropic", srv.URL)
	ml, err := (&Lister{HTTP: srv.Client(), Getenv: envMap(nil)}).List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, int32(0), calls.Load())
	require.Equal(t, SourceStatic, ml.Source)
	require.ErrorIs(t, ml.Err, ErrMissingKey)
	require.Equal(t, "no API key (set ANTHROPIC_API_KEY to list live models): showing the built-in list", ml.Note)

	free, err := (&Lister{}).List(context.Background(), p, ListOptions{FreeOnly: true})
	require.NoError(t, err)
	require.Empty(t, free.Models, "anthropic has no free models")
	require.NotNil(t, free.Models, "an empty list, not null, for --json")
}

func TestListUnconfiguredCustom(t *testing.T) {
	p, _ := mustLoad(t).Provider("custom")
	ml, err := (&Lister{}).List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceStatic, ml.Source)
	require.ErrorContains(t, ml.Err, "custom_base_url")
	require.Contains(t, ml.Note, "not configured")
}

func TestListUnreadableResponse(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>hi</html>")) })
	p := providerAt(t, "groq", srv.URL)
	ml, err := (&Lister{HTTP: srv.Client(), Getenv: envMap(map[string]string{"GROQ_API_KEY": "k"})}).List(context.Background(), p, ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceStatic, ml.Source)
	require.ErrorContains(t, ml.Err, "unexpected models response")
	require.Equal(t, "live list unreadable: showing the built-in list", ml.Note)
}

func TestCacheIgnoredForOtherBaseURLOrCorrupt(t *testing.T) {
	srvA := server(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(groqBody)) })
	var callsB atomic.Int32
	srvB := server(t, func(w http.ResponseWriter, _ *http.Request) {
		callsB.Add(1)
		_, _ = w.Write([]byte(`{"data":[{"id":"only-on-b"}]}`))
	})
	dir := t.TempDir()
	l := &Lister{HTTP: srvA.Client(), CacheDir: dir, Getenv: envMap(map[string]string{"GROQ_API_KEY": "k"})}
	_, err := l.List(context.Background(), providerAt(t, "groq", srvA.URL), ListOptions{})
	require.NoError(t, err)

	ml, err := l.List(context.Background(), providerAt(t, "groq", srvB.URL), ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceLive, ml.Source, "a cache for another base URL is not used")
	require.Equal(t, []string{"only-on-b"}, ids(ml.Models))
	require.Equal(t, int32(1), callsB.Load())

	require.NoError(t, os.WriteFile(filepath.Join(dir, "groq.json"), []byte("{not json"), 0o600))
	ml, err = l.List(context.Background(), providerAt(t, "groq", srvB.URL), ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceLive, ml.Source, "a corrupt cache is ignored")
}

func TestCacheWriteFailureIsANote(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(groqBody)) })
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o600))
	l := &Lister{HTTP: srv.Client(), CacheDir: filepath.Join(blocker, "models"), Getenv: envMap(map[string]string{"GROQ_API_KEY": "k"})}
	ml, err := l.List(context.Background(), providerAt(t, "groq", srv.URL), ListOptions{})
	require.NoError(t, err)
	require.Equal(t, SourceLive, ml.Source)
	require.Contains(t, ml.Note, "could not write the model cache")
}

func TestListCancelled(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(groqBody)) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := (&Lister{HTTP: srv.Client(), Getenv: envMap(map[string]string{"GROQ_API_KEY": "k"})}).List(ctx, providerAt(t, "groq", srv.URL), ListOptions{})
	require.ErrorIs(t, err, context.Canceled)
}

// probeServer answers GET /key (a bearer "good" is valid) and the models
// endpoints (keys "bad" are refused, "busy" is rate limited); lastQuery is
// the last request's query.
func probeServer(t *testing.T) (srv *httptest.Server, lastQuery *atomic.Value) {
	lastQuery = &atomic.Value{}
	srv = server(t, func(w http.ResponseWriter, r *http.Request) {
		lastQuery.Store(r.URL.RawQuery)
		switch {
		case r.URL.Path == "/key":
			if r.Header.Get("Authorization") != "Bearer good" {
				http.Error(w, `{"error":{"message":"No auth credentials found","code":401}}`, http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte(`{"data":{"label":"k"}}`))
		case r.URL.Path == "/models" || r.URL.Path == "/v1/models":
			if r.Header.Get("Authorization") == "Bearer bad" || r.Header.Get("x-api-key") == "bad" {
				http.Error(w, "invalid key", http.StatusUnauthorized)
				return
			}
			if r.Header.Get("Authorization") == "Bearer busy" {
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			_, _ = w.Write([]byte(`{"data":[{"id":"m"}],"has_more":false}`))
		default:
			http.NotFound(w, r)
		}
	})
	return srv, lastQuery
}

func TestProbe(t *testing.T) {
	srv, lastQuery := probeServer(t)
	ctx := context.Background()
	t.Run("openai-compatible", func(t *testing.T) {
		groq := providerAt(t, "groq", srv.URL)
		require.NoError(t, Probe(ctx, groq, "good", srv.Client()))

		err := Probe(ctx, groq, "bad", srv.Client())
		require.ErrorIs(t, err, ErrUnauthorized)
		require.ErrorContains(t, err, "check GROQ_API_KEY (get a key at https://console.groq.com/keys)")

		require.ErrorIs(t, Probe(ctx, groq, "busy", srv.Client()), ErrRateLimited)

		err = Probe(ctx, groq, "", srv.Client())
		require.ErrorIs(t, err, ErrMissingKey)
		require.ErrorContains(t, err, "set GROQ_API_KEY")
	})
	t.Run("anthropic", func(t *testing.T) {
		ant := providerAt(t, "anthropic", srv.URL)
		require.NoError(t, Probe(ctx, ant, "good", srv.Client()))
		require.Equal(t, "limit=1", lastQuery.Load(), "a probe asks for one model")
		require.ErrorIs(t, Probe(ctx, ant, "bad", srv.Client()), ErrUnauthorized)
	})
	t.Run("key check URL", func(t *testing.T) {
		or := providerAt(t, "openrouter", srv.URL)
		or.KeyCheckURL = srv.URL + "/key"
		require.NoError(t, Probe(ctx, or, "good", srv.Client()))
		err := Probe(ctx, or, "wrong", srv.Client())
		require.ErrorIs(t, err, ErrUnauthorized)
		require.ErrorContains(t, err, "check OPENROUTER_API_KEY")
	})
	t.Run("no models endpoint", func(t *testing.T) {
		noModels := providerAt(t, "zhipu", srv.URL+"/api/paas/v4")
		err := Probe(ctx, noModels, "good", srv.Client())
		require.ErrorIs(t, err, ErrNoModelsEndpoint)
		require.ErrorContains(t, err, "check its base_url")
	})
	t.Run("key-free", func(t *testing.T) {
		pol := providerAt(t, "pollinations", srv.URL)
		pol.ModelsURL = srv.URL + "/v1/models"
		require.NoError(t, Probe(ctx, pol, "", srv.Client()), "key-free providers need no key")
	})
	t.Run("unconfigured custom", func(t *testing.T) {
		cu, _ := mustLoad(t).Provider("custom")
		require.ErrorContains(t, Probe(ctx, cu, "", nil), "custom_base_url")
	})
}

func TestHTTPErrorMessages(t *testing.T) {
	e := &HTTPError{Provider: "x", URL: "https://x/models", Status: 502, Body: "bad gateway"}
	require.Equal(t, "x: 502 Bad Gateway from https://x/models: bad gateway", e.Error())
	require.Nil(t, e.Unwrap())
	require.Equal(t, "abc", snippet([]byte("abc\nsecond line")))
	require.Equal(t, "ab", snippet([]byte("a\x00b")))
	require.Equal(t, 203, len(snippet([]byte(strings.Repeat("y", 500)))))
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

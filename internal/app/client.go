package app

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/anthropic"
	"github.com/zelvior/aidex/internal/llm/gemini"
	"github.com/zelvior/aidex/internal/llm/ollama"
	"github.com/zelvior/aidex/internal/llm/openai"
	"github.com/zelvior/aidex/internal/llm/responses"
)

// ClientOptions adjust the model client: HTTP replaces the HTTP client (for
// --verbose logging or tests); OnRetry is told of each retry.
type ClientOptions struct {
	HTTP    *http.Client
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Client builds the model client for the chosen provider, wrapped with
// retries (max_retries) and the configured timeouts; for a model that
// cannot see images or read PDFs, such parts become notes (mediaFilter).
func (rt *Runtime) Client(co ClientOptions) (llm.Client, error) {
	var c llm.Client
	var err error
	if so := rt.Config.Providers[rt.Provider.Name].StreamOptions; so != nil && rt.Provider.Type == catalog.WireOpenAI {
		c = openai.New(openai.Options{Options: rt.clientOptions(co), StreamOptions: so})
	} else if c, err = NewClient(rt.Provider.Type, rt.clientOptions(co), rt.ModelInfo().ContextWindow); err != nil {
		return nil, err
	}
	return rt.mediaFilter(llm.Retry(c, llm.RetryPolicy{MaxRetries: rt.Config.MaxRetries, OnRetry: co.OnRetry})), nil
}

// clientOptions are the wire client's options for the chosen provider: a
// local server (catalog.Provider.Local) gets the local request timeout
// unless request_timeout is set, and its timeouts are not retried.
func (rt *Runtime) clientOptions(co ClientOptions) llm.Options {
	p := rt.Provider
	local := p.Local()
	return llm.Options{
		Name:           p.Name,
		BaseURL:        strings.TrimRight(p.BaseURL, "/"),
		APIKey:         p.APIKey(rt.Getenv),
		KeyEnv:         p.KeyHint(),
		HTTPClient:     co.HTTP,
		RequestTimeout: rt.Config.RequestTimeoutFor(local),
		IdleTimeout:    rt.Config.StreamIdleTimeoutDuration(),
		Local:          local,
	}
}

// ollamaContext is the context window asked of Ollama when the model's is
// unknown, in tokens: Ollama's own default is too small for an agent's
// system prompt and tools, and it silently cuts what does not fit.
const ollamaContext = 16384

// NewClient returns the client for a wire type. Anthropic and Gemini base
// URLs without a version path get the API's current one ("/v1",
// "/v1beta"), so both "https://api.anthropic.com" and a proxy's ".../v1"
// work. contextWindow (tokens, 0 when unknown) sizes Ollama's context.
func NewClient(t catalog.WireType, o llm.Options, contextWindow int) (llm.Client, error) {
	switch t {
	case catalog.WireOpenAI:
		return openai.New(openai.Options{Options: o}), nil
	case catalog.WireOpenAIResponses:
		return responses.New(o), nil
	case catalog.WireAnthropic:
		o.BaseURL = withVersion(o.BaseURL, "/v1")
		return anthropic.New(o), nil
	case catalog.WireGemini:
		o.BaseURL = withVersion(o.BaseURL, "/v1beta")
		return gemini.New(o), nil
	case catalog.WireOllama:
		if contextWindow <= 0 {
			contextWindow = ollamaContext
		}
		return ollama.New(ollama.Options{Options: o, NumCtx: contextWindow}), nil
	}
	return nil, fmt.Errorf("provider %s: unknown wire type %q (use openai, openai-responses, anthropic, gemini or ollama)", o.Name, t)
}

// withVersion appends version to base unless base already ends in a
// version segment such as /v1, /v1beta or /v2alpha.
func withVersion(base, version string) string {
	base = strings.TrimRight(base, "/")
	last := base[strings.LastIndexByte(base, '/')+1:]
	if len(last) >= 2 && last[0] == 'v' && last[1] >= '0' && last[1] <= '9' {
		return base
	}
	return base + version
}

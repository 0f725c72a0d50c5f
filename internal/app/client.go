package app

import (
	"net/http"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/wire"
)

// ClientOptions adjust the model client: HTTP replaces the HTTP client (for
// --verbose logging or tests); OnRetry is told of each retry.
type ClientOptions struct {
	HTTP    *http.Client
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Client builds the model client for the chosen provider (its wire
// format's row of wire.Formats), wrapped with retries (max_retries) and
// the configured timeouts; for a model that cannot see images or read
// PDFs, such parts become notes (mediaFilter).
func (rt *Runtime) Client(co ClientOptions) (llm.Client, error) {
	c, err := wire.New(string(rt.Provider.Type), wire.Settings{Options: rt.modelRoom().clientOptions(co), ContextWindow: rt.ModelInfo().ContextWindow,
		StreamOptions: rt.Config.Providers[rt.Provider.Name].StreamOptions})
	if err != nil {
		return nil, err
	}
	return rt.modelRoom().mediaFilter(llm.Retry(c, llm.RetryPolicy{MaxRetries: rt.Config.MaxRetries, OnRetry: co.OnRetry})), nil
}

// isLocal reports whether p's model server runs on the user's machine:
// its wire format's does (wire.Format.Local: Ollama) or its base URL is
// on this machine (catalog.Provider.Local).
func isLocal(p catalog.Provider) bool {
	f, ok := wire.Lookup(string(p.Type))
	return ok && f.Local || p.Local()
}

// clientOptions are the wire client's options for the chosen provider: a
// local server (isLocal) gets the local request timeout unless
// request_timeout is set, and its timeouts are not retried.
func (rt modelRoom) clientOptions(co ClientOptions) llm.Options {
	p := rt.Provider
	local := isLocal(p)
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

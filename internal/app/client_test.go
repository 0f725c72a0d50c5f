package app

import (
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
)

// TestLocalProviderTimeouts: a model server on this machine waits 600 s
// for its first byte unless request_timeout is set, and is marked local
// (its timeouts are not retried); other providers keep 300 s.
func TestLocalProviderTimeouts(t *testing.T) {
	set := config.Defaults()
	set.RequestTimeout, set.Sources["request_timeout"] = 120, config.SourceFlag
	cases := []struct {
		name  string
		p     catalog.Provider
		cfg   *config.Config
		want  time.Duration
		local bool
	}{
		{"ollama", catalog.Provider{Name: "ollama", Type: "ollama", BaseURL: "http://localhost:11434"}, config.Defaults(), 600 * time.Second, true},
		{"llama.cpp on loopback", catalog.Provider{Name: "custom", Type: "openai", BaseURL: "http://127.0.0.1:8080/v1"}, config.Defaults(), 600 * time.Second, true},
		{"cloud", catalog.Provider{Name: "openai", Type: "openai", BaseURL: "https://api.openai.com/v1"}, config.Defaults(), 300 * time.Second, false},
		{"local, request_timeout set", catalog.Provider{Name: "ollama", Type: "ollama"}, set, 120 * time.Second, true},
	}
	for _, c := range cases {
		rt := &Runtime{Config: c.cfg, Provider: c.p, Getenv: func(string) string { return "" }}
		o := rt.modelRoom().clientOptions(ClientOptions{})
		if o.RequestTimeout != c.want || o.Local != c.local || o.IdleTimeout != 90*time.Second {
			t.Errorf("%s: request timeout %s, idle %s, local %v; want %s, 90s, %v", c.name, o.RequestTimeout, o.IdleTimeout, o.Local, c.want, c.local)
		}
	}
}

package memstore

import "strings"

// SharedDir is the memory directory every model family sees, as
// /memories/shared.
const SharedDir = "shared"

// familyHints maps substrings of a model id (lower case) to the family
// directory, checked in order. Model ids routed through aggregators
// ("anthropic/claude-sonnet-4", "openai/gpt-5") match by their model part.
var familyHints = [...]struct{ sub, family string }{
	{"claude", "claude"},
	{"gemini", "gemini"},
	{"gemma", "gemini"},
	{"gpt", "openai"},
	{"codex", "openai"},
	{"o1", "openai"},
	{"o3", "openai"},
	{"o4", "openai"},
	{"llama", "llama"},
	{"mistral", "mistral"},
	{"mixtral", "mistral"},
	{"codestral", "mistral"},
	{"devstral", "mistral"},
	{"qwen", "qwen"},
	{"deepseek", "deepseek"},
	{"grok", "grok"},
	{"glm", "glm"},
	{"kimi", "kimi"},
	{"moonshot", "kimi"},
	{"command", "cohere"},
	{"phi", "phi"},
}

// providerFamilies maps provider names (lower case) to a family when the
// model id says nothing.
var providerFamilies = map[string]string{
	"anthropic": "claude",
	"openai":    "openai",
	"gemini":    "gemini",
	"google":    "gemini",
	"mistral":   "mistral",
	"deepseek":  "deepseek",
	"xai":       "grok",
	"moonshot":  "kimi",
	"cohere":    "cohere",
}

// Family returns the memory directory name for a provider and model id:
// "claude", "openai", "gemini", "llama", "mistral", "qwen", "deepseek",
// "grok", "glm", "kimi", "cohere", "phi", or "other". The model id decides
// first (its last path segment, so "openrouter" + "anthropic/claude-3.5"
// is "claude"); the provider name is the fallback. The result is never
// SharedDir and is always a safe single path component.
func Family(provider, model string) string {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, h := range familyHints {
		if len(h.sub) == 2 { // "o1", "o3", "o4": only as the leading token
			if m == h.sub || strings.HasPrefix(m, h.sub+"-") {
				return h.family
			}
			continue
		}
		if strings.Contains(m, h.sub) {
			return h.family
		}
	}
	if f, ok := providerFamilies[strings.ToLower(provider)]; ok {
		return f
	}
	return "other"
}

// Package wire is the one table of the wire formats aidex speaks: a row
// per format names it (the `type` of a provider in providers.toml and
// [providers.NAME]), builds its client and states the facts the
// application needs about it (the API's version path, whether its models
// see images and read PDFs without a catalog entry, the image size it
// takes). Adding a wire format is one package under internal/llm plus one
// row in [Formats]; internal/catalog's names and internal/config's enum
// are checked against the table by this package's tests.
package wire

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/anthropic"
	"github.com/zelvior/aidex/internal/llm/gemini"
	"github.com/zelvior/aidex/internal/llm/ollama"
	"github.com/zelvior/aidex/internal/llm/openai"
	"github.com/zelvior/aidex/internal/llm/responses"
)

// Settings are what a client is built from: the provider-neutral Options,
// the model's context window in tokens (0: unknown) and, for the
// OpenAI-compatible format, whether a streamed request sends
// stream_options (nil: the client's default).
type Settings struct {
	Options       llm.Options
	ContextWindow int
	StreamOptions *bool
}

// Format is one wire format. Type is its name as configuration spells it;
// New builds its client (Options.BaseURL already has Version appended when
// it had no version segment); Version is the API version path a base URL
// without one gets ("" for none); ImageSide is the longest image side in
// pixels the API takes (0: the loader's default); Vision is true when the
// format's models see images unless the catalog says otherwise; PDF
// reports whether a vision model of the named provider reads PDF documents
// itself.
type Format struct {
	Type      string
	New       func(Settings) llm.Client
	Version   string
	ImageSide int
	Vision    bool
	PDF       func(provider string) bool
}

// ollamaContext is the context window asked of Ollama when the model's is
// unknown, in tokens: Ollama's own default is too small for an agent's
// system prompt and tools, and it silently cuts what does not fit.
const ollamaContext = 16384

func always(string) bool { return true }
func never(string) bool  { return false }

// onlyOpenAI: OpenAI itself reads PDFs, not the hosts that speak its
// format.
func onlyOpenAI(provider string) bool { return provider == "openai" }

// Formats returns the wire formats, in documentation order: OpenAI Chat
// Completions and its compatible hosts
// (https://platform.openai.com/docs/api-reference/chat), the OpenAI
// Responses API (https://platform.openai.com/docs/api-reference/responses),
// the Anthropic Messages API
// (https://platform.claude.com/docs/en/api/messages), the Gemini API
// (https://ai.google.dev/api/generate-content) and Ollama's native API
// (https://github.com/ollama/ollama/blob/main/docs/api.md).
func Formats() []Format {
	return []Format{
		{Type: "openai", ImageSide: 2048, PDF: onlyOpenAI, New: func(s Settings) llm.Client {
			return openai.New(openai.Options{Options: s.Options, StreamOptions: s.StreamOptions})
		}},
		{Type: "openai-responses", ImageSide: 2048, PDF: onlyOpenAI, New: func(s Settings) llm.Client { return responses.New(s.Options) }},
		{Type: "anthropic", Version: "/v1", Vision: true, PDF: always, New: func(s Settings) llm.Client { return anthropic.New(s.Options) }},
		{Type: "gemini", Version: "/v1beta", ImageSide: 3072, Vision: true, PDF: always, New: func(s Settings) llm.Client { return gemini.New(s.Options) }},
		{Type: "ollama", PDF: never, New: func(s Settings) llm.Client {
			if s.ContextWindow <= 0 {
				s.ContextWindow = ollamaContext
			}
			return ollama.New(ollama.Options{Options: s.Options, NumCtx: s.ContextWindow})
		}},
	}
}

// Types returns the names of the formats, in documentation order.
func Types() []string {
	var out []string
	for _, f := range Formats() {
		out = append(out, f.Type)
	}
	return out
}

// Lookup returns the format named t.
func Lookup(t string) (Format, bool) {
	for _, f := range Formats() {
		if f.Type == t {
			return f, true
		}
	}
	return Format{}, false
}

// New builds the client of wire format t for s, the base URL given the
// format's version path when it has none. Errors: an unknown t (naming
// the formats).
func New(t string, s Settings) (llm.Client, error) {
	f, ok := Lookup(t)
	if !ok {
		return nil, fmt.Errorf("provider %s: unknown wire type %q (use %s)", s.Options.Name, t, strings.Join(Types(), ", "))
	}
	if f.Version != "" {
		s.Options.BaseURL = withVersion(s.Options.BaseURL, f.Version)
	}
	return f.New(s), nil
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

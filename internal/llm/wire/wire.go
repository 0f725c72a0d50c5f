// Package wire is the one table of the wire formats aidex speaks: a row
// per format names it (the `type` of a provider in providers.toml and
// [providers.NAME]), builds its client and states every fact the rest of
// aidex needs about it (the API's version path, how it lists its models
// and sends the key there, whether its server is local, whether its
// models see images and read PDFs without a catalog entry, the image size
// it takes). Adding a wire format is one package under internal/llm plus
// one row in [Formats]: the packages below this one (internal/catalog,
// internal/config) know no format by name and are handed the table's
// facts by their callers ([CatalogFormats], [ConfigFormats]); the ones
// above consult the row ([Lookup], [Types]).
package wire

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
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
// without one gets ("" for none); Models is how the catalog lists the
// format's models and sends the key there (one of catalog's listing
// styles, or the format package's own); Local is true when the format's
// server runs on the user's machine at a known address (Ollama: its
// providers count as local whatever their base URL, see internal/app, and
// a [providers.NAME] table of it may leave base_url out); ImageSide is the longest image side in pixels the API
// takes (0: the loader's default); Vision is true when the format's
// models see images unless the catalog says otherwise; PDF reports
// whether a vision model of the named provider reads PDF documents
// itself.
type Format struct {
	Type      string
	New       func(Settings) llm.Client
	Version   string
	Models    catalog.ModelsAPI
	Local     bool
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
		{Type: "openai", Models: catalog.OpenAIModels(), ImageSide: 2048, PDF: onlyOpenAI, New: func(s Settings) llm.Client {
			return openai.New(openai.Options{Options: s.Options, StreamOptions: s.StreamOptions})
		}},
		{Type: "openai-responses", Models: catalog.OpenAIModels(), ImageSide: 2048, PDF: onlyOpenAI,
			New: func(s Settings) llm.Client { return responses.New(s.Options) }},
		{Type: "anthropic", Version: "/v1", Models: catalog.AnthropicModels(), Vision: true, PDF: always,
			New: func(s Settings) llm.Client { return anthropic.New(s.Options) }},
		{Type: "gemini", Version: "/v1beta", Models: catalog.GeminiModels(), ImageSide: 3072, Vision: true, PDF: always,
			New: func(s Settings) llm.Client { return gemini.New(s.Options) }},
		{Type: "ollama", Models: catalog.OllamaModels(), Local: true, PDF: never, New: func(s Settings) llm.Client {
			if s.ContextWindow <= 0 {
				s.ContextWindow = ollamaContext
			}
			return ollama.New(ollama.Options{Options: s.Options, NumCtx: s.ContextWindow})
		}},
	}
}

// Types returns the names of the formats, in documentation order; the
// first is the default where a type may be left out (`aidex providers
// add`).
func Types() []string {
	var out []string
	for _, f := range Formats() {
		out = append(out, f.Type)
	}
	return out
}

// CatalogFormats returns what internal/catalog needs of each format (its
// name, how it lists models), for catalog.Load.
func CatalogFormats() []catalog.WireFormat { return catalogFormats(Formats()) }

// ConfigFormats returns what internal/config needs of each format (its
// name, whether base_url may be left out), for config.LoadOptions,
// config.Set and config.KeyReference.
func ConfigFormats() []config.WireFormat { return configFormats(Formats()) }

func catalogFormats(fs []Format) []catalog.WireFormat {
	out := make([]catalog.WireFormat, 0, len(fs))
	for _, f := range fs {
		out = append(out, catalog.WireFormat{Type: catalog.WireType(f.Type), Models: f.Models})
	}
	return out
}

func configFormats(fs []Format) []config.WireFormat {
	out := make([]config.WireFormat, 0, len(fs))
	for _, f := range fs {
		out = append(out, config.WireFormat{Type: f.Type, Local: f.Local})
	}
	return out
}

// TypeHelp is the one-line help of a flag taking a wire format: "wire
// format: openai (default), openai-responses, …".
func TypeHelp() string {
	ts := Types()
	return "wire format: " + ts[0] + " (default), " + strings.Join(ts[1:], ", ")
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

package catalog

import (
	"strings"
)

// WireType names the HTTP wire format a provider speaks (the `type` of a
// provider in providers.toml and in config's [providers.NAME]).
type WireType string

// WireFormat is what the catalog needs to know of one wire format. The
// catalog sits below the client packages, so it does not know the
// formats itself: the caller passes them to Load, built from the one
// table of wire formats (internal/llm/wire's Formats, through
// wire.CatalogFormats).
type WireFormat struct {
	// Type is the format's name as configuration spells it.
	Type WireType
	// Models is how the format lists its models; a zero ModelsAPI lists
	// them as OpenAIModels does.
	Models ModelsAPI
}

// ModelsAPI is how a wire format lists its models. URL derives the models
// URL from a provider's base URL (trailing slashes already trimmed) when
// the provider names no ModelsURL; Header returns the request headers
// carrying the API key ("" when there is none). A paged list names its
// page-size and cursor query parameters in Size and Cursor (both "" for a
// list in one response); Parse reads one response into its models and the
// next page's cursor ("" on the last page, and always for a list in one
// response). A nil func behaves as OpenAIModels' does.
type ModelsAPI struct {
	URL          func(base string) string
	Header       func(key string) map[string]string
	Size, Cursor string
	Parse        func(body []byte) (ms []Model, next string, err error)
}

// OpenAIModels lists models as OpenAI and the hosts compatible with it do
// (https://platform.openai.com/docs/api-reference/models/list): GET
// BASE_URL/models with a Bearer key, one response, in any of the variants
// the compatible hosts serve (see parseOpenAIModels).
func OpenAIModels() ModelsAPI {
	return ModelsAPI{
		URL:    func(base string) string { return base + "/models" },
		Header: bearer,
		Parse: func(body []byte) ([]Model, string, error) {
			ms, err := parseOpenAIModels(body)
			return ms, "", err
		},
	}
}

// AnthropicModels lists models as the Anthropic API does
// (https://platform.claude.com/docs/en/api/models-list): GET /v1/models
// with x-api-key and anthropic-version, paged by limit (up to 1000) and
// after_id (the previous page's last_id while has_more).
func AnthropicModels() ModelsAPI {
	return ModelsAPI{
		URL: func(base string) string {
			if strings.HasSuffix(base, "/v1") {
				return base + "/models"
			}
			return base + "/v1/models"
		},
		Header: func(key string) map[string]string {
			// https://platform.claude.com/docs/en/api/versioning
			h := map[string]string{"anthropic-version": "2023-06-01"}
			if key != "" {
				h["x-api-key"] = key
			}
			return h
		},
		Size: "limit", Cursor: "after_id",
		Parse: func(body []byte) ([]Model, string, error) {
			ms, more, last, err := parseAnthropicPage(body)
			if !more {
				last = ""
			}
			return ms, last, err
		},
	}
}

// GeminiModels lists models as the Gemini API does
// (https://ai.google.dev/api/models#method:-models.list): GET
// /v1beta/models with x-goog-api-key, paged by pageSize (up to 1000) and
// pageToken (the previous nextPageToken); only models that support
// generateContent.
func GeminiModels() ModelsAPI {
	return ModelsAPI{
		URL: func(base string) string {
			if strings.HasSuffix(base, "/v1beta") || strings.HasSuffix(base, "/v1") {
				return base + "/models"
			}
			return base + "/v1beta/models"
		},
		Header: func(key string) map[string]string {
			if key == "" {
				return map[string]string{}
			}
			return map[string]string{"x-goog-api-key": key}
		},
		Size: "pageSize", Cursor: "pageToken", Parse: parseGeminiPage,
	}
}

// OllamaModels lists the models pulled on an Ollama server
// (https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models):
// GET /api/tags of the server root (a base URL's /v1 or /api left out),
// one response, every model free.
func OllamaModels() ModelsAPI {
	return ModelsAPI{
		URL: func(base string) string {
			base = strings.TrimSuffix(base, "/v1")
			base = strings.TrimSuffix(base, "/api")
			return base + "/api/tags"
		},
		Header: bearer,
		Parse: func(body []byte) ([]Model, string, error) {
			ms, err := parseOllamaTags(body)
			return ms, "", err
		},
	}
}

// bearer sends key as a Bearer token.
func bearer(key string) map[string]string {
	if key == "" {
		return map[string]string{}
	}
	return map[string]string{"Authorization": "Bearer " + key}
}

// modelsAPI returns how p lists its models: the ModelsAPI of its wire
// format among the catalog's, with OpenAIModels' for what it leaves out
// (and for a provider built outside a catalog).
func (p Provider) modelsAPI() ModelsAPI {
	var api ModelsAPI
	if f := formatOf(p.formats, p.Type); f != nil {
		api = f.Models
	}
	def := OpenAIModels()
	if api.URL == nil {
		api.URL = def.URL
	}
	if api.Header == nil {
		api.Header = def.Header
	}
	if api.Parse == nil {
		api.Parse = def.Parse
	}
	return api
}

// formatOf returns the format named t among formats, or nil.
func formatOf(formats []WireFormat, t WireType) *WireFormat {
	for i := range formats {
		if formats[i].Type == t {
			return &formats[i]
		}
	}
	return nil
}

// typeList is the formats' names, comma-separated, for error messages.
func typeList(formats []WireFormat) string {
	parts := make([]string, 0, len(formats))
	for _, f := range formats {
		parts = append(parts, string(f.Type))
	}
	return strings.Join(parts, ", ")
}

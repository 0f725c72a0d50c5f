package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// Parsers for the models endpoints. They are lenient about fields (a field of
// an unexpected type counts as unknown) but strict about the envelope: a body
// that is not the expected JSON is an error.

var errNoModels = errors.New("no model entries could be read")

// parseOpenAIModels reads an OpenAI-style model list and the variants
// compatible hosts serve:
//   - {"data": [...]} (OpenAI https://platform.openai.com/docs/api-reference/models/list,
//     Groq context_window, Mistral max_context_length and
//     capabilities.function_calling, OpenRouter
//     https://openrouter.ai/docs/api-reference/list-available-models with
//     context_length, pricing in USD per token and supported_parameters,
//     Hugging Face router providers[] with context_length, pricing per 1M and
//     supports_tools);
//   - a top-level array (GitHub Models https://docs.github.com/en/rest/models/catalog
//     with limits.max_input_tokens and capabilities ["tool-calling"];
//     Pollinations with "name" as the id and a "tools" flag);
//   - {"models": [...]}.
func parseOpenAIModels(body []byte) ([]Model, error) {
	entries, err := entryList(body)
	if err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(entries))
	for _, raw := range entries {
		if m, ok := parseOpenAIEntry(raw); ok {
			out = append(out, m)
		}
	}
	if len(out) == 0 && len(entries) > 0 {
		return nil, errNoModels
	}
	return out, nil
}

func entryList(body []byte) ([]json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	var entries []json.RawMessage
	if len(body) > 0 && body[0] == '[' {
		if err := json.Unmarshal(body, &entries); err != nil {
			return nil, err
		}
		return entries, nil
	}
	var env struct {
		Data   *[]json.RawMessage `json:"data"`
		Models *[]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, err
	}
	switch {
	case env.Data != nil:
		return *env.Data, nil
	case env.Models != nil:
		return *env.Models, nil
	}
	return nil, errors.New(`no "data" or "models" list in the response`)
}

type fields map[string]json.RawMessage

func parseOpenAIEntry(raw json.RawMessage) (Model, bool) {
	var f fields
	if json.Unmarshal(raw, &f) != nil || f == nil {
		return Model{}, false
	}
	id, name := f.str("id"), f.str("name")
	if id == "" { // Pollinations: the name is the id
		id, name = name, f.str("description")
	}
	if id == "" {
		return Model{}, false
	}
	limits, top := f.obj("limits"), f.obj("top_provider")
	m := Model{
		ID:   id,
		Name: firstString(name, f.str("display_name")),
		ContextWindow: firstPositive(f.num("context_length"), f.num("context_window"),
			f.num("max_context_length"), f.num("max_model_len"),
			limits.num("max_input_tokens"), top.num("context_length")),
		MaxOutput: firstPositive(limits.num("max_output_tokens"), top.num("max_completion_tokens")),
		Tools:     openAITools(f),
		Vision:    openAIVision(f),
	}
	m.Price = parsePricing(f.obj("pricing"))
	hfProviders(f, &m)
	m.Free = strings.HasSuffix(id, ":free") || (m.Price != nil && m.Price.Input == 0 && m.Price.Output == 0)
	return m, true
}

// openAITools reads tool support from supported_parameters (OpenRouter),
// capabilities as a list (GitHub "tool-calling") or an object (Mistral
// function_calling), or a "tools" flag (Pollinations).
func openAITools(f fields) *bool {
	if params, ok := f.strings("supported_parameters"); ok {
		return boolPtr(contains(params, "tools"))
	}
	if caps, ok := f.strings("capabilities"); ok {
		return boolPtr(contains(caps, "tool-calling") || contains(caps, "tools"))
	}
	caps := f.obj("capabilities")
	for _, k := range []string{"function_calling", "tools", "tool_calling"} {
		if b, ok := caps.boolean(k); ok {
			return boolPtr(b)
		}
	}
	if b, ok := f.boolean("tools"); ok {
		return boolPtr(b)
	}
	return nil
}

// openAIVision reads image input from architecture.input_modalities
// (OpenRouter) or supported_input_modalities (GitHub Models): nil when the
// entry has neither.
func openAIVision(f fields) *bool {
	if mods, ok := f.obj("architecture").strings("input_modalities"); ok {
		return boolPtr(contains(mods, "image"))
	}
	if mods, ok := f.strings("supported_input_modalities"); ok {
		return boolPtr(contains(mods, "image"))
	}
	return nil
}

// parsePricing reads OpenRouter pricing (prompt/completion/input_cache_read/
// input_cache_write, USD per token, as strings) or input/output already per
// 1M tokens. Negative prices (OpenRouter's routers) count as unknown.
func parsePricing(p fields) *Price {
	if p == nil {
		return nil
	}
	if in := p.num("prompt"); in.ok {
		out := p.num("completion")
		if !out.ok || in.v < 0 || out.v < 0 {
			return nil
		}
		price := &Price{Input: perMillion(in.v), Output: perMillion(out.v)}
		if v := p.num("input_cache_read"); v.ok && v.v > 0 {
			price.CacheRead = perMillion(v.v)
		}
		if v := p.num("input_cache_write"); v.ok && v.v > 0 {
			price.CacheWrite = perMillion(v.v)
		}
		return sanePrice(price)
	}
	in, out := p.num("input"), p.num("output")
	if !in.ok || !out.ok || in.v < 0 || out.v < 0 {
		return nil
	}
	return sanePrice(&Price{Input: round6(in.v), Output: round6(out.v)})
}

// hfProviders fills context, tools and price from the Hugging Face router's
// providers[] (https://huggingface.co/docs/inference-providers): the largest
// context, tools if any host supports them, the first live host's price.
func hfProviders(f fields, m *Model) {
	var hosts []fields
	if raw, ok := f["providers"]; !ok || json.Unmarshal(raw, &hosts) != nil {
		return
	}
	var tools *bool
	for _, h := range hosts {
		if c := firstPositive(h.num("context_length")); c > m.ContextWindow {
			m.ContextWindow = c
		}
		if b, ok := h.boolean("supports_tools"); ok && (tools == nil || b) {
			tools = boolPtr(b)
		}
		if m.Price == nil && (h.str("status") == "" || h.str("status") == "live") {
			m.Price = parsePricing(h.obj("pricing"))
		}
	}
	if m.Tools == nil {
		m.Tools = tools
	}
}

// parseAnthropicPage reads one page of GET /v1/models
// (https://platform.claude.com/docs/en/api/models-list).
func parseAnthropicPage(body []byte) (ms []Model, hasMore bool, lastID string, err error) {
	var page struct {
		Data    *[]json.RawMessage `json:"data"`
		HasMore bool               `json:"has_more"`
		LastID  string             `json:"last_id"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, false, "", err
	}
	if page.Data == nil {
		return nil, false, "", errors.New(`no "data" list in the response`)
	}
	for _, raw := range *page.Data {
		var f fields
		if json.Unmarshal(raw, &f) != nil {
			continue
		}
		id := f.str("id")
		if id == "" {
			continue
		}
		ms = append(ms, Model{
			ID:            id,
			Name:          f.str("display_name"),
			ContextWindow: firstPositive(f.num("max_input_tokens")),
			MaxOutput:     firstPositive(f.num("max_tokens")),
		})
	}
	if len(ms) == 0 && len(*page.Data) > 0 {
		return nil, false, "", errNoModels
	}
	return ms, page.HasMore, page.LastID, nil
}

// parseGeminiPage reads one page of GET /v1beta/models
// (https://ai.google.dev/api/models#method:-models.list), keeping the models
// that support generateContent and stripping the "models/" prefix.
func parseGeminiPage(body []byte) (ms []Model, next string, err error) {
	var page struct {
		Models        *[]json.RawMessage `json:"models"`
		NextPageToken string             `json:"nextPageToken"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, "", err
	}
	if page.Models == nil {
		if bytes.Equal(bytes.TrimSpace(body), []byte("{}")) {
			return nil, "", nil // an empty page
		}
		return nil, "", errors.New(`no "models" list in the response`)
	}
	for _, raw := range *page.Models {
		var f fields
		if json.Unmarshal(raw, &f) != nil {
			continue
		}
		id := strings.TrimPrefix(f.str("name"), "models/")
		methods, _ := f.strings("supportedGenerationMethods")
		if id == "" || !contains(methods, "generateContent") {
			continue
		}
		ms = append(ms, Model{
			ID:            id,
			Name:          f.str("displayName"),
			ContextWindow: firstPositive(f.num("inputTokenLimit")),
			MaxOutput:     firstPositive(f.num("outputTokenLimit")),
		})
	}
	return ms, page.NextPageToken, nil
}

// parseOllamaTags reads GET /api/tags
// (https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models).
// Local models cost nothing, so all are free.
func parseOllamaTags(body []byte) ([]Model, error) {
	var tags struct {
		Models *[]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(body, &tags); err != nil {
		return nil, err
	}
	if tags.Models == nil {
		return nil, errors.New(`no "models" list in the response`)
	}
	out := []Model{}
	for _, raw := range *tags.Models {
		var f fields
		if json.Unmarshal(raw, &f) != nil {
			continue
		}
		id := firstString(f.str("name"), f.str("model"))
		if id == "" {
			continue
		}
		out = append(out, Model{ID: id, Free: true, Price: &Price{}})
	}
	return out, nil
}

// Lenient field access.

func (f fields) str(k string) string {
	var s string
	if raw, ok := f[k]; ok && json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	return ""
}

func (f fields) obj(k string) fields {
	var o fields
	if raw, ok := f[k]; ok && json.Unmarshal(raw, &o) == nil {
		return o
	}
	return nil
}

func (f fields) boolean(k string) (bool, bool) {
	var b bool
	if raw, ok := f[k]; ok && json.Unmarshal(raw, &b) == nil {
		return b, true
	}
	return false, false
}

func (f fields) strings(k string) ([]string, bool) {
	var ss []string
	if raw, ok := f[k]; ok && json.Unmarshal(raw, &ss) == nil && ss != nil {
		return ss, true
	}
	return nil, false
}

// number is a numeric field that may be unknown.
type number struct {
	v  float64
	ok bool
}

// num reads a JSON number or a numeric string; anything else is unknown.
func (f fields) num(k string) number {
	raw, ok := f[k]
	if !ok {
		return number{}
	}
	s := string(bytes.TrimSpace(raw))
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return number{}
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return number{}
	}
	return number{v: v, ok: true}
}

// maxTokens bounds plausible token counts.
const maxTokens = 1 << 40

// firstPositive returns the first known value that is a plausible token
// count (1 to 2^40), as an int; 0 if none.
func firstPositive(vals ...number) int {
	for _, n := range vals {
		if n.ok && n.v >= 1 && n.v <= maxTokens {
			return int(n.v)
		}
	}
	return 0
}

func firstString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// sanePrice drops prices above $1M per 1M tokens or not finite: they are
// data errors, and JSON cannot encode infinities.
func sanePrice(p *Price) *Price {
	for _, v := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v > 1e6 {
			return nil
		}
	}
	return p
}

func perMillion(perToken float64) float64 { return round6(perToken * 1e6) }

// round6 rounds to 6 decimals, removing float noise such as
// 0.15000000000000002.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func boolPtr(b bool) *bool { return &b }

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

package catalog

import "testing"

// The wire formats the tests load the catalog with: internal/llm/wire's
// table, as data (internal/llm/wire's tests load the embedded catalog
// with the table itself).
const (
	WireOpenAI          WireType = "openai"
	WireOpenAIResponses WireType = "openai-responses"
	WireAnthropic       WireType = "anthropic"
	WireGemini          WireType = "gemini"
	WireOllama          WireType = "ollama"
)

func testFormats() []WireFormat {
	return []WireFormat{
		{Type: WireOpenAI, Models: OpenAIModels()},
		{Type: WireOpenAIResponses, Models: OpenAIModels()},
		{Type: WireAnthropic, Models: AnthropicModels()},
		{Type: WireGemini, Models: GeminiModels()},
		{Type: WireOllama, Models: OllamaModels()},
	}
}

func TestParseType(t *testing.T) {
	fs := testFormats()
	for _, s := range []string{"gemini", " Gemini ", "OPENAI-RESPONSES"} {
		if _, err := parseType(fs, "p", s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"", "gemini2", "grpc"} {
		if _, err := parseType(fs, "p", s); err == nil {
			t.Errorf("%q was accepted", s)
		}
	}
	if _, err := parseType(nil, "p", "openai"); err == nil {
		t.Error("no formats: every type is unknown")
	}
}

func TestProviderOutsideACatalogListsAsOpenAI(t *testing.T) {
	p := Provider{Name: "p", Type: WireAnthropic, BaseURL: "https://h/v1/"}
	if got := modelsURL(p); got != "https://h/v1/models" {
		t.Errorf("modelsURL = %q", got)
	}
	p.BaseURL = "https://h/"
	if got := modelsURL(p); got != "https://h/models" {
		t.Errorf("outside a catalog: modelsURL = %q, want OpenAI's", got)
	}
	c, err := mustLoad(t).WithOverrides(map[string]Override{"p": {Type: "anthropic", BaseURL: "https://h/v1/"}})
	require.NoError(t, err)
	p, _ = c.Provider("p")
	if got := modelsURL(p); got != "https://h/v1/models" {
		t.Errorf("modelsURL = %q", got)
	}
	p.Type = WireOllama
	if got := modelsURL(p); got != "https://h/api/tags" {
		t.Errorf("modelsURL after a change of type = %q", got)
	}
}

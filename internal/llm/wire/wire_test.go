package wire

import (
	"testing"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm"
)

// TestTableIsTheList checks every row is whole and that the embedded
// catalog speaks only the table's formats.
func TestTableIsTheList(t *testing.T) {
	for _, f := range Formats() {
		if f.New == nil || f.PDF == nil || f.Models.URL == nil || f.Models.Parse == nil {
			t.Errorf("%s: the row needs New, PDF and Models", f.Type)
		}
	}
	if _, err := catalog.Load(CatalogFormats()); err != nil {
		t.Fatalf("the embedded catalog names a type the table lacks: %v", err)
	}
	if got := TypeHelp(); got != "wire format: openai (default), openai-responses, anthropic, gemini, ollama" {
		t.Errorf("TypeHelp() = %q", got)
	}
}

func TestNewAddsTheVersionPath(t *testing.T) {
	for _, c := range []struct{ typ, base string }{
		{"anthropic", "https://api.anthropic.com"}, {"anthropic", "https://proxy.example/v1"},
		{"gemini", "https://generativelanguage.googleapis.com"}, {"openai", "https://api.openai.com/v1"},
	} {
		if _, err := New(c.typ, Settings{Options: llm.Options{Name: "p", BaseURL: c.base}}); err != nil {
			t.Errorf("%s %s: %v", c.typ, c.base, err)
		}
	}
	if got := withVersion("https://api.anthropic.com/", "/v1"); got != "https://api.anthropic.com/v1" {
		t.Errorf("withVersion added %q", got)
	}
	if got := withVersion("https://h/v2alpha", "/v1beta"); got != "https://h/v2alpha" {
		t.Errorf("withVersion kept a version segment as %q", got)
	}
}

func TestUnknownFormatNamesTheChoices(t *testing.T) {
	_, err := New("grpc", Settings{Options: llm.Options{Name: "p"}})
	if err == nil || err.Error() != `provider p: unknown wire type "grpc" (use openai, openai-responses, anthropic, gemini, ollama)` {
		t.Fatalf("err = %v", err)
	}
}

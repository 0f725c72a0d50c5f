package wire

import (
	"slices"
	"testing"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm"
)

// TestTableIsTheList checks that the catalog knows exactly the formats
// of the table, in its order: adding a format is a row here and its name
// in catalog.WireTypes (which config's enum reads).
func TestTableIsTheList(t *testing.T) {
	var cat []string
	for _, w := range catalog.WireTypes() {
		cat = append(cat, string(w))
	}
	if !slices.Equal(cat, Types()) {
		t.Fatalf("catalog.WireTypes() = %v, the table of wire formats has %v: add the new format to both", cat, Types())
	}
	for _, f := range Formats() {
		if f.New == nil || f.PDF == nil {
			t.Errorf("%s: the row needs New and PDF", f.Type)
		}
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

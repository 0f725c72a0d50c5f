package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// notFormats are the non-test files outside internal/llm that may spell
// a format's name: there the word names something else that happens to
// share it (a catalog provider, another tool's setting, a model family,
// an image API), never the wire format.
var notFormats = map[string]string{
	"internal/app/reasoningdefault.go": "the first-party providers named openai, anthropic and gemini",
	"internal/app/setup.go":            "the catalog provider named ollama (ollama_base_url)",
	"internal/config/foreign.go":       "other tools' provider names mapped to catalog providers",
	"internal/ui/commands/imagekey.go": "the image provider named openai",
	"internal/imagegen/imagegen.go":    "the OpenAI images API of image generation",
	"internal/imagegen/presets.go":     "the image provider named openai",
	"internal/memstore/family.go":      "model families and the providers named after them",
	"internal/eval/agents.go":          "the gemini command-line agent",
	"internal/catalog/catalog_gen.go":  "providers.toml as Go values (generated): the catalog's data, as the TOML names each provider's type",
}

// TestNoFormatSpelledOutsideTheTable checks that no Go file outside
// internal/llm (tests aside, and the files of notFormats) spells a
// format's name as a string literal: what the rest of aidex knows of a
// format comes from its row, so a new row needs no edit elsewhere.
func TestNoFormatSpelledOutsideTheTable(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	types := Types()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "internal/llm" || rel == "third_party" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || notFormats[rel] != "" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(types, s) {
					t.Errorf("%s spells the wire format %q: take it from the row (internal/llm/wire), or list the file in notFormats with the reason", rel, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

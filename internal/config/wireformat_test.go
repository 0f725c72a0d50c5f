package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// testFormats are the wire formats the tests load with: internal/llm/wire's
// table, as data (internal/llm/wire's tests check config against the table
// itself).
func testFormats() []WireFormat {
	return []WireFormat{{Type: "openai"}, {Type: "openai-responses"}, {Type: "anthropic"}, {Type: "gemini"}, {Type: "ollama", Local: true}}
}

func TestSetTypeChecksTheFormatsGiven(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	require.ErrorContains(t, Set(path, "providers.x.type", "openai"), "wire formats")
	require.ErrorContains(t, Set(path, "providers.x.type", "soap", testFormats()...), `must be one of openai, openai-responses, anthropic, gemini, ollama, not "soap"`)
	require.NoError(t, Set(path, "providers.x.type", "gemini", testFormats()...))
	require.NoError(t, Set(path, "model", "m"), "other keys need no formats")
}

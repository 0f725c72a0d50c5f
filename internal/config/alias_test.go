package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Old key names (openrouter_api_key, groq_api_key, ...) in config.toml are
// read as providers.NAME.api_key with one deprecation notice per old name
// (issue 23 item 21).
func TestOldKeyNamesAreAliases(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "openrouter_api_key = \"sk-or-old\"\ngroq_api_key = \"gsk-old\"\nimage_api_key = \"img\"\n")
	cfg, ws, err := e.load(nil, "openrouter", "groq")
	require.NoError(t, err)
	require.Equal(t, "sk-or-old", cfg.Providers["openrouter"].APIKey)
	require.Equal(t, "gsk-old", cfg.Providers["groq"].APIKey)
	require.Equal(t, "img", cfg.ImageAPIKey)
	text := warningsText(ws)
	require.Len(t, ws, 2, text)
	require.Contains(t, text, e.global()+":1: openrouter_api_key is an old name, read as providers.openrouter.api_key: rename it")
	require.Contains(t, text, e.global()+":2: groq_api_key is an old name, read as providers.groq.api_key")
	require.Equal(t, 2, strings.Count(text, "\n"), "one line per old name")
	// An unknown provider's old name is an error naming it.
	writeFile(t, e.global(), "nosuch_api_key = \"x\"\n")
	_, _, err = e.load(nil, "openrouter", "groq")
	require.ErrorContains(t, err, "nosuch")
}

// `aidex config set groq_api_key KEY` writes providers.groq.api_key.
func TestSetOldKeyName(t *testing.T) {
	e := newEnv(t)
	require.NoError(t, Set(e.global(), "groq_api_key", "gsk-new"))
	data, err := os.ReadFile(e.global())
	require.NoError(t, err)
	require.Contains(t, string(data), "[providers.groq]")
	require.NotContains(t, string(data), "groq_api_key")
	cfg, ws, err := e.load(nil, "groq")
	require.NoError(t, err)
	require.Empty(t, ws)
	require.Equal(t, "gsk-new", cfg.Providers["groq"].APIKey)
}

// The old ~/.config/nexus-agent/config.json is imported once when there
// is neither config.toml nor the AIdex config.json (issue 23 item 21).
func TestNexusAgentFolderMigrated(t *testing.T) {
	e := newEnv(t)
	nexus := filepath.Join(e.vars["XDG_CONFIG_HOME"], "nexus-agent", "config.json")
	require.Equal(t, nexus, NexusLegacyFile(e.paths))
	writeFile(t, nexus, `{"provider": "groq", "groq_api_key": "gsk-nexus", "max_tool_turns": 12}`)
	cfg, ws, err := e.load(nil, "groq")
	require.NoError(t, err)
	require.Equal(t, "groq", cfg.Provider)
	require.Equal(t, "gsk-nexus", cfg.Providers["groq"].APIKey)
	require.Equal(t, 12, cfg.MaxToolTurns)
	require.Contains(t, warningsText(ws), nexus+": imported into "+e.global())
	// Once: a later change to the old file is not read.
	writeFile(t, nexus, `{"provider": "openrouter"}`)
	cfg, ws, err = e.load(nil, "groq", "openrouter")
	require.NoError(t, err)
	require.Equal(t, "groq", cfg.Provider)
	require.Empty(t, ws)
}

package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestImportLegacy(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.paths.LegacyFile, `{
  "provider": "openrouter",
  "model": "qwen/qwen3-coder",
  "max_tool_turns": 30,
  "temperature": 0.3,
  "stream": true,
  "system_prompt_file": null,
  "custom_base_url": "",
  "api_keys": {"openrouter": "sk-or-v1-aaaaaaaaaaaa", "groq": ""},
  "gemini_api_key": "AIza-bbbbbbbbbbbb",
  "theme": "dark",
  "max_retries": "three",
  "permissions": {"deny": ["run_command(rm *)"]}
}`)
	imported, ws, err := ImportLegacy(e.paths)
	require.NoError(t, err)
	require.True(t, imported)
	text := warningsText(ws)
	require.Contains(t, text, "theme: unknown key, not imported")
	require.Contains(t, text, "max_retries: must be an integer")
	require.Len(t, ws, 2, text)

	info, err := os.Stat(e.paths.ConfigFile)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	_, err = os.Stat(e.paths.LegacyFile)
	require.NoError(t, err, "the JSON file is left in place")

	cfg, lw, err := e.load(nil, "openrouter", "gemini", "groq")
	require.NoError(t, err)
	require.Empty(t, lw, "second run imports nothing")
	require.Equal(t, "openrouter", cfg.Provider)
	require.Equal(t, "qwen/qwen3-coder", cfg.Model)
	require.Equal(t, 30, cfg.MaxToolTurns)
	require.Equal(t, 0.3, *cfg.Temperature)
	require.Equal(t, "sk-or-v1-aaaaaaaaaaaa", cfg.Providers["openrouter"].APIKey)
	require.Equal(t, "AIza-bbbbbbbbbbbb", cfg.Providers["gemini"].APIKey)
	require.NotContains(t, cfg.Providers, "groq")
	require.Equal(t, []Rule{{Text: "run_command(rm *)", Source: cfg.Sources["permissions.deny"]}}, cfg.Permissions.Deny)

	again, _, err := ImportLegacy(e.paths)
	require.NoError(t, err)
	require.False(t, again, "config.toml exists: import is done")
}

func TestImportLegacyOnLoad(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.paths.LegacyFile, `{"model": "m", "mystery_api_key": "xxxxxxxxxxxxxxxx"}`)
	cfg, ws, err := e.load(nil, "openai")
	require.NoError(t, err)
	require.Equal(t, "m", cfg.Model)
	text := warningsText(ws)
	require.Contains(t, text, `provider "mystery" is not in the catalog, not imported`)
	require.Contains(t, text, "imported into "+e.paths.ConfigFile)
}

func TestImportLegacyNothingToDo(t *testing.T) {
	e := newEnv(t)
	imported, ws, err := ImportLegacy(e.paths)
	require.NoError(t, err)
	require.False(t, imported)
	require.Empty(t, ws)

	writeFile(t, e.paths.LegacyFile, `[1, 2]`)
	_, _, err = ImportLegacy(e.paths)
	require.ErrorContains(t, err, "not a JSON object")
	_, ws, err = e.load(nil)
	require.NoError(t, err, "a broken legacy file does not stop aidex")
	require.Contains(t, warningsText(ws), "not imported")
}

package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

var catalogNames = []string{"openai", "anthropic", "openrouter", "groq", "gemini", "ollama", "custom", "mistral"}

// iptic-memex's config.ini and models.ini are imported once: the default
// model through models.ini, keys into config.toml, one notice line that
// names what was taken and what not, and never a key.
const ipticINI = `[DEFAULT]
default_model = sonnet
temperature = 0.4
max_tokens = 8192
stream = False
session_budget = 5.00
highlighting = True

[AGENT]
default_steps = 7

[TOOLS]
timeout = 15

[OpenAI]
api_key = sk-ipticsecretvalue1
endpoint = https://api.openai.com/v1/chat/completions
reasoning_effort = low

[Anthropic]
api_key: sk-ant-ipticsecret2
; a comment

[Perplexity]
alias = OpenAI
api_key = pplx-secret3
`

func TestIpticMemexSettingsImportedOnce(t *testing.T) {
	e := newEnv(t)
	ini := IpticFile(e.paths)
	writeFile(t, ini, ipticINI)
	writeFile(t, filepath.Join(filepath.Dir(ini), "models.ini"), "[sonnet]\nprovider = Anthropic\nmodel_name = claude-sonnet-4-6\ncontext_size = 200000\n")
	cfg, ws, err := e.load(nil, catalogNames...)
	require.NoError(t, err)
	require.Equal(t, "anthropic", cfg.Provider)
	require.Equal(t, "claude-sonnet-4-6", cfg.Model)
	require.Equal(t, "sk-ipticsecretvalue1", cfg.Providers["openai"].APIKey)
	require.Equal(t, "sk-ant-ipticsecret2", cfg.Providers["anthropic"].APIKey)
	require.InDelta(t, 0.4, *cfg.Temperature, 1e-9)
	require.Equal(t, 8192, cfg.MaxTokens)
	require.Equal(t, 7, cfg.Agent.DefaultSteps)
	require.Equal(t, "low", cfg.ReasoningEffort)
	require.Len(t, ws, 1, "one notice line")
	text := warningsText(ws)
	require.Contains(t, text, ini+": imported into "+e.global()+": ")
	require.Contains(t, text, "providers.openai.api_key")
	require.Contains(t, text, "not taken")
	require.Contains(t, text, "DEFAULT.highlighting")
	require.Contains(t, text, "providers.perplexity.api_key", "a provider aidex does not know is named as not taken")
	for _, secret := range []string{"sk-ipticsecretvalue1", "sk-ant-ipticsecret2", "pplx-secret3"} {
		require.NotContains(t, text, secret, "keys are never printed")
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(e.global())
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the key store is private")
	}

	// Once: a later change to the INI file is not read.
	writeFile(t, ini, "[DEFAULT]\ntemperature = 0.9\n")
	cfg, ws, err = e.load(nil, catalogNames...)
	require.NoError(t, err)
	require.InDelta(t, 0.4, *cfg.Temperature, 1e-9)
	require.Empty(t, ws)
}

// ayder-cli's ~/.ayder/config.toml: an Ollama base URL is the ollama
// provider (ayder's placeholder key "ollama" is no key), num_ctx the
// context window; another server is the custom provider with its key.
func TestAyderSettingsImportedOnce(t *testing.T) {
	e := newEnv(t)
	writeFile(t, AyderFile(e.paths), `[llm]
base_url = "http://localhost:11434/v1"
api_key = "ollama"
model = "qwen3-coder:latest"
num_ctx = 65536

[editor]
editor = "vim"
`)
	cfg, ws, err := e.load(nil, catalogNames...)
	require.NoError(t, err)
	require.Equal(t, "ollama", cfg.Provider)
	require.Equal(t, "qwen3-coder:latest", cfg.Model)
	require.Equal(t, "http://localhost:11434", cfg.OllamaBaseURL)
	require.Equal(t, 65536, cfg.ContextWindow)
	require.Len(t, ws, 1)
	require.Contains(t, warningsText(ws), "not taken (no aidex setting, or an invalid value): editor")

	e = newEnv(t)
	writeFile(t, AyderFile(e.paths), "[app]\nprovider = \"vllm\"\n[llm.vllm]\nbase_url = \"http://gpu-box:8000/v1\"\napi_key = \"tok-secret-ayder\"\nmodel = \"qwen\"\n")
	cfg, ws, err = e.load(nil, catalogNames...)
	require.NoError(t, err)
	require.Equal(t, "custom", cfg.Provider)
	require.Equal(t, "http://gpu-box:8000/v1", cfg.CustomBaseURL)
	require.Equal(t, "qwen", cfg.CustomChatModel)
	require.Equal(t, "tok-secret-ayder", cfg.Providers["custom"].APIKey)
	require.NotContains(t, warningsText(ws), "tok-secret-ayder")
}

// A bad INI line is a warning naming file and line; nothing is written.
func TestIpticBadFileNamesTheLine(t *testing.T) {
	e := newEnv(t)
	writeFile(t, IpticFile(e.paths), "[DEFAULT]\njust words\n")
	_, ws, err := e.load(nil, catalogNames...)
	require.NoError(t, err)
	require.Contains(t, warningsText(ws), "config.ini:2: not an INI line")
	_, err = os.Stat(e.global())
	require.ErrorIs(t, err, os.ErrNotExist)
}

// FuzzParseINI: any content parses or fails with an error, in bounded time.
func FuzzParseINI(f *testing.F) {
	f.Add([]byte("[DEFAULT]\na = 1\n[X]\nb: 2\n# c\n; d\n"))
	f.Add([]byte("\xef\xbb\xbfno section = x\n[\n]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ini, err := parseINI("f.ini", data)
		if err == nil && ini["DEFAULT"] == nil {
			t.Fatal("no DEFAULT section")
		}
	})
}

package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMask(t *testing.T) {
	tests := map[string]string{
		"":                     "",
		"short":                "****",
		"sk-12345678":          "****", // 11 characters
		"sk-123456789":         "sk-...6789",
		"sk-proj-abcdefghabcd": "sk-...abcd",
		"ключ-ключ-ключ-1234":  "клю...1234",
	}
	for in, want := range tests {
		require.Equal(t, want, Mask(in), in)
	}
}

func TestListMasksSecrets(t *testing.T) {
	e := newEnv(t)
	const key, imgKey, envKey = "sk-secret-global-9999", "img-secret-key-7777", "gsk-from-the-env-5555"
	writeFile(t, e.global(), `
image_api_key = "`+imgKey+`"
[providers.openai]
api_key = "`+key+`"
api_key_env = "MY_OPENAI"
[permissions]
allow = ["read_file", "run_command(go test *)"]
`)
	cfg, _, err := e.load(map[string]string{"providers.groq.api_key": envKey}, "openai", "groq")
	require.NoError(t, err)
	entries := List(cfg)
	all := ""
	got := map[string]Entry{}
	for _, en := range entries {
		all += en.Key + "=" + en.Value + " (" + en.Source + ")\n"
		if _, seen := got[en.Key]; !seen {
			got[en.Key] = en
		}
	}
	for _, secret := range []string{key, imgKey, envKey} {
		require.NotContains(t, all, secret)
	}
	require.Equal(t, Entry{Key: "providers.openai.api_key", Value: "sk-...9999", Source: e.global() + ":4"}, got["providers.openai.api_key"])
	require.Equal(t, Entry{Key: "providers.openai.api_key_env", Value: "MY_OPENAI", Source: e.global() + ":5"}, got["providers.openai.api_key_env"])
	require.Equal(t, Entry{Key: "image_api_key", Value: "img...7777", Source: e.global() + ":2"}, got["image_api_key"])
	require.Equal(t, Entry{Key: "providers.groq.api_key", Value: "gsk...5555", Source: SourceFlag}, got["providers.groq.api_key"])
	require.Equal(t, Entry{Key: "max_tool_turns", Value: "25", Source: SourceDefault}, got["max_tool_turns"])
	require.Equal(t, Entry{Key: "temperature", Value: "", Source: SourceDefault}, got["temperature"])
	require.Equal(t, Entry{Key: "permissions.deny", Value: "[]", Source: SourceDefault}, got["permissions.deny"])
	require.Contains(t, all, `permissions.allow="run_command(go test *)" (`+e.global()+":7)")
	require.Equal(t, 2, strings.Count(all, "permissions.allow="))
}

func TestGet(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "model = \"m\"\n[providers.openai]\napi_key = \"sk-abcdefghijkl\"\n[permissions]\nallow = [\"a\", \"b(c)\"]\n")
	e.vars["AIDEX_PERMISSIONS_ALLOW"] = "d"
	cfg, _, err := e.load(nil, "openai")
	require.NoError(t, err)

	got, err := Get(cfg, "model")
	require.NoError(t, err)
	require.Equal(t, Entry{Key: "model", Value: "m", Source: e.global() + ":1"}, got)

	got, err = Get(cfg, "providers.openai.api_key")
	require.NoError(t, err)
	require.Equal(t, "sk-...ijkl", got.Value)

	got, err = Get(cfg, "permissions.allow")
	require.NoError(t, err)
	require.Equal(t, `["a", "b(c)", "d"]`, got.Value)
	require.Equal(t, e.global()+":5, env", got.Source)

	got, err = Get(cfg, "allowed_dirs")
	require.NoError(t, err)
	require.Equal(t, "[]", got.Value)

	_, err = Get(cfg, "modle")
	require.ErrorContains(t, err, `did you mean "model"?`)
	_, err = Get(cfg, "providers.nope.api_key")
	require.ErrorContains(t, err, `no provider "nope"`)
	_, err = Get(cfg, "tools")
	require.ErrorContains(t, err, "is a table")
}

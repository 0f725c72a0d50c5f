package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVisionModelsListAndTables(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "[providers.ollama]\nvision_models = [\"llava:7b\"]\n\n[providers.local]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n[providers.local.models.\"qwen2.5vl:7b\"]\nvision = true\n[providers.local.models.coder]\nvision = false\n")
	cfg, _, err := e.load(nil, "ollama")
	require.NoError(t, err)
	require.Equal(t, []string{"llava:7b"}, cfg.Providers["ollama"].VisionModels)
	require.Equal(t, []string{"qwen2.5vl:7b"}, cfg.Providers["local"].VisionModels)

	writeFile(t, e.global(), "[providers.local.models.m]\nvison = true\n")
	_, _, err = e.load(nil)
	require.ErrorContains(t, err, "a model's table takes only vision = true|false")
	writeFile(t, e.global(), "[providers.local.models]\nm = 3\n")
	_, _, err = e.load(nil)
	require.ErrorContains(t, err, "must be a table such as { vision = true }")
}

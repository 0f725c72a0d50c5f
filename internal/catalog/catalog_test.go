package catalog

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func mustLoad(t testing.TB) *Catalog {
	t.Helper()
	c, err := Load(testFormats())
	require.NoError(t, err)
	return c
}

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

var wantProviders = []string{
	"openrouter", "groq", "cerebras", "mistral", "cohere", "github", "nvidia",
	"huggingface", "zhipu", "llm7", "kluster", "anthropic", "openai", "ollama",
	"pollinations", "gemini", "custom",
}

func TestEmbeddedCatalogHasAllProviders(t *testing.T) {
	c := mustLoad(t)
	require.Equal(t, wantProviders, c.Names())
	require.Len(t, c.Providers(), 17)

	keyFree := map[string]bool{"ollama": true, "pollinations": true, "llm7": true, "custom": true}
	for _, p := range c.Providers() {
		t.Run(p.Name, func(t *testing.T) {
			require.NotNil(t, formatOf(p.formats, p.Type), "type %q", p.Type)
			require.NotEmpty(t, p.DisplayName)
			require.NotEmpty(t, p.Notes)
			require.Equal(t, !keyFree[p.Name], p.RequiresKey, "requires_key")
			if p.Name == "custom" {
				require.Empty(t, p.BaseURL, "custom's base URL comes from config")
				require.True(t, p.Custom)
				return
			}
			u, err := url.Parse(p.BaseURL)
			require.NoError(t, err)
			require.Contains(t, []string{"http", "https"}, u.Scheme)
			require.NotEmpty(t, u.Host)
			if p.Name != "ollama" {
				require.Equal(t, "https", u.Scheme, "remote providers use TLS")
			}
			require.NotEmpty(t, p.DefaultModel)
			_, ok := p.Model(p.DefaultModel)
			require.True(t, ok, "default model %q is in the list", p.DefaultModel)
			require.Equal(t, p.DefaultModel, p.Models[0].ID, "default model comes first")
			require.NotEmpty(t, p.SignupURL)
			require.NotEmpty(t, p.DocsURL)
			if p.RequiresKey {
				require.NotEmpty(t, p.KeyEnv, "a provider needing a key names its variable")
			}
			for _, m := range p.Models {
				require.NotEmpty(t, m.ID)
				if m.Price != nil {
					require.GreaterOrEqual(t, m.Price.Output, m.Price.Input, "%s: output costs at least input", m.ID)
				}
			}
		})
	}
}

func TestEmbeddedKeyVariables(t *testing.T) {
	c := mustLoad(t)
	want := map[string]string{
		"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY",
		"openrouter": "OPENROUTER_API_KEY", "groq": "GROQ_API_KEY", "mistral": "MISTRAL_API_KEY",
		"cerebras": "CEREBRAS_API_KEY", "cohere": "COHERE_API_KEY", "github": "GITHUB_TOKEN",
		"nvidia": "NVIDIA_API_KEY", "huggingface": "HF_TOKEN", "zhipu": "ZHIPU_API_KEY",
		"llm7": "LLM7_API_KEY", "kluster": "KLUSTER_API_KEY",
	}
	for name, v := range want {
		p, ok := c.Provider(name)
		require.True(t, ok, name)
		require.Equal(t, v, p.KeyEnv[0], name)
	}
	g, _ := c.Provider("gemini")
	require.Contains(t, g.KeyEnv, "GOOGLE_API_KEY")
	pol, _ := c.Provider("pollinations")
	require.Empty(t, pol.KeyEnv, "the key-free endpoint must get no key")
}

func TestEmbeddedWireTypes(t *testing.T) {
	c := mustLoad(t)
	want := map[string]WireType{
		"anthropic": WireAnthropic, "gemini": WireGemini, "ollama": WireOllama,
		"openai": WireOpenAIResponses, "groq": WireOpenAI, "custom": WireOpenAI,
	}
	for name, typ := range want {
		p, _ := c.Provider(name)
		require.Equal(t, typ, p.Type, name)
	}
}

func TestParseRejectsBadData(t *testing.T) {
	base := `auto_detect = ["a"]
local_provider = "a"
keyless_provider = "a"
`
	good := base + `[[provider]]
name = "a"
type = "openai"
base_url = "https://a.example/v1"
default_model = "m"
  [[provider.models]]
  id = "m"
`
	_, err := parse([]byte(good), testFormats())
	require.NoError(t, err)

	cases := map[string]string{
		"unknown field":    strings.Replace(good, `type = "openai"`, "type = \"openai\"\nbogus = 1", 1),
		"bad type":         strings.Replace(good, `"openai"`, `"soap"`, 1),
		"bad url":          strings.Replace(good, "https://a.example/v1", "ftp://a", 1),
		"missing default":  strings.Replace(good, `default_model = "m"`, `default_model = "x"`, 1),
		"duplicate":        good + "[[provider]]\nname = \"a\"\ntype = \"openai\"\n",
		"unknown autodect": strings.Replace(good, `auto_detect = ["a"]`, `auto_detect = ["zz"]`, 1),
		"bad name":         strings.Replace(good, `name = "a"`, `name = "A/b"`, 1),
		"not toml":         "{",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := parse([]byte(data), testFormats())
			require.Error(t, err)
		})
	}
}

func TestCatalogReturnsCopies(t *testing.T) {
	c := mustLoad(t)
	p, _ := c.Provider("anthropic")
	p.Models[0].ID = "mutated"
	p.Models[0].Price.Input = 999
	p.KeyEnv[0] = "MUTATED"
	ps := c.Providers()
	ps[0].Name = "mutated"

	again, _ := c.Provider("anthropic")
	require.Equal(t, "claude-sonnet-4-6", again.Models[0].ID)
	require.Equal(t, 3.0, again.Models[0].Price.Input)
	require.Equal(t, "ANTHROPIC_API_KEY", again.KeyEnv[0])
	require.Equal(t, "openrouter", c.Names()[0])
}

func TestModelLookup(t *testing.T) {
	c := mustLoad(t)
	m, ok := c.Model("anthropic", "claude-opus-4-6")
	require.True(t, ok)
	require.Equal(t, 200000, m.ContextWindow)
	require.Equal(t, &Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}, m.Price)
	tools, known := m.SupportsTools()
	require.True(t, tools)
	require.True(t, known)

	_, ok = c.Model("anthropic", "nope")
	require.False(t, ok)
	_, ok = c.Model("nope", "claude-opus-4-6")
	require.False(t, ok)
	_, ok = c.Provider("nope")
	require.False(t, ok)

	cer, _ := c.Model("cerebras", "llama3.1-8b")
	_, known = cer.SupportsTools()
	require.False(t, known, "unknown tool support stays unknown")
}

func TestFreeAndPaidModels(t *testing.T) {
	c := mustLoad(t)
	or, _ := c.Provider("openrouter")
	for _, m := range or.FreeModels() {
		require.True(t, strings.HasSuffix(m.ID, ":free"), m.ID)
	}
	require.NotEmpty(t, or.PaidModels())
	require.Len(t, or.Models, len(or.FreeModels())+len(or.PaidModels()))

	groq, _ := c.Provider("groq")
	require.Empty(t, groq.PaidModels(), "all_free marks every model free")
	ant, _ := c.Provider("anthropic")
	require.Empty(t, ant.FreeModels())
	gem, _ := c.Provider("gemini")
	require.Len(t, gem.FreeModels(), 2)
}

func TestGroups(t *testing.T) {
	c := mustLoad(t)
	groups := c.Groups()
	require.Len(t, groups, 3)
	names := func(g GroupedProviders) []string {
		var out []string
		for _, p := range g.Providers {
			out = append(out, p.Name)
		}
		return out
	}
	require.Equal(t, GroupNoSignup, groups[0].Group)
	require.Equal(t, []string{"llm7", "ollama", "pollinations"}, names(groups[0]))
	require.Equal(t, GroupFreeTier, groups[1].Group)
	require.Equal(t, []string{"openrouter", "groq", "cerebras", "mistral", "cohere", "github",
		"nvidia", "huggingface", "zhipu", "gemini"}, names(groups[1]))
	require.Equal(t, GroupPaid, groups[2].Group)
	require.Equal(t, []string{"kluster", "anthropic", "openai", "custom"}, names(groups[2]))

	total := 0
	for _, g := range groups {
		total += len(g.Providers)
	}
	require.Equal(t, 17, total)
}

func TestGroupRules(t *testing.T) {
	require.Equal(t, GroupPaid, Provider{Custom: true}.Group())
	require.Equal(t, GroupNoSignup, Provider{}.Group())
	require.Equal(t, GroupFreeTier, Provider{RequiresKey: true, AllFree: true}.Group())
	require.Equal(t, GroupFreeTier, Provider{RequiresKey: true, Models: []Model{{ID: "a"}, {ID: "b", Free: true}}}.Group())
	require.Equal(t, GroupPaid, Provider{RequiresKey: true, Models: []Model{{ID: "a"}}}.Group())
}

func TestGroupsIncludeOverrideProviders(t *testing.T) {
	c, err := mustLoad(t).WithOverrides(map[string]Override{
		"local-vllm": {Type: "openai", BaseURL: "http://localhost:8000/v1", Models: []string{"qwen"}},
	})
	require.NoError(t, err)
	last := c.Groups()[2]
	require.Equal(t, "local-vllm", last.Providers[len(last.Providers)-1].Name)
}

func TestAPIKeyPrecedence(t *testing.T) {
	c := mustLoad(t)
	env := envMap(map[string]string{
		"MY_OR_KEY":          "from-api-key-env",
		"OPENROUTER_API_KEY": "from-catalog-var",
	})
	or, _ := c.Provider("openrouter")
	require.Equal(t, "from-catalog-var", or.APIKey(env))
	require.Equal(t, "OPENROUTER_API_KEY", or.KeySource(env))

	c2, err := c.WithOverrides(map[string]Override{"openrouter": {APIKeyEnv: "MY_OR_KEY"}})
	require.NoError(t, err)
	or2, _ := c2.Provider("openrouter")
	require.Equal(t, "from-api-key-env", or2.APIKey(env))
	require.Equal(t, "MY_OR_KEY", or2.KeySource(env))
	require.Equal(t, "MY_OR_KEY", or2.KeyHint())
	// api_key_env unset in the environment: fall back to the catalog variable.
	require.Equal(t, "from-catalog-var", or2.APIKey(envMap(map[string]string{"OPENROUTER_API_KEY": "from-catalog-var"})))

	c3, err := c.WithOverrides(map[string]Override{"openrouter": {APIKey: " explicit ", APIKeyEnv: "MY_OR_KEY"}})
	require.NoError(t, err)
	or3, _ := c3.Provider("openrouter")
	require.Equal(t, "explicit", or3.APIKey(env))
	require.Equal(t, "config api_key", or3.KeySource(env))
	require.Equal(t, "explicit", or3.APIKey(nil), "an explicit key needs no environment")

	require.Empty(t, or.APIKey(nil), "nil env is an empty environment")
	require.Empty(t, or.KeySource(envMap(nil)))
	require.Empty(t, or.APIKey(envMap(map[string]string{"OPENROUTER_API_KEY": "  "})), "blank values are no key")
}

func TestAPIKeyAlternates(t *testing.T) {
	g, _ := mustLoad(t).Provider("gemini")
	require.Equal(t, "g", g.APIKey(envMap(map[string]string{"GOOGLE_API_KEY": "g"})))
	require.Equal(t, "m", g.APIKey(envMap(map[string]string{"GOOGLE_API_KEY": "g", "GEMINI_API_KEY": "m"})))
	require.Equal(t, "GEMINI_API_KEY", g.KeyHint())
}

func TestKeyNeverPrinted(t *testing.T) {
	c, err := mustLoad(t).WithOverrides(map[string]Override{"groq": {APIKey: "sk-secret-123"}})
	require.NoError(t, err)
	p, _ := c.Provider("groq")
	for _, s := range []string{fmt.Sprintf("%v", p), fmt.Sprintf("%+v", p), fmt.Sprintf("%#v", p),
		fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprint(c.Providers())} {
		require.NotContains(t, s, "sk-secret-123")
	}
	data, err := json.Marshal(c.Providers())
	require.NoError(t, err)
	require.NotContains(t, string(data), "sk-secret-123")
	require.Equal(t, "sk-secret-123", p.APIKey(nil))
}

func TestOverrideNewProvider(t *testing.T) {
	base := mustLoad(t)
	c, err := base.WithOverrides(map[string]Override{
		"my-vllm": {Type: "OpenAI", BaseURL: "http://gpu-box:8000/v1/", APIKeyEnv: "VLLM_KEY", Models: []string{"qwen3-coder", "llama"}},
	})
	require.NoError(t, err)
	p, ok := c.Provider("my-vllm")
	require.True(t, ok)
	require.Equal(t, WireOpenAI, p.Type)
	require.Equal(t, "http://gpu-box:8000/v1", p.BaseURL)
	require.Equal(t, "qwen3-coder", p.DefaultModel)
	require.Equal(t, []string{"qwen3-coder", "llama"}, []string{p.Models[0].ID, p.Models[1].ID})
	require.True(t, p.Custom)
	require.False(t, p.RequiresKey, "a server defined in config may take no key")
	require.Contains(t, p.NoKeyNotice(func(string) string { return "" }), "VLLM_KEY")
	require.Empty(t, p.NoKeyNotice(func(string) string { return "k" }), "a set variable: no notice")
	require.Equal(t, "k", p.APIKey(func(string) string { return "k" }))
	require.NoError(t, p.Validate())
	require.Equal(t, "my-vllm", c.Names()[len(c.Names())-1])

	_, ok = base.Provider("my-vllm")
	require.False(t, ok, "the original catalog is unchanged")
	require.Len(t, base.Names(), 17)
}

func TestOverrideCatalogProvider(t *testing.T) {
	base := mustLoad(t)
	c, err := base.WithOverrides(map[string]Override{
		"ollama":    {BaseURL: "http://10.0.0.5:11434"},
		"custom":    {BaseURL: "http://localhost:8080/v1", Models: []string{"local-model"}},
		"anthropic": {Models: []string{"claude-haiku-4-5", "claude-next"}},
		"openai":    {Type: "openai"},
	})
	require.NoError(t, err)

	ol, _ := c.Provider("ollama")
	require.Equal(t, "http://10.0.0.5:11434", ol.BaseURL)
	require.Equal(t, WireOllama, ol.Type)
	require.Equal(t, "qwen2.5-coder:7b", ol.DefaultModel, "untouched fields keep catalog values")
	orig, _ := base.Provider("ollama")
	require.Equal(t, "http://localhost:11434", orig.BaseURL)

	cu, _ := c.Provider("custom")
	require.NoError(t, cu.Validate())
	require.Equal(t, "local-model", cu.DefaultModel)

	an, _ := c.Provider("anthropic")
	require.Equal(t, "claude-haiku-4-5", an.DefaultModel, "default moves to the first listed model")
	require.Equal(t, 1.0, an.Models[0].Price.Input, "known models keep catalog data")
	require.Nil(t, an.Models[1].Price)
	require.Equal(t, "claude-next", an.Models[1].ID)

	oa, _ := c.Provider("openai")
	require.Equal(t, WireOpenAI, oa.Type)

	c2, err := base.WithOverrides(map[string]Override{"anthropic": {Models: []string{"claude-next", "claude-sonnet-4-6"}}})
	require.NoError(t, err)
	an2, _ := c2.Provider("anthropic")
	require.Equal(t, "claude-sonnet-4-6", an2.DefaultModel, "the default stays when listed")
}

func TestOverrideErrors(t *testing.T) {
	c := mustLoad(t)
	cases := []struct {
		name string
		o    map[string]Override
		want string
	}{
		{"bad type", map[string]Override{"groq": {Type: "opneai"}}, `unknown type "opneai"`},
		{"bad type lists valid", map[string]Override{"groq": {Type: "x"}}, "openai, openai-responses, anthropic, gemini, ollama"},
		{"new without type", map[string]Override{"foo": {BaseURL: "https://x.example"}}, "needs a type"},
		{"new without url", map[string]Override{"foo": {Type: "openai"}}, "needs a base_url"},
		{"bad name", map[string]Override{"My Provider": {Type: "openai", BaseURL: "https://x.example"}}, "may only use"},
		{"path name", map[string]Override{"../x": {Type: "openai", BaseURL: "https://x.example"}}, "may only use"},
		{"relative url", map[string]Override{"groq": {BaseURL: "localhost:8000"}}, "not an absolute http(s) URL"},
		{"creds in url", map[string]Override{"groq": {BaseURL: "https://u:p@x.example"}}, "must not carry credentials"},
		{"bad env name", map[string]Override{"groq": {APIKeyEnv: "sk-abc-123"}}, "not an environment variable name"},
		{"empty model", map[string]Override{"groq": {Models: []string{"a", " "}}}, "empty model id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.WithOverrides(tc.o)
			require.Error(t, err)
			require.Nil(t, out)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestValidate(t *testing.T) {
	c := mustLoad(t)
	cu, _ := c.Provider("custom")
	err := cu.Validate()
	require.ErrorContains(t, err, "custom_base_url")
	c2, err := c.WithOverrides(map[string]Override{"custom": {BaseURL: "http://localhost:1/v1"}})
	require.NoError(t, err)
	cu2, _ := c2.Provider("custom")
	require.ErrorContains(t, cu2.Validate(), "custom_chat_model")
	for _, p := range c.Providers() {
		if p.Name != "custom" {
			require.NoError(t, p.Validate(), p.Name)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(testFormats()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWithOverrides(b *testing.B) {
	c := mustLoad(b)
	o := map[string]Override{"ollama": {BaseURL: "http://10.0.0.5:11434"}, "custom": {BaseURL: "http://x:1/v1", Models: []string{"m"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.WithOverrides(o); err != nil {
			b.Fatal(err)
		}
	}
}

package catalog

import (
	"encoding/json"
	"math"
	"testing"
)

// checkModels asserts the invariants every parser guarantees: ids set, token
// counts in range, prices finite and encodable (the cache stores them as JSON).
func checkModels(t *testing.T, ms []Model) {
	t.Helper()
	for _, m := range ms {
		if m.ID == "" {
			t.Fatalf("model without id: %+v", m)
		}
		if m.ContextWindow < 0 || m.ContextWindow > maxTokens || m.MaxOutput < 0 || m.MaxOutput > maxTokens {
			t.Fatalf("token counts out of range: %+v", m)
		}
		if p := m.Price; p != nil {
			for _, v := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("bad price %+v", p)
				}
			}
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("model does not encode: %v", err)
		}
		_ = PriceLabel(m)
		_ = ContextLabel(m.ContextWindow)
	}
}

func FuzzParseOpenAIModels(f *testing.F) {
	for _, s := range []string{openRouterBody, groqBody, mistralBody, githubBody, hfBody, pollinationsBody,
		`{"models":[{"id":"a"}]}`, `[]`, `{"data":[]}`, `{"data":null}`, `{"data":[1,"x",{"id":7},{"id":"ok","pricing":{"prompt":"1e308","completion":"1"}}]}`,
		`{"data":[{"id":"x","context_length":"131072","pricing":{"input":"NaN","output":1}}]}`, `<html>`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms, err := parseOpenAIModels(body)
		if err != nil {
			if ms != nil {
				t.Fatal("models returned with an error")
			}
			return
		}
		checkModels(t, ms)
	})
}

func FuzzParseAnthropicPage(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"id":"claude-x","display_name":"X","max_input_tokens":200000}],"has_more":true,"last_id":"claude-x"}`,
		`{"data":[]}`, `{}`, `{"data":[{"id":1}]}`, `{"data":[{"id":"a","max_tokens":-5}]}`, `null`, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms, _, _, err := parseAnthropicPage(body)
		if err == nil {
			checkModels(t, ms)
		}
	})
}

func FuzzParseGeminiPage(f *testing.F) {
	for _, s := range []string{
		`{"models":[{"name":"models/gemini-2.5-flash","inputTokenLimit":1048576,"supportedGenerationMethods":["generateContent"]}],"nextPageToken":"t"}`,
		`{}`, `{"models":[{"name":"models/","supportedGenerationMethods":["generateContent"]}]}`, `{"models":"x"}`, `7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms, _, err := parseGeminiPage(body)
		if err == nil {
			checkModels(t, ms)
			if !json.Valid(body) {
				t.Fatal("accepted invalid JSON")
			}
		}
	})
}

func FuzzParseOllamaTags(f *testing.F) {
	for _, s := range []string{ollamaBody, `{"models":[]}`, `{"models":[{"model":"m"}]}`, `{}`, `{"models":[null,{}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms, err := parseOllamaTags(body)
		if err == nil {
			checkModels(t, ms)
			for _, m := range ms {
				if !m.Free {
					t.Fatalf("local model %q not free", m.ID)
				}
			}
		}
	})
}

// FuzzWithOverrides checks that config overrides never panic and that an
// accepted override yields a usable, well-formed provider.
func FuzzWithOverrides(f *testing.F) {
	f.Add("my-llm", "openai", "http://localhost:8000/v1", "MY_KEY", "model-a")
	f.Add("ollama", "", "http://10.0.0.1:11434", "", "")
	f.Add("groq", "gemini", "https://x", "", "m")
	f.Add("../etc", "openai", "file:///etc/passwd", "A=B", "")
	f.Add("x", "OPENAI", "https://user:pw@host/v1", "", " ")
	c, err := Load(testFormats())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, typ, baseURL, keyEnv, model string) {
		o := Override{Type: typ, BaseURL: baseURL, APIKeyEnv: keyEnv}
		if model != "" {
			o.Models = []string{model}
		}
		out, err := c.WithOverrides(map[string]Override{name: o})
		if err != nil {
			return
		}
		p, ok := out.Provider(name)
		if !ok {
			t.Fatalf("accepted override for %q but no provider", name)
		}
		if validName(p.Name) != nil || formatOf(p.formats, p.Type) == nil {
			t.Fatalf("accepted bad provider %+v", p)
		}
		if p.BaseURL != "" && validURL(p.Name, "base_url", p.BaseURL) != nil {
			t.Fatalf("accepted bad base URL %q", p.BaseURL)
		}
		if len(c.Names()) != 17 {
			t.Fatal("the base catalog changed")
		}
	})
}

func FuzzContextLabel(f *testing.F) {
	for _, n := range []int{0, 1, 999, 1000, 1024, 131072, 1048576, 1 << 40, -1} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int) {
		s := ContextLabel(n)
		if (n > 0) != (s != "") {
			t.Fatalf("ContextLabel(%d) = %q", n, s)
		}
	})
}

package catalog

import "testing"

func TestProviderLocal(t *testing.T) {
	cases := []struct {
		typ  WireType
		base string
		want bool
	}{
		{WireOllama, "https://ollama.com", false}, // the local format is internal/app's fact (wire.Format.Local)
		{WireOllama, "http://localhost:11434", true},
		{WireOpenAI, "http://127.0.0.1:8080/v1", true},
		{WireOpenAI, "http://127.1.2.3:1234/v1", true},
		{WireOpenAI, "http://localhost:1234/v1", true},
		{WireOpenAI, "http://LOCALHOST./v1", true},
		{WireOpenAI, "http://[::1]:8000/v1", true},
		{WireOpenAI, "https://api.openai.com/v1", false},
		{WireOpenAI, "http://192.168.1.5:11434/v1", false},
		{WireOpenAI, "http://localhost.example.com/v1", false},
		{WireAnthropic, "", false},
		{WireOpenAI, "::bad", false},
	}
	for _, c := range cases {
		if got := (Provider{Name: "p", Type: c.typ, BaseURL: c.base}).Local(); got != c.want {
			t.Errorf("%s %q: Local() = %v, want %v", c.typ, c.base, got, c.want)
		}
	}
}

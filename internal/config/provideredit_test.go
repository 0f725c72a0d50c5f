package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// AddProvider appends the table and keeps the rest of the file, comments
// included, byte for byte; the result loads with the provider in it.
func TestAddProviderKeepsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	orig := "# my settings\nmodel = \"x\" # the model\n\n[providers.groq]\napi_key_env = \"G\" # keep me\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AddProvider(path, "local", ProviderConfig{Type: "openai", BaseURL: "http://127.0.0.1:8080/v1", APIKeyEnv: "LOCAL_API_KEY", Models: []string{"qwen3"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), orig) {
		t.Fatalf("the file's content was not kept:\n%s", data)
	}
	doc, err := parseFile(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.providers["local"]; !ok {
		t.Fatalf("no [providers.local] after the edit:\n%s", data)
	}
	want := "[providers.local]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\napi_key_env = \"LOCAL_API_KEY\"\nmodels = [\"qwen3\"]\n"
	if !strings.HasSuffix(string(data), "\n\n"+want) {
		t.Errorf("appended table:\n%s", data)
	}
}

// Bad input is refused without touching the file: a name already there,
// a malformed name, a file that does not parse.
func TestAddProviderRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, file, provider, want string
	}{
		{"duplicate", "[providers.local]\nbase_url = \"http://a/v1\"\ntype = \"openai\"\n", "local", "already in"},
		{"dotted name", "", "a.b", "may only use"},
		{"broken file", "model = \n", "local", ".toml:1:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".toml")
			if c.file != "" {
				if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := AddProvider(path, c.provider, ProviderConfig{Type: "openai", BaseURL: "http://b/v1"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want it to contain %q", err, c.want)
			}
			data, _ := os.ReadFile(path)
			if string(data) != c.file {
				t.Errorf("file changed:\n%s", data)
			}
		})
	}
}

// FuzzAddProvider: whatever the name, URL, variable and model, AddProvider
// either refuses and leaves the file as it was, or writes a file that
// still parses, keeps the old content as its start and holds the provider.
func FuzzAddProvider(f *testing.F) {
	f.Add("local", "http://127.0.0.1:8080/v1", "LOCAL_API_KEY", "qwen3", "# c\nmodel = \"x\"\n")
	f.Add("a\"b", "http://x/\"]\n[evil]", "K\nL", "m\"]", "")
	f.Add("gpu-box", "https://gpu.example/v1", "", "", "[providers.gpu-box]\ntype = \"openai\"\nbase_url = \"http://a/v1\"\n")
	f.Fuzz(func(t *testing.T, name, url, keyEnv, model, orig string) {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
			t.Fatal(err)
		}
		var models []string
		if model != "" {
			models = []string{model}
		}
		err := AddProvider(path, name, ProviderConfig{Type: "openai", BaseURL: url, APIKeyEnv: keyEnv, Models: models})
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if string(data) != orig {
				t.Fatalf("a refused add changed the file: %v\n%q", err, data)
			}
			return
		}
		doc, perr := parseFile(path, data)
		if perr != nil {
			t.Fatalf("the written file does not parse: %v\n%q", perr, data)
		}
		if _, ok := doc.providers[name]; !ok || !strings.HasPrefix(string(data), orig) {
			t.Fatalf("provider %q missing or old content changed:\n%q", name, data)
		}
	})
}

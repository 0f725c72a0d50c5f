package config

import (
	"os"
	"slices"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"",
	"model = \"m\"\n",
	"# c\nprovider = \"openai\"\nmax_tool_turns = 7\ntemperature = 0.5\n",
	"[permissions]\nallow = [\"run_command(go test *)\"]\ndeny = []\nask = [\n  \"a\", # c\n]\n",
	"[tools]\nprofile = \"full\"\nenabled = [\"x\"]\n",
	"[providers.local]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\napi_key_env = \"K\"\nmodels = [\"a\"]\n",
	"providers = { groq = { api_key = \"k\" } }\n",
	"[providers]\ngroq.type = \"openai\"\n",
	"modle = 1\nstream = \"x\"\n",
	"[[tools]]\nx = 1\n",
	"a.b.c.d = 1\n[a.b]\n",
	"model = \"\\u0000\"\r\nstream = true\r\n",
	"compaction_threshold = nan\ntemperature = inf\n",
	"[providers.\"\"]\ntype = \"x\"\n",
	"x = [[[[[[[[1]]]]]]]]\n",
}

// FuzzLoad checks that loading any global and project file never panics, and that a
// successful load gives a config that can be listed.
func FuzzLoad(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "")
		f.Add("", s)
	}
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, global, project string) {
		if err := os.MkdirAll(e.paths.ConfigDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(e.global(), []byte(global), 0o600); err != nil {
			t.Fatal(err)
		}
		writeFile(t, e.project(), project)
		cfg, _, err := Load(LoadOptions{Getenv: e.env, Workspace: e.ws, KnownProviders: []string{"openai", "groq"}, NoLegacyImport: true})
		if err != nil {
			if cfg != nil {
				t.Fatal("config returned with an error")
			}
			return
		}
		_ = List(cfg)
	})
}

// FuzzSet checks that Set never panics on any file, and that when it succeeds the file
// loads and holds the new value.
func FuzzSet(f *testing.F) {
	keys := []string{"model", "max_tool_turns", "temperature", "tools.profile", "tools.disabled",
		"permissions.allow", "providers.groq.api_key", "providers.local.type", "stream", "allowed_dirs"}
	values := []string{"m", "5", "0.2", "readonly", "a, b", "run_command(go *)", "k", "openai", "false", "/x"}
	for _, s := range fuzzSeeds {
		for i := range keys {
			f.Add(s, uint8(i), values[i])
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, initial string, k uint8, value string) {
		key := keys[int(k)%len(keys)]
		path := dir + "/config.toml"
		if err := os.WriteFile(path, []byte(initial), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := Set(path, key, value); err != nil {
			return
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parseFile(path, data)
		if err != nil {
			t.Fatalf("Set wrote a file that does not load: %v\n%s", err, data)
		}
		s, provider, _ := resolveKey(specs(), key)
		want, _ := fromString(s.kind, value)
		found := false
		for _, st := range doc.settings {
			if st.spec.name == s.name && st.provider == provider {
				found = tomlLiteral(st.value) == tomlLiteral(want) ||
					(s.kind == kindRules && slices.Equal(st.value.([]string), want.([]string)))
			}
		}
		if !found {
			t.Fatalf("after Set(%q, %q) the file does not hold the value:\n%s", key, value, data)
		}
	})
}

// FuzzParseMCPJSON: any .mcp.json is servers, warnings naming lines within
// the file, or an error naming the file; never a panic.
func FuzzParseMCPJSON(f *testing.F) {
	f.Add(`{"mcpServers": {"a": {"command": "x", "colour": 1, "oauth": {"clientId": "c", "k": 2}}}}`)
	f.Add(`{"mcpServers": {"b": {"type": "http", "url": "https://h/mcp", "startup_timeout_ms": 5}}}`)
	f.Add(`{"mcpServers": {"c": {"url": [1, {"x": [2]}]}}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		_, warns, err := ParseMCPJSON("/p/.mcp.json", []byte(doc), func(string) string { return "" })
		if err != nil && !strings.Contains(err.Error(), "/p/.mcp.json") {
			t.Fatalf("error without the file: %v", err)
		}
		lines := strings.Count(doc, "\n") + 1
		for _, w := range warns {
			if w.Line < 0 || w.Line > lines || w.File != "/p/.mcp.json" {
				t.Fatalf("warning outside the file: %+v", w)
			}
		}
	})
}

package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// IpticFile is iptic-memex's user config file, ~/.config/iptic-memex/config.ini
// (iptic-memex uses that path on every OS); its models.ini is beside it.
func IpticFile(p Paths) string {
	return filepath.Join(p.Home, ".config", "iptic-memex", "config.ini")
}

// AyderFile is ayder-cli's config file, ~/.ayder/config.toml.
func AyderFile(p Paths) string {
	return filepath.Join(p.Home, ".ayder", "config.toml")
}

// foreign is another tool's settings in aidex's shape (m, as the legacy
// JSON import takes it) and the names of its settings aidex has no
// setting for (skipped, "SECTION.key").
type foreign struct {
	m       map[string]any
	skipped []string
}

func (f *foreign) set(path []string, v any) {
	m := f.m
	for _, k := range path[:len(path)-1] {
		sub, ok := m[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	m[path[len(path)-1]] = v
}

// ImportForeign converts iptic-memex's config.ini (with models.ini beside
// it) or ayder-cli's config.toml (file; which one by its extension) into
// the global config file once, like ImportLegacy: nothing happens when
// config.toml exists or file does not. API keys go to [providers.NAME]
// api_key in config.toml (the file aidex keeps keys in, mode 0600) and are
// never shown. notice is one line naming the keys taken and the settings
// not taken (names only, never values).
//
// Errors: file is not valid INI or TOML; I/O failures.
func ImportForeign(p Paths, file string, knownProviders ...string) (imported bool, notice Warning, err error) {
	return importForeign(p, file, specs(), knownProviders)
}

// importForeign is ImportForeign checking values against the key specs ss.
func importForeign(p Paths, file string, ss []keySpec, knownProviders []string) (imported bool, notice Warning, err error) {
	if _, err := os.Stat(p.ConfigFile); err == nil || !errors.Is(err, fs.ErrNotExist) {
		if err != nil {
			return false, Warning{}, fmt.Errorf("config: %w", err)
		}
		return false, Warning{}, nil
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, Warning{}, nil
	}
	if err != nil {
		return false, Warning{}, fmt.Errorf("config: read %s: %w", file, err)
	}
	var f foreign
	li := legacyImport{file: file, known: knownProviders, ss: ss}
	if strings.EqualFold(filepath.Ext(file), ".ini") {
		f, err = readIptic(file, data)
		li.text = true
	} else {
		f, err = readAyder(file, data)
	}
	if err != nil {
		return false, Warning{}, err
	}
	li.object(nil, f.m)
	out := []byte("# Imported from " + file + " by aidex.\n")
	var taken []string
	for _, e := range li.entries {
		if out, err = setInDoc(out, e.path, e.literal); err != nil {
			li.warn(displayPath(e.path), "not imported: "+err.Error())
			continue
		}
		taken = append(taken, displayPath(e.path))
	}
	if err := writeChecked(p.ConfigFile, out); err != nil {
		return false, Warning{}, err
	}
	for _, w := range li.warnings {
		f.skipped = append(f.skipped, w.Key)
	}
	return true, Warning{File: file, Message: foreignNotice(p.ConfigFile, taken, f.skipped)}, nil
}

// foreignNotice is the one line ImportForeign reports: the keys taken and
// the settings left (at most 8 named).
func foreignNotice(config string, taken, skipped []string) string {
	msg := "imported into " + config + ": "
	if len(taken) == 0 {
		msg += "nothing"
	} else {
		msg += strings.Join(taken, ", ")
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		more := ""
		if len(skipped) > 8 {
			more = fmt.Sprintf(" and %d more", len(skipped)-8)
			skipped = skipped[:8]
		}
		msg += "; not taken (no aidex setting, or an invalid value): " + strings.Join(skipped, ", ") + more
	}
	return msg + " (the file is no longer read; `aidex config list` shows the result, keys masked)"
}

// iniFile is a parsed INI file: section → key → value, keys lower-cased
// (Python configparser's rules: "key = value" or "key: value", "#" and
// ";" comment lines, values of [DEFAULT] apply to every section).
type iniFile map[string]map[string]string

// parseINI reads an INI file; name is used in errors. Lines outside a
// section go to DEFAULT; a line that is neither a section, a key nor a
// comment is an error naming its line.
func parseINI(name string, data []byte) (iniFile, error) {
	ini := iniFile{"DEFAULT": {}}
	section := "DEFAULT"
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			section = strings.TrimSpace(line[1 : len(line)-1])
			if ini[section] == nil {
				ini[section] = map[string]string{}
			}
		default:
			i := strings.IndexAny(line, "=:")
			if i <= 0 {
				return nil, fmt.Errorf("config: %s:%d: not an INI line (want \"key = value\" or \"[section]\")", name, n)
			}
			ini[section][strings.ToLower(strings.TrimSpace(line[:i]))] = strings.TrimSpace(line[i+1:])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("config: read %s: %w", name, err)
	}
	return ini, nil
}

// ipticProvider maps iptic-memex's provider section names to aidex's
// catalog providers where they differ ("Google" is Gemini); others are
// lower-cased.
func ipticProvider(section string) string {
	switch p := strings.ToLower(section); p {
	case "google":
		return "gemini"
	case "localhost", "llamacpp":
		return "custom"
	default:
		return p
	}
}

// readIptic maps iptic-memex's config.ini and models.ini to aidex's keys:
// [DEFAULT] default_model (through models.ini's provider and model_name),
// temperature, max_tokens, stream, session_budget; [AGENT] and [TOOLS]
// keys of the same names; a provider section's api_key, base_url and
// reasoning settings.
func readIptic(file string, data []byte) (foreign, error) {
	ini, err := parseINI(file, data)
	if err != nil {
		return foreign{}, err
	}
	f := foreign{m: map[string]any{}}
	def := ini["DEFAULT"]
	if name := def["default_model"]; name != "" {
		models, _ := os.ReadFile(filepath.Join(filepath.Dir(file), "models.ini"))
		mi, _ := parseINI("models.ini", models)
		model := mi[name]
		if model["model_name"] != "" {
			name = model["model_name"]
		}
		f.set([]string{"model"}, name)
		if model["provider"] != "" {
			f.set([]string{"provider"}, ipticProvider(model["provider"]))
		}
	}
	direct := map[string][]string{"temperature": {"temperature"}, "max_tokens": {"max_tokens"}, "stream": {"stream"},
		"session_budget": {"budget", "session_usd"}, "default_model": nil}
	for k, v := range def {
		if path, ok := direct[k]; ok && path != nil {
			f.set(path, v)
		} else if !ok {
			f.skipped = append(f.skipped, "DEFAULT."+k)
		}
	}
	for section, keys := range ini {
		if section == "DEFAULT" {
			continue
		}
		f.ipticSection(section, keys)
	}
	return f, nil
}

func (f *foreign) ipticSection(section string, keys map[string]string) {
	for k, v := range keys {
		switch {
		case section == "AGENT" || section == "TOOLS":
			f.set([]string{strings.ToLower(section), k}, v)
		case k == "api_key" || k == "base_url" || k == "stream_options":
			f.set([]string{"providers", ipticProvider(section), k}, v)
		case k == "reasoning_effort" || k == "verbosity" || k == "bill_reasoning_as_output":
			f.set([]string{k}, v)
		default:
			f.skipped = append(f.skipped, section+"."+k)
		}
	}
}

// readAyder maps ayder-cli's config.toml to aidex's keys: [llm] (or
// [llm.NAME] named by [app] provider) base_url, api_key, model, num_ctx.
// A base URL on Ollama's port is the ollama provider, one of a catalog
// provider's host that provider, any other the custom provider.
func readAyder(file string, data []byte) (foreign, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return foreign{}, fmt.Errorf("config: %s: %w", file, err)
	}
	f := foreign{m: map[string]any{}}
	llm, _ := doc["llm"].(map[string]any)
	app, _ := doc["app"].(map[string]any)
	if name, _ := app["provider"].(string); name != "" {
		if sub, ok := llm[name].(map[string]any); ok {
			llm = sub
		}
	}
	base, _ := llm["base_url"].(string)
	provider := ayderProvider(base)
	for k, v := range llm {
		switch k {
		case "model":
			f.set([]string{"model"}, v)
		case "num_ctx":
			f.set([]string{"context_window"}, v)
		case "api_key":
			if v != "ollama" && provider != "ollama" { // ayder's placeholder for key-less Ollama
				f.set([]string{"providers", provider, "api_key"}, v)
			}
		case "base_url":
		default:
			if _, table := v.(map[string]any); !table {
				f.skipped = append(f.skipped, "llm."+k)
			}
		}
	}
	if base != "" {
		f.set([]string{"provider"}, provider)
		f.setAyderBase(provider, base)
	}
	for k := range doc {
		if k != "llm" {
			f.skipped = append(f.skipped, k)
		}
	}
	return f, nil
}

func (f *foreign) setAyderBase(provider, base string) {
	switch provider {
	case "ollama":
		f.set([]string{"ollama_base_url"}, strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1"))
	case "custom":
		f.set([]string{"custom_base_url"}, base)
		if m, ok := f.m["model"].(string); ok {
			f.set([]string{"custom_chat_model"}, m)
		}
	}
}

// ayderProvider names the aidex provider of an OpenAI-compatible base URL.
func ayderProvider(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "custom"
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case u.Port() == "11434":
		return "ollama"
	case host == "api.openai.com":
		return "openai"
	case strings.HasSuffix(host, "openrouter.ai"):
		return "openrouter"
	case host == "api.anthropic.com":
		return "anthropic"
	case host == "api.groq.com":
		return "groq"
	case host == "generativelanguage.googleapis.com":
		return "gemini"
	case host == "api.mistral.ai":
		return "mistral"
	}
	return "custom"
}

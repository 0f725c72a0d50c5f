package config

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Entry is one key for display (`aidex config list`, `aidex config get`).
type Entry struct {
	Key    string // dotted key: "model", "tools.profile", "providers.groq.api_key"
	Value  string // TOML-like text ("25", "true", `["a", "b"]`); secrets masked; "" when unset
	Source string // SourceDefault, SourceEnv, SourceFlag or "PATH:LINE"
}

// List returns every key outside [providers] in schema order, then one entry per permission
// rule (an empty rule list gives one entry "[]"), then each provider's non-empty keys, by
// provider name. Secrets (keys that are or end in api_key) are masked with Mask.
func List(cfg *Config) []Entry {
	var out []Entry
	ss := specs()
	for _, s := range ss {
		if s.provider {
			continue
		}
		if s.kind == kindRules {
			out = append(out, ruleEntries(cfg, s)...)
			continue
		}
		out = append(out, entryOf(cfg, s, ""))
	}
	names := make([]string, 0, len(cfg.Providers))
	for name := range cfg.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, s := range ss {
			if !s.provider {
				continue
			}
			if e := entryOf(cfg, s, name); e.Value != "" && e.Value != "[]" {
				out = append(out, e)
			}
		}
	}
	return out
}

func ruleEntries(cfg *Config, s keySpec) []Entry {
	rules, _ := cfg.value(s, "").([]Rule)
	if len(rules) == 0 {
		return []Entry{{Key: s.name, Value: "[]", Source: SourceDefault}}
	}
	out := make([]Entry, len(rules))
	for i, r := range rules {
		out[i] = Entry{Key: s.name, Value: tomlString(r.Text), Source: r.Source}
	}
	return out
}

// Get returns the entry of one key ("max_tool_turns", "providers.groq.base_url"), secrets
// masked. For a rule list the Value is the array of all rules and the Source lists their
// distinct sources, comma-separated. Errors: unknown key (with a suggestion), a table name,
// an unknown provider.
func Get(cfg *Config, key string) (Entry, error) {
	s, provider, err := resolveKey(specs(), key)
	if err != nil {
		return Entry{}, err
	}
	if s.provider {
		if _, ok := cfg.Providers[provider]; !ok {
			return Entry{}, fmt.Errorf("no provider %q in the configuration", provider)
		}
	}
	if s.kind != kindRules {
		return entryOf(cfg, s, provider), nil
	}
	rules, _ := cfg.value(s, "").([]Rule)
	texts := make([]string, len(rules))
	var sources []string
	for i, r := range rules {
		texts[i] = r.Text
		if !slices.Contains(sources, r.Source) {
			sources = append(sources, r.Source)
		}
	}
	if len(sources) == 0 {
		sources = []string{SourceDefault}
	}
	return Entry{Key: s.name, Value: formatValue(texts), Source: strings.Join(sources, ", ")}, nil
}

func entryOf(cfg *Config, s keySpec, provider string) Entry {
	key := dottedKey(s, provider)
	v := cfg.value(s, provider)
	var text string
	if str, ok := v.(string); ok && s.secret() {
		text = Mask(str)
	} else {
		text = formatValue(v)
	}
	source := cfg.Sources[key]
	if source == "" {
		source = SourceDefault
	}
	return Entry{Key: key, Value: text, Source: source}
}

// formatValue renders a value for display: strings bare, lists as TOML arrays, nil as "".
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []string:
		return tomlArray(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// Mask hides a secret for display: the first 3 characters, "...", the last 4
// ("sk-...abcd"). Secrets shorter than 12 characters give "****"; "" stays "".
func Mask(secret string) string {
	if secret == "" {
		return ""
	}
	if utf8.RuneCountInString(secret) < 12 {
		return "****"
	}
	r := []rune(secret)
	return string(r[:3]) + "..." + string(r[len(r)-4:])
}

// tomlLiteral renders a typed value (string, bool, int, float64, []string) as TOML.
func tomlLiteral(v any) string {
	switch x := v.(type) {
	case string:
		return tomlString(x)
	case []string:
		return tomlArray(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

func tomlArray(l []string) string {
	parts := make([]string, len(l))
	for i, s := range l {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// tomlString quotes s as a TOML basic string (https://toml.io/en/v1.0.0#string).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// quoteKey returns a TOML key part: bare when it is only A-Z a-z 0-9 _ -, else quoted.
func quoteKey(k string) string {
	if k == "" {
		return `""`
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c != '_' && c != '-' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return tomlString(k)
		}
	}
	return k
}

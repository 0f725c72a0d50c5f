package config

import (
	"bytes"
	"fmt"
	"strings"
)

// AddProvider appends a [providers.NAME] table for p to the TOML file at
// path (created, with its folders, when missing): `aidex providers add`
// and the `/provider` → custom flow. Only p's Type, BaseURL, APIKeyEnv and
// Models are written (an API key belongs in the environment or in
// `aidex config set providers.NAME.api_key`). The rest of the file,
// comments included, is kept byte for byte; the file is written atomically
// with mode 0600 and only when the result still loads.
//
// Errors: an empty or malformed name, a provider of that name already in
// the file (naming the line and how to change it), a file that does not
// parse or would not load after the edit, and I/O failures.
func AddProvider(path, name string, p ProviderConfig) error {
	if name == "" || strings.ContainsAny(name, ".\"' \t\n[]") {
		return fmt.Errorf("config: provider name %q may only use a-z, 0-9, '-' and '_'", name)
	}
	data, err := readForEdit(path)
	if err != nil {
		return err
	}
	if len(data) > 0 {
		doc, err := parseFile(path, data)
		if err != nil {
			return err
		}
		if line, ok := doc.providers[name]; ok {
			return fmt.Errorf("config: provider %q is already in %s (line %d): edit it there, or change one key with `aidex config set providers.%s.base_url URL`", name, path, line, name)
		}
	}
	return appendTable(path, data, providerTable(name, p))
}

// providerTable writes p as a [providers.NAME] table.
func providerTable(name string, p ProviderConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[providers.%s]\n", quoteKey(name))
	kv := func(k, v string) { fmt.Fprintf(&b, "%s = %s\n", k, v) }
	if p.Type != "" {
		kv("type", tomlString(p.Type))
	}
	if p.BaseURL != "" {
		kv("base_url", tomlString(p.BaseURL))
	}
	if p.APIKeyEnv != "" {
		kv("api_key_env", tomlString(p.APIKeyEnv))
	}
	if len(p.Models) > 0 {
		kv("models", tomlArray(p.Models))
	}
	return b.String()
}

// appendTable writes the file at path as data (its bytes, kept) followed
// by a blank line and table, checked and atomically (writeChecked).
func appendTable(path string, data []byte, table string) error {
	var b bytes.Buffer
	b.Write(data)
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteByte('\n')
	}
	if len(data) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(table)
	return writeChecked(path, b.Bytes())
}
